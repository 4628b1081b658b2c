"""The pole step before an iterative solve turns the chain's first bone only as its locks and
limits allow: the robot arm's base, which may only turn about Y, stays upright under a pole."""
import numpy as np
import pytest

from rig.formats.rigfile import load_rig
from rig.ik import IKGoal, solve_groups
from rig.pose import Pose, heads_tails
from solvers.transforms import euler_xyz_from_quat


def limits_held(rig, pose, bones, tolerance=1e-6):
    for bone in bones:
        settings = rig.ik_settings(rig.skeleton.names[bone])
        angles = euler_xyz_from_quat(pose.rotations[bone])
        for axis in range(3):
            if settings.lock[axis]:
                assert abs(angles[axis]) < tolerance, (rig.skeleton.names[bone], axis, angles)
            elif settings.use_limit[axis]:
                assert settings.limit_min[axis] - tolerance <= angles[axis] <= settings.limit_max[axis] + tolerance


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
