"""Autosave and crash recovery: the session is written after a change, offered back on start,
restored (pose, settings, camera) or discarded."""
import glob
import json
import os
from types import SimpleNamespace

import numpy as np
import pytest

from app import start_autosave
from ui.autosave import STATE_DIR_ENV, Autosaver, read_state_file, recovery_path
from ui.recent import RecentFiles
from ui.recovery import RecoveryOffer
from ui.session_file import PoseFile, read_recovery, restore_session, session_dict

from .conftest import humanoid_state
from .test_editing import drag_hand


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def edit(state):
    state.pose.locations[state.rig.skeleton.index["hand_ik.L"]] = (0.1, 0.05, 0.02)
    state.rig.ik[0].pole_angle = 0.75
    state.resolve()
    state.history.commit(state)


def test_recovery_path_honours_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "s"))
    assert recovery_path() == str(tmp_path / "s" / "recovery.json")
    monkeypatch.delenv(STATE_DIR_ENV)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert recovery_path() == str(tmp_path / "xdg" / "posekit" / "recovery.json")


def test_autosave_waits_for_a_change_then_a_delay(tmp_path):
    state, clock = humanoid_state(), FakeClock()
    path = tmp_path / "state" / "recovery.json"
    saver = Autosaver(str(path), delay=3.0, clock=clock)
    saver.start(state)
    clock.now += 10
    assert not saver.tick(state) and not path.exists()  # nothing changed
    edit(state)
    assert not saver.tick(state)
    clock.now += 2.9
    assert not saver.tick(state) and not path.exists()
    clock.now += 0.2
    assert saver.tick(state) and path.exists()
    assert not saver.tick(state)  # saved: nothing new
    state.camera.orbit(10, 0)
    assert not saver.tick(state)
    clock.now += 3.1
    assert saver.tick(state) and read_recovery(str(path))["camera"]["yaw"] == state.camera.yaw
    saver.clear()
    assert not path.exists()


def test_restored_session_has_the_pose_settings_and_camera(tmp_path):
    state = humanoid_state()
    edit(state)
    state.camera.orbit(40, -25)
    path = tmp_path / "recovery.json"
    path.write_text(json.dumps(session_dict(state)))
    restored = restore_session(read_recovery(str(path)), str(path)).state
    np.testing.assert_allclose(restored.pose.rotations, state.pose.rotations, atol=1e-15)
    np.testing.assert_array_equal(restored.pose.locations, state.pose.locations)
    assert restored.rig.ik == state.rig.ik and restored.rig.solver == state.rig.solver
    assert restored.rig_path == os.path.abspath(state.rig_path)
    np.testing.assert_allclose(restored.camera.view_matrix(), state.camera.view_matrix(), atol=1e-12)
    np.testing.assert_allclose(restored.world, state.world, atol=1e-9)


def test_a_damaged_recovery_file_is_reported(tmp_path):
    path = tmp_path / "recovery.json"
    path.write_text(json.dumps({"format": "posekit.recovery", "version": 1, "saved": 1.0, "rig_path": 3}))
    with pytest.raises(ValueError, match="'rig_path': expected a string"):
        read_recovery(str(path))
    assert read_state_file(str(tmp_path / "none.json"), read_recovery) == (None, "")


DAMAGED = {
    "a folder": None,
    "saved far in the future": '{"format": "posekit.recovery", "version": 1, "saved": 1e300, "rig_path": "r.json"}',
    "saved NaN": '{"format": "posekit.recovery", "version": 1, "saved": NaN, "rig_path": "r.json"}',
    "nested 100,000 deep": '{"format": ' + "[" * 100_000 + "]" * 100_000 + "}",
}


@pytest.mark.parametrize("damage", sorted(DAMAGED))
def test_a_damaged_recovery_file_is_set_aside_once_and_the_app_starts(monkeypatch, tmp_path, capsys, damage):
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path))
    path = tmp_path / "recovery.json"
    path.mkdir() if DAMAGED[damage] is None else path.write_text(DAMAGED[damage])
    app = SimpleNamespace(state=humanoid_state(), editor=SimpleNamespace(recovery=None, pose_file=PoseFile))
    autosaver = start_autosave(app, SimpleNamespace(no_recover=False))
    [aside] = glob.glob(str(tmp_path / "recovery.json.damaged-*"))  # renamed, not deleted
    assert (os.path.isdir(aside) if DAMAGED[damage] is None else open(aside).read() == DAMAGED[damage])
    assert app.editor.recovery is None and "set aside" in app.state.message and aside in app.state.message
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    autosaver.clear()  # a clean exit with nothing to remove
    assert read_state_file(str(path), read_recovery) == (None, "")  # reported once: the next start is quiet


def test_a_folder_where_the_recovery_file_goes_does_not_break_quitting(tmp_path):
    (tmp_path / "recovery.json").mkdir()
    Autosaver(str(tmp_path / "recovery.json")).clear()
    assert (tmp_path / "recovery.json").is_dir()


def test_a_damaged_recent_files_list_is_set_aside_and_reads_empty(tmp_path):
    path = tmp_path / "recent.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    recent = RecentFiles(str(path))
    assert recent.paths == [] and "set aside" in recent.problem and not path.exists()
    assert recent.add(str(tmp_path / "rig.json")) == "" and RecentFiles(str(path)).paths == [str(tmp_path / "rig.json")]


def offer_for(tmp_path, state):
    path = tmp_path / "recovery.json"
    path.write_text(json.dumps(session_dict(state)))
    return RecoveryOffer(str(path), read_recovery(str(path))), path


def test_enter_on_the_start_up_offer_restores_the_session(driver, tmp_path):
    crashed = humanoid_state()
    edit(crashed)
    driver.app.editor.recovery, path = offer_for(tmp_path, crashed)
    driver.frames(2)
    drag_hand(driver)  # the modal holds the mouse: the rig does not move
    assert driver.app.state.pose == driver.state.pose and driver.app.state.history.can_undo() is False
    driver.key("ENTER")
    driver.frames(1)
    state = driver.app.state
    assert driver.app.editor.recovery is None
    assert state.rig.ik[0].pole_angle == 0.75
    np.testing.assert_allclose(state.world, crashed.world, atol=1e-9)
    assert path.exists()  # kept until a clean exit


def test_escape_on_the_start_up_offer_discards_the_file(driver, tmp_path):
    before = driver.state.pose.copy()
    driver.app.editor.recovery, path = offer_for(tmp_path, humanoid_state())
    driver.frames(2)
    driver.key("ESCAPE")
    driver.frames(1)
    assert driver.app.editor.recovery is None and not path.exists()
    assert driver.app.state.pose == before
