"""Properties every method keeps through the rig, on a limited chain (the robot arm) and a free
one (the tail): lengths kept without stretch, limits held, the same answer twice, and degenerate
targets (at the root, non-finite, far away) answered without NaN or a traceback."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rig.formats.rigfile import load_rig
from rig.ik import IKGoal, solve_groups
from rig.ik_plan import bone_limits
from rig.pose import Pose, heads_tails
from solvers.limits import limit_violation

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True)
METHODS = ["auto", "two_bone", "fabrik", "ccd", "dls", "sdls"]
RIGS = {"robot arm": ("assets/robot_arm.json", 0), "tail": ("assets/tail.json", 0)}
points = st.tuples(*[st.floats(-1.5, 1.5)] * 3)


def solve(rig_name, method, target):
    path, index = RIGS[rig_name]
    rig = load_rig(path)
    rig.solver.mode, rig.solver.iterations = "original_pose", 100
    constraint = rig.ik[index]
    constraint.solver, constraint.use_stretch = method, False
    pose, world = Pose.rest(len(rig.skeleton)), rig.skeleton.rest_world.copy()
    reports = solve_groups(rig, pose, world, [constraint], lambda c, _: IKGoal(c, np.asarray(target, float)))[0]
    return rig, constraint, pose, world, reports


@pytest.mark.parametrize("rig_name", sorted(RIGS))
@pytest.mark.parametrize("method", METHODS)
@SETTINGS
@given(target=points)
def test_lengths_kept_limits_held_and_the_same_answer_twice(rig_name, method, target):
    rig, constraint, pose, world, reports = solve(rig_name, method, target)
    heads, tails = heads_tails(rig.skeleton, world)
    np.testing.assert_allclose(np.linalg.norm(tails - heads, axis=1), rig.skeleton.lengths, rtol=1e-9, atol=1e-12)
    bones = rig.ik_chain(constraint)
    for bone, limit in zip(bones, bone_limits(rig, bones) or [None] * len(bones)):
        if limit is not None:
            assert limit_violation((limit,), pose.rotations[bone]) < 1e-6
    again = solve(rig_name, method, target)
    assert np.array_equal(again[2].rotations, pose.rotations) and again[4] == reports


@pytest.mark.parametrize("rig_name", sorted(RIGS))
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("target", [[0.0, 0.0, 0.0], [np.nan, 0.0, 0.0], [np.inf, 1.0, 0.0], [1e6, -1e6, 1e6]])
def test_degenerate_targets_leave_a_finite_pose_and_a_report(rig_name, method, target):
    _, _, pose, world, reports = solve(rig_name, method, target)
    assert pose.is_finite() and np.isfinite(world).all()
    assert len(reports) == 1 and not np.isnan(reports[0].error)
