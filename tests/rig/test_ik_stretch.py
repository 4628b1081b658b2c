"""IK stretch through the rig, as Blender does it: each stretched bone's pose scale is its stretch
over its parent's (children inherit scale), so with enough stretch the tip lands on a target out
of reach, and what a solve reports is the true distance from the drawn tip to the target."""
import numpy as np
import pytest

from rig.constraints import BoneIKSettings
from rig.evaluate import evaluate
from rig.pose import Pose, heads_tails, location_for_head
from rig.formats.rigfile import load_rig

ARM = ["upper_arm.L", "forearm.L"]


def stretched_arm(solver, amounts):
    rig = load_rig("assets/humanoid.json")
    rig.solver.type = solver
    for bone, amount in zip(ARM, amounts):
        rig.bone_ik[bone] = BoneIKSettings(stretch=amount)
    return rig


def solve_toward(rig, beyond):
    """Move the left hand's handle ``beyond`` metres past the straight arm's reach, out along the
    shoulder-to-hand line, and solve; returns (report, drawn tip, target, world)."""
    skeleton = rig.skeleton
    pose = Pose.rest(len(skeleton))
    _, world, _ = evaluate(rig, pose)
    handle = skeleton.index["hand_ik.L"]
    shoulder = world[skeleton.index["upper_arm.L"], :3, 3]
    out = world[handle, :3, 3] - shoulder
    target = shoulder + out / np.linalg.norm(out) * (chain_reach(rig) + beyond)
    pose.locations[handle] = location_for_head(skeleton, pose, world, handle, target)
    for _frame in range(3):
        pose, world, reports = evaluate(rig, pose)
    report = next(r for r in reports if r.bone == "forearm.L")
    tip = heads_tails(skeleton, world)[1][skeleton.index["forearm.L"]]
    return report, tip, target, world


def chain_reach(rig):
    return sum(rig.skeleton.lengths[rig.skeleton.index[b]] for b in ARM)


@pytest.mark.parametrize("solver", ["auto", "two_bone", "fabrik", "ccd", "dls", "sdls"])
def test_enough_stretch_lands_the_tip_on_a_far_target(solver):
    rig = stretched_arm(solver, [0.5, 0.5])
    report, tip, target, world = solve_toward(rig, 0.15)
    shoulder = world[rig.skeleton.index["upper_arm.L"], :3, 3]
    assert np.linalg.norm(target - shoulder) > chain_reach(rig) + 0.05
    assert np.linalg.norm(tip - target) < 1e-3
    assert report.error == pytest.approx(np.linalg.norm(tip - target), abs=1e-6)
    forearm = rig.skeleton.index["forearm.L"]
    assert np.linalg.norm(world[forearm, :3, 1]) > 1.01  # it did stretch...
    frame = world[forearm, :3, :3] / np.linalg.norm(world[forearm, :3, :3], axis=0)
    np.testing.assert_allclose(frame.T @ frame, np.eye(3), atol=1e-9)  # ...without shear


@pytest.mark.parametrize("solver", ["two_bone", "fabrik", "ccd", "dls", "sdls"])
def test_every_method_lays_the_arm_straight_with_just_the_stretch_it_needs(solver):
    """A far target alone on its arm: the answer is the straight arm pointed at it, each bone
    grown by the same share of the extra length (equal amounts: Blender's share), no more; the
    hand below inherits the forearm's scale, as in Blender."""
    rig = stretched_arm(solver, [1.0, 1.0])
    report, tip, target, world = solve_toward(rig, 0.6)
    skeleton = rig.skeleton
    upper, forearm, hand = (skeleton.index[b] for b in ARM + ["hand.L"])
    axes = world[[upper, forearm], :3, 1]
    lengths = np.linalg.norm(axes, axis=1)
    bend = np.arccos(np.clip(axes[0] @ axes[1] / np.prod(lengths), -1.0, 1.0))
    assert bend < 1e-4
    extra = np.linalg.norm(target - world[upper, :3, 3]) - chain_reach(rig)
    needed = 1.0 + extra / 2.0 / skeleton.lengths[[upper, forearm]]
    np.testing.assert_allclose(lengths, needed, rtol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(world[hand, :3, :3], axis=0), needed[1], rtol=1e-5)


@pytest.mark.parametrize("solver", ["auto", "two_bone", "fabrik", "ccd", "dls", "sdls"])
def test_without_stretch_the_reported_error_is_the_true_shortfall(solver):
    rig = stretched_arm(solver, [0.0, 0.0])
    report, tip, target, world = solve_toward(rig, 0.15)
    shoulder = world[rig.skeleton.index["upper_arm.L"], :3, 3]
    shortfall = np.linalg.norm(target - shoulder) - chain_reach(rig)
    assert report.error == pytest.approx(np.linalg.norm(tip - target), abs=1e-6)
    assert report.error == pytest.approx(shortfall, abs=1e-4)


@pytest.mark.parametrize("solver", ["two_bone", "fabrik", "ccd", "dls"])
def test_a_chain_below_a_scaled_bone_is_solved_at_the_size_it_is_drawn(solver):
    """The arm inherits a scaled spine's scale: IK solves the arm as long as it is drawn, so the
    drawn tip lands on a target only the grown arm reaches."""
    rig = stretched_arm(solver, [0.0, 0.0])
    skeleton = rig.skeleton
    pose = Pose.rest(len(skeleton))
    pose.scales[skeleton.index["spine.02"]] = 1.3
    _, world, _ = evaluate(rig, pose)
    shoulder = world[skeleton.index["upper_arm.L"], :3, 3]
    target = shoulder + np.array([0.6, -0.5, 0.5]) / np.linalg.norm([0.6, -0.5, 0.5]) * chain_reach(rig) * 1.2
    handle = skeleton.index["hand_ik.L"]
    pose.locations[handle] = location_for_head(skeleton, pose, world, handle, target)
    for _frame in range(3):
        pose, world, reports = evaluate(rig, pose)
    tip = heads_tails(skeleton, world)[1][skeleton.index["forearm.L"]]
    assert np.linalg.norm(tip - target) < 1e-4
    assert next(r for r in reports if r.bone == "forearm.L").error == pytest.approx(np.linalg.norm(tip - target),
                                                                                     abs=1e-6)
