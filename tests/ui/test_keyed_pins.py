"""Pins in the keys, driven as a user drives them: P pins, I keys the pin with the bones, Alt+I
deletes it; stepping, typing a frame, scrubbing and playing set the keyed pins and the rig's IK
holds them (a planted foot stays still between keys while its handle moves); the same frame gives
the same pose however reached; undo, saved sessions, crash recovery and export carry the pins."""
import json

import numpy as np

from rig.formats.document import RigDocument
from rig.formats.export import export_rig
from rig.formats.reader import open_rig
from rig.keys import PIN
from rig.pose import heads_tails, world_matrices
from solvers.tolerances import PIN_POSITION, PIN_ROTATION
from solvers.transforms import matrix3_to_quat, quat_angle
from tests.ui.test_crash_recovery import launch, let_the_autosave_write, restore  # noqa: F401 (a fixture)
from tests.ui.test_timeline import play_from_the_start_to, strip_rect
from ui.editor import _export_frames
from ui.session_file import restore_session, session_dict
from tests.golden import assert_matches_golden
from tests.test_keys_export import ROUND_TRIP
from ui.timeline_panel import x_of

FOOT, HANDLE = "foot.L", "foot_ik.L"
STRIDE = np.array([0.0, 0.0, 0.15])  # how far forward (world +Z, where the toes point) the root walks between keys


def head(state, name):
    return state.world[state.rig.skeleton.index[name], :3, 3].copy()


def move_root(driver, offset):
    """Move the root bone (it carries the IK handles) by ``offset`` (world): what a grab leaves, solved."""
    state = driver.state
    state.pose.locations[0] += state.rig.skeleton.rest_local[0, :3, :3].T @ offset
    state.mark_dirty()
    driver.frames(1)


def select_foot(driver):
    driver.click(*driver.pixel_along(FOOT, 0.8))  # toward the toe: its handle covers the ankle
    assert driver.state.view.selected == {FOOT}


def assert_held(state, name):
    """The bone is where its pin holds it (position, and rotation when held)."""
    pin, bone = state.pins[name], state.rig.skeleton.index[name]
    assert np.linalg.norm(state.world[bone, :3, 3] - pin.position) <= PIN_POSITION
    if pin.holds_rotation:
        basis = state.world[bone, :3, :3] / np.linalg.norm(state.world[bone, :3, :3], axis=0)
        assert quat_angle(matrix3_to_quat(basis), pin.rotation) <= PIN_ROTATION


def planted_walk(driver):
    """foot.L pinned and every bone keyed at frame 0; the root (with the feet's handles) a
    stride on at frame 20, keyed again with the foot still pinned there; back at frame 0."""
    select_foot(driver)
    driver.key("P")
    driver.key("A")
    driver.key("I")
    driver.set_value("##current_frame", 20)
    move_root(driver, STRIDE)
    driver.key("I")
    driver.key("LEFT", ["shift"])
    return driver.state


def test_i_keys_a_pinned_bones_pin_with_its_channels_and_alt_i_deletes_it(driver):
    state = planted_walk(driver)
    action = state.timeline.action
    assert len(action.channels) == 4 * len(state.rig.skeleton)  # rotation, location, scale and the pin
    channel = action.channels[(FOOT, PIN)]
    assert channel.frames.tolist() == [0, 20] and channel.values[:, 0].tolist() == [1.0, 1.0]
    assert action.channels[("hand.L", PIN)].values[:, 0].tolist() == [0.0, 0.0]  # unpinned bones key off
    driver.set_value("##current_frame", 20)
    driver.key("I", ["alt"])
    assert action.channels[(FOOT, PIN)] is not state.timeline.action.channels[(FOOT, PIN)]
    assert state.timeline.action.channels[(FOOT, PIN)].frames.tolist() == [0]
    driver.key("Z", ["ctrl"])
    assert state.timeline.action is action


def test_a_keyed_pin_keeps_the_planted_foot_still_while_its_handle_walks_on(driver):
    state = planted_walk(driver)
    planted = state.pins[FOOT]
    handle_start = head(state, HANDLE)
    for frame in range(21):
        assert state.timeline.frame == frame and state.pins[FOOT] == planted
        assert_held(state, FOOT)
        np.testing.assert_allclose(head(state, HANDLE) - handle_start, STRIDE * frame / 20, atol=1e-12)
        driver.key("RIGHT")


def test_a_pin_keyed_on_then_off_holds_between_and_lets_go_at_the_off_key(driver):
    state = driver.state
    driver.key("A")
    driver.key("I")  # frame 0: nothing pinned, every pin keyed off
    driver.set_value("##current_frame", 10)
    select_foot(driver)
    driver.key("P")
    driver.key("A")
    driver.key("I")
    planted = state.pins[FOOT]
    driver.set_value("##current_frame", 30)
    move_root(driver, STRIDE)
    driver.key("P", ["alt"])  # unpins every bone
    driver.key("I")
    for frame, pinned in ((5, False), (10, True), (20, True), (29, True), (30, False), (40, False)):
        driver.set_value("##current_frame", frame)
        assert (FOOT in state.pins) == pinned, frame
        if pinned:
            assert state.pins[FOOT] == planted
            assert_held(state, FOOT)
    assert np.linalg.norm(head(state, FOOT) - planted.position) > 0.1  # let go: the foot went with its handle


