"""Status bar messages clear a few seconds after they show, as Blender's reports do; an error stays
until its toast is clicked. Driven by a fake clock, and by the app's deterministic frames."""
import pytest

from tests.ui.conftest import humanoid_state
from ui import widgets
from ui.status import MESSAGE_SECONDS, expire_message

FRAMES_PER_SECOND = 60  # a deterministic frame is 1/60 s on ImGui's clock


@pytest.fixture
def state():
    return humanoid_state()


def test_an_info_message_clears_once_its_time_is_up(state):
    state.message = "Pose copied"
    expire_message(state, 100.0)  # first shown
    expire_message(state, 100.0 + MESSAGE_SECONDS - 0.01)
    assert state.message == "Pose copied"
    expire_message(state, 100.0 + MESSAGE_SECONDS)
    assert state.message == ""


def test_the_same_message_again_shows_for_its_whole_time(state):
    state.message = "Undo"
    expire_message(state, 0.0)
    state.message = "Undo"
    expire_message(state, MESSAGE_SECONDS - 1.0)  # shown afresh here
    expire_message(state, MESSAGE_SECONDS + 1.0)
    assert state.message == "Undo"
    expire_message(state, 2 * MESSAGE_SECONDS - 1.0)
    assert state.message == ""


def test_an_error_stays_until_dismissed_then_clears(state):
    state.report_error("Cannot write x.json: disk full")
    expire_message(state, 0.0)
    expire_message(state, 100 * MESSAGE_SECONDS)
    assert state.message == state.error == "Cannot write x.json: disk full"
    state.error = ""  # its toast clicked
    expire_message(state, 100 * MESSAGE_SECONDS)
    assert state.message == ""


def test_in_the_app_a_message_clears_and_an_error_waits_for_its_toast(driver):
    state = driver.state
    driver.key("C", ["ctrl"])
    assert state.message == "Pose copied"
    driver.frames(int(MESSAGE_SECONDS * FRAMES_PER_SECOND) - 5)
    assert state.message == "Pose copied"
    driver.frames(10)
    assert state.message == ""
    state.report_error("Cannot write x.json: disk full")
    driver.frames(2 * int(MESSAGE_SECONDS * FRAMES_PER_SECOND))
    assert state.message == state.error
    driver.click_item("Dismiss##toast")
    driver.frames(1)
    assert state.message == state.error == ""
    assert not [item for item in widgets.drawn() if item.label == "Dismiss##toast"]
