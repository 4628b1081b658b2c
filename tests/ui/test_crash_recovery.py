"""No lost work: a session on a real file (the skinned glTF humanoid, a BVH with a clip) is posed,
selected, hidden and looked at, autosaved, dropped without a clean exit, and restored on the next
start through the offer's Restore button, mesh, clips and undo history and all."""
import copy
import json
import os
import shutil
import time
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from app import start_autosave
from rig.constraints import BoneIKSettings
from rig.formats.rigfile import rig_to_dict
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED
from tests.ui.conftest import Driver, fail_on_id_conflicts, humanoid_state, start_app
from tests.ui.test_editing import drag_hand
from ui.autosave import AUTOSAVE_DELAY_S, STATE_DIR_ENV, recovery_path
import ui.session_file
from ui.session_file import restore_session, session_dict
from ui.window import PosekitWindow

GLB = "assets/humanoid_skinned.glb"


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


@pytest.fixture
def launch(gl_session, tmp_path, monkeypatch):
    """Starts the app as ``app.run_window`` does (autosave on, any recovery offered) in a fresh
    window; the windows of earlier starts are dropped with no clean exit, as a crash leaves them."""
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    apps = []

    def start():
        if apps:
            apps[-1].release()  # the GL objects only: the recovery file stays, as after a crash
        app = PosekitWindow(gl_session.window, humanoid_state(), ctx=gl_session.ctx)
        fail_on_id_conflicts(app)
        apps.append(app)
        start_app(app, humanoid_state())
        start_autosave(app, SimpleNamespace(no_recover=False)).clock = FakeClock()
        return Driver(app)

    yield start
    apps[-1].release()


def open_file(driver, path):
    assert driver.app.editor.load_rig(path)
    driver.frames(2)
    return Driver(driver.app)  # its cached state is the new one


def let_the_autosave_write(driver):
    driver.app.editor.autosaver.clock.now += AUTOSAVE_DELAY_S + 0.1
    driver.frames(1)
    driver.app.editor.autosaver.wait()  # the file is written on a thread of its own
    assert os.path.isfile(recovery_path())


def select_and_hide(driver):
    """Select two bones and hide them (H), then select two others, the last one active."""
    driver.click_item("neck")
    driver.click_item("head", mods=["shift"])
    driver.key("H")
    driver.click_item("upper_arm.L")
    driver.click(*driver.pixel_along("forearm.L", 0.5), mods=["shift"])  # in the viewport: the outliner clips it


def move_the_camera(driver):
    driver.key("NUM_3")  # the right view
    driver.key("NUM_5")  # to orthographic
    driver.scroll(480, 300, 2)
    driver.move(480, 300)
    driver.press(480, 300, "middle")
    driver.drag(440, 280, "middle")
    driver.release(440, 280, "middle")


def snapshot(state):
    """What the session had, as copies."""
    view, camera = state.view, state.camera
    return SimpleNamespace(pose=state.pose.copy(), world=state.world.copy(), rig_path=state.rig_path,
                           selected=set(view.selected), active=view.active, hidden=set(view.hidden),
                           view_matrix=camera.view_matrix(), projection=camera.projection_matrix(1.6),
                           orthographic=camera.orthographic, ik=[*state.rig.ik], solver=state.rig.solver)


def restore(driver):
    """Start again and click Restore on the offer; returns the new start's driver."""
    assert driver.app.editor.recovery is not None
    driver.frames(2)
    driver.click_item("Restore")
    driver.frames(1)
    assert driver.app.editor.recovery is None
    return Driver(driver.app)


def assert_restored(state, before):
    assert state.pose == before.pose
    np.testing.assert_allclose(state.world, before.world, atol=1e-9)
    assert state.rig_path == os.path.abspath(before.rig_path)
    assert (state.view.selected, state.view.active, state.view.hidden) == (before.selected, before.active,
                                                                           before.hidden)
    np.testing.assert_allclose(state.camera.view_matrix(), before.view_matrix, atol=1e-12)
    np.testing.assert_allclose(state.camera.projection_matrix(1.6), before.projection, atol=1e-12)
    assert state.camera.orthographic == before.orthographic
    assert state.rig.ik == before.ik and state.rig.solver == before.solver


