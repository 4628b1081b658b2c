"""Autosave and crash recovery: the session is written after a change, offered back on start,
restored (pose, settings, camera) or discarded."""
import gc
import glob
import json
import math
import os
import threading
import weakref
from types import SimpleNamespace

import numpy as np
import pytest

import ui.autosave
from app import start_autosave
from rig.formats.atomic import save_bytes_atomic
from ui.autosave import STATE_DIR_ENV, Autosaver, read_state_file, recovery_path
from ui.history import HISTORY_LIMIT
from ui.recent import RecentFiles
from ui.recovery import RecoveryOffer
from ui.selection import set_hidden
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


def tick_and_wait(saver, state):
    """``saver.tick(state)``, then wait for the write it began on its thread, if any."""
    began = saver.tick(state)
    saver.wait()
    return began


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
    assert not tick_and_wait(saver, state) and not path.exists()  # nothing changed
    edit(state)
    assert not tick_and_wait(saver, state)
    clock.now += 2.9
    assert not tick_and_wait(saver, state) and not path.exists()
    clock.now += 0.2
    assert tick_and_wait(saver, state) and path.exists()
    assert not tick_and_wait(saver, state)  # saved: nothing new
    state.camera.orbit(10, 0)
    assert not tick_and_wait(saver, state)
    clock.now += 3.1
    assert tick_and_wait(saver, state) and read_recovery(str(path))["camera"]["yaw"] == state.camera.yaw
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


# A long history, written from cached step text on a thread -------------------------------------
def make_edits(state, count, seed=7):
    """``count`` undo steps as a user makes them: the hand's IK handle moved and solved, every
    fifth an IK setting changed, every seventh the neck hidden or shown again; returns what each
    step puts back."""
    rng = np.random.default_rng(seed)
    hand = state.rig.skeleton.index["hand_ik.L"]
    steps = []
    for k in range(count):
        state.pose.locations[hand] = rng.uniform(-0.2, 0.2, 3)
        if k % 5 == 0:
            state.rig.ik[0].pole_angle = float(rng.uniform(-1.0, 1.0))
        if k % 7 == 3:
            set_hidden(state.view, set() if state.view.hidden else {"neck"})
        state.resolve()
        assert state.history.commit(state)
        steps.append(step_of(state))
    return steps


def step_of(state):
    return SimpleNamespace(pose=state.pose.copy(), world=state.world.copy(), hidden=set(state.view.hidden),
                           pole_angle=state.rig.ik[0].pole_angle)


def assert_at(state, step):
    assert state.pose == step.pose and state.view.hidden == step.hidden
    assert state.rig.ik[0].pole_angle == step.pole_angle
    np.testing.assert_allclose(state.world, step.world, atol=1e-12)


def begin_write(saver, state):
    """Note the change, then let the autosave come due: it begins writing."""
    saver.tick(state)
    saver.clock.now += saver.delay + 0.1
    assert saver.tick(state)


def autosave_now(saver, state):
    """One due autosave, written to the end."""
    begin_write(saver, state)
    saver.wait()
    saver.tick(state)  # takes the finished write
    assert saver.saved_key is not None and not saver.pending


def fresh_encoding(state):
    """The session as encoded with no step text kept from earlier autosaves."""
    for step in state.history.undo_stack + state.history.redo_stack:
        step.memo.clear()
    return session_dict(state)


def without_time(data):
    return {key: value for key, value in data.items() if key != "saved"}


def test_a_full_history_autosaved_again_and_again_restores_every_step(tmp_path):
    state, clock = humanoid_state(), FakeClock()
    saver = Autosaver(str(tmp_path / "recovery.json"), clock=clock)
    saver.start(state)
    steps = [step_of(state)]
    for count in (100, 120, HISTORY_LIMIT - 220 + 3):  # autosaves between, the last past the history's limit
        steps += make_edits(state, count, seed=count)
        autosave_now(saver, state)
    steps = steps[-HISTORY_LIMIT - 1:]  # the oldest left the history
    for _ in range(3):
        state.history.undo(state)
    autosave_now(saver, state)

    restored = restore_session(read_recovery(saver.path), saver.path).state
    assert restored.message == "" and len(restored.history.undo_stack) == HISTORY_LIMIT - 3
    assert_at(restored, steps[-4])
    for step in reversed(steps[:-4]):
        assert restored.history.undo(restored)
        assert_at(restored, step)
    assert not restored.history.undo(restored)
    for step in steps[1:]:
        assert restored.history.redo(restored)
        assert_at(restored, step)
    assert not restored.history.redo(restored)


