"""Orbit, pan, zoom, named views, projection toggle and framing, driven by real pyglet events."""
import copy

import numpy as np
import pytest
from imgui_bundle import imgui
from pyglet.window import key, mouse

from rig.pose import heads_tails
from ui.layout import OUTLINER
from ui.navigation import VIEW_MARGIN, handle_corners
from ui.state import DEFAULT_INSETS

from .conftest import SIZE, plane_point_under

LEFT, TOP, RIGHT, BOTTOM = DEFAULT_INSETS
CENTRE = (LEFT + (SIZE[0] - RIGHT - LEFT) * 0.6, (TOP + SIZE[1] - BOTTOM) * 0.5)  # in the viewport


def camera_after(camera, action):
    expected = copy.deepcopy(camera)
    action(expected)
    return expected


def assert_same_camera(actual, expected):
    np.testing.assert_allclose(actual.target, expected.target, atol=1e-12)
    for name in ("distance", "yaw", "pitch", "ortho_scale"):
        assert getattr(actual, name) == pytest.approx(getattr(expected, name), abs=1e-12), name
    assert actual.orthographic == expected.orthographic


@pytest.mark.parametrize("button, modifiers", [(mouse.MIDDLE, 0), (mouse.LEFT, key.MOD_ALT)],
                         ids=["middle", "alt_left"])
def test_orbit_drag_turns_the_camera_and_leaves_the_pose(driver, button, modifiers):
    state = driver.state
    before = state.pose.copy()
    expected = camera_after(state.camera, lambda c: c.orbit(40, 25))
    x, y = CENTRE
    driver.move(x, y)
    driver.press(x, y, button, modifiers)
    driver.drag(x + 20, y + 10, button, modifiers)
    driver.drag(x + 40, y + 25, button, modifiers)
    driver.release(x + 40, y + 25, button, modifiers)
    assert_same_camera(state.camera, expected)
    assert state.pose == before and state.drag is None


def test_shift_middle_drag_pans(driver):
    state = driver.state
    expected = camera_after(state.camera, lambda c: c.pan(-30, 15, SIZE[1]))
    x, y = CENTRE
    grabbed = plane_point_under(state, x, y, state.camera.target)
    driver.press(x, y, mouse.MIDDLE, key.MOD_SHIFT)
    driver.drag(x - 30, y + 15, mouse.MIDDLE, key.MOD_SHIFT)
    driver.release(x - 30, y + 15, mouse.MIDDLE)
    assert_same_camera(state.camera, expected)
    # What was under the pointer at the target's depth is still under it.
    np.testing.assert_allclose(state.camera.world_to_window(grabbed[None], *SIZE)[0], (x - 30, y + 15), atol=1e-6)


def test_wheel_zooms_in_and_out(driver):
    camera = driver.state.camera
    distance = camera.distance
    driver.scroll(*CENTRE, 2)
    assert camera.distance == pytest.approx(distance * 0.81)
    driver.scroll(*CENTRE, -2)
    assert camera.distance == pytest.approx(distance)


@pytest.mark.parametrize("symbol, ctrl, yaw, pitch", [
    (key.NUM_1, False, 0.0, 0.0), (key.NUM_3, False, np.pi / 2, 0.0), (key.NUM_7, False, 0.0, np.pi / 2),
    (key.NUM_1, True, np.pi, 0.0), (key.NUM_3, True, -np.pi / 2, 0.0), (key.NUM_7, True, 0.0, -np.pi / 2)])
def test_numpad_views_as_blender(driver, symbol, ctrl, yaw, pitch):
    camera = driver.state.camera
    camera.orbit(37, -12)
    driver.key(symbol, key.MOD_CTRL if ctrl else 0)
    assert (camera.yaw, camera.pitch) == pytest.approx((yaw, pitch))
    eye_direction = (camera.eye() - camera.target) / camera.distance
    looking_from = {"front": [0, 0, 1], "right": [1, 0, 0], "top": [0, 1, 0]}
    sign = -1.0 if ctrl else 1.0
    axis = {key.NUM_1: "front", key.NUM_3: "right", key.NUM_7: "top"}[symbol]
    np.testing.assert_allclose(eye_direction, sign * np.array(looking_from[axis], float), atol=1e-12)


CTRL = key.MOD_CTRL


