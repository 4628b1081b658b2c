"""ImGui drawn over the scene with the panels' pixels kept between frames: every frame the same, bit for bit, as
drawing every list whole, while a drag redraws only a small part of the panels."""
import numpy as np
import pytest

from render.capture import OffscreenTarget
from tests.ui.conftest import resize
from ui.imgui_renderer import intersect, outside, union


def test_rectangle_helpers():
    assert intersect((0, 0, 10, 10), (5, 5, 20, 20)) == (5, 5, 10, 10)
    assert intersect((0, 0, 10, 10), (10, 0, 20, 10)) is None
    assert union(None, (1, 2, 3, 4)) == (1, 2, 3, 4)
    assert union((0, 5, 3, 6), (1, 2, 3, 4)) == (0, 2, 3, 6)
    assert outside((0, 0, 8, 6), 8, 6) == []
    parts = outside((2, 1, 6, 4), 8, 6)
    assert sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in parts) == 8 * 6 - 4 * 3
    assert all(intersect(a, b) is None for i, a in enumerate(parts) for b in parts[i + 1:] + [(2, 1, 6, 4)])


@pytest.fixture
def checked(driver):
    """Each frame's ImGui drawn twice over the same scene: as the window draws it (only the
    changed rectangles of the panels redrawn) and then whole, as if the frame were new (every list
    drawn whole); the window keeps the second. Yields the driver, the list of (changed parts,
    whole) pictures and the pixels redrawn outside the scene's region in each frame."""
    app, renderer = driver.app, driver.app.imgui
    render_over, damage = renderer.render_over, renderer._damage
    pictures, damaged, spares = [], [], {}

    def counted_damage(*args):
        rects = damage(*args)
        damaged.append(sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in rects))
        return rects

    def picture(frame):
        renderer.present(frame, frame.fbo)
        return frame.read_rgb()

    def both(draw_data, scene, region, frame, on_scene=False):
        if frame.size not in spares:
            spares[frame.size] = OffscreenTarget(app.ctx, *frame.size, samples=0, depth=False)
        spare = spares[frame.size]
        app.ctx.copy_framebuffer(spare.fbo, scene.colour_fbo)  # a scene drawn on is drawn on twice
        render_over(draw_data, scene, region, frame, on_scene)
        changed_parts = picture(frame)
        app.ctx.copy_framebuffer(scene.colour_fbo, spare.fbo)
        renderer.cached = None
        render_over(draw_data, scene, region, frame, on_scene)
        damaged.pop()  # the whole draw's
        pictures.append((changed_parts, picture(frame)))

    renderer.render_over, renderer._damage = both, counted_damage
    yield driver, pictures, damaged
    for spare in spares.values():
        spare.release()


def assert_all_same(pictures):
    for number, (cached, whole) in enumerate(pictures):
        differing = np.argwhere(np.any(cached != whole, axis=2))
        assert not len(differing), f"frame {number}: {len(differing)} pixels differ, first (row, column) {differing[0]}"


def test_drag_redraws_a_small_part_of_the_panels_and_matches_a_whole_draw(checked):
    driver, pictures, damaged = checked
    x, y = driver.pixel_of("hand_ik.L")
    driver.move(x, y)
    driver.press(x, y)
    for step in range(8):
        driver.drag(x - 6 * step, y + 4 * step)
    driver.release(x - 42, y + 28)
    driver.frames(2)
    assert_all_same(pictures)
    width, height = driver.app.frame_target.size
    viewport = np.s_[height // 4:height // 2, :width // 2]
    assert not np.array_equal(pictures[-6][0][viewport], pictures[-5][0][viewport]), "the dragged arm did not move"
    steady = damaged[-6:-3]  # the drag's last frames: only a few digits of the Pose tab's values change
    assert len(pictures) >= 10 and max(steady) < 0.02 * width * height, damaged


def test_hovers_menus_tabs_zoom_a_toast_and_a_resize_match_a_whole_draw(checked, restore_size):
    driver, pictures, _ = checked
    width, height = driver.app.window.width, driver.app.window.height
    driver.move(width - 200, 80)  # the outliner, its rows hovered
    driver.move(width - 200, 100)
    driver.frames(40)  # long enough for a tooltip
    driver.click(30, 10)  # the File menu, over the viewport and a panel
    driver.move(60, 70)
    driver.key("ESCAPE")
    driver.click_item("IK constraint")
    driver.click_item("Pose")
    driver.scroll(width // 3, height // 2, 1)  # the scene moves, then settles multisampled
    driver.frames(2)
    driver.app.state.report_error("a toast over the viewport's corner")
    driver.frames(2)
    resize(driver.app, width - 120, height - 80)  # the scene's region moves: the panels drawn anew
    driver.frames(3)
    driver.move(width - 300, 200)
    driver.frames(2)
    assert len(pictures) > 50
    assert_all_same(pictures)
