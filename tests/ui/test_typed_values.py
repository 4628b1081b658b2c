"""Values typed into float fields through the widgets, found by label in a replay: NaN and infinity
are refused (the previous value kept, nothing broken), and Tolerance is clamped to its range with
a note in the status bar."""
import json
import math

import pytest

from rig.constraints import RANGES
from ui import widgets
from ui.frame_dump import FrameDump
from ui.replay import events_from_dict


def play(driver, *events):
    driver.play(events_from_dict({"events": list(events)}, "events.json"))


def click(label):
    return {"type": "click_item", "label": label}


def set_value(label, value, index=None):
    return {"type": "set_value", "label": label, "value": value} | ({} if index is None else {"index": index})


def solver_setting(name):
    return lambda state: getattr(state.rig.solver, name)


# (events that show the field, its label and index, the setting it edits)
FIELDS = {
    "Damping": ([click("Solver")], "Damping", None, solver_setting("damping")),
    "Tolerance": ([click("Solver")], "Tolerance", None, solver_setting("tolerance")),
    "IK stretch": ([click("Bone IK")], "IK stretch", None, lambda state: state.rig.ik_settings("shin.L").stretch),
    "Location X": ([click("Pose")], "X", 0, lambda state: state.pose.locations[state.rig.skeleton.index["shin.L"], 0]),
}


@pytest.mark.parametrize("typed", ["nan", "inf", "-inf", "NaN"])
@pytest.mark.parametrize("field", list(FIELDS))
def test_a_typed_nan_or_infinity_is_refused_and_the_widget_locator_file_goes_on(driver, tmp_path, field, typed):
    """Typing nan into Damping used to make the widget locator file (POSEKIT_WIDGETS) unwritable
    until the app restarted; a slider with always_clamp passed the NaN on (IK stretch kept it)."""
    show, label, index, setting = FIELDS[field]
    driver.app.dump = FrameDump(str(tmp_path / "widgets.json"))
    driver.click(*driver.pixel_along("shin.L", 0.5))
    play(driver, *show)
    state = driver.state
    before, shown = setting(state), widgets.find(label, index).value
    play(driver, set_value(label, typed, index))
    assert setting(state) == before and widgets.find(label, index).value == shown
    assert not state.history.can_undo() and not state.error
    assert all(math.isfinite(value) for value in state.world.ravel())
    written = driver.app.dump.frames
    driver.frames(1)
    assert driver.app.dump.path is not None and driver.app.dump.frames > written
    rows = json.loads((tmp_path / "widgets.json").read_text())["widgets"]
    assert all(math.isfinite(row["value"]) for row in rows if isinstance(row["value"], float))


def test_a_tolerance_past_its_range_is_clamped_and_the_status_bar_says_so(driver):
    """1e9 used to be taken: every chain then stopped at 0 iterations, 0.6 m off, with no word."""
    play(driver, click("Solver"), set_value("Tolerance", 1e9))
    state = driver.state
    high = RANGES["tolerance"][1]
    assert state.rig.solver.tolerance == high
    assert "Tolerance" in state.message and f"{high:g}" in state.message and not state.error
    play(driver, set_value("Tolerance", 0.001))
    assert state.rig.solver.tolerance == pytest.approx(0.001) and state.message == ""  # the note went with it
    play(driver, set_value("Tolerance", -1))
    assert state.rig.solver.tolerance == RANGES["tolerance"][0]
