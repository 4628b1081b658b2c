"""The hostile inputs a soak found, each a one-line message naming the file (and field) with exit
status 2, or a correct result: never a traceback, a NaN in an output, or a lost file."""
import json
import math
import re

import numpy as np
import pytest

import app
from tests.fuzz.hostile import DEEP, HUGE_INT, deep_json, rig_document, with_literal

HUMANOID = "assets/humanoid.json"
POSE = {"format": "posekit.pose", "version": 1, "bones": {"upper_arm.L": {"rotation": [0, 0, 0, 1]}}}
GOALS = {"cases": [{"goals": [{"bone": "forearm.L", "chain_length": 2, "target": [0.45, 1.15, 0.25]}]}]}
EVENTS = {"events": [{"type": "frame", "count": 1}]}


def run(capsys, *argv):
    """``app.main(argv)``: (status, the one line it printed to stderr)."""
    status = app.main(list(argv))
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    return status, err


def export(capsys, tmp_path, rig, *extra, out="out.json"):
    return run(capsys, "export", str(rig), *extra, "-o", str(tmp_path / out))


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text if isinstance(text, str) else json.dumps(text))
    return path


def assert_refused(status, err, path, *words):
    assert status == 2 and "\n" not in err and str(path) in err, err
    for word in words:
        assert word in err, err


@pytest.mark.parametrize("name", ["rig.json", "scene.gltf"])
def test_deeply_nested_rigs_are_refused(capsys, tmp_path, name):
    path = write(tmp_path, name, deep_json())
    assert_refused(*export(capsys, tmp_path, path), path, "nested")


def test_deeply_nested_pose_goals_and_events_are_refused(capsys, tmp_path):
    for name, argv in (("pose.json", lambda p: ("export", HUMANOID, "--pose", str(p), "-o", str(tmp_path / "o.glb"))),
                       ("goals.json", lambda p: ("solve", HUMANOID, str(p), "-o", str(tmp_path / "o.json"))),
                       ("events.json", lambda p: ("--headless", "--replay", str(p), "--save-pose",
                                                  str(tmp_path / "p.json"), HUMANOID))):
        path = write(tmp_path, name, deep_json(DEEP))
        assert_refused(*run(capsys, *argv(path)), path, "nested")


@pytest.mark.parametrize("field, document", [
    ("version", with_literal(rig_document() | {"version": "N"}, "N", HUGE_INT)),
    ("head", with_literal(rig_document(head=["N", 0, 0]), "N", HUGE_INT)),
    ("roll", with_literal(rig_document(roll="N"), "N", HUGE_INT)),
])
def test_huge_integer_literals_in_a_rig_are_refused(capsys, tmp_path, field, document):
    path = write(tmp_path, "rig.json", document)
    assert_refused(*export(capsys, tmp_path, path), path, field)


def test_huge_integer_literals_in_pose_goals_and_events_are_refused(capsys, tmp_path):
    pose = write(tmp_path, "pose.json", with_literal(
        {**POSE, "bones": {"upper_arm.L": {"location": ["N", 0, 0]}}}, "N", HUGE_INT))
    assert_refused(*run(capsys, "export", HUMANOID, "--pose", str(pose), "-o", str(tmp_path / "o.glb")), pose, "location")
    goals = write(tmp_path, "goals.json", with_literal({**GOALS, "iterations": "N"}, "N", HUGE_INT))
    assert_refused(*run(capsys, "solve", HUMANOID, str(goals), "-o", str(tmp_path / "o.json")), goals, "iterations")
    events = write(tmp_path, "events.json", with_literal({"events": [{"type": "frame", "count": "N"}]}, "N", HUGE_INT))
    assert_refused(*run(capsys, "--headless", "--replay", str(events), "--save-pose", str(tmp_path / "p.json"),
                        HUMANOID), events, "count")


def test_a_bvh_channel_count_of_thousands_of_digits_names_the_file(capsys, tmp_path):
    path = write(tmp_path, "long.bvh", "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS " + "9" * 5000
                 + " Xposition\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n0\n")
    assert_refused(*export(capsys, tmp_path, path), path, "line 5", "channel count")


@pytest.mark.parametrize("exponent", [154, 200, 308])
def test_rigs_out_of_range_are_refused_at_load(capsys, tmp_path, exponent):
    path = write(tmp_path, "far.json", rig_document(head=[10.0 ** exponent, 0, 0], tail=[10.0 ** exponent, 1, 0]))
    assert_refused(*export(capsys, tmp_path, path), path, "bones[1].head", "magnitude at most 1e+06")


@pytest.mark.parametrize("field, value", [("location", [1e308, 0, 0]), ("scale", [1, 1e308, 1])])
def test_poses_out_of_range_are_refused_at_load(capsys, tmp_path, field, value):
    pose = write(tmp_path, "pose.json", {**POSE, "bones": {"upper_arm.L": {field: value}}})
    assert_refused(*run(capsys, "export", HUMANOID, "--pose", str(pose), "-o", str(tmp_path / "o.glb")), pose, field)
    assert not (tmp_path / "o.glb").exists()


