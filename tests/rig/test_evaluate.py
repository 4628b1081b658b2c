"""Evaluating a rig's IK and copy-rotation constraints on a pose."""
import numpy as np
import pytest

from rig.evaluate import evaluate
from rig.ik import choose_solver
from rig.pose import Pose, heads_tails, location_for_head
from rig.rigfile import load_rig


def move_handle(rig, pose, world, handle, offset):
    i = rig.skeleton.index[handle]
    pose.locations[i] = location_for_head(rig.skeleton, pose, world, i, world[i, :3, 3] + offset)
    return world[i, :3, 3] + offset


@pytest.mark.parametrize("path", ["assets/humanoid.json", "assets/tail.json", "assets/robot_arm.json"])
def test_rest_pose_is_already_solved(path):
    rig = load_rig(path)
    rest = Pose.rest(len(rig.skeleton))
    solved, world, reports = evaluate(rig, rest)
    assert reports and all(r.converged for r in reports)
    np.testing.assert_allclose(heads_tails(rig.skeleton, world)[1], rig.skeleton.rest_tails, atol=1e-5)


@pytest.mark.parametrize("solver", ["fabrik", "ccd"])
def test_tail_chain_follows_its_handle(solver):
    rig = load_rig("assets/tail.json")
    rig.solver.type = solver
    pose = Pose.rest(len(rig.skeleton))
    _, world, _ = evaluate(rig, pose)
    target = move_handle(rig, pose, world, "tail_ik", [0.3, -0.4, 0.2])
    for _frame in range(4):  # continuous mode: each frame goes on from the last one's pose
        pose, world, reports = evaluate(rig, pose)
    assert reports[0].solver == solver
    tip = heads_tails(rig.skeleton, world)[1][rig.skeleton.index["tail.012"]]
    assert np.linalg.norm(tip - target) == pytest.approx(reports[0].error, abs=1e-12)
    assert reports[0].error < 1e-4
    heads, tails = heads_tails(rig.skeleton, world)
    np.testing.assert_allclose(np.linalg.norm(tails - heads, axis=1), rig.skeleton.lengths, rtol=1e-9)


def test_hand_keeps_its_handles_rotation_and_sits_on_the_forearm():
    rig = load_rig("assets/humanoid.json")
    pose = Pose.rest(len(rig.skeleton))
    _, world, _ = evaluate(rig, pose)
    handle = rig.skeleton.index["hand_ik.L"]
    pose.rotations[handle] = [0.0, 0.0, np.sin(0.4), np.cos(0.4)]
    target = move_handle(rig, pose, world, "hand_ik.L", [-0.1, 0.2, 0.15])
    _, world, reports = evaluate(rig, pose)
    hand, forearm = rig.skeleton.index["hand.L"], rig.skeleton.index["forearm.L"]
    np.testing.assert_allclose(world[hand, :3, :3], world[handle, :3, :3], atol=1e-9)
    np.testing.assert_allclose(world[hand, :3, 3], target, atol=1e-9)
    assert heads_tails(rig.skeleton, world)[1][forearm] == pytest.approx(target, abs=1e-9)


def test_use_tail_off_counts_the_chain_from_the_parent_as_blender_does():
    rig = load_rig("assets/robot_arm.json")
    assert not rig.ik[0].use_tail and rig.ik[0].chain_count == 3
    assert [rig.skeleton.names[i] for i in rig.ik_chain(rig.ik[0])] == ["base", "upper", "lower"]
    rig.ik[0].use_tail = True
    assert [rig.skeleton.names[i] for i in rig.ik_chain(rig.ik[0])] == ["upper", "lower", "gripper"]


def test_forced_solvers_that_cannot_take_the_chain_fall_back_to_fabrik():
    rig = load_rig("assets/humanoid.json")
    constraint = rig.ik[0]
    constraint.solver = "two_bone"
    assert choose_solver(constraint, rig, 3) == "fabrik"
    assert choose_solver(constraint, rig, 2) == "two_bone"
    constraint.solver = "auto"
    assert choose_solver(constraint, rig, 1) == "one_bone"


def test_non_finite_handle_leaves_the_pose_finite_and_unchanged():
    rig = load_rig("assets/humanoid.json")
    pose = Pose.rest(len(rig.skeleton))
    pose.locations[rig.skeleton.index["hand_ik.L"]] = [np.nan, 0.0, 0.0]
    solved, _, reports = evaluate(rig, pose)
    arm = [rig.skeleton.index[n] for n in ("upper_arm.L", "forearm.L")]
    np.testing.assert_array_equal(solved.rotations[arm], pose.rotations[arm])
    assert not reports[0].converged
