"""Pins kept with the session: the autosave's file holds them (the pose's and each undo step's)
and the whole-body choice, and a crash loses none of them."""
import json

import pytest

from rig.formats.jsonfields import FileFormatError
from tests.ui.conftest import humanoid_state
from tests.ui.test_crash_recovery import launch, let_the_autosave_write, restore  # noqa: F401 (a fixture)
from tests.ui.test_pins import assert_pinned_where_it_is, select
from ui.pins import pin_bones
from ui.session_file import restore_session, session_dict


def pinned_session():
    """A humanoid with three steps: nothing pinned, the feet pinned, the left foot's pin position-only."""
    state = humanoid_state()
    pin_bones(state, ["foot.L", "foot.R"])
    state.history.commit(state)
    pin_bones(state, ["foot.L"], rotation=False)
    state.history.commit(state)
    return state


def test_a_session_keeps_its_pins_each_steps_pins_and_the_whole_body_choice():
    state = pinned_session()
    state.whole_body = False
    restored = restore_session(json.loads(json.dumps(session_dict(state)))).state
    assert restored.pins == state.pins and restored.whole_body is False
    expected = [step.pins for step in state.history.undo_stack]
    assert [step.pins for step in restored.history.undo_stack] == expected
    assert restored.history.undo(restored) and restored.pins == expected[-1]
    assert restored.history.undo(restored) and restored.pins == {}


def test_a_session_saved_before_pins_existed_restores_with_none():
    state = humanoid_state()
    data = json.loads(json.dumps(session_dict(state)))
    del data["whole_body"]
    assert "pins" not in data["pose"]
    restored = restore_session(data).state
    assert restored.pins == {} and restored.whole_body is None


def test_a_bad_whole_body_choice_names_the_field():
    data = json.loads(json.dumps(session_dict(pinned_session())))
    data["whole_body"] = "yes"
    with pytest.raises(FileFormatError, match="recovery.json: field 'whole_body'"):
        restore_session(data, "recovery.json")


def test_pins_survive_a_crash_and_undo_goes_on_through_them(launch):  # noqa: F811 (the fixture)
    driver = launch()
    select(driver, "shin.L", "thigh.R")
    driver.key("P")
    select(driver, "thigh.R")
    driver.key("P", ["shift"])
    driver.click_item("Whole body")
    pins = dict(driver.state.pins)
    let_the_autosave_write(driver)

    driver = restore(launch())
    state = driver.state
    assert state.pins == pins and state.whole_body is False
    assert_pinned_where_it_is(state, "thigh.R", rotation=False)
    driver.key("Z", ["ctrl"])
    assert_pinned_where_it_is(state, "thigh.R")
    driver.key("Z", ["ctrl"])
    assert state.pins == {}