def test_a_skinned_glb_session_comes_back_whole_after_a_crash(launch, tmp_path):
    driver = open_file(launch(), GLB)
    original_mesh = driver.state.mesh
    drag_hand(driver)
    driver.state.rig.ik[0].pole_angle = 0.5  # a rig setting, as a panel sets it
    driver.state.resolve()
    select_and_hide(driver)
    move_the_camera(driver)
    pose_path = tmp_path / "pose.json"
    assert driver.app.editor.write_pose(str(pose_path))
    drag_hand(driver, dx=20, dy=10)  # more work after the save: unsaved again
    let_the_autosave_write(driver)
    before = snapshot(driver.state)

    driver = restore(launch())
    state, editor = driver.state, driver.app.editor
    assert state.message == "Session restored"
    assert_restored(state, before)
    for field in ("positions", "normals", "indices", "joints", "weights", "bind_matrices"):
        np.testing.assert_array_equal(getattr(state.mesh, field), getattr(original_mesh, field))
    assert editor.recent.paths[0] == os.path.abspath(GLB)  # File > Open Recent lists it
    assert editor.pose_path == str(pose_path) and editor.has_unsaved_changes()
    driver.key("S", ["ctrl"])  # Save writes back to the session's pose file
    assert json.loads(pose_path.read_text())["bones"]["hand_ik.L"]["location"] == \
        list(state.pose.locations[state.rig.skeleton.index["hand_ik.L"]])


@NEEDS_SHARED
def test_a_bvh_session_keeps_its_clip_keys_and_frame(launch):
    driver = open_file(launch(), CMU_EXCERPT)
    clips = driver.state.animation.clips
    keys = driver.state.timeline.action
    driver.set_value("##current_frame", 2)
    driver.click_item("LeftLeg")
    driver.key("H")
    driver.click_item("RightLeg")
    driver.app.state.camera.orbit(30, -10)
    let_the_autosave_write(driver)
    before = snapshot(driver.state)

    driver = restore(launch())
    state = driver.state
    assert_restored(state, before)
    animation = state.animation
    assert state.timeline.frame == 2 and animation.clip == "motion"
    assert list(animation.clips) == list(clips)
    action = state.timeline.action
    assert (action.fps, action.start, action.end, list(action.channels)) == (keys.fps, keys.start, keys.end,
                                                                             list(keys.channels))
    for name, channel in keys.channels.items():
        np.testing.assert_array_equal(action.channels[name].values, channel.values)
        np.testing.assert_array_equal(action.channels[name].frames, channel.frames)
    for got, wanted in zip(animation.clips["motion"], clips["motion"]):
        assert got == wanted
    assert state.source.options == driver.app.editor.import_options  # read as the first start read it


def crashed_session(launch, path):
    """A session on ``path`` posed, selected and autosaved, then dropped; returns what it had."""
    driver = open_file(launch(), str(path))
    drag_hand(driver)
    select_and_hide(driver)
    let_the_autosave_write(driver)
    return snapshot(driver.state)


@pytest.mark.parametrize("change", ["changed", "gone"])
def test_a_source_file_changed_since_is_reported_and_the_rest_restored(launch, tmp_path, change):
    path = tmp_path / "humanoid_skinned.glb"
    shutil.copyfile(GLB, path)
    before = crashed_session(launch, path)
    if change == "gone":
        path.unlink()
    else:
        with open(path, "ab") as f:
            f.write(b"\0" * 4)  # same mesh inside, other bytes: not the file the session read

    driver = restore(launch())
    state = driver.state
    assert_restored(state, before)
    assert state.mesh is None and state.animation is None
    reason = "is gone" if change == "gone" else "changed since the autosave"
    assert state.message == f"Session restored; {path} {reason}: restored without the file's mesh and animation"
    assert "\n" not in state.message


def test_a_touched_but_unchanged_source_file_is_read_again(launch, tmp_path):
    path = tmp_path / "humanoid_skinned.glb"
    shutil.copyfile(GLB, path)
    before = crashed_session(launch, path)
    os.utime(path, (time.time() + 5, time.time() + 5))  # the same bytes, a new time (a copy, a touch)
    state = restore(launch()).state
    assert_restored(state, before)
    assert state.mesh is not None and state.message == "Session restored"


