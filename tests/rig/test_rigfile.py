"""Rig and pose JSON: round trips, shipped rigs, and the documented errors for bad files."""
import json
import re

import numpy as np
import pytest

from rig.pose import Pose, heads_tails, world_matrices
from rig.constraints import BoneIKSettings
from rig.formats.rigfile import FileFormatError, load_pose, load_rig, rig_to_dict, save_pose, save_rig, \
    settings_from_dict, settings_to_dict

SHIPPED = ["assets/humanoid.json", "assets/tail.json", "assets/robot_arm.json"]


def test_a_rigs_settings_round_trip_apart_from_its_bones():
    rig = load_rig("assets/humanoid.json")
    rig.bone_ik["forearm.L"] = BoneIKSettings(stretch=0.3, use_limit=(True, False, False), limit_min=(-1.0, 0.0, 0.0))
    rig.ik[0].pole_angle = 0.7
    names = set(rig.skeleton.names)
    again = settings_from_dict(json.loads(json.dumps(settings_to_dict(rig))), names)
    assert (again.ik, again.copy_rotation, again.bone_ik, again.solver) == \
        (rig.ik, rig.copy_rotation, rig.bone_ik, rig.solver)
    with pytest.raises(FileFormatError, match=r"field 'steps\[2\]\.bone_ik\.tail': expected the name of a bone"):
        settings_from_dict({"bone_ik": {"tail": {}}}, names, "s.json", "steps[2].")


@pytest.mark.parametrize("path", SHIPPED)
def test_rig_round_trip(path, tmp_path):
    rig = load_rig(path)
    out = tmp_path / "copy.json"
    save_rig(rig, out)
    again = load_rig(out)
    assert again.skeleton.names == rig.skeleton.names
    np.testing.assert_array_equal(again.skeleton.parents, rig.skeleton.parents)
    np.testing.assert_allclose(again.skeleton.rest_world, rig.skeleton.rest_world, atol=1e-12)
    np.testing.assert_array_equal(again.skeleton.connected, rig.skeleton.connected)
    assert again.ik == rig.ik and again.copy_rotation == rig.copy_rotation
    assert again.bone_ik == rig.bone_ik and again.solver == rig.solver
    assert rig_to_dict(again) == rig_to_dict(rig)


def test_humanoid_is_an_adult_set_up_for_posing():
    rig = load_rig("assets/humanoid.json")
    skel = rig.skeleton
    _, tails = heads_tails(skel, world_matrices(skel, Pose.rest(len(skel))))
    assert 1.70 <= tails[:, 1].max() <= 1.80
    expected = {"pelvis", "spine.01", "spine.02", "spine.03", "neck", "head"}
    for part in ("clavicle", "upper_arm", "forearm", "hand", "thigh", "shin", "foot", "toe"):
        expected |= {f"{part}.L", f"{part}.R"}
    assert expected <= set(skel.names)
    targets, poles = rig.handle_bones()
    assert targets == {"hand_ik.L", "hand_ik.R", "foot_ik.L", "foot_ik.R"}
    assert poles == {"elbow_pole.L", "elbow_pole.R", "knee_pole.L", "knee_pole.R"}
    for handle in targets | poles:  # handles live outside their chains, under the root
        assert skel.names[skel.parents[skel.index[handle]]] == "root"
    assert all(c.chain_count == 2 for c in rig.ik)
    for lower in ("forearm.L", "shin.L"):  # elbows and knees slightly bent at rest
        i = skel.index[lower]
        cos = skel.rest_world[i, :3, 1] @ skel.rest_world[skel.parents[i], :3, 1]
        assert 0.9 < cos < 0.9999


def test_tail_and_robot_arm_sizes():
    assert sum(n.startswith("tail.") for n in load_rig("assets/tail.json").skeleton.names) == 12
    arm = load_rig("assets/robot_arm.json")
    assert arm.ik[0].chain_count == 3


def test_pose_round_trip(tmp_path):
    rig = load_rig("assets/humanoid.json")
    pose = Pose.rest(len(rig.skeleton))
    rng = np.random.default_rng(3)
    q = rng.normal(size=(len(rig.skeleton), 4))
    pose.rotations = q / np.linalg.norm(q, axis=1, keepdims=True)
    pose.locations = rng.normal(size=(len(rig.skeleton), 3))
    pose.scales[2] = [1.0, 1.5, 1.0]
    path = tmp_path / "pose.json"
    save_pose(rig.skeleton, pose, path, "humanoid")
    loaded, warnings = load_pose(path, rig.skeleton)
    assert warnings == []
    np.testing.assert_allclose(loaded.rotations, pose.rotations, atol=1e-15)
    np.testing.assert_array_equal(loaded.locations, pose.locations)
    np.testing.assert_array_equal(loaded.scales, pose.scales)


