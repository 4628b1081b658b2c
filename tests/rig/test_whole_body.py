"""Whole-body posing through the rig (``rig.whole_body``): pinned feet stay while a dragged hand
pulls the body, on our humanoid and on an imported BVH figure after the automatic IK set-up; the
rig's locks and limits hold; the ground holds every bone up."""
import dataclasses

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from rig.autorig import auto_rig
from rig.constraints import BoneIKSettings, IKConstraint
from rig.evaluate import active_ik
from rig.formats.bvh import load_bvh
from rig.formats.rigfile import load_rig
from rig.ground import PlaneGround
from rig.ik import IKGoal, goal_from_handles, solve_groups
from rig.pins import pin_where_it_is
from rig.pose import Pose, world_matrices
from rig import whole_body
from rig.whole_body import solve_with_pins, solved_root
from solvers.limits import limit_violation
from solvers.problem import swing_twist_limit
from solvers.goals import BoneDofs
from solvers.tolerances import PIN_POSITION, PIN_ROTATION
from solvers.transforms import matrix3_to_quat, quat_angle
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED

HUMANOID = load_rig("assets/humanoid.json")
FEET = ("foot.L", "foot.R")


def drag(rig, target, feet=FEET, hand="forearm.L", root_free=True, ground=None, pose=None):
    """One frame of a drag: ``hand``'s tail (an Auto IK goal up to the root) toward ``target``, the
    rig's IK handles below it, ``feet`` pinned where they are. Returns (pose, world, reports, pins)."""
    pose = Pose.rest(len(rig.skeleton)) if pose is None else pose.copy()
    world = world_matrices(rig.skeleton, pose)
    pins = {name: pin_where_it_is(world, rig.skeleton.index[name]) for name in feet}
    dragged = IKConstraint(bone=hand, chain_count=2)
    goal = IKGoal(dragged, np.asarray(target, dtype=float))
    reports, blended = solve_with_pins(rig, pose, world, [dragged] + active_ik(rig),
                                       lambda c, w: goal if c is dragged else goal_from_handles(rig, c, w), pins,
                                       dragged=dragged, root_free=root_free, ground=ground)
    assert blended == [] and np.isfinite(pose.rotations).all() and np.isfinite(world).all()
    return pose, world, reports, pins


def assert_pins_hold(rig, world, pins):
    for name, pin in pins.items():
        bone = rig.skeleton.index[name]
        assert np.linalg.norm(world[bone, :3, 3] - pin.position) <= PIN_POSITION
        assert quat_angle(matrix3_to_quat(world[bone, :3, :3]), np.array(pin.rotation)) <= PIN_ROTATION


def hand_target(direction, distance, shoulder=(0.19, 1.42, -0.04)):
    return np.asarray(shoulder) + np.asarray(direction) / np.linalg.norm(direction) * distance


@settings(max_examples=25, deadline=None, derandomize=True)
@given(direction=st.tuples(*[st.floats(-1.0, 1.0)] * 3), distance=st.sampled_from([0.2, 0.5, 0.9, 1.5, 4.0]))
def test_pinned_feet_hold_whatever_the_hand_is_dragged_to(direction, distance):
    assume(np.linalg.norm(direction) > 0.1)
    _, world, reports, pins = drag(HUMANOID, hand_target(direction, distance))
    assert_pins_hold(HUMANOID, world, pins)
    assert [r.bone for r in reports[-2:]] == list(FEET) and all(r.solver == "priority" for r in reports)


def test_the_body_follows_a_hand_past_the_arms_reach():
    """Targets beyond the arm's reach (within 1.3x of it): with the root free the hand comes far
    nearer than the arm alone brings it (what the app did before), the feet still pinned."""
    rng = np.random.default_rng(7)
    skeleton = HUMANOID.skeleton
    shoulder = skeleton.rest_heads[skeleton.index["upper_arm.L"]]
    reach = skeleton.lengths[[skeleton.index["upper_arm.L"], skeleton.index["forearm.L"]]].sum()
    ratios = []
    for _ in range(12):
        direction = rng.normal(size=3) + (1.0, -0.5, 0.5)
        target = hand_target(direction, reach * rng.uniform(1.05, 1.3), shoulder)
        _, world, reports, pins = drag(HUMANOID, target)
        assert_pins_hold(HUMANOID, world, pins)
        arm = IKConstraint(bone="forearm.L", chain_count=2)
        pose = Pose.rest(len(skeleton))
        alone = solve_groups(HUMANOID, pose, world_matrices(skeleton, pose), [arm], lambda c, w: IKGoal(c, target))
        ratios.append(reports[0].error / alone[0][0].error)
    assert np.median(ratios) <= 0.2, ratios