@pytest.mark.parametrize("without_num_lock, digit, mods", [
    (key.NUM_END, key.NUM_1, 0), (key.NUM_END, key.NUM_1, CTRL), (key.NUM_NEXT, key.NUM_3, 0),
    (key.NUM_NEXT, key.NUM_3, CTRL), (key.NUM_HOME, key.NUM_7, 0), (key.NUM_HOME, key.NUM_7, CTRL),
    (key.NUM_BEGIN, key.NUM_5, 0), (key.NUM_DELETE, key.NUM_DECIMAL, 0)])
def test_numpad_keys_do_the_same_with_num_lock_off(driver, without_num_lock, digit, mods):
    """With Num Lock off pyglet names Numpad 1 NUM_END, Numpad 7 NUM_HOME, ...; in Blender the
    numpad's views work either way."""
    state = driver.state
    driver.click(*driver.pixel_along("shin.L", 0.5))  # numpad . frames the selection
    state.camera.orbit(37, -12)
    state.camera.zoom(-3)
    before = copy.deepcopy(state.camera)
    driver.key(digit, mods)
    expected, state.camera = state.camera, copy.deepcopy(before)
    driver.key(without_num_lock, mods)
    assert_same_camera(state.camera, expected)
    with pytest.raises(AssertionError):
        assert_same_camera(state.camera, before)  # the key did something


def test_numpad_5_toggles_projection_keeping_the_size_on_screen(driver):
    state = driver.state
    target_px = lambda: state.camera.world_to_window(np.array([state.camera.target, state.camera.target
                                                              + [0.0, 0.5, 0.0]]), *SIZE)
    before = target_px()
    driver.key(key.NUM_5)
    assert state.camera.orthographic
    np.testing.assert_allclose(target_px(), before, atol=1e-6)
    driver.key(key.NUM_5)
    assert not state.camera.orthographic
    np.testing.assert_allclose(target_px(), before, atol=1e-6)


def test_f_frames_the_selected_bone(driver):
    state = driver.state
    driver.click(*driver.pixel_along("shin.L", 0.5))
    assert state.view.selected == {"shin.L"}
    driver.key(key.F)
    i = state.rig.skeleton.index["shin.L"]
    ends = np.array([state.world[i, :3, 3], state.world[i, :3, 3] + state.world[i, :3, 1] * state.rig.skeleton.lengths[i]])
    pixels = state.camera.world_to_window(ends, *SIZE)
    lo, hi = free_box(state)
    np.testing.assert_allclose(pixels.mean(axis=0), (lo + hi) / 2, atol=2.0)
    assert np.ptp(pixels[:, 1]) > 0.5 * (hi - lo)[1]


def free_box(state):
    """Top-left and bottom-right pixels of the window part the panels leave free, as measured."""
    left, top, right, bottom = state.view_insets
    return np.array([left, top]), np.array([SIZE[0] - right, SIZE[1] - bottom])


def bone_pixels(state):
    heads = state.world[:, :3, 3]
    tails = heads + state.world[:, :3, 1] * state.rig.skeleton.lengths[:, None]
    return state.camera.world_to_window(np.vstack([heads, tails]), *SIZE)


def assert_clear_of_panels(state):
    lo, hi = free_box(state)
    pixels = bone_pixels(state)
    assert (pixels > lo).all() and (pixels < hi).all(), (lo, hi, pixels.min(axis=0), pixels.max(axis=0))


def test_framing_on_open_assumes_what_the_default_layout_covers(driver):
    """Framing on open uses the defaults: the menu bar, the right column, the timeline strip and
    the status bar, as the first frame measures them."""
    assert driver.state.view_insets == DEFAULT_INSETS


def test_opening_frames_every_bone_clear_of_the_panels(driver):
    assert_clear_of_panels(driver.state)


@pytest.mark.parametrize("symbol", [key.HOME, key.F])
def test_home_and_f_frame_clear_of_the_panels(driver, symbol):
    state = driver.state
    driver.key(key.NUM_3)  # side view, then back to a three-quarter one: the framing is lost
    state.camera.orbit(-80, -30)
    state.camera.zoom(-6)
    state.view.selected = set()
    driver.key(symbol)
    assert_clear_of_panels(state)
    lo, hi = free_box(state)
    pixels = drawn_pixels(state)
    np.testing.assert_allclose((pixels.min(axis=0) + pixels.max(axis=0)) / 2, (lo + hi) / 2, atol=3.0)


