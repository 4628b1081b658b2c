"""The IK/FK switch driven as a user drives it: the IK constraint tab's IK / FK / Key widgets by
their labels and Ctrl+Shift+I, each switch one undo step that leaves the body where it was, and a
keyed switch played back, stepped, scrubbed and exported to the same pose."""
import numpy as np
import pytest

from rig.evaluate import evaluation
from rig.keys import SWITCH
from rig.pose import heads_tails
from tests.ui.test_timeline import play_from_the_start_to
from rig.snap import SNAP_TOLERANCE
from ui.timeline import go_to_frame, keyed_export
from solvers.transforms import quat_from_axis_angle

LEG = "shin.L"


def joints(state, world=None):
    """Every bone's head and tail (N, 2, 3) as shown (or in ``world``), IK handles and poles left out."""
    heads, tails = heads_tails(state.rig.skeleton, state.world if world is None else world)
    targets, poles = state.rig.handle_bones()
    keep = [i for i, name in enumerate(state.rig.skeleton.names) if name not in targets | poles]
    return np.stack([heads, tails], axis=1)[keep]


def leg(state):
    return next(c for c in state.rig.ik if c.bone == LEG)


def open_leg_switch(driver):
    """The left knee pose set by its handle, then the shin selected and the IK constraint tab open."""
    state = driver.state
    state.pose.locations[state.rig.skeleton.index["foot_ik.L"]] += (0.05, 0.2, 0.1)
    state.mark_dirty()
    driver.frames(1)
    state.history.commit(state)
    driver.click(*driver.pixel_along(LEG, 0.5))
    driver.click_item("IK constraint")
    assert state.view.active == LEG
    return state


def bend_knee_by_hand(driver):
    """An FK edit: the shin turned further about its own X axis, as a rotate would."""
    state = driver.state
    shin = state.rig.skeleton.index[LEG]
    state.pose.rotations[shin] = quat_from_axis_angle([1.0, 0.0, 0.0], 0.6)
    state.mark_dirty()
    driver.frames(1)


def test_the_panels_fk_and_ik_switch_the_leg_in_place_as_undo_steps(driver):
    state = open_leg_switch(driver)
    before, steps = joints(state), len(state.history.undo_stack)
    driver.click_item("FK##ik_fk")
    assert leg(state).influence == 0.0 and "to FK, snapped in place" in state.message
    assert np.abs(joints(state) - before).max() <= SNAP_TOLERANCE
    bend_knee_by_hand(driver)
    bent = joints(state)
    assert np.abs(bent - before).max() > 0.01  # FK: the knee turns by hand, the handle does not pull it
    driver.click_item("IK##ik_fk")
    assert leg(state).influence == 1.0
    assert np.abs(joints(state) - bent).max() <= SNAP_TOLERANCE
    assert len(state.history.undo_stack) == steps + 3  # to FK, the bend, to IK
    driver.key("Z", ["ctrl"])
    assert leg(state).influence == 0.0 and np.abs(joints(state) - bent).max() <= SNAP_TOLERANCE
    driver.key("Z", ["ctrl"])
    driver.key("Z", ["ctrl"])
    assert leg(state).influence == 1.0 and np.abs(joints(state) - before).max() <= SNAP_TOLERANCE
    driver.key("Z", ["shift", "ctrl"])
    assert leg(state).influence == 0.0


def test_ctrl_shift_i_toggles_the_limb_of_the_selected_handle(driver):
    state = driver.state
    driver.click(*driver.pixel_of("hand_ik.L"))
    assert state.view.active == "hand_ik.L"
    arm = next(c for c in state.rig.ik if c.target == "hand_ik.L")
    before = joints(state)
    driver.key("I", ["ctrl", "shift"])
    assert arm.influence == 0.0 and np.abs(joints(state) - before).max() <= SNAP_TOLERANCE
    driver.key("I", ["ctrl", "shift"])
    assert arm.influence == 1.0 and np.abs(joints(state) - before).max() <= SNAP_TOLERANCE
    driver.click_item("head")  # no limb: nothing switches, the status bar says why
    driver.key("I", ["ctrl", "shift"])
    assert "Select a bone of a limb with IK" in state.message


def test_a_keyed_switch_plays_steps_scrubs_and_exports_to_the_same_pose(driver):
    state = open_leg_switch(driver)
    driver.click_item("Key##ik_fk")  # frame 0: IK
    assert (LEG, SWITCH) in state.timeline.action.channels
    driver.set_value("##current_frame", 10)
    state.timeline.auto_key = True
    driver.click_item("FK##ik_fk")  # auto-keyed: the switch and the leg's bones at frame 10
    bend_knee_by_hand(driver)  # auto-keyed too
    bent = joints(state)
    state.timeline.auto_key = False
    assert state.timeline.action.switches_at(10) == {LEG: 0.0}
    assert state.timeline.action.switches_at(9.5) == {LEG: 1.0}  # constant: no blend before the key
    worlds = {}
    go_to_frame(state, 0)
    driver.frames(1)
    assert leg(state).influence == 1.0
    for _ in range(12):
        driver.key("RIGHT")
    worlds["stepped"] = joints(state)
    driver.key("LEFT", ["shift"])
    driver.set_value("##current_frame", 12)
    worlds["scrubbed"] = joints(state)
    play_from_the_start_to(driver, 12)
    worlds["played"] = joints(state)
    assert leg(state).influence == 0.0
    go_to_frame(state, 0)
    driver.frames(1)
    assert leg(state).influence == 1.0  # the export bakes this rig into every frame: the FK ones too
    poses = keyed_export(state).poses
    worlds["exported"] = joints(state, evaluation(state.rig, poses[12]).world)
    for how, world in worlds.items():
        np.testing.assert_allclose(world, bent, atol=SNAP_TOLERANCE, err_msg=how)


@pytest.mark.parametrize("bone", ["thigh.L", "foot_ik.L", "knee_pole.L"])
def test_every_bone_of_the_limb_shows_its_switch(driver, bone):
    driver.click(*driver.pixel_along(bone, 0.5))
    assert driver.state.view.active == bone
    driver.click_item("IK constraint")
    driver.click_item("FK##ik_fk")
    assert leg(driver.state).influence == 0.0
