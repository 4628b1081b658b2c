"""Replayed input names any pyglet key and holds its modifiers on every event type, and no
replayed wheel can break the camera."""
import numpy as np
import pytest

from rig.formats.jsonfields import FileFormatError
from tests.ui.test_auto_ik import start_auto_ik
from ui.replay import events_from_dict


@pytest.mark.parametrize("name", ["NUM_5", "num_decimal", "PAGEUP", "F12", "7", "ESCAPE"])
def test_pyglet_key_names_are_accepted(name):
    [event] = events_from_dict({"events": [{"type": "key", "key": name}]})
    assert event["key"] == name


@pytest.mark.parametrize("name", ["MOD_CTRL", "NUM 5", "", "NOSUCHKEY"])
def test_names_that_are_no_key_are_refused(name):
    with pytest.raises(FileFormatError, match="pyglet's key names"):
        events_from_dict({"events": [{"type": "key", "key": name}]}, "events.json")


def test_numpad_5_replayed_toggles_the_projection(driver):
    before = driver.state.camera.orthographic
    driver.play(events_from_dict({"events": [{"type": "key", "key": "NUM_5"}]}))
    assert driver.state.camera.orthographic != before


def test_ctrl_wheel_replayed_changes_the_auto_ik_chain(driver):
    x, y, _ = start_auto_ik(driver, "head", 0.6)
    driver.play(events_from_dict({"events": [{"type": "scroll", "x": x, "y": y, "dy": -1, "mods": ["ctrl"]}]}))
    assert driver.state.auto_ik_length == 1
    distance = driver.state.camera.distance
    driver.play(events_from_dict({"events": [{"type": "scroll", "x": x, "y": y, "dy": -1}]}))
    assert driver.state.auto_ik_length == 1 and driver.state.camera.distance > distance  # Ctrl was let go


@pytest.mark.parametrize("clicks", [-1e4, 1e4, -1e300])
def test_a_huge_replayed_wheel_keeps_the_camera_finite(driver, clicks):
    middle = driver.app.window.width / 2, driver.app.window.height / 2  # over the viewport, not a panel
    distance = driver.state.camera.distance
    driver.play(events_from_dict({"events": [{"type": "scroll", "x": middle[0], "y": middle[1], "dy": clicks}]}))
    camera = driver.state.camera
    assert camera.distance != distance  # the wheel reached the camera
    assert np.isfinite([camera.distance, camera.ortho_scale]).all() and 1e-3 <= camera.distance <= 1e7
    assert np.isfinite(driver.state.world).all()