def drawn_pixels(state):
    """Window pixels bounding what the rig draws: bones' heads and tails, handles' cubes."""
    targets, poles = state.rig.handle_bones()
    bones = [i for i, name in enumerate(state.rig.skeleton.names) if name not in targets | poles]
    heads, tails = heads_tails(state.rig.skeleton, state.world)
    corners, _ = handle_corners(state, sorted(targets | poles))
    return state.camera.world_to_window(np.vstack([heads[bones], tails[bones], corners]), *SIZE)


def test_a_middle_drag_on_the_panel_does_not_orbit(driver):
    state = driver.state
    expected = copy.deepcopy(state.camera)
    driver.move(SIZE[0] - 60, 300)  # on the properties
    driver.press(SIZE[0] - 60, 300, mouse.MIDDLE)
    driver.drag(300, 200, mouse.MIDDLE)
    driver.release(300, 200, mouse.MIDDLE)
    assert_same_camera(state.camera, expected)


def test_ctrl_middle_drag_zooms_with_vertical_motion(driver):
    state = driver.state
    camera = state.camera
    yaw, pitch, target, distance = camera.yaw, camera.pitch, camera.target.copy(), camera.distance
    x, y = CENTRE
    driver.press(x, y, mouse.MIDDLE, key.MOD_CTRL)
    driver.drag(x + 15, y - 40, mouse.MIDDLE, key.MOD_CTRL)  # up (and a little sideways): in
    driver.release(x + 15, y - 40, mouse.MIDDLE)
    assert camera.distance == pytest.approx(distance * 0.9 ** 2)
    assert (camera.yaw, camera.pitch) == (yaw, pitch)  # no orbit
    np.testing.assert_array_equal(camera.target, target)
    driver.press(x, y, mouse.MIDDLE, key.MOD_CTRL)
    driver.drag(x, y + 20, mouse.MIDDLE, key.MOD_CTRL)
    driver.drag(x, y + 40, mouse.MIDDLE, key.MOD_CTRL)  # down: out again
    driver.release(x, y + 40, mouse.MIDDLE)
    assert camera.distance == pytest.approx(distance)
    assert state.drag is None and state.view.selected == set()


def segment_distance(point, start, end):
    t = np.clip(np.dot(point - start, end - start) / np.dot(end - start, end - start), 0.0, 1.0)
    return float(np.linalg.norm(point - (start + t * (end - start))))


@pytest.mark.parametrize("symbol", [key.NUM_DECIMAL, key.F])
def test_framing_a_bone_seen_end_on_keeps_the_camera_outside_it(driver, symbol):
    """From the top the thigh points straight at the camera: its picture is a dot, and fitting
    the dot alone would put the eye on the bone's head."""
    state = driver.state
    driver.click(*driver.pixel_along("thigh.L", 0.5))
    driver.key(key.NUM_7)
    driver.key(symbol)
    camera, i = state.camera, state.rig.skeleton.index["thigh.L"]
    length = state.rig.skeleton.lengths[i]
    head = state.world[i, :3, 3]
    tail = head + state.world[i, :3, 1] * length
    assert camera.distance >= (length / 2) / np.tan(camera.fov_y / 2)  # the bone's sphere fits the view
    assert segment_distance(camera.eye(), head, tail) > length
    pixels = camera.world_to_window(np.array([head, tail]), *SIZE)
    np.testing.assert_allclose((pixels.min(axis=0) + pixels.max(axis=0)) / 2, np.mean(free_box(state), axis=0),
                               atol=2.0)  # centred in the free viewport


def test_numpad_period_frames_the_selection_as_f_does(driver):
    state = driver.state
    driver.click(*driver.pixel_along("shin.L", 0.5))
    state.camera.orbit(-60, 20)
    driver.key(key.F)
    expected = copy.deepcopy(state.camera)
    state.camera.distance *= 3.0
    state.camera.pan(40, -30, SIZE[1])
    driver.key(key.NUM_DECIMAL)
    assert_same_camera(state.camera, expected)