def test_a_fixed_root_stays_and_the_spine_still_bends():
    skeleton = HUMANOID.skeleton
    pose, world, reports, pins = drag(HUMANOID, (0.9, 1.2, 0.4), root_free=False)
    assert_pins_hold(HUMANOID, world, pins)
    assert not pose.locations.any() and not np.allclose(pose.rotations[skeleton.index["spine.02"]], (0, 0, 0, 1))


def test_the_solved_root_is_the_pelvis_not_the_master_bone_carrying_the_handles():
    index = HUMANOID.skeleton.index
    assert solved_root(HUMANOID, [index["hand.L"], index["foot.R"]]) == index["pelvis"]


def test_the_rigs_locks_and_limits_hold():
    limited = BoneIKSettings(lock=(False, True, False), use_limit=(True, False, True), limit_min=(-0.4, -3, -0.3),
                             limit_max=(0.3, 3, 0.2))
    rig = dataclasses.replace(HUMANOID, bone_ik={name: limited for name in ("spine.01", "spine.02", "spine.03",
                                                                              "thigh.L", "shin.L")},
                              solve_plans={})
    pose, world, _, pins = drag(rig, (1.0, 0.6, 0.5))
    assert_pins_hold(rig, world, pins)
    limit = (swing_twist_limit(BoneDofs(limited.lock, (0, 0, 0), limited.use_limit, limited.limit_min,
                                        limited.limit_max)),)
    for name in rig.bone_ik:
        assert limit_violation(limit, pose.rotations[rig.skeleton.index[name]]) <= 1e-9, name


def test_with_contact_on_no_bone_goes_below_the_ground():
    for target in ((0.5, -0.4, 0.3), (0.3, 0.05, 0.6), (1.5, -1.0, 0.0)):
        _, world, _, pins = drag(HUMANOID, target, ground=PlaneGround(0.0))
        assert_pins_hold(HUMANOID, world, pins)
        heads = world[:, :3, 3]
        tails = heads + world[:, :3, 1] * HUMANOID.skeleton.lengths[:, None]
        assert min(heads[:, 1].min(), tails[:, 1].min()) >= -PIN_POSITION


def test_a_hand_pin_holds_while_the_other_hand_drags_the_body():
    _, world, _, pins = drag(HUMANOID, (-0.9, 0.4, 0.6), feet=FEET + ("hand.L",), hand="forearm.R")
    assert_pins_hold(HUMANOID, world, pins)


@NEEDS_SHARED
@pytest.mark.parametrize("distance", [0.3, 0.8, 3.0])
def test_pins_hold_on_an_imported_bvh_figure_after_the_automatic_set_up(distance):
    rig, report, _ = auto_rig(load_bvh(CMU_EXCERPT).rig)
    upper, lower, hand = report.roles["arm.L"]
    feet = tuple(report.roles[f"leg.{side}"][2] for side in ("L", "R"))
    shoulder = rig.skeleton.rest_heads[rig.skeleton.index[upper]]
    pose, world, reports, pins = drag(rig, shoulder + (distance, -distance, 0.5 * distance), feet=feet, hand=lower)
    assert_pins_hold(rig, world, pins)
    assert reports[0].error < np.linalg.norm(rig.skeleton.rest_tails[rig.skeleton.index[lower]] -
                                             (shoulder + (distance, -distance, 0.5 * distance)))


def arm_reach(rig=HUMANOID):
    skeleton = rig.skeleton
    return skeleton.rest_heads[skeleton.index["upper_arm.L"]], \
        skeleton.lengths[[skeleton.index["upper_arm.L"], skeleton.index["forearm.L"]]].sum()


