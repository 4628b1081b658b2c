"""The pole step before an iterative solve turns the chain's first bone only as its locks and
limits allow: the robot arm's base, which may only turn about Y, stays upright under a pole."""
import numpy as np
import pytest

from rig.formats.rigfile import load_rig
from rig.ik import IKGoal, solve_groups
from rig.ik_plan import bone_limits
from rig.pose import Pose, heads_tails
from solvers.limits import limit_violation


def limits_held(rig, pose, bones, tolerance=1e-6):
    limits = bone_limits(rig, bones)
    for bone, limit in zip(bones, limits):
        if limit is not None:
            assert limit_violation((limit,), pose.rotations[bone]) < tolerance, rig.skeleton.names[bone]


@pytest.mark.parametrize("solver", ["auto", "fabrik", "ccd", "dls", "sdls"])
@pytest.mark.parametrize("pole", [[0.3, 0.4, 0.5], [-0.5, 0.2, -0.1], [0.0, 1.0, 0.6]])
def test_a_pole_does_not_tilt_a_base_locked_to_turn_about_y(solver, pole):
    rig = load_rig("assets/robot_arm.json")
    rig.solver.type = solver
    rig.solver.mode = "original_pose"
    constraint = rig.ik[0]
    constraint.solver = "auto"
    pose = Pose.rest(len(rig.skeleton))
    world = rig.skeleton.rest_world.copy()
    goal = IKGoal(constraint, np.array([0.25, 0.35, 0.2]), pole=np.array(pole, dtype=float))
    solve_groups(rig, pose, world, [constraint], lambda c, _: goal)
    base = rig.skeleton.index["base"]
    tail = heads_tails(rig.skeleton, world)[1][base]
    rest_tail = rig.skeleton.rest_tails[base]
    assert abs(tail[0] - rest_tail[0]) < 1e-6 and abs(tail[2] - rest_tail[2]) < 1e-6
    limits_held(rig, pose, rig.ik_chain(constraint))
