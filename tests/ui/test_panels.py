"""The docked panels driven by clicks on widgets found by their labels: outliner selection, adding
and removing an IK constraint, Copy Rotation settings, view toggles and buttons, each in its
properties tab."""
import numpy as np
import pytest

from rig.evaluate import evaluate
from solvers.transforms import quat_from_axis_angle



@pytest.mark.parametrize("name", ["pelvis", "neck", "head"])
def test_outliner_click_selects_the_bone(driver, name):
    driver.click_item(name)
    assert driver.state.view.selected == {name} and driver.state.view.active == name


def test_add_then_remove_an_ik_constraint_on_the_active_bone(driver):
    state = driver.state
    before = state.pose.copy()
    driver.click_item("neck")
    driver.click_item("IK constraint")
    driver.click_item("Add IK constraint to neck")
    added = [c for c in state.rig.ik if c.bone == "neck"]
    assert len(added) == 1 and added[0].target is None
    assert state.selected_constraint() is added[0]
    assert state.pose == before  # targetless: nothing to solve yet
    driver.click_item("Remove")
    assert not [c for c in state.rig.ik if c.bone == "neck"]


def test_copy_rotation_section_sets_axes_and_influence_and_leaves_the_pose_channel(driver):
    state = driver.state
    hand, handle = (state.rig.skeleton.index[n] for n in ("hand.L", "hand_ik.L"))
    state.pose.rotations[handle] = quat_from_axis_angle([0.3, 1.0, 0.2], 1.2)
    state.resolve()
    channel = state.pose.rotations[hand].copy()
    driver.click_item("Copy rotation")
    driver.click_item("Y", index=0)  # the first constraint's (hand.L's) widgets
    driver.click_item("Influence", index=0)  # the middle of the slider
    hand_l, foot_l = state.rig.copy_rotation[:2]
    assert hand_l.use_axes == (True, False, True) and hand_l.influence == pytest.approx(0.5, abs=0.05)
    assert foot_l.use_axes == (True, True, True) and foot_l.influence == 1.0  # widgets of their own
    np.testing.assert_array_equal(state.pose.rotations[hand], channel)
    np.testing.assert_allclose(state.world, evaluate(state.rig, state.pose)[1], atol=1e-6)
    assert not np.allclose(state.world[hand, :3, :3], state.world[handle, :3, :3], atol=1e-3)


def test_view_toggles_and_buttons(driver):
    state = driver.state
    driver.click_item("View")
    driver.click_item("Bones")
    driver.click_item("Names")
    assert not state.view.show_bones and state.view.show_names
    assert state.view.show_solver
    driver.click_item("Solver state")
    assert not state.view.show_solver and state.view.solver_overlay is None
    driver.click_item("Top")
    assert (state.camera.yaw, state.camera.pitch) == pytest.approx((0.0, np.pi / 2))
    driver.click_item("Left")
    assert (state.camera.yaw, state.camera.pitch) == pytest.approx((-np.pi / 2, 0.0))


def test_hidden_bones_cannot_be_picked(driver):
    driver.click_item("View")
    driver.click_item("Bones")
    driver.click(*driver.pixel_along("shin.L", 0.5))
    assert driver.state.view.selected == set()
