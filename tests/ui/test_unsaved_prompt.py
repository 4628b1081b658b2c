"""No lost work: quitting, opening another rig or File > New with unsaved changes asks Save /
Don't save / Cancel first; nothing is asked when there is nothing to lose."""
import numpy as np
import pytest

from rig.formats.rigfile import load_pose, load_rig
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED
from tests.ui.conftest import Driver, humanoid_state
from tests.ui.test_editing import drag_hand
from ui import DEFAULT_RIG


@pytest.fixture
def closes(driver):
    """The window's close requests that got through (the app's loop would end on each)."""
    seen = []

    def on_close():
        if driver.app.editor.may_close():
            seen.append(True)
        return True  # the test window stays open
    driver.app.window.push_handlers(on_close=on_close)
    yield seen
    driver.app.window.remove_handlers(on_close=on_close)


def test_quitting_with_nothing_changed_asks_nothing(driver, closes):
    driver.key("Q", ["ctrl"])
    assert closes == [True] and driver.app.editor.unsaved is None


def test_escape_cancels_quitting_and_keeps_the_work(driver, closes):
    drag_hand(driver)
    pose = driver.state.pose.copy()
    driver.key("Q", ["ctrl"])
    driver.frames(2)
    assert closes == [] and driver.app.editor.unsaved is not None
    driver.key("ESCAPE")
    driver.frames(1)
    assert closes == [] and driver.app.editor.unsaved is None and driver.state.pose == pose


def test_dont_save_quits(driver, closes):
    drag_hand(driver)
    driver.key("Q", ["ctrl"])
    driver.frames(2)
    driver.key("D")
    driver.app.window.dispatch_events()  # the answer's close request, queued during the frame
    assert closes == [True]


def test_save_writes_the_pose_then_quits(driver, closes, tmp_path):
    path = str(tmp_path / "pose.json")
    assert driver.app.editor.write_pose(path)
    drag_hand(driver)
    assert driver.app.editor.has_unsaved_changes()
    driver.key("Q", ["ctrl"])
    driver.frames(2)
    driver.key("ENTER")
    driver.app.window.dispatch_events()
    assert closes == [True]
    saved, _ = load_pose(path, driver.state.rig.skeleton)
    np.testing.assert_allclose(saved.rotations, driver.state.pose.rotations, atol=1e-12)
    np.testing.assert_allclose(saved.locations, driver.state.pose.locations, atol=1e-12)
    assert not driver.app.editor.has_unsaved_changes()


def test_undoing_back_to_the_saved_pose_leaves_nothing_to_ask(driver, closes):
    drag_hand(driver)
    driver.key("Z", ["ctrl"])
    driver.key("Q", ["ctrl"])
    assert closes == [True]


@NEEDS_SHARED
def test_opening_another_rig_asks_first_and_cancel_keeps_the_scene(driver):
    drag_hand(driver)
    rig = driver.app.state.rig
    driver.app.editor.replace_scene(CMU_EXCERPT)
    driver.frames(2)
    driver.key("ESCAPE")
    driver.frames(1)
    assert driver.app.state.rig is rig
    driver.app.editor.replace_scene(CMU_EXCERPT)
    driver.frames(2)
    driver.key("D")
    driver.frames(1)
    assert driver.app.state.rig is not rig and driver.app.state.rig_path == CMU_EXCERPT


@NEEDS_SHARED
def test_file_new_asks_first_then_starts_over_on_the_default_rig(driver):
    assert driver.app.editor.load_rig(CMU_EXCERPT)
    driver = Driver(driver.app)
    driver.key("I")  # an edit: a key
    bvh = driver.app.state
    driver.click_item("File")
    driver.click_item("New")
    driver.frames(2)
    assert driver.app.editor.unsaved is not None
    driver.key("ESCAPE")  # Cancel: the work stays
    driver.frames(1)
    assert driver.app.state is bvh
    driver.key("N", ["ctrl"])
    driver.frames(2)
    driver.key("D")  # Don't save
    driver.frames(1)
    state = driver.app.state
    assert state.rig_path == DEFAULT_RIG and state.rig.skeleton.names == load_rig(DEFAULT_RIG).skeleton.names
    assert state.pose == humanoid_state().pose and not state.history.can_undo()  # as a fresh start has it
    assert not driver.app.editor.has_unsaved_changes() and driver.app.editor.recent.paths == [CMU_EXCERPT]  # New opened nothing


def test_file_new_with_nothing_changed_asks_nothing(driver):
    driver.key("N", ["ctrl"])
    assert driver.app.editor.unsaved is None and driver.app.state.rig_path == DEFAULT_RIG