def test_the_same_frame_gives_the_same_pose_with_keyed_pins_however_reached(driver):
    state = planted_walk(driver)
    driver.click_item("Keying")
    driver.set_value("Interpolation", "smooth")
    driver.key("ESCAPE")
    worlds, pins = {}, {}
    for _ in range(7):
        driver.key("RIGHT")
    worlds["stepped"], pins["stepped"] = state.world.copy(), dict(state.pins)
    driver.set_value("##current_frame", 15)
    driver.set_value("##current_frame", 7)
    worlds["typed"], pins["typed"] = state.world.copy(), dict(state.pins)
    driver.key("RIGHT", ["shift"])
    left, top, right, _ = strip_rect()
    driver.click(x_of(7, left, right - left, state.timeline.shown_range()), top + 3)
    assert state.timeline.frame == 7
    worlds["scrubbed"], pins["scrubbed"] = state.world.copy(), dict(state.pins)
    play_from_the_start_to(driver, 7)
    worlds["played"], pins["played"] = state.world.copy(), dict(state.pins)
    for how, world in worlds.items():
        np.testing.assert_array_equal(world, worlds["stepped"], err_msg=how)
        assert pins[how] == pins["stepped"], how
    assert_held(state, FOOT)


def test_keyed_pins_win_over_an_unkeyed_unpin_at_the_next_frame_change_which_is_no_undo_step(driver):
    """As an unkeyed edit of a keyed channel in Blender: the keys give the frame again."""
    state = planted_walk(driver)
    planted = state.pins[FOOT]
    driver.set_value("##current_frame", 10)
    steps = len(state.history.undo_stack)
    driver.key("P", ["alt"])
    assert FOOT not in state.pins and len(state.history.undo_stack) == steps + 1
    driver.key("RIGHT")
    assert state.pins[FOOT] == planted and len(state.history.undo_stack) == steps + 1
    driver.key("Z", ["ctrl"])
    assert FOOT in state.pins and len(state.history.undo_stack) == steps


def test_auto_key_keys_a_pin_as_it_is_pinned(driver):
    state = driver.state
    driver.set_value("Auto key", True)
    driver.set_value("##current_frame", 6)
    select_foot(driver)
    driver.key("P")
    driver.frames(1)
    channel = state.timeline.action.channels[(FOOT, PIN)]
    assert channel.frames.tolist() == [6] and channel.values[0, 0] == 1.0
    driver.key("Z", ["ctrl"])
    assert not state.timeline.action.has_keys() and not state.pins  # the pin and its key are one step


def test_a_saved_session_and_a_crash_keep_the_keyed_pins(launch):  # noqa: F811 (the fixture)
    driver = launch()
    state = planted_walk(driver)
    restored = restore_session(json.loads(json.dumps(session_dict(state)))).state
    assert restored.timeline.action.channels.keys() == state.timeline.action.channels.keys()
    np.testing.assert_array_equal(restored.timeline.action.channels[(FOOT, PIN)].values,
                                  state.timeline.action.channels[(FOOT, PIN)].values)
    driver.set_value("##current_frame", 12)
    pins = dict(state.pins)
    let_the_autosave_write(driver)
    driver = restore(launch())
    state = driver.state
    assert state.timeline.frame == 12 and state.pins == pins
    driver.key("RIGHT")
    assert state.pins[FOOT] == pins[FOOT]
    assert_held(state, FOOT)


def test_an_export_of_the_keys_holds_each_frames_pins_as_the_window_does(driver, tmp_path):
    state = planted_walk(driver)
    frames = _export_frames(state)
    assert len(frames["pose"]) == 101 and all(pins == {FOOT: state.pins[FOOT]} for pins in frames["pins"])
    path = tmp_path / "walk.bvh"
    export_rig(RigDocument(state.rig, "assets/humanoid.json"), path, **frames)
    back = open_rig(path)
    (clip,) = back.clips.values()
    order = [back.rig.skeleton.index[n] for n in state.rig.skeleton.names]
    for frame in (0, 10, 20):
        driver.set_value("##current_frame", frame)
        exported = heads_tails(back.rig.skeleton, world_matrices(back.rig.skeleton, clip[frame]))[0][order]
        np.testing.assert_allclose(exported, heads_tails(state.rig.skeleton, state.world)[0], atol=ROUND_TRIP)


def test_screenshot_of_the_timeline_with_a_keyed_pin_between_its_keys(driver):
    """Frame 10 of the planted walk: the foot's pin marker where frame 0 keyed it, the root half a
    stride on, the keys at 0 and 20 on the strip."""
    state = planted_walk(driver)
    driver.set_value("##current_frame", 10)
    driver.move(480, 300)
    driver.frames(2)
    assert FOOT in state.pins
    assert_matches_golden(driver.app.read_rgb(), "app_timeline_keyed_pin")
