"""Evaluating a rig's IK and copy-rotation constraints on a pose."""
import numpy as np
import pytest

from rig.evaluate import evaluate
from rig.pose import Pose, heads_tails, location_for_head
from rig.formats.rigfile import load_rig


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


def test_a_forced_solver_that_cannot_take_the_chain_runs_autos_choice_and_says_so():
    rig = load_rig("assets/tail.json")
    rig.ik[0].solver = "two_bone"
    pose = Pose.rest(len(rig.skeleton))
    _, world, _ = evaluate(rig, pose)
    move_handle(rig, pose, world, "tail_ik", [0.3, -0.4, 0.2])
    _, _, reports = evaluate(rig, pose)
    assert reports[0].solver.startswith("fabrik")
    assert any("two_bone takes chains of 2 bones" in note and "auto's methods ran instead" in note for note in reports[0].notes)


def test_non_finite_handle_leaves_the_pose_finite_and_unchanged():
    rig = load_rig("assets/humanoid.json")
    pose = Pose.rest(len(rig.skeleton))
    pose.locations[rig.skeleton.index["hand_ik.L"]] = [np.nan, 0.0, 0.0]
    solved, _, reports = evaluate(rig, pose)
    arm = [rig.skeleton.index[n] for n in ("upper_arm.L", "forearm.L")]
    np.testing.assert_array_equal(solved.rotations[arm], pose.rotations[arm])
    assert not reports[0].converged


def test_partial_influence_blends_fk_and_ik_the_same_every_frame():
    rig = load_rig("assets/humanoid.json")
    constraint = next(c for c in rig.ik if c.bone == "forearm.L")
    pose = Pose.rest(len(rig.skeleton))
    _, world, _ = evaluate(rig, pose)
    move_handle(rig, pose, world, "hand_ik.L", [-0.2, -0.25, 0.15])
    full_pose, full_world, _ = evaluate(rig, pose)
    constraint.influence = 0.5
    first_pose, first_world, _ = evaluate(rig, pose)
    second_pose, second_world, _ = evaluate(rig, first_pose)
    upper = rig.skeleton.index["upper_arm.L"]
    # The pose keeps the FK channels; the world shows the halfway blend, frame after frame.
    np.testing.assert_array_equal(first_pose.rotations[upper], pose.rotations[upper])
    np.testing.assert_allclose(second_world, first_world, atol=1e-12)
    elbow = lambda w: w[rig.skeleton.index["forearm.L"], :3, 3]
    rest_elbow = rig.skeleton.rest_heads[rig.skeleton.index["forearm.L"]]
    halfway = np.linalg.norm(elbow(first_world) - rest_elbow)
    assert 0.2 < halfway / np.linalg.norm(elbow(full_world) - rest_elbow) < 0.8


def test_a_goal_puts_its_bone_tip_on_the_point_and_the_rig_follows():
    from rig.constraints import IKConstraint
    rig = load_rig("assets/humanoid.json")
    skel = rig.skeleton
    head = skel.index["head"]
    chain = skel.connected_chain(head)
    goal = IKConstraint("head", chain_count=len(chain))
    point = skel.rest_tails[head] + np.array([0.12, -0.05, 0.06])
    pose, world, reports = evaluate(rig, Pose.rest(len(skel)), goals=[(goal, point)])
    assert reports[0].bone == "head" and len(reports) == 1 + len(rig.ik)
    assert np.linalg.norm(heads_tails(skel, world)[1][head] - point) < 1e-4
    foot = skel.index["foot.L"]
    np.testing.assert_allclose(world[foot, :3, 3], skel.rest_heads[foot], atol=1e-4)  # leg IK kept the foot



def test_target_rotations_setting_turns_every_chain_end_to_its_handle():
    rig = load_rig("assets/tail.json")
    rig.solver.use_target_rotations = True
    skel = rig.skeleton
    pose = Pose.rest(len(skel))
    _, world, _ = evaluate(rig, pose)
    handle = skel.index["tail_ik"]
    pose.rotations[handle] = [np.sin(0.3), 0.0, 0.0, np.cos(0.3)]
    target = move_handle(rig, pose, world, "tail_ik", [0.2, -0.3, 0.2])
    for _frame in range(4):
        pose, world, reports = evaluate(rig, pose)
    tip = skel.index["tail.012"]
    np.testing.assert_allclose(world[tip, :3, :3], world[handle, :3, :3], atol=1e-9)
    assert np.linalg.norm(heads_tails(skel, world)[1][tip] - target) < 1e-3
    rig.solver.use_target_rotations = False  # off: the same pose re-solved leaves the end free
    pose.rotations[skel.index["tail.001"]:tip + 1] = [0.0, 0.0, 0.0, 1.0]
    _, free_world, _ = evaluate(rig, pose)
    assert not np.allclose(free_world[tip, :3, :3], world[handle, :3, :3], atol=1e-3)


@pytest.mark.parametrize("solver", ["two_bone", "fabrik", "ccd", "dls"])
def test_reports_name_the_chain_bones_a_limit_holds(solver):
    """A forearm hinge that may bend 0.3 rad, and a handle at the shoulder: the forearm ends
    on its limit and the report says so by name; a free chain names none."""
    from rig.constraints import BoneIKSettings
    rig = load_rig("assets/humanoid.json")
    rig.solver.type = solver
    pose = Pose.rest(len(rig.skeleton))
    _, world, reports = evaluate(rig, pose)
    assert all(r.at_limit_bones == () for r in reports)
    rig.bone_ik["forearm.L"] = BoneIKSettings(lock=(False, True, True), use_limit=(True, False, False),
                                              limit_min=(0.0, -np.pi, -np.pi), limit_max=(0.3, np.pi, np.pi))
    shoulder = world[rig.skeleton.index["upper_arm.L"], :3, 3]
    hand = world[rig.skeleton.index["hand_ik.L"], :3, 3]
    move_handle(rig, pose, world, "hand_ik.L", (shoulder - hand) * 0.6)
    _, _, reports = evaluate(rig, pose)
    arm = next(r for r in reports if r.bone == "forearm.L")
    assert "forearm.L" in arm.at_limit_bones and not arm.converged
    assert all(r.at_limit_bones == () for r in reports if r is not arm)