def drag_by(driver, start, offset):
    driver.move(*start)
    driver.press(*start)
    for k in range(1, 6):
        driver.drag(start[0] + offset[0] * k / 5, start[1] + offset[1] * k / 5)
    driver.release(start[0] + offset[0], start[1] + offset[1])
    driver.frames(2)


def float_the_outliner_over(driver, left, top, right, bottom):
    """Undock the outliner by dragging its tab into the viewport, then move it by its title bar and
    size it by its corner grip to cover (left, top, right, bottom) window pixels, as a user would
    (away from the dock space's edges, where letting go of a title docks the window again)."""
    window = imgui.internal.find_window_by_name(OUTLINER)
    title = imgui.get_frame_height() / 2
    drag_by(driver, (window.pos.x + 30, window.pos.y + title), (-360, 110))  # clear of the central dock target
    assert window.dock_node is None  # floating
    drag_by(driver, (window.pos.x + 60, window.pos.y + title), (left - window.pos.x, top - window.pos.y))
    corner = (window.pos.x + window.size.x - 3, window.pos.y + window.size.y - 3)
    drag_by(driver, corner, (right - window.pos.x - window.size.x, bottom - window.pos.y - window.size.y))
    np.testing.assert_allclose((window.pos.x, window.pos.y, window.pos.x + window.size.x, window.pos.y + window.size.y),
                               (left, top, right, bottom), atol=2.0)


def selection_centre_px(state):
    index = [state.rig.skeleton.index[name] for name in state.view.selected]
    heads = state.world[index, :3, 3]
    tails = heads + state.world[index, :3, 1] * state.rig.skeleton.lengths[index, None]
    return state.camera.world_to_window(np.vstack([heads, tails]), *SIZE).mean(axis=0)


def test_f_frames_the_selection_clear_of_a_panel_floating_over_the_viewport(driver):
    state = driver.state
    driver.click(*driver.pixel_along("spine.02", 0.5))
    left, top, right, bottom = state.free_pixels(*SIZE)
    middle = (left + right) / 2
    float_the_outliner_over(driver, middle, top + 30, right, bottom)  # the right half (a title at the top edge would dock)
    shift = state.camera.shift.copy()
    assert state.view_insets[2] == DEFAULT_INSETS[2]  # the properties took the column: same docked space
    np.testing.assert_array_equal(state.camera.shift, shift)  # a floating panel does not move the view
    driver.key(key.F)
    centre = selection_centre_px(state)
    assert left < centre[0] < middle and top < centre[1] < bottom
    np.testing.assert_allclose(centre, ((left + middle) / 2, (top + bottom) / 2), atol=3.0)
    driver.frames(2)
    np.testing.assert_allclose(selection_centre_px(state), centre, atol=1e-6)  # the framing stays


def test_a_panel_floating_over_most_of_the_viewport_frames_into_the_whole_of_it(driver):
    state = driver.state
    driver.click(*driver.pixel_along("spine.02", 0.5))
    left, top, right, bottom = state.free_pixels(*SIZE)
    float_the_outliner_over(driver, left + 40, top + 40, right - 40, bottom - 40)
    driver.key(key.F)
    np.testing.assert_allclose(selection_centre_px(state), ((left + right) / 2, (top + bottom) / 2), atol=3.0)


@pytest.mark.parametrize("handle", ["hand_ik.L", "elbow_pole.R"])
@pytest.mark.parametrize("symbol", [key.F, key.NUM_DECIMAL])
def test_f_frames_a_selected_handle_with_blenders_margin(driver, handle, symbol):
    """A handle's drawn cube (or diamond) used to be left out: framing its bone's two ends put
    the cube over the viewport's edges."""
    state = driver.state
    driver.click(*driver.pixel_of(handle))
    assert state.view.selected == {handle}
    driver.key(symbol)
    corners, _ = handle_corners(state, [handle])
    pixels = state.camera.world_to_window(corners, *SIZE)
    lo, hi = free_box(state)
    room = (hi - lo) * (1.0 - 1.0 / VIEW_MARGIN) / 2.0 * 0.8  # most of Blender's margin on each side
    assert (pixels > lo + room).all() and (pixels < hi - room).all(), (lo + room, hi - room, pixels)
    assert np.ptp(pixels[:, 1]) > 0.3 * (hi - lo)[1]  # framed, not left a dot
