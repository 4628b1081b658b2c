"""A real-world skinned glTF written by another tool: the skinned cylinder of the Khronos
glTF-Blender-IO test suite (Blender's glTF exporter v1.1.36; see ../shared/data/README.md). Its
armature sits under the mesh node, its joints' rest pose differs from the bind pose, and Blender's
Z-up scene arrives rotated to +Y up, so the chain lies along -Z.

Expected values are worked by hand from the file's JSON: the bind pose puts a joint every metre
along -Z; in the pose the nodes hold, Joint_Three bends 30 degrees and Joint_Four 15 more about +X.
"""
import json
import math
from pathlib import Path

import numpy as np
import pytest

from rig.formats.reader import open_rig
from rig.formats.gltf import write_glb
from rig.pose import Pose, heads_tails, world_matrices
from solvers.transforms import quat_from_axis_angle, quat_mul, quat_rotate
from tests.gltf_validator import assert_valid
from tests.shared_data import BLENDER_CYLINDER, NEEDS_SHARED

CYLINDER = BLENDER_CYLINDER
pytestmark = NEEDS_SHARED
NAMES = ["Joint_One", "Joint_Two", "Joint_Three", "Joint_Four"]


@pytest.fixture(scope="module")
def cylinder():
    return open_rig(CYLINDER)


def _heads_tails(document, pose):
    return heads_tails(document.rig.skeleton, world_matrices(document.rig.skeleton, pose))


def test_bind_pose_puts_a_joint_every_metre_along_minus_z(cylinder):
    skeleton = cylinder.rig.skeleton
    assert skeleton.names == NAMES
    assert skeleton.parents.tolist() == [-1, 0, 1, 2]
    np.testing.assert_allclose(skeleton.rest_heads, [[0, 0, -k] for k in range(4)], atol=1e-6)
    # The leaf has no child joint: it continues its parent at half its length.
    np.testing.assert_allclose(skeleton.rest_tails[-1], [0, 0, -3.5], atol=1e-6)
    assert cylinder.warnings == []


def test_the_pose_the_nodes_hold_bends_the_last_two_joints(cylinder):
    heads, tails = _heads_tails(cylinder, cylinder.pose)
    bend = math.radians(30.0)
    np.testing.assert_allclose(heads, [[0, 0, 0], [0, 0, -1], [0, 0, -2],
                                       [0, math.sin(bend), -2 - math.cos(bend)]], atol=1e-6)
    tip = math.radians(45.0)
    np.testing.assert_allclose(tails[-1] - heads[-1], 0.5 * np.array([0, math.sin(tip), -math.cos(tip)]), atol=1e-6)


def _accessor(gltf, index):
    """The float data of accessor ``index``, read straight from the .bin with numpy."""
    accessor = gltf["accessors"][index]
    view = gltf["bufferViews"][accessor["bufferView"]]
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[accessor["type"]]
    data = CYLINDER.with_suffix(".bin").read_bytes()
    offset = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
    return np.frombuffer(data, "<f4", accessor["count"] * width, offset).reshape(-1, width).astype(float)


def test_the_clip_follows_the_files_keyframes(cylinder):
    """Joint_Three's keyed rotation alone sets where Joint_Four's head is (its translation keys are
    constant): sampled at every key time, the clip agrees with the raw keys."""
    gltf = json.loads(CYLINDER.read_text())
    animation = gltf["animations"][0]
    channel = next(c for c in animation["channels"]
                   if c["target"] == {"node": 2, "path": "rotation"})  # node 2 is Joint_Three
    sampler = animation["samplers"][channel["sampler"]]
    times, rotations = _accessor(gltf, sampler["input"])[:, 0], _accessor(gltf, sampler["output"])
    joint_one = quat_from_axis_angle([1.0, 0.0, 0.0], -math.pi / 2)
    clip = cylinder.source
    assert list(cylinder.clips) == ["SkeletonAnimation_Root.001"]
    assert len(cylinder.clips["SkeletonAnimation_Root.001"]) == 49  # 2 s at the 24 frames a second Blender keyed
    moved = 0.0
    for time, rotation in zip(times, rotations):
        heads, _ = _heads_tails(cylinder, clip.sample("SkeletonAnimation_Root.001", time))
        expected = np.array([0.0, 0.0, -2.0]) + quat_rotate(quat_mul(joint_one, rotation), [0.0, 1.0, 0.0])
        np.testing.assert_allclose(heads[3], expected, atol=1e-5)
        moved = max(moved, np.linalg.norm(heads[3] - [0, 0, -3]))
    assert moved > 0.4  # the clip really bends the chain


def test_skinning_bends_the_mesh_with_the_chain(cylinder):
    mesh, skeleton = cylinder.mesh, cylinder.rig.skeleton
    assert mesh.vertex_count == 750
    np.testing.assert_allclose(mesh.weights.sum(axis=1), 1.0, atol=1e-6)
    bind = mesh.skinned_positions(world_matrices(skeleton, Pose.rest(len(skeleton))))
    np.testing.assert_allclose(bind, mesh.positions, atol=1e-6)
    posed = mesh.skinned_positions(world_matrices(skeleton, cylinder.pose))
    root_end = mesh.positions[:, 2] > -0.5
    tip_end = mesh.positions[:, 2] < -3.9
    np.testing.assert_allclose(posed[root_end], mesh.positions[root_end], atol=1e-6)
    assert posed[tip_end, 1].mean() > 0.8  # the far end rises with Joint_Four


def test_export_of_the_imported_file_validates_and_round_trips(tmp_path, cylinder):
    out = tmp_path / "cylinder.glb"
    write_glb(out, cylinder.rig, cylinder.pose, cylinder.mesh)
    assert_valid(out)
    again = open_rig(out)
    for before, after in zip(_heads_tails(cylinder, cylinder.pose),
                             _heads_tails(again, again.pose)):
        np.testing.assert_allclose(after, before, atol=1e-6)
    np.testing.assert_allclose(again.mesh.positions, cylinder.mesh.positions, atol=1e-6)
