"""Progressive anti-aliasing: single-sample frames while the scene moves, then one multisampled
picture that idle frames reuse."""
import numpy as np


def edge_levels(image):
    """How many distinct grey levels the picture has: multisampled edges add in-between shades."""
    return len(np.unique(image.reshape(-1, 3), axis=0))


def test_moving_scene_draws_single_sample_and_settles_to_multisampled(driver):
    app, state = driver.app, driver.state
    settled = app.read_rgb()
    state.camera.orbit(0.3, 0.0)
    app.frame()
    moving = app.read_rgb()
    assert app.still_scene is None
    app.frame()
    still = app.read_rgb()
    assert app.still_scene == app.last_scene
    # Same view, so the same picture up to anti-aliasing, which adds shades along every edge.
    assert np.abs(moving.astype(int) - still.astype(int)).max() > 0
    assert edge_levels(still) > edge_levels(moving)
    app.frame()
    np.testing.assert_array_equal(app.read_rgb(), still)
    assert not np.array_equal(settled, still)
