"""The lone free chain's compiled path (rig.lone_chain) poses, reports and moves the world as the
general path (the problem, solvers.methods.solve, the write and forward kinematics) does on the
same goal: the humanoid's spine, arms and legs as free chains, with the bones below them, a moved
parent and both solve modes, targets within and beyond reach and budgets too small to reach, where
the compiled run is short and the general path's next methods go on from it; and it leaves to the
general path what it does not take."""
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from rig.constraints import BoneIKSettings, IKConstraint
from rig.formats.rigfile import load_rig
from rig.ik import IKGoal
from rig.ik_plan import group_plan
from rig.lone_chain import solve_lone_chain, takes
from rig.pose import Pose, world_matrices
from tests.rig.lone_paths import SAME, assert_same, solved, solves_as_the_arm_moves

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)
CHAINS = [("hand.L", 4), ("head", 4), ("toe.R", 4), ("forearm.R", 3), ("head", 2)]
PATH = "solve_lone_chain"  # turned off, the general path runs
coordinate = st.floats(-1.0, 1.0)
point = st.tuples(coordinate, coordinate, coordinate)


def _rig(mode):
    rig = load_rig("assets/humanoid.json")
    rig.solver.mode = mode
    return rig


@SETTINGS
@given(chain=st.sampled_from(CHAINS), offset=point, iterations=st.sampled_from([4, 100]),
       solver=st.sampled_from(["auto", "fabrik"]), mode=st.sampled_from(["original_pose", "continuous"]),
       hips_turn=st.floats(-0.6, 0.6))
def test_the_compiled_path_matches_the_general_one(chain, offset, iterations, solver, mode, hips_turn):
    bone, count = chain
    assume(count > 2 or solver == "fabrik")  # auto solves two bones analytically
    rig = _rig(mode)
    skel = rig.skeleton
    pose = Pose.rest(len(skel))
    pose.rotations[skel.index["pelvis"]] = [0.0, math.sin(hips_turn / 2), 0.0, math.cos(hips_turn / 2)]  # chains moved
    pose.rotations[skel.index[bone]] = [math.sin(0.3), 0.0, 0.0, math.cos(0.3)]  # a bend to start from (continuous)
    constraint = IKConstraint(bone, chain_count=count, iterations=iterations, solver=solver)
    bones = rig.ik_chain(constraint)
    root = world_matrices(skel, pose)[bones[0], :3, 3]
    goal = IKGoal(constraint, root + np.array(offset) * skel.lengths[bones].sum() * 1.3)  # within reach, and beyond
    assert takes(group_plan(rig, [goal], bones))
    fast, general = (solved(rig, pose, constraint, goal, p) for p in (None, PATH))
    assert_same(fast, general)


def test_a_short_run_hands_its_answer_to_the_next_method():
    """FABRIK given one iteration (auto's share of a budget of 4) is short of a bent target: the
    general path's CCD goes on from that answer, as it would from its own FABRIK run."""
    rig = _rig("original_pose")
    constraint = IKConstraint("hand.L", chain_count=4, iterations=4)
    bones = rig.ik_chain(constraint)
    target = rig.skeleton.rest_heads[bones[0]] + [0.1, -0.35, 0.25]
    goal = IKGoal(constraint, target)
    pose = Pose.rest(len(rig.skeleton))
    world = world_matrices(rig.skeleton, pose)
    run = solve_lone_chain(rig, pose, world, goal, bones, group_plan(rig, [goal], bones), 1)
    assert run.iterations == 1 and run.error > rig.solver.tolerance and run.rotations is not None
    assert pose == Pose.rest(len(rig.skeleton))  # short: nothing written
    fast, general = (solved(rig, Pose.rest(len(rig.skeleton)), constraint, goal, p) for p in (None, PATH))
    assert fast[2][0].solver == general[2][0].solver == "fabrik+ccd"
    np.testing.assert_allclose(fast[1], general[1], atol=SAME)


@pytest.mark.parametrize("changes", [{"target": (np.nan, 0.0, 0.0)}, {"influence": 0.5}, {"pole": (0.0, 0.0, 1.0)}])
def test_input_it_does_not_take_goes_the_general_way(changes):
    """Nothing is run or written, and the general path then solves (or refuses) it as it always has."""
    rig = load_rig("assets/humanoid.json")
    constraint = IKConstraint("head", chain_count=3, influence=changes.get("influence", 1.0))
    bones = rig.ik_chain(constraint)
    target = rig.skeleton.rest_heads[bones[0]] + changes.get("target", (0.1, 0.2, 0.0))
    goal = IKGoal(constraint, target, pole=None if "pole" not in changes else np.array(changes["pole"]))
    pose = Pose.rest(len(rig.skeleton))
    world = world_matrices(rig.skeleton, pose)
    before = pose.copy(), world.copy()
    assert solve_lone_chain(rig, pose, world, goal, bones, group_plan(rig, [goal], bones), 100) is None
    assert pose == before[0] and np.array_equal(world, before[1])


@pytest.mark.parametrize("change", ["limits", "rotation", "stretch", "two bones", "forced ccd"])
def test_what_the_chain_path_does_not_take_goes_the_general_way(change):
    rig = load_rig("assets/humanoid.json")
    constraint = IKConstraint("hand.L", chain_count=2 if change == "two bones" else 4,
                              solver="ccd" if change == "forced ccd" else "auto", use_stretch=change == "stretch")
    if change == "limits":
        rig.bone_ik["forearm.L"] = BoneIKSettings(use_limit=(True, False, False), limit_min=(0.0, -math.pi, -math.pi))
    if change == "stretch":
        rig.bone_ik["forearm.L"] = BoneIKSettings(stretch=0.5)
    rotation = np.array([0.0, 0.0, 0.0, 1.0]) if change == "rotation" else None
    goal = IKGoal(constraint, np.zeros(3), rotation)
    assert not takes(group_plan(rig, [goal], rig.ik_chain(constraint)))


def test_a_kept_chain_follows_its_parent_and_locations_as_they_move():
    """The chain's tables are kept from solve to solve; when the body under it turns or its bones
    get pose locations, the next solve hangs the chain where it now is."""
    rig = _rig("continuous")
    skel = rig.skeleton
    for fast, _ in solves_as_the_arm_moves(rig, IKConstraint("hand.L", chain_count=3),
                                          lambda k: [0.3, -0.3, 0.1 * k], PATH):
        assert fast[2][0].converged and fast[2][0].error <= rig.solver.tolerance
    assert (skel.index["upper_arm.L"], skel.index["hand.L"]) in skel.solver_lone_chains  # the path ran, and kept it
