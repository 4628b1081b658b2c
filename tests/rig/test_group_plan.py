"""The per-group plan cache: a solve right after a settings edit honours the edit."""
import dataclasses

import numpy as np
import pytest

from rig.constraints import BoneIKSettings
from rig.evaluate import evaluate
from rig.formats.rigfile import load_rig
from rig.pose import Pose, location_for_head
from solvers.limits import Hinge, limit_violation


def dragged_arm():
    rig = load_rig("assets/humanoid.json")
    pose = Pose.rest(len(rig.skeleton))
    _, world, _ = evaluate(rig, pose)
    handle = rig.skeleton.index["hand_ik.L"]
    pose.locations[handle] = location_for_head(rig.skeleton, pose, world, handle,
                                               world[handle, :3, 3] + [0.05, 0.15, 0.2])
    return rig, pose


def test_a_lock_set_between_solves_holds_in_the_next_one():
    rig, pose = dragged_arm()
    solved, _, reports = evaluate(rig, pose)
    assert reports[0].solver == "two_bone"
    forearm, hinge = rig.skeleton.index["forearm.L"], (Hinge((1.0, 0.0, 0.0), -np.pi, np.pi),)
    assert limit_violation(hinge, solved.rotations[forearm]) > 1e-3  # free, it bends off that hinge
    rig.bone_ik["forearm.L"] = BoneIKSettings(lock=(False, True, True))
    solved, _, reports = evaluate(rig, pose)
    assert limit_violation(hinge, solved.rotations[forearm]) < 1e-6
    assert reports[0].converged  # two-bone solves within the new lock


def test_a_solver_chosen_in_place_runs_in_the_next_solve():
    rig, pose = dragged_arm()
    evaluate(rig, pose)
    rig.ik[0].solver = "dls"
    _, _, reports = evaluate(rig, pose)
    assert reports[0].solver == "dls"


def test_bone_settings_cannot_change_behind_the_cache():
    with pytest.raises(dataclasses.FrozenInstanceError):
        BoneIKSettings().stretch = 0.5


def test_the_plan_cache_stays_bounded_when_every_solve_brings_new_constraints():
    from rig.constraints import IKConstraint
    from rig.ik import IKGoal, solve_groups
    from rig.ik_plan import MAX_PLANS
    rig = load_rig("assets/humanoid.json")
    target = rig.skeleton.rest_tails[rig.skeleton.index["forearm.L"]]
    for _ in range(MAX_PLANS + 10):  # as Auto IK makes a constraint for every drag
        constraint = IKConstraint("forearm.L", chain_count=2)
        pose, world = Pose.rest(len(rig.skeleton)), rig.skeleton.rest_world.copy()
        solve_groups(rig, pose, world, [constraint], lambda c, _: IKGoal(c, target))
    assert len(rig.solve_plans) <= MAX_PLANS


OTHER_CHOICE = {"solver": "dls", "type": "dls", "ik_type": "distance", "mode": "original_pose", "limit_mode": "outside",
                "reference_axis": "target"}


def edited(name, value, bone_name):
    """Another valid value for setting ``name`` now at ``value``."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, tuple):
        return (not value[0],) + value[1:]
    return OTHER_CHOICE.get(name, bone_name)  # else a bone's name: the constraint's bone, target or pole


def test_every_constraint_and_solver_setting_edited_in_place_makes_a_fresh_plan():
    """The plan cache is keyed by whole records, so no setting can change behind it, including
    one no plan reads yet; unchanged settings find their plan again."""
    from rig.ik import IKGoal
    from rig.ik_plan import group_plan
    rig = load_rig("assets/humanoid.json")
    constraint = rig.ik[0]
    goals = [IKGoal(constraint, np.zeros(3))]
    bones = sorted(rig.ik_chain(constraint))
    for record in (constraint, rig.solver):
        for setting in dataclasses.fields(record):
            plan = group_plan(rig, goals, bones)
            assert group_plan(rig, goals, bones) is plan
            before = getattr(record, setting.name)
            setattr(record, setting.name, edited(setting.name, before, rig.skeleton.names[bones[0]]))
            assert group_plan(rig, goals, bones) is not plan, setting.name
            setattr(record, setting.name, before)
            assert group_plan(rig, goals, bones) == plan, setting.name  # kept, or built again alike
