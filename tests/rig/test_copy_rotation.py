"""Blender's Copy Rotation (World Space to World Space, Euler XYZ, mix Replace): per-axis copies,
influence as a blend that does not compound, degenerate rotations."""
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from rig.constraints import CopyRotationConstraint
from rig.copy_rotation import compatible_euler, copied_rotation, euler_xyz, matrix_from_euler_xyz
from rig.evaluate import evaluate, evaluation
from rig.pose import Pose, rotation_for_world, world_matrices
from rig.rig import Rig
from rig.skeleton import Skeleton
from solvers.transforms import matrix3_to_quat, quat_from_axis_angle, quat_normalize, quat_slerp, quat_to_matrix3

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)
OWNER, CHILD, TARGET = 2, 3, 4
MODERATE = st.floats(-0.7, 0.7)  # Euler angles whose principal solution is also Blender's compatible one
ANY_ANGLE = st.floats(-np.pi, np.pi)
QUATERNIONS = st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4).map(np.array)


def copy_rotation_rig(use_axes=(True, True, True), influence=1.0):
    """A tilted parent, its child ``owner`` (copying ``target``, a bone of its own rolled another
    way) and the owner's child, so the owner's world rotation is none of its channels'."""
    skel = Skeleton.from_bones(["root", "parent", "owner", "child", "target"], [-1, 0, 1, 2, -1],
                               [[0, 0, 0], [0, 0, 1], [0.3, 0.2, 1.8], [0.3, 0.9, 2.2], [1, 0, 0]],
                               [[0, 0, 1], [0.3, 0.2, 1.8], [0.3, 0.9, 2.2], [0.1, 1.2, 2.9], [1.2, 0.5, 0.3]],
                               [0.0, 0.4, -1.1, 0.3, 2.0], [False, True, True, True, False])
    return Rig("copy", skel, copy_rotation=[CopyRotationConstraint("owner", "target", use_axes, influence)])


def euler_matrix(x, y, z):
    """Rz @ Ry @ Rx from axis-angle rotations: Blender's XYZ Euler, independent of the code under test."""
    turn = lambda axis, angle: quat_to_matrix3(quat_from_axis_angle(np.eye(3)[axis], angle))
    return turn(2, z) @ turn(1, y) @ turn(0, x)


def posed(rig, owner_world, target_world, parent_turn=None):
    """A pose whose plain FK gives the owner and the target these world rotations (3, 3)."""
    skel = rig.skeleton
    pose = Pose.rest(len(skel))
    pose.rotations[1] = [0.2, -0.1, 0.3, 0.9] if parent_turn is None else parent_turn
    pose.rotations[1] = quat_normalize(pose.rotations[1])
    world = world_matrices(skel, pose)
    pose.rotations[OWNER] = rotation_for_world(skel, world, OWNER, owner_world)
    pose.rotations[TARGET] = rotation_for_world(skel, world, TARGET, target_world)
    pose.rotations[CHILD] = quat_normalize([0.1, 0.3, -0.2, 1.0])
    return pose


def rotation(world, bone):
    return world[bone, :3, :3]


@SETTINGS
@given(st.tuples(MODERATE, MODERATE, MODERATE), st.tuples(MODERATE, MODERATE, MODERATE))
def test_x_alone_copies_the_targets_x_angle_and_keeps_the_owners_y_and_z(owner_angles, target_angles):
    rig = copy_rotation_rig(use_axes=(True, False, False))
    pose = posed(rig, euler_matrix(*owner_angles), euler_matrix(*target_angles))
    before = world_matrices(rig.skeleton, pose)
    _, world, _ = evaluate(rig, pose)
    expected = euler_matrix(target_angles[0], owner_angles[1], owner_angles[2])
    np.testing.assert_allclose(rotation(world, OWNER), expected, atol=1e-9)
    np.testing.assert_allclose(world[OWNER, :3, 3], before[OWNER, :3, 3], atol=1e-12)  # the head stays
    child_local = np.linalg.inv(before[OWNER]) @ before[CHILD]
    np.testing.assert_allclose(world[CHILD], world[OWNER] @ child_local, atol=1e-9)  # the child hangs from it


@SETTINGS
@given(QUATERNIONS, QUATERNIONS, QUATERNIONS)
def test_every_axis_on_is_a_full_copy(owner, target, parent):
    assume(min(np.linalg.norm(q) for q in (owner, target, parent)) > 0.1)
    rig = copy_rotation_rig()
    pose = posed(rig, quat_to_matrix3(owner), quat_to_matrix3(target), quat_normalize(parent))
    _, world, _ = evaluate(rig, pose)
    np.testing.assert_allclose(rotation(world, OWNER), rotation(world, TARGET), atol=1e-9)


