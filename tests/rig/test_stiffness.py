"""Stiffness through the rig, for every method that honours it: a stiffer joint turns measurably
less toward the same target, and the chain still reaches it."""
import numpy as np
import pytest

from rig.constraints import BoneIKSettings, IKConstraint
from rig.formats.rigfile import load_rig
from rig.ik import IKGoal, solve_groups
from rig.pose import Pose, heads_tails
from solvers.methods import METHODS
from solvers.transforms import quat_angle

HONOURING = sorted(name for name, method in METHODS.items() if "stiffness" in method.honours and method.bones is None)


def solve_spine(method, stiffness):
    rig = load_rig("assets/humanoid.json")
    rig.solver.mode, rig.solver.iterations = "original_pose", 200
    rig.bone_ik["spine.01"] = BoneIKSettings(stiffness=(stiffness,) * 3)
    constraint = IKConstraint("head", chain_count=5, solver=method, iterations=200)
    target = rig.skeleton.rest_tails[rig.skeleton.index["head"]] + [0.15, -0.1, 0.12]
    pose, world = Pose.rest(len(rig.skeleton)), rig.skeleton.rest_world.copy()
    reports, _ = solve_groups(rig, pose, world, [constraint], lambda c, _: IKGoal(c, target))
    tip = heads_tails(rig.skeleton, world)[1][rig.skeleton.index["head"]]
    return quat_angle(pose.rotations[rig.skeleton.index["spine.01"]], [0, 0, 0, 1]), tip, target, reports[0]


@pytest.mark.parametrize("method", HONOURING)
def test_a_stiff_joint_turns_less_and_the_chain_still_reaches(method):
    free_turn, *_ = solve_spine(method, 0.0)
    stiff_turn, tip, target, report = solve_spine(method, 0.9)
    assert stiff_turn < 0.7 * free_turn
    assert np.linalg.norm(tip - target) < 1e-4
    assert not report.notes


def test_auto_hands_a_stiff_chain_to_a_method_that_honours_stiffness():
    _, tip, target, report = solve_spine("auto", 0.9)
    assert all("stiffness" in METHODS[m].honours for m in report.solver.split("+"))
    assert np.linalg.norm(tip - target) < 1e-4 and not report.notes
