"""Soft reach through the rig: a two-bone limb eases into full extension instead of snapping
straight; methods that cannot ease say so; the setting survives a save and load."""
import numpy as np
import pytest

from rig.constraints import IKConstraint
from rig.formats.rigfile import load_rig, rig_from_dict, rig_to_dict
from rig.ik import IKGoal, solve_groups
from rig.pose import Pose, heads_tails


def reach_out(distance_past_reach, soft, chain_count=2, bone="forearm.L"):
    rig = load_rig("assets/humanoid.json")
    rig.solver.mode = "original_pose"
    constraint = IKConstraint(bone, chain_count=chain_count, soft_reach=soft, use_stretch=False)
    bones = rig.ik_chain(constraint)
    root = rig.skeleton.rest_heads[bones[0]]
    reach = rig.skeleton.lengths[bones].sum()
    target = root + np.array([1.0, -1.0, 0.3]) / np.linalg.norm([1.0, -1.0, 0.3]) * (reach + distance_past_reach)
    pose, world = Pose.rest(len(rig.skeleton)), rig.skeleton.rest_world.copy()
    reports, _ = solve_groups(rig, pose, world, [constraint], lambda c, _: IKGoal(c, target))
    tip = heads_tails(rig.skeleton, world)[1][bones[-1]]
    return np.linalg.norm(tip - root), reach, reports[0]


def test_the_reach_eases_in_and_never_snaps():
    out = [reach_out(d, 0.05)[0] for d in (-0.06, -0.04, -0.02, 0.0, 0.05)]
    reach = reach_out(0.0, 0.05)[1]
    assert all(b > a for a, b in zip(out, out[1:]))  # still moving outward...
    assert all(d < reach for d in out)  # ...but never quite straight
    assert reach - out[3] > 1e-3  # at the reach itself the eased tip stays visibly short
    hard = reach_out(-0.02, 0.0)
    assert hard[0] == pytest.approx(reach - 0.02, abs=1e-9) and out[2] < hard[0]


def test_a_method_that_cannot_ease_says_so():
    *_, report = reach_out(-0.1, 0.05, chain_count=3, bone="hand.L")
    assert report.notes == ("soft reach: fabrik does not hold it",)


def test_soft_reach_survives_save_and_load():
    rig = load_rig("assets/humanoid.json")
    rig.ik[0].soft_reach = 0.04
    assert rig_from_dict(rig_to_dict(rig)).ik[0].soft_reach == 0.04
