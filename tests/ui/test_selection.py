"""Clicking and hovering bones and handles in the headless window, Blender's selection rules."""
from imgui_bundle import imgui
from pyglet.window import key

from ui import widgets

from .conftest import SIZE


def test_clicking_a_bone_selects_it_and_makes_it_active(driver):
    driver.click(*driver.pixel_along("thigh.L", 0.5))
    assert driver.state.view.selected == {"thigh.L"} and driver.state.view.active == "thigh.L"
    driver.click(*driver.pixel_along("spine.02", 0.5))
    assert driver.state.view.selected == {"spine.02"}


def test_picking_works_far_away_and_close_up(driver):
    camera = driver.state.camera
    state = driver.state
    i = state.rig.skeleton.index["forearm.R"]
    camera.target = state.world[i, :3, 3] + state.world[i, :3, 1] * state.rig.skeleton.lengths[i] / 2
    for zoom in (-12, 14):  # zooming about the forearm keeps it in the free viewport
        camera.zoom(zoom)
        driver.click(*driver.pixel_along("forearm.R", 0.5))
        assert driver.state.view.selected == {"forearm.R"}, f"zoom {zoom}"
        driver.click(5, SIZE[1] - 5)
        camera.zoom(-zoom)


def test_shift_click_adds_then_activates_then_deselects(driver):
    view = driver.state.view
    driver.click(*driver.pixel_along("thigh.L", 0.5))
    driver.click(*driver.pixel_along("shin.R", 0.5), mods=key.MOD_SHIFT)
    assert view.selected == {"thigh.L", "shin.R"} and view.active == "shin.R"
    driver.click(*driver.pixel_along("thigh.L", 0.5), mods=key.MOD_SHIFT)
    assert view.selected == {"thigh.L", "shin.R"} and view.active == "thigh.L"
    driver.click(*driver.pixel_along("thigh.L", 0.5), mods=key.MOD_SHIFT)
    assert view.selected == {"shin.R"} and view.active is None


def test_a_click_on_empty_space_clears_the_selection(driver):
    driver.click(*driver.pixel_along("thigh.L", 0.5))
    x, y = 20, SIZE[1] - driver.state.view_insets[3] - 20  # the viewport's bottom left corner
    driver.click(x, y, mods=key.MOD_SHIFT)
    assert driver.state.view.selected == {"thigh.L"}  # Shift+click on nothing keeps it
    driver.click(x, y)
    assert driver.state.view.selected == set() and driver.state.view.active is None


def test_the_handle_on_a_hand_wins_over_the_hand_bone(driver):
    driver.click(*driver.pixel_of("hand_ik.L"))
    assert driver.state.view.selected == {"hand_ik.L"}


def test_hover_follows_the_pointer_and_not_over_panels(driver):
    driver.move(*driver.pixel_along("shin.L", 0.4))
    assert driver.state.view.hovered == "shin.L"
    driver.move(SIZE[0] - 20, SIZE[1] - 20)
    assert driver.state.view.hovered is None
    driver.move(60, 40)  # over the side panel
    assert driver.state.view.hovered is None


def test_a_selects_every_bone_and_alt_a_deselects_them(driver):
    view = driver.state.view
    driver.click(*driver.pixel_along("thigh.L", 0.5))
    driver.key("A")
    assert view.selected == set(driver.state.rig.skeleton.names) and view.active == "thigh.L"
    driver.key("A", ["alt"])
    assert view.selected == set() and view.active is None
    assert not driver.state.history.can_undo()  # selection is a view, not an edit (as in Blender)


def test_h_hides_the_selection_which_is_then_neither_picked_nor_selected(driver):
    view = driver.state.view
    shin = driver.pixel_along("shin.L", 0.5)
    driver.click(*shin)
    driver.key("H")
    assert view.hidden == {"shin.L"} and view.selected == set() and view.active is None
    driver.move(*shin)
    assert view.hovered is None
    driver.click(*shin)
    assert view.selected == set()
    driver.key("A")
    assert "shin.L" not in view.selected and "thigh.L" in view.selected
    driver.key("H", ["alt"])  # reveals, selected as Blender selects what it reveals
    assert view.hidden == set() and "shin.L" in view.selected
    driver.click(*shin)
    assert view.selected == {"shin.L"}


def test_shift_h_hides_every_unselected_bone(driver):
    state = driver.state
    view = state.view
    driver.click(*driver.pixel_along("shin.L", 0.5))
    driver.key("H", ["shift"])
    assert view.hidden == set(state.rig.skeleton.names) - {"shin.L"} and view.selected == {"shin.L"}
    driver.click(*driver.pixel_along("thigh.L", 0.5))
    assert view.selected == set()  # the thigh is hidden: the click met nothing
    driver.key("A")
    assert view.selected == {"shin.L"}
    driver.key("HOME")  # frames what is shown: the shin alone spans most of the free height
    ends = [driver.pixel_along("shin.L", t) for t in (0.0, 1.0)]
    assert abs(ends[1][1] - ends[0][1]) > 0.5 * (SIZE[1] - sum(state.view_insets[1::2]))


def test_h_and_alt_h_are_undo_steps_as_in_blender_but_leave_nothing_unsaved(driver):
    view = driver.state.view
    driver.click(*driver.pixel_along("shin.L", 0.5))
    driver.key("H")
    driver.key("Z", ["ctrl"])
    assert view.hidden == set()
    driver.key("Z", ["ctrl", "shift"])
    assert view.hidden == {"shin.L"} and "shin.L" not in view.selected
    driver.key("H", ["alt"])
    driver.key("Z", ["ctrl"])
    assert view.hidden == {"shin.L"}
    assert not driver.app.editor.has_unsaved_changes()  # no file keeps hidden bones


def test_a_hidden_bones_outliner_row_takes_no_selection(driver):
    view = driver.state.view
    driver.click_item("neck")
    driver.key("H")
    driver.click_item("head")
    driver.click_item("neck")
    assert view.selected == {"head"} and view.active == "head"  # the click on the hidden row did nothing
    driver.click_item("neck", mods=["shift"])
    assert view.selected == {"head"}


def test_the_outliner_toggle_hides_and_shows_a_bone_one_undo_step_each(driver):
    view = driver.state.view
    driver.click_item("neck")
    toggle = "##show neck"
    assert widgets.find(toggle).value is True
    driver.click_item(toggle)
    assert view.hidden == {"neck"} and view.selected == set() and view.active is None
    assert widgets.find(toggle).value is False
    driver.click(*driver.pixel_along("neck", 0.5))
    assert view.selected == set()  # hidden in the viewport: not picked
    driver.click_item(toggle)
    assert view.hidden == set() and view.selected == set()  # shown again, not selected
    driver.key("Z", ["ctrl"])
    assert view.hidden == {"neck"}
    driver.key("Z", ["ctrl"])
    assert view.hidden == set()
    assert driver.state.message == "Undo"


def test_the_outliner_toggle_says_what_it_does(driver, monkeypatch):
    tips = []
    monkeypatch.setattr(imgui, "set_tooltip", tips.append)
    driver.frames(1)
    assert tips == []
    driver.hover_item("##show head")
    driver.frames(1)
    assert tips[-1] == "Hide / show in viewport"
