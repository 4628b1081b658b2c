"""The docked panels driven by clicks: outliner selection, adding and removing an IK constraint,
Copy Rotation settings, view toggles and buttons. Positions are those of the 960x600 test window's layout."""
import numpy as np
import pytest

from rig.evaluate import evaluate
from solvers.transforms import quat_from_axis_angle

MENU_BAR = 19  # the File/Edit menu bar's height: the panels start below it
SOLVER_ROW = 23  # the View section's "Solver state" row: what the Scene panel has below it moves down by it
OUTLINER_ROW = {"pelvis": (800, 227 + MENU_BAR + SOLVER_ROW), "neck": (821, 295 + MENU_BAR + SOLVER_ROW),
                "head": (831, 312 + MENU_BAR + SOLVER_ROW)}
ADD_CONSTRAINT = (100, 87 + MENU_BAR)  # "Add IK constraint to ..." with the Solver section collapsed
REMOVE_CONSTRAINT = (209, 87 + MENU_BAR)
BONES_CHECKBOX, NAMES_CHECKBOX = (745, 67 + MENU_BAR), (802, 90 + MENU_BAR)
SOLVER_CHECKBOX = (745, 113 + MENU_BAR)
VIEW_BUTTON = {"top": (908, 113 + MENU_BAR + SOLVER_ROW), "left": (837, 136 + MENU_BAR + SOLVER_ROW)}
COPY_ROTATION_HEADER = (60, 234 + MENU_BAR)
HAND_L_Y_AXIS = (63, 297 + MENU_BAR)  # the first constraint's (hand.L's) widgets, once the section is open
HAND_L_INFLUENCE_MIDDLE = (119, 320 + MENU_BAR)


@pytest.mark.parametrize("name", ["pelvis", "neck", "head"])
def test_outliner_click_selects_the_bone(driver, name):
    driver.click(*OUTLINER_ROW[name])
    assert driver.state.view.selected == {name} and driver.state.view.active == name


def test_add_then_remove_an_ik_constraint_on_the_active_bone(driver):
    state = driver.state
    before = state.pose.copy()
    driver.click(*OUTLINER_ROW["neck"])
    driver.click(*ADD_CONSTRAINT)
    added = [c for c in state.rig.ik if c.bone == "neck"]
    assert len(added) == 1 and added[0].target is None
    assert state.selected_constraint() is added[0]
    assert state.pose == before  # targetless: nothing to solve yet
    driver.click(*REMOVE_CONSTRAINT)
    assert not [c for c in state.rig.ik if c.bone == "neck"]


def test_copy_rotation_section_sets_axes_and_influence_and_leaves_the_pose_channel(driver):
    state = driver.state
    hand, handle = (state.rig.skeleton.index[n] for n in ("hand.L", "hand_ik.L"))
    state.pose.rotations[handle] = quat_from_axis_angle([0.3, 1.0, 0.2], 1.2)
    state.resolve()
    channel = state.pose.rotations[hand].copy()
    driver.click(*COPY_ROTATION_HEADER)
    driver.click(*HAND_L_Y_AXIS)
    driver.click(*HAND_L_INFLUENCE_MIDDLE)
    hand_l, foot_l = state.rig.copy_rotation[:2]
    assert hand_l.use_axes == (True, False, True) and hand_l.influence == pytest.approx(0.5, abs=0.05)
    assert foot_l.use_axes == (True, True, True) and foot_l.influence == 1.0  # widgets of their own
    np.testing.assert_array_equal(state.pose.rotations[hand], channel)
    np.testing.assert_allclose(state.world, evaluate(state.rig, state.pose)[1], atol=1e-6)
    assert not np.allclose(state.world[hand, :3, :3], state.world[handle, :3, :3], atol=1e-3)


def test_view_toggles_and_buttons(driver):
    state = driver.state
    driver.click(*BONES_CHECKBOX)
    driver.click(*NAMES_CHECKBOX)
    assert not state.view.show_bones and state.view.show_names
    assert state.view.show_solver
    driver.click(*SOLVER_CHECKBOX)
    assert not state.view.show_solver and state.view.solver_overlay is None
    driver.click(*VIEW_BUTTON["top"])
    assert (state.camera.yaw, state.camera.pitch) == pytest.approx((0.0, np.pi / 2))
    driver.click(*VIEW_BUTTON["left"])
    assert (state.camera.yaw, state.camera.pitch) == pytest.approx((-np.pi / 2, 0.0))


def test_hidden_bones_cannot_be_picked(driver):
    driver.click(*BONES_CHECKBOX)
    driver.click(*driver.pixel_along("shin.L", 0.5))
    assert driver.state.view.selected == set()
