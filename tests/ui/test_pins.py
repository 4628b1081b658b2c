"""Pins from the user's side: P / Shift+P / Alt+P in the viewport, the tools strip's Pin, Unpin
and Whole body, the Pose tab's pin of the active bone, the outliner's right-click menu and pin
toggle, undo and redo, pose files that keep pins, and the pin markers in a screenshot."""
import json

import numpy as np

from tests.golden import assert_matches_golden
from ui import widgets
from ui.editor import COMMANDS
from ui.keymap import keymap_rows, viewport_keys

HELD = 1e-12  # a pin is the bone's own head and rotation, to rounding


def select(driver, *bones):
    """Click the first bone in the viewport, Shift+click the others."""
    for k, bone in enumerate(bones):
        driver.click(*driver.pixel_along(bone, 0.5), mods=["shift"] if k else [])
    driver.frames(1)  # after Shift comes up ImGui takes a frame to claim a pointer moved onto a panel
    assert driver.state.view.selected == set(bones)


def assert_pinned_where_it_is(state, name, rotation=True):
    pin = state.pins[name]
    bone = state.rig.skeleton.index[name]
    np.testing.assert_allclose(pin.position, state.world[bone, :3, 3], atol=HELD)
    assert pin.holds_rotation == rotation
    if rotation:
        x, y, z, w = pin.rotation
        expected = state.world[bone, :3, :3] / np.linalg.norm(state.world[bone, :3, :3], axis=0)
        turned = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                           [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                           [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
        np.testing.assert_allclose(turned, expected, atol=1e-9)


def test_p_pins_the_selected_bones_where_they_are_shift_p_their_positions_and_alt_p_unpins(driver):
    state = driver.state
    select(driver, "shin.L", "thigh.R")
    driver.key("P")
    assert set(state.pins) == {"shin.L", "thigh.R"}
    for name in state.pins:
        assert_pinned_where_it_is(state, name)
    assert state.message == "Pinned shin.L, thigh.R"
    driver.key("P", ["shift"])
    for name in state.pins:
        assert_pinned_where_it_is(state, name, rotation=False)
    assert state.message == "Pinned shin.L, thigh.R (position only)"
    select(driver, "thigh.R")
    driver.key("P", ["alt"])
    assert set(state.pins) == {"shin.L"} and state.message == "Unpinned thigh.R"


def test_alt_p_with_nothing_selected_unpins_every_bone_and_p_asks_for_a_selection(driver):
    state = driver.state
    driver.key("P")
    assert not state.pins and state.message == "Nothing to pin: select bones first"
    select(driver, "shin.L", "thigh.R")
    driver.key("P")
    driver.click(40, 60)  # on nothing: deselects all
    assert not state.view.selected
    driver.key("P", ["alt"])
    assert not state.pins and state.message == "Unpinned shin.L, thigh.R"


def test_the_pin_keys_are_listed_in_the_keymap_and_bound_nowhere_else():
    assert (viewport_keys("pin"), viewport_keys("pin", (False,)), viewport_keys("unpin")) == ("P", "Shift+P", "Alt+P")
    rows = keymap_rows(COMMANDS)
    for keys in ("P", "Shift+P", "Alt+P"):
        assert [row for row in rows if row[1] == keys and row[0] == "Pose tools"], keys
        assert len([row for row in rows if keys in row[1].split(" / ")]) == 1, f"{keys} is bound twice"


def test_the_toolbar_pins_and_unpins_the_selection(driver):
    state = driver.state
    select(driver, "shin.L", "forearm.R")
    driver.click_item("Pin", kinds=("button",))
    assert set(state.pins) == {"shin.L", "forearm.R"}
    assert_pinned_where_it_is(state, "forearm.R")
    select(driver, "forearm.R")
    driver.click_item("Unpin", kinds=("button",))
    assert set(state.pins) == {"shin.L"}


def test_whole_body_is_on_while_pins_exist_until_the_user_sets_it(driver):
    state = driver.state
    assert widgets.find("Whole body").value is False  # no pins: off, and the toggle shows it
    select(driver, "shin.L")
    driver.key("P")
    driver.frames(1)
    assert state.body_follows and widgets.find("Whole body").value is True
    driver.click_item("Whole body")
    assert state.whole_body is False and not state.body_follows
    driver.key("P", ["alt"])
    driver.key("P")
    driver.frames(1)
    assert widgets.find("Whole body").value is False  # the user said: it stays off
    driver.click_item("Whole body")
    assert state.whole_body is True


def test_the_pose_tab_pins_the_active_bone_and_can_let_its_rotation_go(driver):
    state = driver.state
    select(driver, "forearm.L")
    assert widgets.find("Pinned").value is False
    driver.click_item("Pinned")
    assert_pinned_where_it_is(state, "forearm.L")
    driver.click_item("Hold rotation")
    assert_pinned_where_it_is(state, "forearm.L", rotation=False)
    driver.click_item("Hold rotation")
    assert_pinned_where_it_is(state, "forearm.L")
    driver.click_item("Pinned")
    assert not state.pins


def test_the_outliner_pins_from_a_right_click_and_its_pin_toggle_unpins(driver):
    state = driver.state
    x, y = widgets.find("neck", kinds=("tree_node_ex",)).centre
    driver.move(x, y)
    driver.press(x, y, "right")
    driver.release(x, y, "right")
    driver.frames(1)
    driver.click_item("Pin position only", kinds=("menu_item",))
    assert_pinned_where_it_is(state, "neck", rotation=False)
    driver.frames(1)
    toggle = widgets.find("pin##pin neck")
    assert toggle.value is True and toggle.rect[0] > x  # at the row's end
    driver.click_item("pin##pin neck")
    assert not state.pins


def test_pin_and_unpin_are_undo_steps(driver):
    state = driver.state
    select(driver, "shin.L")
    driver.key("P")
    driver.key("P", ["shift"])
    driver.key("P", ["alt"])
    assert not state.pins
    driver.key("Z", ["ctrl"])
    assert_pinned_where_it_is(state, "shin.L", rotation=False)
    driver.key("Z", ["ctrl"])
    assert_pinned_where_it_is(state, "shin.L")
    driver.key("Z", ["ctrl"])
    assert not state.pins
    driver.key("Z", ["ctrl", "shift"])
    assert_pinned_where_it_is(state, "shin.L")
    assert driver.app.editor.has_unsaved_changes()  # pins are saved with the pose: work to keep


def test_a_pose_saved_with_pins_opens_with_them(driver, tmp_path):
    state, editor = driver.state, driver.app.editor
    select(driver, "shin.L", "thigh.R")
    driver.key("P")
    select(driver, "thigh.R")
    driver.key("P", ["shift"])
    pins = dict(state.pins)
    path = tmp_path / "pinned.json"
    assert editor.write_pose(str(path))
    assert set(json.loads(path.read_text())["pins"]) == {"shin.L", "thigh.R"}
    driver.key("P", ["alt"])
    driver.click(40, 60)
    driver.key("P", ["alt"])
    assert not state.pins
    assert editor.read_pose(str(path))
    assert state.pins == pins  # bit for bit


def test_pin_markers_stand_on_the_pinned_bones_over_everything(driver):
    """A filled pin on shin.L's pin (rotation held), a hollow one on thigh.R's (position only),
    drawn over the bones; a hidden bone's marker goes with it."""
    state = driver.state
    select(driver, "shin.L")
    driver.key("P")
    select(driver, "thigh.R")
    driver.key("P", ["shift"])
    driver.move(300, 120)  # hover nothing
    assert {mark.bone for mark in state.view.pins} == {"shin.L", "thigh.R"}
    assert_matches_golden(driver.app.read_rgb(), "ui_pins")
    select(driver, "shin.L")
    driver.key("H")
    assert {mark.bone for mark in state.view.pins} == {"thigh.R"}