def test_the_text_kept_per_step_follows_undo_new_edits_and_trimming(tmp_path):
    state, clock = humanoid_state(), FakeClock()
    state.history.limit = 12
    saver = Autosaver(str(tmp_path / "recovery.json"), clock=clock)
    make_edits(state, 10)
    autosave_now(saver, state)
    for _ in range(4):
        state.history.undo(state)
    autosave_now(saver, state)
    redone = weakref.ref(state.history.redo_stack[0])
    written = read_recovery(saver.path)
    assert (len(written["history"]["undo"]), len(written["history"]["redo"])) == (6, 4)
    assert without_time(written) == without_time(fresh_encoding(state))

    make_edits(state, 1, seed=99)  # a new edit after the undos: the redo steps are gone
    autosave_now(saver, state)
    written = read_recovery(saver.path)
    assert (len(written["history"]["undo"]), written["history"]["redo"]) == (7, [])
    assert without_time(written) == without_time(fresh_encoding(state))
    gc.collect()
    assert redone() is None  # nothing kept the dropped steps (or their text) alive

    oldest = weakref.ref(state.history.undo_stack[0])
    make_edits(state, 8, seed=5)  # past the limit: the oldest steps are trimmed
    autosave_now(saver, state)
    written = read_recovery(saver.path)
    assert len(written["history"]["undo"]) == 12
    assert without_time(written) == without_time(fresh_encoding(state))
    gc.collect()
    assert oldest() is None


def blocked_writes(monkeypatch):
    """Make the autosave's file writes wait until the returned Event is set."""
    release = threading.Event()

    def save_when_released(path, data, suffix=""):
        assert release.wait(10.0)
        save_bytes_atomic(path, data, suffix)

    monkeypatch.setattr(ui.autosave, "save_bytes_atomic", save_when_released)
    return release


def edited(path):
    """A humanoid session with an edit not yet autosaved, and its Autosaver writing to ``path``."""
    state = humanoid_state()
    edit(state)
    return SimpleNamespace(state=state, saver=Autosaver(str(path), clock=FakeClock()))


def test_one_write_at_a_time_and_the_newest_session_follows(tmp_path, monkeypatch):
    release = blocked_writes(monkeypatch)
    session = edited(tmp_path / "recovery.json")
    state, saver = session.state, session.saver
    begin_write(saver, state)
    assert saver.pending
    first = saver.writing
    state.camera.orbit(10, 0)
    saver.tick(state)
    saver.clock.now += 3.1
    assert not saver.tick(state) and saver.writing is first  # due, but one write is in flight
    release.set()
    saver.wait()
    assert saver.tick(state)  # the first write taken, the newer session goes at once
    saver.wait()
    assert read_recovery(saver.path)["camera"]["yaw"] == state.camera.yaw


def test_quitting_waits_for_the_write_in_flight(tmp_path, monkeypatch):
    release = blocked_writes(monkeypatch)
    session = edited(tmp_path / "recovery.json")
    saver = session.saver
    begin_write(saver, session.state)
    threading.Timer(0.2, release.set).start()
    saver.clear()  # as a clean exit does
    assert not saver.writing.thread.is_alive() and not os.path.exists(saver.path)  # not written after the removal


def test_a_failed_write_is_one_line_in_the_status_bar_and_is_tried_again(tmp_path, capsys):
    (tmp_path / "a file").write_text("")
    session = edited(tmp_path / "a file" / "recovery.json")
    state, saver = session.state, session.saver
    begin_write(saver, state)
    saver.wait()
    assert not saver.tick(state) and saver.pending
    assert state.error == state.message and state.message.startswith("Autosave failed: ")
    assert "a file" in state.message and "\n" not in state.message
    output = capsys.readouterr()
    assert "Traceback" not in output.out + output.err
    state.error = state.message = ""
    saver.clock.now += 3.1
    assert saver.tick(state)  # tried again after another delay
    saver.wait()
    saver.tick(state)
    assert state.message.startswith("Autosave failed: ")


def test_a_session_holding_nan_is_refused_in_one_line_and_the_old_file_kept(tmp_path):
    session = edited(tmp_path / "recovery.json")
    state, saver = session.state, session.saver
    autosave_now(saver, state)
    before = (tmp_path / "recovery.json").read_bytes()
    state.camera.yaw = math.nan
    saver.tick(state)
    saver.clock.now += 3.1
    assert not saver.tick(state) and saver.writing is None
    assert state.error == state.message and state.message.startswith(f"Autosave failed: {saver.path}: ")
    assert "\n" not in state.message and (tmp_path / "recovery.json").read_bytes() == before


def test_a_bug_in_the_write_is_raised_on_the_main_thread(tmp_path, monkeypatch):
    def broken(path, data, suffix=""):
        raise RuntimeError("a bug")

    monkeypatch.setattr(ui.autosave, "save_bytes_atomic", broken)
    session = edited(tmp_path / "recovery.json")
    begin_write(session.saver, session.state)
    session.saver.wait()
    with pytest.raises(RuntimeError, match="a bug"):
        session.saver.tick(session.state)
