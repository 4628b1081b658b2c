"""Every file Posekit reads refuses a key it does not know: one line naming the file, the key (its
place in the file) and the nearest known key, exit status 2 from the command line, never a
traceback, and never a misspelt setting read as its default."""
import json

import pytest

from rig.formats.jsonfields import FileFormatError
from tests.fuzz.hostile import rig_document
from tests.fuzz.test_hostile_files import GOALS, HUMANOID, POSE, assert_refused, run, write
from tests.ui.conftest import humanoid_state
from ui.autosave import read_state_file
from ui.recent import RecentFiles
from ui.session_file import read_recovery, restore_session, session_dict


def refused_with(err, path, field, near):
    assert_refused(2, err, path, f"unknown field '{field}'", f"did you mean '{near}'?")


def export(capsys, tmp_path, rig, *extra):
    return run(capsys, "export", str(rig), *extra, "-o", str(tmp_path / "out.glb"))


RIGS = {
    "bones[1].conected": rig_document(conected=True),
    "bones[1].ik.limit_mn": rig_document(ik={"limit_mn": [0, 0, 0]}),
    "ik_constraints[0].chain_cont": rig_document() | {"ik_constraints": [{"bone": "b", "chain_cont": 2}]},
    "copy_rotation_constraints[0].use_axis": rig_document() | {
        "copy_rotation_constraints": [{"bone": "b", "target": "a", "use_axis": [True, True, True]}]},
    "solver.iteration": rig_document() | {"solver": {"iteration": 5}},
    "nam": rig_document() | {"nam": "x"},
}


@pytest.mark.parametrize("field", sorted(RIGS))
def test_a_rig_file_refuses_unknown_keys(capsys, tmp_path, field):
    path = write(tmp_path, "rig.json", RIGS[field])
    near = {"nam": "name"}.get(field, None)
    status, err = export(capsys, tmp_path, path)
    assert status == 2 and not (tmp_path / "out.glb").exists()
    refused_with(err, path, field, near or {"conected": "connected", "limit_mn": "limit_min", "chain_cont": "chain_count",
                                            "use_axis": "use_axes", "iteration": "iterations"}[field.split(".")[-1]])


def test_a_rig_file_keeps_reading_what_it_writes():
    """The keys the writer adds for people and other tools (units, up) are known."""
    from rig.formats.rigfile import load_rig, rig_from_dict, rig_to_dict
    rig = load_rig(HUMANOID)
    assert rig_from_dict(json.loads(json.dumps(rig_to_dict(rig)))).skeleton.names == rig.skeleton.names
    with pytest.raises(FileFormatError, match="'up': expected one of \\+Y"):
        rig_from_dict(rig_to_dict(rig) | {"up": "+Z"})


@pytest.mark.parametrize("bones, field, near", [
    ({"upper_arm.L": {"rotaton": [0, 0, 0, 1]}}, "bones.upper_arm.L.rotaton", "rotation"),
    ({"upper_arm.L": {"locaton": [0, 0, 0]}}, "bones.upper_arm.L.locaton", "location"),
])
def test_a_pose_file_refuses_unknown_keys(capsys, tmp_path, bones, field, near):
    pose = write(tmp_path, "pose.json", {**POSE, "bones": bones})
    status, err = export(capsys, tmp_path, HUMANOID, "--pose", str(pose))
    assert status == 2
    refused_with(err, pose, field, near)
    pose = write(tmp_path, "pose.json", {**POSE, "bone": {}})
    refused_with(export(capsys, tmp_path, HUMANOID, "--pose", str(pose))[1], pose, "bone", "bones")


def test_a_goals_file_refuses_unknown_keys_at_every_level(capsys, tmp_path):
    for document, field, near in (({**GOALS, "iteration": 5}, "iteration", "iterations"),
                                  ({"cases": [GOALS["cases"][0] | {"goal": []}]}, "cases[0].goal", "goals"),
                                  ({"cases": [{"goals": [GOALS["cases"][0]["goals"][0] | {"use_tial": False}]}]},
                                   "cases[0].goals[0].use_tial", "use_tail")):
        goals = write(tmp_path, "goals.json", document)
        status, err = run(capsys, "solve", HUMANOID, str(goals), "-o", str(tmp_path / "o.json"))
        assert status == 2 and not (tmp_path / "o.json").exists()
        refused_with(err, goals, field, near)