@settings(max_examples=20, deadline=None, derandomize=True)
@given(direction=st.tuples(*[st.floats(-1.0, 1.0)] * 3), times=st.floats(1.0, 3.0))
def test_a_body_that_follows_never_ends_further_from_the_hands_goal_than_with_its_root_fixed(direction, times):
    """Hand targets from the arm's reach to three times it (beyond what the body reaches too):
    with the root free the hand ends no further than with it fixed, pins equal and held."""
    assume(np.linalg.norm(direction) > 0.1)
    shoulder, reach = arm_reach()
    target = hand_target(direction, reach * times, shoulder)
    _, world, free, pins = drag(HUMANOID, target)
    assert_pins_hold(HUMANOID, world, pins)
    _, _, fixed, _ = drag(HUMANOID, target, root_free=False)
    assert free[0].error <= fixed[0].error + HUMANOID.solver.tolerance


@pytest.mark.parametrize("times", [4.0, 8.0])
def test_the_root_fixed_solve_is_skipped_only_where_the_fixed_roots_reach_leaves_it_no_gain(monkeypatch, times):
    """A hand target beyond what the spine and arm reach from the fixed pelvis: the free solve ends
    short, yet no root-fixed solve runs (it could not bring the hand nearer), and the free one is
    still no further than it."""
    shoulder, reach = arm_reach()
    target = hand_target((1.0, 0.3, 0.2), reach * times, shoulder)
    solves = []
    passes = whole_body._solve_passes
    monkeypatch.setattr(whole_body, "_solve_passes", lambda *a: solves.append(a[6]) or passes(*a))
    _, world, free, pins = drag(HUMANOID, target)
    assert free[0].error > 0.1 and solves == [True]
    assert_pins_hold(HUMANOID, world, pins)
    _, _, fixed, _ = drag(HUMANOID, target, root_free=False)
    assert free[0].error <= fixed[0].error + HUMANOID.solver.tolerance


def test_a_body_reaching_past_the_arm_bends_its_spine_moderately():
    """Targets a little past the arm's reach: the hips and legs share the reach, so the spine's
    bones turn 50 degrees at most together (it folded 90-110 degrees sideways before)."""
    rng = np.random.default_rng(5)
    shoulder, reach = arm_reach()
    spine = [HUMANOID.skeleton.index[f"spine.0{k}"] for k in (1, 2, 3)]
    for _ in range(12):
        target = hand_target(rng.normal(size=3), reach * rng.uniform(1.0, 1.3), shoulder)
        pose, _, reports, _ = drag(HUMANOID, target)
        assert reports[0].error <= HUMANOID.solver.tolerance
        turned = sum(quat_angle(pose.rotations[b], np.array([0.0, 0.0, 0.0, 1.0])) for b in spine)
        assert np.degrees(turned) <= 50.0, (target, np.degrees(turned))


def test_the_rigs_other_handles_are_solved_below_the_dragged_goal():
    """A reachable drag of the left hand: the right hand stays on its IK handle (the level below
    the dragged goal was left unsolved while a non-finite step ended the first pass)."""
    shoulder, reach = arm_reach()
    _, _, reports, _ = drag(HUMANOID, hand_target((1.0, -0.3, 0.6), 0.8 * reach, shoulder))
    right = next(r for r in reports if r.bone == "forearm.R")
    assert reports[0].error <= HUMANOID.solver.tolerance and right.error <= HUMANOID.solver.tolerance


def test_settings_the_whole_body_solve_does_not_hold_are_reported_per_constraint():
    """A partial influence and a stretchy chain on the rig's right-hand IK: its report says both
    were not honoured; the dragged goal, asking for nothing more, has no note."""
    constraints = [dataclasses.replace(c, influence=0.5, use_stretch=True) if c.bone == "forearm.R" else c
                   for c in HUMANOID.ik]
    stretchy = BoneIKSettings(stretch=0.5)
    rig = dataclasses.replace(HUMANOID, ik=constraints, bone_ik={"forearm.R": stretchy}, solve_plans={})
    _, _, reports, _ = drag(rig, (0.6, 1.0, 0.3))
    right = next(r for r in reports if r.bone == "forearm.R")
    assert [note.split(":")[0] for note in right.notes] == ["stretch", "influence"], right.notes
    assert reports[0].notes == ()
