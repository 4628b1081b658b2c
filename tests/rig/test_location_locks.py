"""iTaSC's location locks through the rig: a position goal free along the locked axes of the
target (reference axis "target") or of the bone ("bone"); methods that cannot hold them say so."""
import numpy as np
import pytest

from rig.constraints import IKConstraint
from rig.formats.rigfile import load_rig
from rig.ik import IKGoal, solve_groups
from rig.pose import Pose, heads_tails
from solvers.transforms import quat_from_axis_angle, quat_to_matrix3


def solve_arm(solver, lock, reference, target_frame=None, offset=(0.1, 0.9, 0.15)):
    rig = load_rig("assets/humanoid.json")
    rig.solver.mode = "original_pose"
    constraint = IKConstraint("forearm.L", chain_count=2, solver=solver, lock_location=lock,
                              reference_axis=reference, iterations=200)
    shoulder = rig.skeleton.rest_heads[rig.skeleton.index["upper_arm.L"]]
    target = shoulder + np.array(offset)  # Y far beyond reach; X and Z within it
    pose, world = Pose.rest(len(rig.skeleton)), rig.skeleton.rest_world.copy()
    goal = IKGoal(constraint, target, target_frame=target_frame)
    reports, _ = solve_groups(rig, pose, world, [constraint], lambda c, _: goal)
    tip = heads_tails(rig.skeleton, world)[1][rig.skeleton.index["forearm.L"]]
    return tip, target, reports[0], world[rig.skeleton.index["forearm.L"]]


@pytest.mark.parametrize("solver", ["auto", "dls", "sdls"])
def test_a_world_y_lock_leaves_height_free_and_meets_the_other_axes(solver):
    tip, target, report, _ = solve_arm(solver, (False, True, False), "target")
    assert abs(tip[0] - target[0]) < 1e-4 and abs(tip[2] - target[2]) < 1e-4
    assert report.solver.startswith("dls") or report.solver.startswith("sdls")
    assert not report.notes and report.error < 1e-4


def test_locks_follow_the_targets_frame():
    frame = quat_from_axis_angle([0.0, 0.0, 1.0], 0.5)
    tip, target, report, _ = solve_arm("dls", (False, True, False), "target", frame, offset=(0.2, 0.1, 0.1))
    axes = quat_to_matrix3(frame)
    miss = axes.T @ (tip - target)
    assert abs(miss[0]) < 1e-4 and abs(miss[2]) < 1e-4


def test_locks_in_the_bones_frame_leave_its_own_axis_free():
    tip, target, report, forearm = solve_arm("dls", (False, True, False), "bone", offset=(0.3, 0.2, 0.2))
    axes = forearm[:3, :3] / np.linalg.norm(forearm[:3, :3], axis=0)
    miss = axes.T @ (tip - target)
    assert abs(miss[0]) < 1e-4 and abs(miss[2]) < 1e-4 and report.error < 1e-4


@pytest.mark.parametrize("solver", ["two_bone", "fabrik", "ccd"])
def test_a_method_that_cannot_hold_location_locks_says_so(solver):
    *_, report, _ = solve_arm(solver, (False, True, False), "target")
    assert report.notes == (f"location locks: {solver} does not hold it",)
