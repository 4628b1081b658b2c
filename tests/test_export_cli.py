"""`python app.py export RIG [--pose POSE.json ...] -o OUT`: every output reads back to the same joints,
several poses as BVH frames or a glTF clip."""
import json

import numpy as np
import pygltflib
import pytest

import app
from rig.evaluate import evaluation
from rig.formats.document import RigDocument
from rig.formats.export import export_rig
from rig.formats.reader import open_rig
from rig.pose import Pose, heads_tails, world_matrices
from rig.formats.rigfile import load_rig, save_pose
from solvers.transforms import compose, quat_normalize
from tests.gltf_validator import assert_valid
from tests.rig.test_autorig import bare_humanoid
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED

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


def assert_shown_joints(rig, pose, document):
    """``document`` read back has every joint where the window draws ``rig`` in ``pose`` (its
    constraints evaluated)."""
    back = document.rig.skeleton
    index = [back.index[name] for name in rig.skeleton.names]
    shown = heads_tails(rig.skeleton, evaluation(rig, pose).world)[0]
    np.testing.assert_allclose(heads(back, document.pose)[index], shown, atol=1e-6)


@pytest.mark.parametrize("extension", [".glb", ".bvh"])
def test_posed_humanoid_reads_back_with_the_same_joint_positions(extension, tmp_path):
    rig = load_rig(RIG)
    skeleton = rig.skeleton
    pose = posed(skeleton)
    save_pose(skeleton, pose, tmp_path / "pose.json")
    out = tmp_path / f"out{extension}"
    assert export(RIG, "--pose", tmp_path / "pose.json", "-o", out) == 0
    document = open_rig(out)
    assert_shown_joints(rig, pose, document)
    assert np.abs(heads(skeleton, pose) - heads(skeleton, None)).max() > 0.05  # the pose did move joints
    if extension == ".glb":
        assert_valid(out)
        assert len(document.rig.ik) == len(load_rig(RIG).ik)  # constraints travel in the extras


@pytest.mark.parametrize("extension", [".glb", ".bvh"])
def test_several_poses_export_as_frames_that_read_back(extension, tmp_path):
    rig = load_rig(RIG)
    skeleton = rig.skeleton
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
        assert_shown_joints(rig, pose, RigDocument(document.rig, str(out), pose=frame))
    assert_shown_joints(rig, poses[0], document)  # the first pose is also the file's own
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


@pytest.mark.parametrize("source, extension", [pytest.param(BVH, ".glb", marks=NEEDS_SHARED),
                                               pytest.param(BVH, ".json", marks=NEEDS_SHARED),
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


def standard_fk(path):
    """Per node name its head and world matrix by a textbook glTF forward kinematics of the file's
    node TRS (scale inherited), read with pygltflib, not our reader."""
    gltf = pygltflib.GLTF2().load(str(path))
    local = [compose(np.array(n.translation or [0.0] * 3), np.array(n.rotation or [0.0, 0.0, 0.0, 1.0]),
                     np.array(n.scale or [1.0] * 3)) for n in gltf.nodes]
    world = {}

    def place(i, above):
        world[gltf.nodes[i].name] = above @ local[i]
        for child in gltf.nodes[i].children or []:
            place(child, world[gltf.nodes[i].name])

    for root in gltf.scenes[0].nodes:
        place(root, np.eye(4))
    return world


def test_a_stretched_pose_shows_in_other_tools_as_it_does_here_and_needs_no_warning(tmp_path, capsys):
    """glTF nodes inherit scale as our bones do: a scaled spine and a stretched neck (the bones
    above inherit them) come out of a textbook glTF forward kinematics with every head and tail
    where Posekit draws them."""
    rig = load_rig(RIG)
    skeleton = rig.skeleton
    pose = posed(skeleton)
    pose.scales[skeleton.index["spine.02"]] = 1.3
    pose.scales[skeleton.index["neck"]] = [1.0, 1.1, 1.0]
    save_pose(skeleton, pose, tmp_path / "pose.json")
    out = tmp_path / "out.glb"
    assert export(RIG, "--pose", tmp_path / "pose.json", "-o", out) == 0
    assert capsys.readouterr().err == ""
    world = evaluation(rig, pose).world
    ours = heads_tails(skeleton, world)
    theirs = standard_fk(out)
    theirs = np.array([theirs[name] for name in skeleton.names])
    np.testing.assert_allclose(theirs[:, :3, 3], ours[0], atol=1e-6)
    np.testing.assert_allclose(theirs[:, :3, 3] + theirs[:, :3, 1] * skeleton.lengths[:, None], ours[1], atol=1e-6)
    head = skeleton.index["head"]
    assert np.linalg.det(world[head, :3, :3]) == pytest.approx(1.3 ** 3 * 1.1)  # the head grew with them
    assert_shown_joints(rig, pose, open_rig(out))


def test_an_unedited_rigify_human_re_exports_without_a_warning(tmp_path, capsys):
    """The Rigify-named human (its joints' scales as float32 leaves them, a hair off 1) exported,
    read and exported again: nothing to warn about, every joint in place."""
    rig, _ = bare_humanoid("rigify")
    pose = Pose.rest(len(rig.skeleton))
    pose.scales[:] = np.float32(1.0 + 1e-7)
    first = tmp_path / "rigify.glb"
    assert export_rig(RigDocument(rig, "rigify.json", pose=pose), first) == []
    again = tmp_path / "again.glb"
    assert export(first, "-o", again) == 0
    assert capsys.readouterr().err == ""
    assert_same_joints(rig.skeleton, pose, open_rig(again))
    assert_valid(again)


def test_cli_export_bakes_copy_rotation_where_the_window_shows_it(tmp_path):
    """The humanoid's hands, feet and toes turn by Copy Rotation, which is not in their pose
    channels: the exported files put them where the window's evaluation draws them."""
    rig = load_rig(RIG)
    skeleton = rig.skeleton
    assert rig.copy_rotation
    pose = Pose.rest(len(skeleton))
    for handle, turn in (("hand_ik.L", [0.5, 0.2, 0.1]), ("foot_ik.R", [0.3, -0.4, 0.2])):
        pose.rotations[skeleton.index[handle]] = quat_normalize(np.array(turn + [1.0]))
    save_pose(skeleton, pose, tmp_path / "pose.json")
    shown = heads_tails(skeleton, evaluation(rig, pose).world)
    ends = [skeleton.index[n] for n in ("hand.L", "hand.R", "foot.L", "foot.R", "toe.L", "toe.R")]
    raw = heads_tails(skeleton, world_matrices(skeleton, pose))
    assert np.abs(raw[1][ends] - shown[1][ends]).max() > 0.05  # the channels alone put them elsewhere
    for extension in (".glb", ".bvh"):
        out = tmp_path / f"out{extension}"
        assert export(RIG, "--pose", tmp_path / "pose.json", "-o", out) == 0
        document = open_rig(out)
        back = document.rig.skeleton
        index = [back.index[skeleton.names[i]] for i in ends]
        back_heads, back_tails = heads_tails(back, world_matrices(back, document.pose))
        np.testing.assert_allclose(back_heads[index], shown[0][ends], atol=1e-5)
        if extension == ".glb":  # BVH keeps joints; their tails are its End Sites and child joints
            np.testing.assert_allclose(back_tails[index], shown[1][ends], atol=1e-5)