@pytest.mark.parametrize("event, field, near", [
    ({"type": "press", "x": 1, "y": 2, "buton": "left"}, "events[0].buton", "button"),
    ({"type": "frame", "cont": 3}, "events[0].cont", "count"),
])
def test_an_events_file_refuses_unknown_keys(capsys, tmp_path, event, field, near):
    events = write(tmp_path, "events.json", {"events": [event]})
    status, err = run(capsys, "--headless", "--replay", str(events), "--save-pose", str(tmp_path / "p.json"), HUMANOID)
    assert status == 2 and not (tmp_path / "p.json").exists()
    refused_with(err, events, field, near)


def test_a_recovery_file_refuses_unknown_keys_and_is_set_aside_in_one_line(tmp_path):
    session = session_dict(humanoid_state())
    path = tmp_path / "recovery.json"
    path.write_text(json.dumps(session | {"camra": {}}))
    data, problem = read_state_file(str(path), read_recovery)
    assert data is None and "\n" not in problem and "set aside" in problem
    assert "unknown field 'camra' (did you mean 'camera'?)" in problem
    session["camera"]["yaww"] = 1.0  # a nested key: refused as the session is restored
    with pytest.raises(FileFormatError, match=r"unknown field 'camera.yaww' \(did you mean 'yaw'\?\)"):
        restore_session(json.loads(json.dumps(session)), "recovery.json")


def test_an_undo_step_with_an_unknown_key_drops_the_history_with_a_note():
    session = session_dict(humanoid_state())
    session["history"]["undo"] = [{"rig": None, "settings": 0, "pose": session["pose"], "hiden": []}]
    session["history"]["settings"] = [{"ik_constraints": [], "copy_rotation_constraints": [], "bone_ik": {}}]
    restored = restore_session(session, "recovery.json")
    assert "unknown field 'history.undo[0].hiden' (did you mean 'hidden'?)" in restored.note


def test_a_recent_files_list_refuses_unknown_keys(tmp_path):
    path = tmp_path / "recent.json"
    path.write_text(json.dumps({"format": "posekit.recent", "version": 1, "rig": ["a.json"]}))
    recent = RecentFiles(str(path))
    assert recent.paths == [] and "unknown field 'rig' (did you mean 'rigs'?)" in recent.problem


@pytest.mark.parametrize("where, field, near", [
    ("node", "nodes[0].extras.posekit.lenght", "length"),
    ("root", "extras.posekit.solvr", "solver"),
    ("bone_ik", "extras.posekit.bone_ik.nobody", None),
])
def test_our_gltf_extras_refuse_unknown_keys(capsys, tmp_path, where, field, near):
    gltf = {"asset": {"version": "2.0"}, "skins": [{"joints": [0, 1]}],
            "nodes": [{"name": "a", "children": [1]}, {"name": "b", "translation": [0, 1, 0]}]}
    if where == "node":
        gltf["nodes"][0]["extras"] = {"posekit": {"lenght": 1.0}}
    else:
        gltf["extras"] = {"posekit": {"solvr": {}} if where == "root" else {"bone_ik": {"nobody": {}}}}
    path = write(tmp_path, "rig.gltf", gltf)
    status, err = export(capsys, tmp_path, path)
    assert status == 2
    if near:
        refused_with(err, path, field, near)
    else:
        assert_refused(status, err, path, f"unknown field '{field}'")


def test_an_unknown_key_thousands_of_characters_long_is_named_in_a_short_line(capsys, tmp_path):
    path = write(tmp_path, "rig.json", rig_document(**{"k" * 5000: 1}))
    status, err = export(capsys, tmp_path, path)
    assert_refused(status, err, path, "unknown field 'bones[1].kkk")
    assert len(err) < 200 + len(str(path))