def test_pose_with_unknown_bone_warns_and_keeps_the_rest(tmp_path):
    rig = load_rig("assets/humanoid.json")
    path = tmp_path / "pose.json"
    path.write_text(json.dumps({"format": "posekit.pose", "version": 1, "bones": {
        "tentacle": {"rotation": [0, 0, 0, 1]}, "head": {"rotation": [0, 0, 0, 2]}}}))
    pose, warnings = load_pose(path, rig.skeleton)
    assert warnings == [f"{path}: bone 'tentacle' is not in the rig; skipped"]
    np.testing.assert_allclose(pose.rotations[rig.skeleton.index["head"]], [0, 0, 0, 1])


def test_save_pose_refuses_nan_and_keeps_the_old_file(tmp_path):
    rig = load_rig("assets/humanoid.json")
    path = tmp_path / "pose.json"
    save_pose(rig.skeleton, Pose.rest(len(rig.skeleton)), path)
    before = path.read_bytes()
    pose = Pose.rest(len(rig.skeleton))
    pose.locations[0, 0] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        save_pose(rig.skeleton, pose, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["pose.json"]


def base_rig():
    return json.loads(open("assets/robot_arm.json").read())


def mutate(change):
    data = base_rig()
    change(data)
    return data


BAD_RIGS = [
    (lambda d: d.pop("format"), "field 'format': expected a value (the field is missing)"),
    (lambda d: d.update(format="something.else"), "field 'format': expected one of posekit.rig"),
    (lambda d: d.update(version=99), "field 'version': expected version 1 or older"),
    (lambda d: d.update(bones=[]), "field 'bones': expected at least one bone"),
    (lambda d: d["bones"][1].update(head=[0, "x", 0]), "field 'bones[1].head': expected a list of 3 numbers of magnitude at most 1e+06"),
    (lambda d: d["bones"][1].update(tail=d["bones"][1]["head"]), "field 'bones[1].tail': expected a point at least"),
    (lambda d: d["bones"][2].update(parent="nobody"), "field 'bones[2].parent': expected the name of another bone"),
    (lambda d: d["bones"][0].update(parent="lower"), "expected a hierarchy without cycles"),
    (lambda d: d["bones"][3].update(name="upper"), "field 'bones[3].name': expected a bone name not used before"),
    (lambda d: d["bones"][0].update(connected=True), "field 'bones[0].connected': expected false for a bone"),
    (lambda d: d["ik_constraints"][0].update(target="ghost"), "field 'ik_constraints[0].target': expected the name"),
    (lambda d: d["ik_constraints"][0].update(chain_count=-1), "field 'ik_constraints[0].chain_count': expected an integer"),
    (lambda d: d["ik_constraints"][0].update(influence=2), "field 'ik_constraints[0].influence': expected a number in"),
    (lambda d: d["solver"].update(type="magic"), "field 'solver.type': expected one of auto, one_bone"),
    (lambda d: d["bones"][1]["ik"].update(lock=[1, 0, 0]), "field 'bones[1].ik.lock': expected a list of 3 booleans"),
]


@pytest.mark.parametrize("change, message", BAD_RIGS)
def test_bad_rig_files_name_file_field_and_expectation(tmp_path, change, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(mutate(change)))
    with pytest.raises(FileFormatError) as error:
        load_rig(path)
    assert str(error.value).startswith(f"{path}:")
    assert message in str(error.value)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("content, message", [
    (b"{not json", "expected valid UTF-8 JSON"),
    (b"\xff\xfe", "expected valid UTF-8 JSON"),
    (b"[1, 2]", "expected an object"),
    (b'{"format": "posekit.rig", "version": 1, "bones": [{"name": "a", "head": [0, 0, 0], "tail": [0, NaN, 0]}]}',
     "field 'bones[0].tail': expected a list of 3 numbers of magnitude at most 1e+06"),
])
def test_malformed_json(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(FileFormatError, match=re.escape(message)):
        load_rig(path)


def test_missing_file(tmp_path):
    with pytest.raises(FileFormatError, match="expected a readable file"):
        load_rig(tmp_path / "nope.json")


def test_bad_pose_rotation(tmp_path):
    rig = load_rig("assets/humanoid.json")
    path = tmp_path / "pose.json"
    path.write_text(json.dumps({"format": "posekit.pose", "version": 1, "bones": {"head": {"rotation": [0, 0, 0, 0]}}}))
    with pytest.raises(FileFormatError, match=r"field 'bones.head.rotation': expected a non-zero quaternion"):
        load_pose(path, rig.skeleton)
