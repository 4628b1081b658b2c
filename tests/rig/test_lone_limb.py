"""The lone two-bone limb's compiled path (rig.lone_limb) poses, reports and moves the world as
the general path (the problem, solvers.problem.solve, the write and forward kinematics) does on
the same goal: the humanoid's limbs, whose hands and feet hang below them, with poles, pole
angles, stretch, soft reach, a moved parent and both solve modes; and it leaves to the general
path the input that needs conditioning."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rig.constraints import BoneIKSettings, IKConstraint
from rig.formats.rigfile import load_rig
from rig.ik import IKGoal
from rig.ik_plan import group_plan
from rig.lone_limb import solve_lone_limb, takes
from rig.pose import Pose, world_matrices
from tests.rig.lone_paths import assert_same, solved, solves_as_the_arm_moves

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)
LIMBS = {"forearm.L": "elbow_pole.L", "forearm.R": "elbow_pole.R", "shin.L": "knee_pole.L", "shin.R": "knee_pole.R"}
PATH = "solve_lone_limb"  # turned off, the general path runs
HUMANOID = load_rig("assets/humanoid.json")
coordinate = st.floats(-1.0, 1.0)
point = st.tuples(coordinate, coordinate, coordinate)


def _rig(mode, stretch):
    rig = load_rig("assets/humanoid.json")
    rig.solver.mode = mode
    for upper, lower in (("upper_arm.L", "forearm.L"), ("thigh.R", "shin.R")):  # unequal: each bone its own share
        rig.bone_ik[upper], rig.bone_ik[lower] = BoneIKSettings(stretch=stretch), BoneIKSettings(stretch=stretch / 2)
    return rig


@SETTINGS
@given(bone=st.sampled_from(sorted(LIMBS)), offset=point, pole_offset=st.none() | point,
       pole_angle=st.floats(-4.0, 4.0), soft=st.sampled_from([0.0, 0.05]), stretch=st.sampled_from([0.0, 0.4]),
       mode=st.sampled_from(["original_pose", "continuous"]), hips_turn=st.floats(-0.6, 0.6))
def test_the_compiled_path_matches_the_general_one(bone, offset, pole_offset, pole_angle, soft, stretch, mode,
                                                   hips_turn):
    rig = _rig(mode, stretch)
    skel = rig.skeleton
    pose = Pose.rest(len(skel))
    pose.rotations[skel.index["pelvis"]] = [0.0, math.sin(hips_turn / 2), 0.0, math.cos(hips_turn / 2)]  # limbs moved
    pose.rotations[skel.index[bone]] = [math.sin(0.3), 0.0, 0.0, math.cos(0.3)]  # a bend to start from (continuous)
    constraint = IKConstraint(bone, chain_count=2, pole_angle=pole_angle, soft_reach=soft)
    bones = rig.ik_chain(constraint)
    root = world_matrices(skel, pose)[bones[0], :3, 3]
    target = root + np.array(offset) * skel.lengths[bones].sum() * 1.3  # within reach, and beyond it
    pole = None if pole_offset is None else root + np.array(pole_offset)
    goal = IKGoal(constraint, target, pole=pole)
    assert takes(group_plan(rig, [goal], bones))
    fast, general = (solved(rig, pose, constraint, goal, p) for p in (None, PATH))
    assert_same(fast, general)


def _goal_and_plan(target=(0.2, -0.3, 0.1), pole=None, **settings):
    """The humanoid's left arm with a goal ``target`` from its shoulder, ``pole`` and constraint ``settings``."""
    rig = load_rig("assets/humanoid.json")
    constraint = IKConstraint("forearm.L", chain_count=2, **settings)
    bones = rig.ik_chain(constraint)
    goal = IKGoal(constraint, rig.skeleton.rest_heads[bones[0]] + target, pole=pole)
    return rig, goal, bones, group_plan(rig, [goal], bones)


@pytest.mark.parametrize("changes", [{"target": (np.nan, 0.0, 0.0)}, {"target": (1e13, 0.0, 0.0)},
                                     {"pole": np.array([0.0, np.inf, 0.0])}, {"influence": 0.5},
                                     {"pole_angle": math.inf}])