def version_1(state, saved):
    """The autosave as version 1 wrote it: rig path, rig, pose and camera only."""
    data = session_dict(state)
    data = {key: data[key] for key in ("format", "rig_path", "pose", "camera")}
    return {**data, "version": 1, "saved": saved, "rig": rig_to_dict(state.rig)}


@pytest.mark.parametrize("file_is_older", [True, False])
def test_a_version_1_autosave_still_restores(launch, tmp_path, file_is_older):
    path = tmp_path / "humanoid_skinned.glb"
    shutil.copyfile(GLB, path)
    driver = open_file(launch(), str(path))
    drag_hand(driver)
    driver.state.camera.orbit(25, 10)
    before = snapshot(driver.state)
    saved = os.stat(path).st_mtime + (1.0 if file_is_older else -1.0)
    os.makedirs(os.path.dirname(recovery_path()), exist_ok=True)
    with open(recovery_path(), "w") as f:
        json.dump(version_1(driver.state, saved), f)

    state = restore(launch()).state
    np.testing.assert_allclose(state.pose.rotations, before.pose.rotations, atol=1e-6)  # solved again
    assert state.pose.locations.tolist() == before.pose.locations.tolist() and state.rig.ik == before.ik
    np.testing.assert_allclose(state.camera.view_matrix(), before.view_matrix, atol=1e-12)
    assert state.view.selected == set() and state.view.hidden == set() and state.view.active is None  # defaults
    # Version 1 kept no fingerprint: the file is trusted only if it is older than the autosave.
    assert (state.mesh is not None) == file_is_older
    assert ("changed since the autosave" in state.message) != file_is_older


def steps_of(state):
    """What an undo step puts back, as copies."""
    return SimpleNamespace(pose=state.pose.copy(), world=state.world.copy(), hidden=set(state.view.hidden),
                           pole_angle=state.rig.ik[0].pole_angle)


def assert_at_step(state, step):
    assert state.pose == step.pose
    np.testing.assert_allclose(state.world, step.world, atol=1e-9)  # as the session's own world comes back
    assert state.view.hidden == step.hidden and state.rig.ik[0].pole_angle == step.pole_angle


def test_ctrl_z_after_a_recovery_steps_back_through_the_edits_made_before_the_crash(launch):
    """Each drag, setting and hide is a step; after the crash the same keys go back and forth
    through the very same poses, one undone step still there to redo."""
    driver = launch()
    steps = [steps_of(driver.state)]
    for edit in (drag_hand, lambda d: driver.click_item("neck") or d.key("H"),
                 lambda d: setattr(d.state.rig.ik[0], "pole_angle", 0.5) or d.state.resolve() or d.frames(1),
                 lambda d: drag_hand(d, dx=30, dy=20), lambda d: drag_hand(d, dx=-10, dy=35)):
        edit(driver)
        steps.append(steps_of(driver.state))
    driver.key("Z", ["ctrl"])  # the last drag undone: a step to redo after the crash
    let_the_autosave_write(driver)

    driver = restore(launch())
    state = driver.state
    assert state.message == "Session restored"
    assert_at_step(state, steps[-2])
    for step in reversed(steps[:-2]):
        driver.key("Z", ["ctrl"])
        assert state.message == "Undo"
        assert_at_step(state, step)
    driver.key("Z", ["ctrl"])
    assert state.message == "Nothing to undo"
    for step in steps[1:]:
        driver.key("Z", ["ctrl", "shift"])
        assert_at_step(state, step)
    driver.key("Z", ["ctrl", "shift"])
    assert state.message == "Nothing to redo"