@pytest.mark.parametrize("output", ["o.glb", "o.bvh"])
@pytest.mark.parametrize("rotation", [[1e308, 0, 0, 1], [0, 0, 0, -1e308], [1e7, 0, 0, 0]])
def test_a_pose_rotation_out_of_range_is_refused_naming_the_pose_file(capsys, tmp_path, output, rotation):
    """Not read as a zero quaternion and then blamed on the output (.glb) or written out (.bvh)."""
    pose = write(tmp_path, "pose.json", {**POSE, "bones": {"upper_arm.L": {"rotation": rotation}}})
    status, err = run(capsys, "export", HUMANOID, "--pose", str(pose), "-o", str(tmp_path / output))
    assert_refused(status, err, pose, "bones.upper_arm.L.rotation", "magnitude at most 1e+06")
    assert not (tmp_path / output).exists()


def test_a_pose_rotation_of_any_sane_scale_is_read_as_its_unit_quaternion(capsys, tmp_path):
    from rig.formats.rigfile import load_pose, load_rig
    skeleton = load_rig(HUMANOID).skeleton
    for rotation in ([0, 0, 0, 1e6], [1e-5, 0, 0, 1e-5]):
        pose = write(tmp_path, "pose.json", {**POSE, "bones": {"upper_arm.L": {"rotation": rotation}}})
        q = load_pose(str(pose), skeleton)[0].rotations[skeleton.index["upper_arm.L"]]
        np.testing.assert_allclose(q, np.array(rotation) / np.linalg.norm(rotation), atol=1e-15)


@pytest.mark.parametrize("joints, nodes", [
    ([0], [{}]),  # the smallest: one joint, no parent among the joints
    ([0, 1], [{}, {"translation": [1, 0, 0]}]),  # two roots side by side
])
def test_a_skin_whose_joints_have_no_parents_among_them_reads(capsys, tmp_path, joints, nodes):
    path = write(tmp_path, "roots.gltf", {"asset": {"version": "2.0"}, "skins": [{"joints": joints}], "nodes": nodes})
    status, err = export(capsys, tmp_path, path)
    assert status == 0, err
    out = json.loads((tmp_path / "out.json").read_text())
    assert len(out["bones"]) == len(joints) and all(bone["parent"] is None for bone in out["bones"])
    for bone in out["bones"]:
        assert np.linalg.norm(np.subtract(bone["tail"], bone["head"])) > 0.0


def test_a_bvh_scale_out_of_range_is_refused_on_the_command_line(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        app.main(["export", HUMANOID, "--bvh-scale", "1e300", "-o", str(tmp_path / "o.bvh")])
    assert exit_info.value.code == 2
    assert "at most 1000" in capsys.readouterr().err


def test_a_bvh_scaled_out_of_range_by_the_api_is_refused_at_load(tmp_path):
    from rig.formats.document import ImportOptions
    with pytest.raises(ValueError, match="at most 1000"):
        ImportOptions(bvh_scale=1e300)


def test_empty_joint_limits_are_refused_at_load(capsys, tmp_path):
    path = write(tmp_path, "limits.json", rig_document(ik={"use_limit": [True, False, False],
                                                          "limit_min": [0.5, -1, -1], "limit_max": [0.2, 1, 1]}))
    assert_refused(*export(capsys, tmp_path, path), path, "bones[1].ik.limit_min", "at most limit_max")


def test_a_lone_surrogate_in_a_bone_name_is_refused(capsys, tmp_path):
    path = write(tmp_path, "names.json", json.dumps(rig_document(name="\ud800")))
    assert_refused(*export(capsys, tmp_path, path), path, "bones[1].name", "surrogate")


def test_solve_refuses_targets_out_of_range_and_writes_strict_json(capsys, tmp_path):
    far = {"cases": [{"goals": [{"bone": "forearm.L", "chain_length": 2, "target": [1e300, 0, 0]}]}]}
    goals = write(tmp_path, "far.json", far)
    assert_refused(*run(capsys, "solve", HUMANOID, str(goals), "-o", str(tmp_path / "o.json")), goals,
                   "cases[0].goals[0].target")
    extreme = {"cases": [{"goals": [{"bone": "forearm.L", "chain_length": 2, "target": [1e6, -1e6, 1e6],
                                     "rotation": [1e200, 0, 0, 1e200], "pole": [-1e6, 1e6, 0]}]}]}
    goals = write(tmp_path, "extreme.json", extreme)
    status, err = run(capsys, "solve", HUMANOID, str(goals), "-o", str(tmp_path / "o.json"))
    assert status == 0, err
    out = json.loads((tmp_path / "o.json").read_text(), parse_constant=pytest.fail)
    heads = np.array([bone["head"] for bone in out["cases"][0]["bones"].values()])
    assert np.isfinite(heads).all() and np.isfinite(out["cases"][0]["error"])


def test_every_json_writer_is_strict(tmp_path):
    """save_json_atomic is the one JSON writer (rig, pose, scene dump, solve output, recent files;
    the autosave's is tested in tests/ui/test_autosave.py): NaN or Infinity is refused naming the
    file, and the old file is kept."""
    from rig.formats.jsonfields import FileFormatError, save_json_atomic
    path = tmp_path / "out.json"
    save_json_atomic(path, {"ok": 1.0})
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(FileFormatError, match=re.escape(str(path))):
            save_json_atomic(path, {"values": [0.0, bad]})
    assert json.loads(path.read_text()) == {"ok": 1.0}