@pytest.mark.parametrize("use_axes", [(True, True, True), (False, True, False), (True, False, True)])
def test_half_influence_stays_halfway_however_often_the_app_solves_from_what_it_shows(use_axes):
    rig = copy_rotation_rig(use_axes, influence=0.5)
    pose = posed(rig, euler_matrix(0.3, -0.5, 1.1), euler_matrix(-1.2, 0.4, -0.2))
    owner = rotation(world_matrices(rig.skeleton, pose), OWNER)
    target = rotation(world_matrices(rig.skeleton, pose), TARGET)
    once, world_once, _ = evaluate(rig, pose)
    again = pose
    for _frame in range(20):  # continuous solving: each frame starts from the pose the last one returned
        again, world, _ = evaluate(rig, again)
    np.testing.assert_allclose(world, world_once, atol=1e-12)
    np.testing.assert_array_equal(once.rotations, pose.rotations)  # the channels stay the user's
    full = copied_rotation(owner, target, use_axes)
    halfway = quat_to_matrix3(quat_slerp(matrix3_to_quat(owner), matrix3_to_quat(full), 0.5))
    np.testing.assert_allclose(rotation(world, OWNER), halfway, atol=1e-9)


def test_half_influence_of_a_full_copy_is_the_slerp_of_owner_and_target():
    rig = copy_rotation_rig(influence=0.5)
    pose = posed(rig, euler_matrix(0.3, -0.5, 1.1), euler_matrix(-1.2, 0.4, -0.2))
    before = world_matrices(rig.skeleton, pose)
    _, world, _ = evaluate(rig, pose)
    owner, target = (matrix3_to_quat(rotation(before, bone)) for bone in (OWNER, TARGET))
    np.testing.assert_allclose(rotation(world, OWNER), quat_to_matrix3(quat_slerp(owner, target, 0.5)), atol=1e-9)


@pytest.mark.parametrize("enabled, influence", [(True, 0.0), (False, 1.0)])
def test_no_influence_or_disabled_changes_nothing(enabled, influence):
    rig = copy_rotation_rig(influence=influence)
    rig.copy_rotation[0].enabled = enabled
    pose = posed(rig, euler_matrix(0.3, -0.5, 1.1), euler_matrix(-1.2, 0.4, -0.2))
    result = evaluation(rig, pose)
    np.testing.assert_array_equal(result.world, world_matrices(rig.skeleton, pose))
    assert result.pose == pose and result.shown == pose


@SETTINGS
@given(QUATERNIONS, QUATERNIONS, st.tuples(st.booleans(), st.booleans(), st.booleans()), st.floats(0.0, 1.0),
       st.sampled_from([None, np.pi / 2, -np.pi / 2]))
def test_never_nan_for_any_rotation_even_at_gimbal_lock(owner, target, use_axes, influence, lock):
    assume(np.linalg.norm(owner) > 0.1 and np.linalg.norm(target) > 0.1)
    rig = copy_rotation_rig(use_axes, influence)
    target_world = quat_to_matrix3(target)
    if lock is not None:  # Y at +-90 degrees: X and Z turn about the same axis
        target_world = euler_matrix(float(target[0]) * 3.0, lock, float(target[1]) * 3.0)
    result = evaluation(rig, posed(rig, quat_to_matrix3(owner), target_world))
    assert np.isfinite(result.world).all() and result.pose.is_finite() and result.shown.is_finite()
    np.testing.assert_allclose(world_matrices(rig.skeleton, result.shown), result.world, atol=1e-12)


def test_a_flattened_target_or_parent_gives_a_rotation_not_nan():
    rig = copy_rotation_rig(use_axes=(True, False, True), influence=0.7)
    pose = posed(rig, euler_matrix(0.3, -0.5, 1.1), euler_matrix(-1.2, 0.4, -0.2))
    pose.scales[[1, TARGET]] = 0.0
    _, world, _ = evaluate(rig, pose)
    assert np.isfinite(world).all()


@SETTINGS
@given(st.tuples(ANY_ANGLE, st.floats(-np.pi / 2, np.pi / 2), ANY_ANGLE))
def test_the_euler_angles_turn_back_into_the_same_rotation(angles):
    m = euler_matrix(*angles)
    np.testing.assert_allclose(matrix_from_euler_xyz(euler_xyz(m)), m, atol=1e-7)  # near the lock: sqrt(eps)


@SETTINGS
@given(st.tuples(ANY_ANGLE, st.floats(-1.4, 1.4), ANY_ANGLE), st.integers(-2, 2), st.integers(-2, 2))
def test_compatible_angles_stay_whole_turns_near_the_old_ones(angles, x_turns, z_turns):
    old = (angles[0] + x_turns * 2 * np.pi, angles[1], angles[2] + z_turns * 2 * np.pi)
    np.testing.assert_allclose(compatible_euler(euler_matrix(*angles), old), old, atol=1e-9)