def test_input_needing_conditioning_takes_the_general_path(changes):
    """Nothing is written, and the general path then solves (or refuses) it as it always has."""
    rig, goal, bones, plan = _goal_and_plan(**changes)
    pose = Pose.rest(len(rig.skeleton))
    world = world_matrices(rig.skeleton, pose)
    before = pose.copy(), world.copy()
    assert solve_lone_limb(rig, pose, world, goal, bones, plan) is None
    assert pose == before[0] and np.array_equal(world, before[1])


@pytest.mark.parametrize("change", ["limits", "rotation", "forced fabrik", "three bones"])
def test_what_the_limb_path_does_not_take_goes_the_general_way(change):
    rig = load_rig("assets/humanoid.json")
    constraint = IKConstraint("forearm.L", chain_count=3 if change == "three bones" else 2,
                              solver="fabrik" if change == "forced fabrik" else "auto")
    if change == "limits":
        rig.bone_ik["forearm.L"] = BoneIKSettings(use_limit=(True, False, False), limit_min=(0.0, -math.pi, -math.pi))
    rotation = np.array([0.0, 0.0, 0.0, 1.0]) if change == "rotation" else None
    goal = IKGoal(constraint, np.zeros(3), rotation)
    assert not takes(group_plan(rig, [goal], rig.ik_chain(constraint)))


def test_the_limb_path_runs_for_a_plain_arm():
    """The case the path is for: a humanoid arm with its elbow pole (what a drag of the hand is)."""
    rig, goal, bones, plan = _goal_and_plan(pole=HUMANOID.skeleton.rest_heads[HUMANOID.skeleton.index["elbow_pole.L"]],
                                            pole_angle=HUMANOID.ik[0].pole_angle)
    pose = Pose.rest(len(rig.skeleton))
    world = world_matrices(rig.skeleton, pose)
    assert takes(plan)
    error = solve_lone_limb(rig, pose, world, goal, bones, plan)
    assert error is not None and error < 1e-9
    tip = world[bones[1], :3, 3] + world[bones[1], :3, 1] * rig.skeleton.lengths[bones[1]]
    np.testing.assert_allclose(tip, goal.target, atol=1e-9)
    hand = rig.skeleton.index["hand.L"]
    np.testing.assert_allclose(world[hand, :3, 3], tip, atol=1e-9)  # the hand below followed


def test_a_kept_limb_follows_its_parent_and_locations_as_they_move():
    """The limb's row is kept from solve to solve; when the body under it turns or its bones get
    pose locations, the next solve sees it (the kernel answers stale and the row is built again)."""
    rig = _rig("continuous", 0.0)
    skel = rig.skeleton
    for fast, _ in solves_as_the_arm_moves(rig, IKConstraint("forearm.L", chain_count=2),
                                          lambda k: [0.25, -0.3, 0.1 * k], PATH):
        np.testing.assert_allclose(fast[2][0].error, 0.0, atol=1e-9)
    assert (skel.index["upper_arm.L"], skel.index["forearm.L"]) in skel.solver_limbs  # the path ran, and kept its limb


EDITS = [("pole_angle", 1.2), ("soft_reach", 0.05), ("pole_angle", -2.5), ("influence", 0.5), ("influence", 1.0)]


def test_a_kept_limb_follows_its_constraint_and_the_solver_edited_in_place():
    """What the constraint asks beside its target (pole angle, soft reach, influence) and the
    solve mode are kept in the limb's row with its plan; an edit in place between solves (a panel's
    slider) gives the next solve a new plan, so it solves as the general path does with the edit."""
    rig = _rig("original_pose", 0.0)
    skel = rig.skeleton
    constraint = IKConstraint("forearm.L", chain_count=2)
    bones = rig.ik_chain(constraint)
    pose = Pose.rest(len(skel))
    pose.rotations[bones[1]] = [math.sin(0.3), 0.0, 0.0, math.cos(0.3)]  # a bend: the modes start apart
    pole = skel.rest_heads[skel.index["elbow_pole.L"]]
    goal = IKGoal(constraint, skel.rest_heads[bones[0]] + [0.2, -0.3, 0.1], pole=pole)
    first = solved(rig, pose, constraint, goal)
    for name, value in EDITS + [("mode", "continuous")]:
        setattr(rig.solver if name == "mode" else constraint, name, value)
        fast, general = (solved(rig, pose, constraint, goal, p) for p in (None, PATH))
        assert_same(fast, general)
        assert not np.allclose(fast[0].rotations, first[0].rotations, atol=1e-6)  # the edit changed the pose
