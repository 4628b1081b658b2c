"""The Jacobian solvers (DLS, SDLS) through rig evaluation: iTaSC settings from the bone IK panel
and the IK constraint reach the solver."""
import dataclasses
import numpy as np
import pytest

from rig.evaluate import evaluate
from rig.pose import Pose, heads_tails
from rig.formats.rigfile import load_rig
from solvers.limits import LOCK_TOLERANCE, swing_twist_angles
from solvers.transforms import euler_xyz_from_quat

from tests.rig.test_evaluate import move_handle


def solve_frames(rig, pose, frames=3):
    for _ in range(frames):
        pose, world, reports = evaluate(rig, pose)
    return pose, world, reports


@pytest.mark.parametrize("method", ["dls", "sdls"])
def test_robot_arm_turns_on_its_turntable_to_reach_off_plane_targets(method):
    """Base: a Y turntable; upper and lower: X hinges limited to +-2 rad (the rig's bone IK)."""
    rig = load_rig("assets/robot_arm.json")
    assert rig.solver.type == "dls"
    rig.solver.type = method
    pose = Pose.rest(len(rig.skeleton))
    _, world, _ = evaluate(rig, pose)
    target = move_handle(rig, pose, world, "grip_ik", [0.25, -0.15, -0.2])
    pose, world, reports = solve_frames(rig, pose, frames=4)
    skel = rig.skeleton
    assert reports[0].solver == method and reports[0].error < 1e-4
    np.testing.assert_allclose(world[skel.index["gripper"], :3, 3], target, atol=1e-4)
    euler = euler_xyz_from_quat(pose.rotations[[skel.index[n] for n in ("base", "upper", "lower")]])
    np.testing.assert_allclose(euler[0, [0, 2]], 0.0, atol=1e-12)  # turntable: Y only
    np.testing.assert_allclose(euler[1:, 1:], 0.0, atol=1e-12)  # hinges: X only
    assert np.all(np.abs(euler[1:, 0]) <= 2.0 + 1e-12)
    heads, tails = heads_tails(skel, world)
    np.testing.assert_allclose(np.linalg.norm(tails - heads, axis=1), skel.lengths, rtol=1e-9)


def test_distance_constraint_keeps_the_hand_on_a_sphere_around_its_target():
    rig = load_rig("assets/humanoid.json")
    constraint = next(c for c in rig.ik if c.bone == "forearm.L")
    constraint.solver, constraint.ik_type, constraint.limit_mode, constraint.distance = "dls", "distance", "on_surface", 0.1
    pose = Pose.rest(len(rig.skeleton))
    _, world, _ = evaluate(rig, pose)
    target = move_handle(rig, pose, world, "hand_ik.L", [-0.15, -0.1, 0.1])
    _, world, reports = solve_frames(rig, pose)
    hand = heads_tails(rig.skeleton, world)[1][rig.skeleton.index["forearm.L"]]
    assert np.linalg.norm(hand - target) == pytest.approx(0.1, abs=1e-4)
    assert reports[0].solver == "dls"


def test_stiff_bone_turns_less_and_a_locked_axis_not_at_all():
    rig = load_rig("assets/tail.json")
    rig.solver.type = "dls"
    skel = rig.skeleton
    pose = Pose.rest(len(skel))
    _, world, _ = evaluate(rig, pose)
    move_handle(rig, pose, world, "tail_ik", [0.3, -0.3, 0.25])
    free, _, _ = solve_frames(rig, pose.copy(), frames=1)
    rig.bone_ik["tail.003"] = dataclasses.replace(rig.ik_settings("tail.003"), lock=(False, False, True),
                                                  stiffness=(0.9, 0.0, 0.0))
    held, world, reports = solve_frames(rig, pose.copy(), frames=1)
    bone = skel.index["tail.003"]
    assert swing_twist_angles(tuple(held.rotations[bone]))[2] == pytest.approx(0.0, abs=LOCK_TOLERANCE)
    x_free, x_held = (abs(swing_twist_angles(tuple(p.rotations[bone]))[0]) for p in (free, held))
    assert x_held < x_free


def test_non_finite_target_leaves_the_pose_unchanged():
    rig = load_rig("assets/robot_arm.json")
    pose = Pose.rest(len(rig.skeleton))
    pose.locations[rig.skeleton.index["grip_ik"]] = [np.inf, 0.0, 0.0]
    solved, _, reports = evaluate(rig, pose)
    np.testing.assert_array_equal(solved.rotations, pose.rotations)
    assert not reports[0].converged
