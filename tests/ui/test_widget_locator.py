"""Replayed events that act on a widget found by its label wherever the layout put it: click_item,
hover_item and set_value (typed into the widget, so the panel's own clamping applies)."""
import re

import pytest
from imgui_bundle import imgui

from rig.constraints import RANGES
from rig.formats.jsonfields import FileFormatError
from ui import widgets
from ui.replay import events_from_dict
from ui.widgets import LocateError


def play(driver, *events):
    driver.play(events_from_dict({"events": list(events)}, "events.json"))


def click(label, index=None):
    return {"type": "click_item", "label": label} | ({} if index is None else {"index": index})


def set_value(label, value, index=None):
    return {"type": "set_value", "label": label, "value": value} | ({} if index is None else {"index": index})


def test_click_item_toggles_a_checkbox_found_by_its_label(driver):
    play(driver, click("View"), click("Names"))
    assert driver.state.view.show_names
    play(driver, click("Names"))
    assert not driver.state.view.show_names


def test_a_label_finds_its_widget_after_the_panels_were_resized(driver):
    tab = widgets.find("Copy rotation").centre
    splitter = driver.state.free_pixels(*driver.app.window.get_size())[2] + 1.0  # right of the viewport
    y = tab[1] + 100.0
    play(driver, {"type": "move", "x": splitter, "y": y}, {"type": "press", "x": splitter, "y": y},
         {"type": "drag", "x": splitter - 60, "y": y}, {"type": "release", "x": splitter - 60, "y": y})
    assert widgets.find("Copy rotation").centre[0] == pytest.approx(tab[0] - 60, abs=1.0)  # the column widened
    play(driver, click("Copy rotation"), set_value("Enabled", False, index=1))
    hand_l, foot_l = driver.state.rig.copy_rotation[:2]
    assert hand_l.enabled and not foot_l.enabled


def test_set_value_types_iterations_into_its_slider_as_one_undo_step(driver):
    play(driver, click("Solver"), set_value("Iterations", 50))
    state = driver.state
    assert state.rig.solver.iterations == 50 and widgets.find("Iterations").value == 50
    driver.key("Z", ["ctrl"])
    assert state.rig.solver.iterations == 100 and not state.history.can_undo()


@pytest.mark.parametrize("typed, kept", [(1_000_000, RANGES["iterations"][1]), (-5, RANGES["iterations"][0])])
def test_set_value_out_of_range_ends_in_range(driver, typed, kept):
    play(driver, click("Solver"), set_value("Iterations", typed))
    assert driver.state.rig.solver.iterations == kept


def test_set_value_on_a_float_slider_goes_through_the_panels_clamp(driver):
    driver.click(*driver.pixel_along("shin.L", 0.5))  # its IK constraint's settings show
    play(driver, click("IK constraint"), set_value("Influence", 0.25))
    constraint = driver.state.selected_constraint()
    assert constraint.bone == "shin.L" and constraint.influence == pytest.approx(0.25)
    play(driver, set_value("Weight position", 7.5))
    assert constraint.weight == RANGES["weight"][1]


def test_set_value_types_into_an_input_field_and_sets_a_checkbox(driver):
    play(driver, click("Solver"), set_value("Tolerance", 0.001), set_value("Target rotations", True),
         set_value("Target rotations", True))  # already on: left as it is
    solver = driver.state.rig.solver
    assert solver.tolerance == pytest.approx(0.001) and solver.use_target_rotations


def test_set_value_picks_a_combo_row_by_its_text(driver):
    """The whole label tells the Solver combo from the Solver header; the row is clicked in the list."""
    play(driver, click("Solver"), set_value("Solver##solver_type", "fabrik"))
    assert driver.state.rig.solver.type == "fabrik"
    with pytest.raises(LocateError, match="events\\[0\\]: no widget labelled 'newton' is drawn"):
        play(driver, set_value("Solver##solver_type", "newton"))


def test_hover_item_hovers_the_widget_and_its_tooltip_shows(driver):
    play(driver, click("Copy rotation"), {"type": "hover_item", "label": "Enabled", "index": 0}, {"type": "frame", "count": 30})
    assert imgui.get_current_context().hovered_id == widgets.find("Enabled", 0).id
    tooltip = imgui.internal.find_window_by_name("##Tooltip_00")
    assert tooltip is not None and tooltip.active


@pytest.mark.parametrize("event, message", [
    (click("No such widget"), "events[1]: no widget labelled 'No such widget' is drawn"),
    (click("Enabled"), "events[1]: 4 widgets are labelled 'Enabled': give \"index\""),
    (click("Enabled", 4), "events[1]: index 4 is past the 4 widgets labelled 'Enabled'"),
    (set_value("Influence", True, 0), "events[1]: 'Influence' is a slider float: set_value takes true or false"),
    (set_value("Enabled", 0.5, 0), "events[1]: 'Enabled' is a checkbox"),
])
def test_a_widget_that_cannot_be_found_or_set_is_named(driver, event, message):
    with pytest.raises(LocateError, match=re.escape(message)):
        play(driver, click("Copy rotation"), event)


@pytest.mark.parametrize("event, field", [
    ({"type": "click_item"}, "'events[0].label': expected a value"),
    ({"type": "hover_item", "label": "Names", "index": -1}, "'events[0].index': expected an integer"),
    ({"type": "set_value", "label": "Iterations"}, "'events[0].value': expected a value"),
    ({"type": "set_value", "label": "Iterations", "value": [1]}, "'events[0].value': expected true, false"),
    ({"type": "set_value", "label": "Iterations", "value": 1, "mods": ["ctrl"]},
     "unknown field 'events[0].mods'"),  # set_value types: it holds no modifiers, and says so
])
def test_item_events_are_read_field_by_field(event, field):
    with pytest.raises(FileFormatError, match=re.escape(field)):
        events_from_dict({"events": [event]}, "events.json")