def test_a_step_on_the_rig_before_automatic_ik_set_up_comes_back_with_that_rig():
    state = humanoid_state()
    before = state.rig
    state.pose.locations[0] = (0.0, 0.1, 0.0)
    state.history.commit(state)
    state.rig = copy.copy(before)  # a new rig object, as automatic IK set-up makes
    state.pose.locations[0] = (0.0, 0.2, 0.0)
    state.history.commit(state)

    restored = restore_session(json.loads(json.dumps(session_dict(state)))).state
    assert restored.history.undo(restored)
    assert restored.rig is not state.rig and restored.rig.skeleton.names == before.skeleton.names
    assert restored.pose.locations[0].tolist() == [0.0, 0.1, 0.0]
    assert restored.history.undo(restored) and restored.pose.locations[0].tolist() == [0.0, 0.0, 0.0]
    rigs = {id(step.rig) for step in restored.history.redo_stack}
    assert len(rigs) == 2 and id(restored.rig) in rigs  # each rig read once, shared by its steps


def test_a_damaged_undo_history_still_restores_the_scene_and_says_so(launch):
    driver = launch()
    drag_hand(driver)
    select_and_hide(driver)
    let_the_autosave_write(driver)
    before = snapshot(driver.state)
    with open(recovery_path()) as f:
        data = json.load(f)
    data["history"]["undo"][0]["pose"]["bones"] = {"hand_ik.L": {"location": [0.0, "far", 0.0]}}
    with open(recovery_path(), "w") as f:
        json.dump(data, f)

    driver = restore(launch())
    state = driver.state
    assert_restored(state, before)
    assert state.message.startswith("Session restored; the undo history did not read and was dropped (")
    assert "field 'history.undo[0].pose.bones.hand_ik.L.location'" in state.message
    assert "\n" not in state.message
    driver.key("Z", ["ctrl"])
    assert state.message == "Nothing to undo"
    assert_restored(state, before)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 300) | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)


def places(value):
    """Every (container, key) inside a JSON value, depth first."""
    pairs = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    found = []
    for key, item in pairs:
        found += [(value, key)] + places(item)
    return found


@settings(max_examples=150, deadline=None, derandomize=True)
@given(place=st.integers(min_value=0), value=JSON)
def test_whatever_the_history_holds_the_session_restores(place, value):
    """Any one value of the history (a step's setting, a pose channel, a list) replaced by any JSON."""
    state = humanoid_state()
    state.rig.bone_ik["neck"] = BoneIKSettings(stretch=0.5)  # a per-bone setting in every step
    for height in (0.1, 0.2):
        state.pose.locations[0] = (0.0, height, 0.0)
        state.history.commit(state)
    state.history.undo(state)
    data = json.loads(json.dumps(session_dict(state)))
    spots = [(data, "history")] + places(data["history"])
    container, key = spots[place % len(spots)]
    assume(container[key] != value)
    container[key] = value
    restored = restore_session(data)  # never raises
    assert restored.state.pose == state.pose and "\n" not in restored.note
    history = restored.state.history
    if restored.note:
        assert restored.note.startswith("the undo history did not read") and not history.can_undo() \
            and not history.can_redo()
    else:  # a value the reader takes (a setting in range, a bone hidden or not, no history, no steps)
        steps = history.undo_stack + history.redo_stack
        assert len(history.undo_stack) <= 1 and len(history.redo_stack) <= 1
        assert all(len(step.pose.rotations) == len(step.rig.skeleton) == len(step.world) for step in steps)


def test_the_file_keeps_the_newest_steps_its_bone_budget_allows_and_each_setting_once(monkeypatch):
    state = humanoid_state()
    bones = len(state.rig.skeleton)
    heights = [0.01 * k for k in range(1, 7)]
    for height in heights:
        state.pose.locations[0] = (0.0, height, 0.0)
        state.rig.solver.iterations = 10 if height > 0.035 else state.rig.solver.iterations
        state.history.commit(state)
    monkeypatch.setattr(ui.session_file, "HISTORY_BONES", 3 * bones + bones // 2)
    data = json.loads(json.dumps(session_dict(state)))
    assert len(data["history"]["undo"]) == 3 and len(data["history"]["settings"]) == 2

    restored = restore_session(data).state
    for height in reversed(heights[2:-1]):
        assert restored.history.undo(restored) and restored.pose.locations[0].tolist() == [0.0, height, 0.0]
    assert not restored.history.undo(restored)
