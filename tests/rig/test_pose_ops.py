"""Mirroring and clearing poses: the mirrored pose is the reflection of the original, bone by bone."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rig.evaluate import evaluate
from rig.pose import Pose, heads_tails, world_matrices
from rig.pose_ops import REFLECT_X, clear_channels, mirror_map, mirror_name, mirror_pose
from rig.formats.rigfile import load_rig
from solvers.transforms import quat_normalize

HUMANOID = load_rig("assets/humanoid.json")


@pytest.mark.parametrize("name, partner", [
    ("hand.L", "hand.R"), ("foot_ik.R", "foot_ik.L"), ("thigh_l", "thigh_r"), ("Left_arm", "Right_arm"),
    ("mixamorig:LeftUpLeg", "mixamorig:RightUpLeg"), ("upper_arm.L.001", "upper_arm.R.001"),
    ("HAND_LEFT", "HAND_RIGHT"), ("spine.01", "spine.01"), ("Leg", "Leg"), ("Bright", "Bright"),
])
def test_mirror_name_swaps_the_side_marker_only(name, partner):
    assert mirror_name(name) == partner
    assert mirror_name(partner) == name


def test_every_humanoid_side_bone_has_its_partner():
    skel = HUMANOID.skeleton
    partners = mirror_map(skel)
    for i, name in enumerate(skel.names):
        expected = name[:-1] + {"L": "R", "R": "L"}[name[-1]] if name[-2:] in (".L", ".R") else name
        assert skel.names[partners[i]] == expected


def random_pose(rng, bone_count):
    pose = Pose.rest(bone_count)
    pose.rotations = quat_normalize(rng.normal(size=(bone_count, 4)))
    pose.locations = rng.normal(scale=0.1, size=(bone_count, 3))
    pose.scales = rng.uniform(0.5, 1.5, size=(bone_count, 3))
    return pose


@settings(derandomize=True, max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_mirrored_pose_puts_each_joint_at_its_partners_reflection(seed):
    skel = HUMANOID.skeleton
    pose = random_pose(np.random.default_rng(seed), len(skel))
    partners = mirror_map(skel)
    heads, tails = heads_tails(skel, world_matrices(skel, pose))
    world = world_matrices(skel, mirror_pose(skel, pose))
    mirrored_heads, mirrored_tails = heads_tails(skel, world)
    np.testing.assert_allclose(mirrored_heads[partners], heads @ REFLECT_X, atol=1e-6)
    np.testing.assert_allclose(mirrored_tails[partners], tails @ REFLECT_X, atol=1e-6)
    # Bone X axes reflect and flip (a mirrored roll), so the Z axes reflect too: frames stay rotations.
    original = world_matrices(skel, pose)[:, :3, :3]
    np.testing.assert_allclose(world[partners, :3, 2] / np.linalg.norm(world[partners, :3, 2], axis=1)[:, None],
                               (original[:, :, 2] / np.linalg.norm(original[:, :, 2], axis=1)[:, None]) @ REFLECT_X,
                               atol=1e-6)


def test_mirroring_twice_gives_the_pose_back():
    skel = HUMANOID.skeleton
    pose = random_pose(np.random.default_rng(7), len(skel))
    twice = mirror_pose(skel, mirror_pose(skel, pose))
    np.testing.assert_allclose(world_matrices(skel, twice), world_matrices(skel, pose), atol=1e-12)


def test_mirrored_ik_pose_solves_to_the_mirror_image():
    """Moving the left hand handle and mirroring gives the right arm the reflected reach."""
    skel = HUMANOID.skeleton
    pose = Pose.rest(len(skel))
    pose.locations[skel.index["hand_ik.L"]] = (0.05, 0.1, 0.15)
    pose.locations[skel.index["elbow_pole.R"]] = (0.0, -0.05, 0.1)
    solved, world, _ = evaluate(HUMANOID, pose)
    mirrored, mirrored_world, _ = evaluate(HUMANOID, mirror_pose(skel, solved))
    heads, _ = heads_tails(skel, world)
    mirrored_heads, _ = heads_tails(skel, mirrored_world)
    np.testing.assert_allclose(mirrored_heads[mirror_map(skel)], heads @ REFLECT_X, atol=1e-6)


def test_clear_channels_resets_only_the_chosen_channels_of_the_chosen_bones():
    pose = random_pose(np.random.default_rng(3), 5)
    cleared = clear_channels(pose, [1, 3], rotation=True)
    np.testing.assert_array_equal(cleared.rotations[[1, 3]], [[0, 0, 0, 1]] * 2)
    np.testing.assert_array_equal(cleared.rotations[[0, 2, 4]], pose.rotations[[0, 2, 4]])
    np.testing.assert_array_equal(cleared.locations, pose.locations)
    cleared = clear_channels(pose, np.arange(5), location=True, scale=True)
    assert cleared == Pose(pose.rotations, np.zeros((5, 3)), np.ones((5, 3)))
