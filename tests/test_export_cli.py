"""`python app.py export RIG [--pose POSE.json ...] -o OUT`: every output reads back to the same joints,
several poses as BVH frames or a glTF clip."""
import json

import numpy as np
import pytest

import app
from rig.formats.document import RigDocument
from rig.formats.reader import open_rig
from rig.pose import Pose, heads_tails, world_matrices
from rig.formats.rigfile import load_rig, save_pose
from tests.gltf_validator import assert_valid
from tests.shared_data import CMU_EXCERPT, needs_shared_data

RIG = "assets/humanoid.json"
BVH = CMU_EXCERPT
SKINNED = "assets/humanoid_skinned.glb"


def heads(skeleton, pose):
    pose = Pose.rest(len(skeleton)) if pose is None else pose
    return heads_tails(skeleton, world_matrices(skeleton, pose))[0]


def posed(skeleton, seed=3):
    rng = np.random.default_rng(seed)
    pose = Pose.rest(len(skeleton))
    q = rng.normal(size=(len(skeleton), 4)) * [0.3, 0.3, 0.3, 0.0] + [0, 0, 0, 1]
    pose.rotations = q / np.linalg.norm(q, axis=1, keepdims=True)
    return pose


def export(*args):
    return app.main(["export", *map(str, args)])


def assert_same_joints(skeleton, pose, document):
    back = document.rig.skeleton
    index = [back.index[name] for name in skeleton.names]
    np.testing.assert_allclose(heads(back, document.pose)[index], heads(skeleton, pose), atol=1e-6)


@pytest.mark.parametrize("extension", [".glb", ".bvh"])
def test_posed_humanoid_reads_back_with_the_same_joint_positions(extension, tmp_path):
    skeleton = load_rig(RIG).skeleton
    pose = posed(skeleton)
    save_pose(skeleton, pose, tmp_path / "pose.json")
    out = tmp_path / f"out{extension}"
    assert export(RIG, "--pose", tmp_path / "pose.json", "-o", out) == 0
    document = open_rig(out)
    assert_same_joints(skeleton, pose, document)
    assert np.abs(heads(skeleton, pose) - heads(skeleton, None)).max() > 0.05  # the pose did move joints
    if extension == ".glb":
        assert_valid(out)
        assert len(document.rig.ik) == len(load_rig(RIG).ik)  # constraints travel in the extras


@pytest.mark.parametrize("extension", [".glb", ".bvh"])
def test_several_poses_export_as_frames_that_read_back(extension, tmp_path):
    skeleton = load_rig(RIG).skeleton
    poses = [posed(skeleton, seed) for seed in (3, 4, 5)]
    args = []
    for k, pose in enumerate(poses):
        save_pose(skeleton, pose, tmp_path / f"pose{k}.json")
        args += ["--pose", tmp_path / f"pose{k}.json"]
    out = tmp_path / f"out{extension}"
    assert export(RIG, *args, "-o", out) == 0
    document = open_rig(out)
    (frames,) = document.clips.values()
    assert len(frames) == 3
    for pose, frame in zip(poses, frames):
        assert_same_joints(skeleton, pose, RigDocument(document.rig, str(out), pose=frame))
    assert_same_joints(skeleton, poses[0], document)  # the first pose is also the file's own
    if extension == ".glb":
        assert_valid(out)


def test_json_output_is_the_same_rig(tmp_path):
    out = tmp_path / "out.json"
    assert export(RIG, "-o", out) == 0
    rig, back = load_rig(RIG), load_rig(out)
    assert back.skeleton.names == rig.skeleton.names and len(back.ik) == len(rig.ik)
    assert_same_joints(rig.skeleton, None, open_rig(out))


def test_json_output_refuses_a_pose(tmp_path, capsys):
    skeleton = load_rig(RIG).skeleton
    save_pose(skeleton, posed(skeleton), tmp_path / "pose.json")
    out = tmp_path / "out.json"
    assert export(RIG, "--pose", tmp_path / "pose.json", "-o", out) == 2
    err = capsys.readouterr().err
    assert "holds no pose" in err and len(err.strip().splitlines()) == 1 and not out.exists()


@pytest.mark.parametrize("source, extension", [pytest.param(BVH, ".glb", marks=needs_shared_data),
                                               pytest.param(BVH, ".json", marks=needs_shared_data),
                                               (SKINNED, ".bvh"), (SKINNED, ".glb")])
def test_bvh_and_gltf_inputs_export_with_their_own_pose(source, extension, tmp_path):
    document = open_rig(source)
    out = tmp_path / f"out{extension}"
    assert export(source, "-o", out) == 0
    back = open_rig(out)
    expected_pose = None if extension == ".json" else document.pose
    assert_same_joints(document.rig.skeleton, expected_pose, back)
    if extension == ".glb":
        assert_valid(out)
    if source == SKINNED and extension == ".glb":
        assert back.mesh is not None and len(back.mesh.positions) == len(document.mesh.positions)


def bad_pose(tmp_path):
    path = tmp_path / "bad_pose.json"
    path.write_text(json.dumps({"format": "posekit.pose", "version": 1, "bones": {"root": {"rotation": [0, 0, 0, 0]}}}))
    return path


@pytest.mark.parametrize("make_args, expected", [
    (lambda t: [RIG, "-o", t / "out.fbx"], "not '.fbx'"),
    (lambda t: [t / "missing.json", "-o", t / "out.glb"], "missing.json"),
    (lambda t: [RIG, "--pose", bad_pose(t), "-o", t / "out.glb"], "rotation"),
    (lambda t: [RIG, "--pose", t / "none.json", "-o", t / "out.glb"], "none.json"),
    (lambda t: [RIG, "-o", t / "no_dir" / "out.bvh"], "cannot write"),
])
def test_bad_input_exits_2_with_one_line_naming_the_problem(make_args, expected, tmp_path, capsys):
    assert export(*make_args(tmp_path)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("posekit: error:") and expected in err


def test_a_stretched_pose_reads_back_and_warns_that_gltf_compounds_scale(tmp_path, capsys):
    skeleton = load_rig(RIG).skeleton
    pose = posed(skeleton)
    pose.scales[skeleton.index["upper_arm.L"], 1] = 1.3
    save_pose(skeleton, pose, tmp_path / "pose.json")
    out = tmp_path / "out.glb"
    assert export(RIG, "--pose", tmp_path / "pose.json", "-o", out) == 0
    warning = capsys.readouterr().err
    assert "upper_arm.L" in warning and "inherit" in warning
    assert_same_joints(skeleton, pose, open_rig(out))  # our own reader keeps each bone's scale its own
