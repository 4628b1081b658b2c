"""The timeline with keys, driven as a user drives it: I and Alt+I, Space, the arrows, the strip
(scrub, select, drag and delete markers) and its widgets by their labels; undo of key edits,
playback determinism, and a golden of the timeline with keys."""
import numpy as np
import pytest

from rig.keys import INTERPOLATIONS
from tests.golden import assert_matches_golden
from ui import widgets
from ui.timeline import advance, go_to_frame, toggle_play
from ui.timeline_panel import frame_at, x_of

HAND = "hand_ik.L"


def hand(state):
    return state.world[state.rig.skeleton.index[HAND], :3, 3].copy()


def move_hand(driver, offset):
    """Move the left hand's IK handle by ``offset`` as an edit (what a drag leaves), solved."""
    state = driver.state
    state.pose.locations[state.rig.skeleton.index[HAND]] += offset
    state.mark_dirty()
    driver.frames(1)



def play_from_the_start_to(driver, frame):
    """Shift+Left, then Space plays until ``frame`` shows and Space stops it there."""
    driver.key("LEFT", ["shift"])
    driver.key("SPACE")
    while driver.state.timeline.frame < frame:
        driver.frames(1)
    driver.key("SPACE")
    assert driver.state.timeline.frame == frame

def strip_rect():
    return widgets.find("timeline_strip").rect


def strip_x(state, frame):
    left, _, right, _ = strip_rect()
    return x_of(frame, left, right - left, state.timeline.shown_range())


def marker_y():
    from ui.timeline_panel import _marker_row
    _, top, _, bottom = strip_rect()
    return _marker_row(top, bottom - top)


def keyed_three(driver):
    """Every bone keyed at frames 0, 10 (hand raised) and 20 (hand forward); back at frame 0."""
    driver.key("I")
    for frame, offset in ((10, (0.0, 0.3, 0.0)), (20, (0.0, -0.2, 0.25))):
        driver.set_value("##current_frame", frame)
        move_hand(driver, offset)
        driver.key("I")
    driver.key("LEFT", ["shift"])
    return driver.state


def test_i_keys_the_pose_alt_i_deletes_it_and_both_undo(driver):
    state = driver.state
    assert not state.timeline.action.has_keys()
    driver.key("I")
    action = state.timeline.action
    assert action.key_frames.tolist() == [0] and len(action.channels) == 4 * len(state.rig.skeleton)  # each bone's pin too
    assert "Keyed every bone at frame 0" in state.message
    driver.key("I", ["alt"])
    assert not state.timeline.action.has_keys()
    driver.key("Z", ["ctrl"])
    assert state.timeline.action is action
    driver.key("Z", ["ctrl"])
    assert not state.timeline.action.has_keys()
    driver.key("Z", ["shift", "ctrl"])
    assert state.timeline.action is action


def test_i_keys_only_the_selected_bones(driver):
    driver.click(*driver.pixel_of(HAND))
    driver.key("I")
    assert {bone for bone, _ in driver.state.timeline.action.channels} == {HAND}
    assert driver.state.message == "Keyed 1 bone at frame 0"
    driver.key("A")
    driver.key("I")
    assert driver.state.message == "Keyed every bone at frame 0"


def test_arrows_step_jump_to_the_ends_and_between_keys(driver):
    state = keyed_three(driver)
    assert state.timeline.frame == 0
    driver.key("RIGHT")
    driver.key("RIGHT")
    assert state.timeline.frame == 2
    driver.key("UP")
    assert state.timeline.frame == 10
    driver.key("UP")
    driver.key("UP")
    assert state.timeline.frame == 20 and "No key after frame 20" in state.message
    driver.key("DOWN")
    assert state.timeline.frame == 10
    driver.key("RIGHT", ["shift"])
    assert state.timeline.frame == state.timeline.action.end == 100
    driver.key("LEFT", ["shift"])
    assert state.timeline.frame == 0


def test_the_same_frame_gives_the_same_pose_by_playing_stepping_or_scrubbing(driver):
    state = keyed_three(driver)
    driver.click_item("Keying")
    driver.set_value("Interpolation", "smooth")
    driver.key("ESCAPE")
    worlds = {}
    for _ in range(7):
        driver.key("RIGHT")
    worlds["stepped"] = state.world.copy()
    driver.set_value("##current_frame", 15)
    driver.set_value("##current_frame", 7)
    worlds["typed"] = state.world.copy()
    driver.key("LEFT", ["shift"])
    left, top, right, bottom = strip_rect()
    x = x_of(7, left, right - left, state.timeline.shown_range())
    assert frame_at(x, left, right - left, state.timeline.shown_range()) == 7
    driver.click(x, top + 3)  # on the frame labels: no marker there
    assert state.timeline.frame == 7
    worlds["scrubbed"] = state.world.copy()
    play_from_the_start_to(driver, 7)
    assert not state.timeline.playing
    worlds["played"] = state.world.copy()
    for how, world in worlds.items():
        np.testing.assert_array_equal(world, worlds["stepped"], err_msg=how)
    assert np.abs(hand(state) - state.world[0, :3, 3]).max() > 0  # a real pose
    # three I's, the two hand edits, the interpolation: the frame changes are views, no steps
    assert not state.history.can_redo() and len(state.history.undo_stack) == 6


