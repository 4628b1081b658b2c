"""The docked panels driven by clicks: outliner selection, adding and removing an IK constraint,
view toggles and buttons. Positions are those of the 960x600 test window's layout."""
import numpy as np
import pytest

MENU_BAR = 19  # the File/Edit menu bar's height: the panels start below it
OUTLINER_ROW = {"pelvis": (800, 227 + MENU_BAR), "neck": (821, 295 + MENU_BAR), "head": (831, 312 + MENU_BAR)}
ADD_CONSTRAINT = (100, 87 + MENU_BAR)  # "Add IK constraint to ..." with the Solver section collapsed
REMOVE_CONSTRAINT = (209, 87 + MENU_BAR)
BONES_CHECKBOX, NAMES_CHECKBOX = (745, 67 + MENU_BAR), (802, 90 + MENU_BAR)
VIEW_BUTTON = {"top": (908, 113 + MENU_BAR), "left": (837, 136 + MENU_BAR)}


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


def test_view_toggles_and_buttons(driver):
    state = driver.state
    driver.click(*BONES_CHECKBOX)
    driver.click(*NAMES_CHECKBOX)
    assert not state.view.show_bones and state.view.show_names
    driver.click(*VIEW_BUTTON["top"])
    assert (state.camera.yaw, state.camera.pitch) == pytest.approx((0.0, np.pi / 2))
    driver.click(*VIEW_BUTTON["left"])
    assert (state.camera.yaw, state.camera.pitch) == pytest.approx((-np.pi / 2, 0.0))


def test_hidden_bones_cannot_be_picked(driver):
    driver.click(*BONES_CHECKBOX)
    driver.click(*driver.pixel_along("shin.L", 0.5))
    assert driver.state.view.selected == set()