def test_playback_drops_frames_rather_than_slowing(driver):
    state = keyed_three(driver)
    toggle_play(state)
    advance(state, 100.0)  # the clock starts
    advance(state, 100.0 + 0.5)  # half a second later, however long the frames took
    assert state.timeline.frame == 12  # 24 fps
    advance(state, 100.0 + 101 / 24)  # past the end: back from the start, as Blender loops
    assert state.timeline.frame == 0


def test_markers_select_drag_in_time_and_delete_as_one_undo_step_each(driver):
    state = keyed_three(driver)
    y = marker_y()
    driver.click(strip_x(state, 10), y)
    assert state.timeline.selected == {10.0} and state.timeline.frame == 0  # a marker click does not scrub
    x = strip_x(state, 10)
    driver.move(x, y)
    driver.press(x, y)
    for step in range(1, 6):
        driver.drag(x + (strip_x(state, 15) - x) * step / 5, y)
    driver.release(strip_x(state, 15), y)
    driver.frames(1)
    assert state.timeline.action.key_frames.tolist() == [0, 15, 20] and state.timeline.selected == {15.0}
    driver.move(strip_x(state, 40), y)
    driver.key("DELETE")
    assert state.timeline.action.key_frames.tolist() == [0, 20]
    driver.key("Z", ["ctrl"])
    assert state.timeline.action.key_frames.tolist() == [0, 15, 20]
    driver.key("Z", ["ctrl"])
    assert state.timeline.action.key_frames.tolist() == [0, 10, 20]


def test_interpolation_and_timing_from_the_popovers(driver):
    state = keyed_three(driver)
    driver.click(strip_x(state, 10), marker_y())
    driver.click_item("Keying")
    driver.set_value("Interpolation", "constant")
    driver.key("ESCAPE")
    assert state.timeline.action.interpolation_at(10) == "constant"
    assert state.timeline.action.interpolation_at(0) == "linear"
    driver.click_item("Playback")
    driver.set_value("Frame rate##fps", 30)
    driver.set_value("End##range_end", 40)
    driver.key("ESCAPE")
    assert (state.timeline.action.fps, state.timeline.action.end) == (30.0, 40)
    assert set(INTERPOLATIONS) == {"constant", "linear", "smooth"}


def test_auto_key_keys_an_edit_at_the_current_frame(driver):
    state = driver.state
    driver.set_value("Auto key", True)
    driver.set_value("##current_frame", 6)
    move_hand(driver, (0.0, 0.2, 0.0))
    driver.frames(1)
    action = state.timeline.action
    assert action.key_frames.tolist() == [6] and (HAND, "location") in action.channels
    driver.key("Z", ["ctrl"])
    assert not state.timeline.action.has_keys()  # the edit and its key are one step


def test_the_camera_follows_the_root_when_asked(driver):
    state = driver.state
    root = state.rig.skeleton.names[0]
    driver.key("I")
    driver.set_value("##current_frame", 10)
    state.pose.locations[0] += (0.5, 0.0, 0.0)
    state.mark_dirty()
    driver.frames(1)
    driver.key("I")
    driver.click_item("Playback")
    driver.set_value("Camera follows root", True)
    driver.key("ESCAPE")
    target = state.camera.target.copy()
    head = state.world[0, :3, 3].copy()
    driver.key("LEFT", ["shift"])
    np.testing.assert_allclose(state.camera.target - target, state.world[0, :3, 3] - head, atol=1e-12)
    assert np.abs(state.camera.target - target).max() > 0.1, root


def test_screenshot_of_the_timeline_with_keys(driver):
    state = keyed_three(driver)
    driver.click(strip_x(state, 10), marker_y())
    driver.set_value("##current_frame", 14)
    driver.move(480, 300)
    driver.frames(2)
    assert_matches_golden(driver.app.read_rgb(), "app_timeline_keys")


@pytest.mark.parametrize("span, width", [(100, 500), (4510, 500), (4510, 1500), (10, 800)])
def test_a_pixel_is_a_sensible_number_of_frames_and_labels_never_crowd(span, width):
    from ui.timeline_panel import LABEL_SPACING, tick_step
    per_pixel = span / width
    step = tick_step(per_pixel)
    assert step / per_pixel >= LABEL_SPACING and step / per_pixel < LABEL_SPACING * 2.5
    frames = {frame_at(x, 0, width, (0, span)) for x in range(width + 1)}
    assert frames == set(range(span + 1)) if per_pixel <= 1 else len(frames) == width + 1


def test_go_to_frame_without_keys_changes_only_the_frame(driver):
    state = driver.state
    pose = state.pose.copy()
    go_to_frame(state, 30)
    assert state.timeline.frame == 30 and state.pose == pose
