import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from solvers.chain import straight_chain, stretch_to_reach
from solvers.dls import MAX_STRETCH, dls_plan, solve_dls
from solvers.goals import BoneDofs, DistanceGoal, JointRotationGoal, PositionGoal, RotationGoal
from solvers.limits import SwingTwistLimit, limit_violation, swing_twist_angles
from solvers.transforms import euler_xyz_from_quat, matrix3_to_quat, quat_angle, quat_from_axis_angle, \
    quat_from_euler_xyz, quat_normalize, quat_to_matrix3, swing_twist
from solvers.tree import Tree, tree_pose
from tests.solvers.trees import y_tree

SETTINGS = settings(max_examples=15, derandomize=True, deadline=None)
unit = st.floats(-1.0, 1.0)
SELECTIVE = (False, True)  # DLS, SDLS
CHAINS = {2: [0.5, 0.4], 4: [0.5, 0.4, 0.3, 0.3], 10: [0.3, 0.2, 0.25, 0.3, 0.2, 0.15, 0.3, 0.2, 0.25, 0.2]}


def rest(n):
    return np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))


def chain_tree(lengths):
    return Tree.from_chain(straight_chain(lengths))


def pose(tree, result):
    """World rotations, heads and tails of a solve's result."""
    return tree_pose(tree, quat_to_matrix3(result.rotations), result.stretch)


def unit_or_none(vector):
    vector = np.asarray(vector, dtype=float)
    norm = np.linalg.norm(vector)
    return None if norm < 1e-3 else vector / norm


def assert_lengths_kept(tree, result):
    _, heads, tails = pose(tree, result)
    np.testing.assert_allclose(np.linalg.norm(tails - heads, axis=1), tree.lengths, atol=1e-9)
    children = np.flatnonzero(tree.parents >= 0)
    np.testing.assert_allclose(np.linalg.norm(heads[children] - heads[tree.parents[children]], axis=1),
                               np.linalg.norm(tree.offsets[children], axis=1), atol=1e-9)


@SETTINGS
@given(st.sampled_from(sorted(CHAINS)), st.sampled_from(SELECTIVE), st.tuples(unit, unit, unit),
       st.floats(0.3, 0.95))
def test_reachable_targets_reached_and_lengths_kept(bones, selective, direction, fraction):
    direction = unit_or_none(direction)
    assume(direction is not None)
    tree = chain_tree(CHAINS[bones])
    target = direction * fraction * tree.lengths.sum()
    result = solve_dls(dls_plan(tree, [PositionGoal(bones - 1, target)]), rest(bones), tolerance=1e-4,
                       max_iterations=200, selective=selective)
    assert result.converged, (result.errors, result.iterations)
    assert np.linalg.norm(pose(tree, result)[2][-1] - target) <= 1e-4
    assert_lengths_kept(tree, result)
    np.testing.assert_array_equal(result.stretch, np.ones(bones))


def test_hand_solved_planar_pose():
    # Two unit bones that may only turn about X, the elbow only one way: the tip at (0, 1, 1)
    # needs the upper bone straight up and the elbow bent by exactly pi/2.
    dofs = [BoneDofs(lock=(False, True, True)),
            BoneDofs(lock=(False, True, True), use_limit=(True, False, False), limit_min=(0.0, -np.pi, -np.pi))]
    tree = chain_tree([1.0, 1.0])
    plan = dls_plan(tree, [PositionGoal(1, (0.0, 1.0, 1.0))], dofs)
    start = quat_from_axis_angle([1.0, 0.0, 0.0], [0.3, 0.4])
    result = solve_dls(plan, start, tolerance=1e-10, max_iterations=100)
    assert result.converged
    np.testing.assert_allclose(euler_xyz_from_quat(result.rotations), [[0.0, 0.0, 0.0], [np.pi / 2, 0.0, 0.0]],
                               atol=1e-8)
    assert not result.at_limit.any()


def test_hand_solved_stretch():
    # One stretchy bone aimed straight at a target 1.5 bone lengths away grows to exactly 1.5.
    tree = chain_tree([1.0])
    plan = dls_plan(tree, [PositionGoal(0, (0.0, 1.5, 0.0))], [BoneDofs(stretch=1.0)])
    result = solve_dls(plan, rest(1), tolerance=1e-9)
    assert result.converged
    assert result.stretch[0] == pytest.approx(1.5, abs=1e-9)
    assert quat_angle(result.rotations[0], [0.0, 0.0, 0.0, 1.0]) < 1e-9


@pytest.mark.parametrize("selective", SELECTIVE)
def test_stretch_reaches_a_target_straight_behind_the_chain(selective):
    """Stretch pulls against a target behind the tip as hard as turns do; only the turns can fold
    the straight chain back, so the chain must still unfold first."""
    tree = chain_tree([0.5, 0.5, 0.5])
    plan = dls_plan(tree, [PositionGoal(2, (0.0, -3.0, 0.0))], [BoneDofs(stretch=1.0)] * 3)
    result = solve_dls(plan, rest(3), tolerance=1e-4, max_iterations=200, selective=selective)
    assert np.linalg.norm(pose(tree, result)[2][-1] - (0.0, -3.0, 0.0)) <= 1e-4


@settings(max_examples=10, derandomize=True, deadline=None)
@given(st.tuples(unit, unit, unit), st.floats(1.1, 2.0), st.sampled_from(SELECTIVE))
def test_stretch_reaches_beyond_rest_length(direction, fraction, selective):
    direction = unit_or_none(direction)
    assume(direction is not None)
    tree = chain_tree([0.5, 0.5, 0.5])
    target = direction * fraction * 1.5
    plan = dls_plan(tree, [PositionGoal(2, target)], [BoneDofs(stretch=1.0)] * 3)
    result = solve_dls(plan, rest(3), tolerance=1e-4, max_iterations=200, selective=selective)
    assert result.converged, result.errors
    assert np.all(result.stretch >= 1.0) and np.all(result.stretch <= MAX_STRETCH)
    assert np.linalg.norm(pose(tree, result)[2][-1] - target) <= 1e-4


STRAIGHT = 1e-3  # radians: a chain bent less than this at every joint is straight


@settings(max_examples=10, derandomize=True, deadline=None)
@given(st.tuples(unit, unit, unit), st.floats(1.05, 2.5), st.sampled_from(SELECTIVE),
       st.lists(st.floats(0.2, 1.0), min_size=3, max_size=3), st.integers(0, 2 ** 32 - 1))
def test_a_far_target_lays_the_chain_straight_with_the_stretch_it_needs(direction, fraction, selective, amounts, seed):
    """As the geometric methods: from a bent start the chain ends straight, pointed at the target,
    each bone grown by Blender's share of the extra length and no more (not bent and over-stretched)."""
    direction = unit_or_none(direction)
    assume(direction is not None)
    tree = chain_tree([0.5, 0.4, 0.3])
    target = direction * fraction * 1.2
    plan = dls_plan(tree, [PositionGoal(2, target)], [BoneDofs(stretch=a) for a in amounts])
    bent = quat_normalize(np.random.default_rng(seed).normal(size=(3, 4)) * [0.3, 0.3, 0.3, 0.0] + [0, 0, 0, 1])
    result = solve_dls(plan, bent, tolerance=1e-6, max_iterations=200, selective=selective)
    world, heads, tails = pose(tree, result)
    assert np.linalg.norm(tails[-1] - target) <= 1e-6, result.errors
    axes = world[:, :, 1]
    bends = np.arccos(np.clip(np.einsum("ij,ij->i", axes[1:], axes[:-1]), -1.0, 1.0))
    assert bends.max() < STRAIGHT
    expected = stretch_to_reach(straight_chain([0.5, 0.4, 0.3]), target, np.array(amounts)).factors
    np.testing.assert_allclose(result.stretch, expected, rtol=1e-12)


@SETTINGS
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=4, max_size=4),
       st.tuples(unit, unit, unit), st.sampled_from(SELECTIVE))
def test_locked_axes_stay_at_zero_exactly(locks, direction, selective):
    """A lock pins its axis of Blender's swing-twist split at 0, whatever the start (Blender's IK
    segments drop a locked axis's part of the start pose)."""
    direction = unit_or_none(direction)
    assume(direction is not None)
    tree = chain_tree(CHAINS[4])
    start = quat_from_euler_xyz(np.array([[0.3, -0.2, 0.1], [-0.4, 0.5, 0.2], [0.1, 0.1, -0.6], [0.2, -0.3, 0.4]]))
    plan = dls_plan(tree, [PositionGoal(3, direction * 0.9)], [BoneDofs(lock=lock) for lock in locks])
    result = solve_dls(plan, start, selective=selective)
    angles = np.array([swing_twist_angles(tuple(q)) for q in result.rotations])
    moved = np.array([any(not lock for lock in bone) for bone in locks])[:, None] & np.array(locks)
    np.testing.assert_allclose(angles[moved], 0.0, atol=1e-12)
    assert_lengths_kept(tree, result)


def allowed_and_on_limit(dofs, q, slack=1e-9):
    """Whether ``dofs``'s limits (X, Z on the swing's sines of half angles, inside Blender's ellipse
    when both are limited about 0; Y on the twist) allow ``q``, and which axes sit on a bound."""
    swing, twist = swing_twist(q, np.array([0.0, 1.0, 0.0]))
    swing *= np.sign(swing[3]) or 1.0
    angle = (2.0 * np.arctan2(twist[1], twist[3]) + np.pi) % (2.0 * np.pi) - np.pi
    low, high = np.sin(0.5 * np.array(dofs.limit_min)), np.sin(0.5 * np.array(dofs.limit_max))
    parts = np.array([swing[0], 0.0, swing[2]])
    inside = [low[k] - slack <= parts[k] <= high[k] + slack for k in (0, 2)]
    ends = [min(abs(parts[k] - low[k]), abs(parts[k] - high[k])) <= slack for k in (0, 2)]
    semi = [high[k] if parts[k] > 0 else -low[k] for k in (0, 2)]
    rim = (parts[0] / semi[0]) ** 2 + (parts[2] / semi[1]) ** 2
    twist_ok = dofs.limit_min[1] - slack <= angle <= dofs.limit_max[1] + slack
    twist_end = min(abs(angle - dofs.limit_min[1]), abs(angle - dofs.limit_max[1])) <= slack
    on_rim = abs(rim - 1.0) <= slack
    return (all(inside) and rim <= 1.0 + slack and twist_ok), [ends[0] or on_rim, twist_end, ends[1] or on_rim]


@SETTINGS
@given(st.tuples(unit, unit, unit), st.floats(0.3, 0.95), st.floats(0.05, 1.0), st.sampled_from(SELECTIVE))
def test_limits_hold_and_are_reported(direction, fraction, bound, selective):
    direction = unit_or_none(direction)
    assume(direction is not None)
    tree = chain_tree(CHAINS[4])
    limits = BoneDofs(use_limit=(True, True, True), limit_min=(-bound, -bound / 2, -bound),
                      limit_max=(bound, bound / 2, bound / 3))
    plan = dls_plan(tree, [PositionGoal(3, direction * fraction * tree.lengths.sum())], [limits] * 4)
    result = solve_dls(plan, rest(4), selective=selective)
    for q, at_limit in zip(result.rotations, result.at_limit):
        inside, on_limit = allowed_and_on_limit(limits, q)
        assert inside
        assert at_limit.tolist() == on_limit
    if not result.converged:
        assert result.at_limit.any()


def assert_within(dofs, result):
    limit = SwingTwistLimit(dofs.limit_min, dofs.limit_max, dofs.lock, dofs.use_limit)
    assert all(limit_violation((limit,), q) <= 1e-7 for q in result.rotations)  # limit_violation's acos: 3e-8


@pytest.mark.parametrize("selective", SELECTIVE)
def test_limited_straight_chain_bends_as_far_as_its_limits_allow(selective):
    """A target 10.6 degrees off a straight chain's line, at half its length: the limits keep the
    chain from folding that far, so the best pose bends toward the target as far as they allow (the
    upper Z limit on the outer bones, where the swing's ellipse holds X as well: 0.7434 m short).
    SDLS once stalled 0.756 m short with no limit reached: a step cut at a limit and then halved
    led uphill."""
    tree = chain_tree(CHAINS[4])
    limits = BoneDofs(use_limit=(True, True, True), limit_min=(-0.25, -0.125, -0.25), limit_max=(0.25, 0.125, 0.25 / 3))
    target = np.array([-0.046875, 0.25, 0.0]) / np.linalg.norm([-0.046875, 0.25, 0.0]) * 0.5 * tree.lengths.sum()
    result = solve_dls(dls_plan(tree, [PositionGoal(3, target)], [limits] * 4), rest(4), selective=selective)
    assert_within(limits, result)
    np.testing.assert_array_equal(result.at_limit[1:], [[True, False, True]] * 3)
    assert result.errors[0] == pytest.approx(0.7434, abs=1e-4) and not result.converged


@pytest.mark.parametrize("selective", SELECTIVE)
def test_straight_hinge_chain_unfolds_the_way_its_limits_allow(selective):
    """One-sided hinges (knees: X in [-2, 0]) straight, the target on their line inside reach: the
    unfold bends them toward the side they can turn (a bend to + was cut to 0 and left them straight)."""
    tree = chain_tree(CHAINS[4])
    knee = BoneDofs(lock=(False, True, True), use_limit=(True, False, False), limit_min=(-2.0, 0.0, 0.0),
                    limit_max=(0.0, 0.0, 0.0))
    result = solve_dls(dls_plan(tree, [PositionGoal(3, (0.0, 0.75, 0.0))], [knee] * 4), rest(4), selective=selective)
    assert_within(knee, result)
    assert result.errors[0] < 0.2  # 0.75 straight


def test_start_pose_outside_its_limits_is_pulled_inside():
    tree = chain_tree([1.0, 1.0])
    dofs = [None, BoneDofs(use_limit=(True, False, False), limit_min=(-0.5, -np.pi, -np.pi),
                           limit_max=(0.5, np.pi, np.pi))]
    plan = dls_plan(tree, [PositionGoal(1, (0.0, 0.0, 5.0))], dofs)
    result = solve_dls(plan, quat_from_axis_angle([1.0, 0.0, 0.0], [0.0, 1.5]), max_iterations=0)
    assert euler_xyz_from_quat(result.rotations[1])[0] == pytest.approx(0.5)
    assert result.at_limit[1, 0]


@settings(max_examples=10, derandomize=True, deadline=None)
@given(st.tuples(unit, unit, unit), st.tuples(unit, unit, unit), st.sampled_from(SELECTIVE))
def test_tree_reaches_two_reachable_effectors(a, b, selective):
    tree = y_tree()
    start = rest(6)
    start[[3, 5]] = quat_from_axis_angle([1.0, 0.0, 0.0], 1.2)
    _, _, tails = tree_pose(tree, quat_to_matrix3(start))
    # Elbows bent 1.2 rad: hands 0.825 from the shoulders; 0.15 more stays within each arm's reach.
    targets = [tails[3] + 0.15 * np.asarray(a), tails[5] + 0.15 * np.asarray(b)]
    plan = dls_plan(tree, [PositionGoal(3, targets[0]), PositionGoal(5, targets[1])])
    result = solve_dls(plan, start, tolerance=1e-4, max_iterations=200, selective=selective)
    assert result.converged, result.errors
    np.testing.assert_allclose(pose(tree, result)[2][[3, 5]], targets, atol=1e-4)
    assert_lengths_kept(tree, result)


@settings(max_examples=10, derandomize=True, deadline=None)
@given(st.floats(0.2, 5.0), st.floats(0.2, 5.0))
def test_weights_share_conflicting_goals_in_proportion(w1, w2):
    # One tip asked to be at two places at once lands at their weighted mean, so its distances
    # to them are in the inverse ratio of the weights.
    tree = chain_tree([0.5, 0.5, 0.5])
    t1, t2 = np.array([0.6, 0.6, 0.0]), np.array([-0.4, 0.7, 0.3])
    plan = dls_plan(tree, [PositionGoal(2, t1, weight=w1), PositionGoal(2, t2, weight=w2)])
    result = solve_dls(plan, rest(3), tolerance=1e-6, max_iterations=200)
    tip = pose(tree, result)[2][2]
    np.testing.assert_allclose(tip, (w1 * t1 + w2 * t2) / (w1 + w2), atol=1e-5)
    np.testing.assert_allclose(result.errors, [np.linalg.norm(tip - t1), np.linalg.norm(tip - t2)], atol=1e-12)
    assert result.errors[0] * w1 == pytest.approx(result.errors[1] * w2, rel=1e-4)
    assert not result.converged


def test_weights_share_unreachable_goals_on_the_circle():
    # A single bone can only put its tail on the unit sphere: the best of two weighted targets is
    # the sphere point toward their weighted sum.
    tree = chain_tree([1.0])
    t1, t2 = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])
    plan = dls_plan(tree, [PositionGoal(0, t1, weight=3.0), PositionGoal(0, t2, weight=1.0)])
    result = solve_dls(plan, rest(1), tolerance=1e-8, max_iterations=200)
    expected = (3.0 * t1 + t2) / np.linalg.norm(3.0 * t1 + t2)
    np.testing.assert_allclose(pose(tree, result)[2][0], expected, atol=1e-5)


@settings(max_examples=10, derandomize=True, deadline=None)
@given(st.tuples(unit, unit, unit), st.floats(-2.0, 2.0), st.sampled_from(SELECTIVE))
def test_rotation_goal_with_locked_twist_aims_the_bone(axis, twist, selective):
    axis = unit_or_none(axis)
    assume(axis is not None)
    tree = chain_tree([0.5, 0.5])
    wanted = quat_from_axis_angle(axis, 1.0)
    target = matrix3_to_quat(quat_to_matrix3(wanted) @ quat_to_matrix3(quat_from_axis_angle([0, 1.0, 0], twist)))
    plan = dls_plan(tree, [RotationGoal(1, target, lock_axes=(False, True, False))])
    result = solve_dls(plan, rest(2), tolerance=1e-6, max_iterations=200, selective=selective)
    assert result.converged, result.errors
    world = pose(tree, result)[0][1]
    np.testing.assert_allclose(world[:, 1], quat_to_matrix3(target)[:, 1], atol=1e-5)


def test_rotation_and_position_goal_on_one_bone():
    tree = chain_tree(CHAINS[4])
    posed = quat_from_axis_angle([[1, 0, 0], [0, 0, 1.0], [1, 1, 0], [0, 1, 1]], [0.4, -0.5, 0.6, 0.7])
    world, _, tails = tree_pose(tree, quat_to_matrix3(posed))
    plan = dls_plan(tree, [PositionGoal(3, tails[3]), RotationGoal(3, matrix3_to_quat(world[3]))])
    result = solve_dls(plan, rest(4), tolerance=1e-6, max_iterations=200)
    assert result.converged, result.errors
    np.testing.assert_allclose(pose(tree, result)[0][3], world[3], atol=1e-5)


@pytest.mark.parametrize("mode, radius, start_distance", [
    ("inside", 0.3, 1.0), ("on", 0.5, 1.0), ("on", 0.5, 0.1), ("outside", 0.8, 0.2)])
@pytest.mark.parametrize("selective", SELECTIVE)
def test_distance_goal(mode, radius, start_distance, selective):
    tree = chain_tree([0.5, 0.5, 0.5])
    start = quat_from_axis_angle([1.0, 0.0, 0.0], [0.5, 0.6, 0.4])
    tip = tree_pose(tree, quat_to_matrix3(start))[2][2]
    centre = tip + np.array([0.0, 0.0, -start_distance])
    plan = dls_plan(tree, [DistanceGoal(2, centre, radius, mode)])
    result = solve_dls(plan, start, tolerance=1e-5, selective=selective)
    assert result.converged, result.errors
    distance = np.linalg.norm(pose(tree, result)[2][2] - centre)
    assert {"inside": distance <= radius + 1e-5, "on": abs(distance - radius) <= 1e-5,
            "outside": distance >= radius - 1e-5}[mode], distance


def test_satisfied_distance_goal_leaves_pose_alone():
    tree = chain_tree([0.5, 0.5])
    start = quat_from_axis_angle([1.0, 0.0, 0.0], [0.5, 0.6])
    plan = dls_plan(tree, [DistanceGoal(1, (0.0, 0.0, 0.0), 2.0, "inside")])
    result = solve_dls(plan, start)
    assert result.converged and result.iterations == 0
    np.testing.assert_array_equal(result.rotations, start)


def test_distance_on_from_the_centre_moves_out():
    tree = chain_tree([0.5, 0.5])
    tip = np.array([0.0, 1.0, 0.0])
    result = solve_dls(dls_plan(tree, [DistanceGoal(1, tip, 0.3, "on")]), rest(2), tolerance=1e-6)
    assert result.converged
    assert np.linalg.norm(pose(tree, result)[2][1] - tip) == pytest.approx(0.3, abs=1e-6)


def test_joint_rotation_goal_holds_its_bone_while_the_tip_reaches():
    tree = chain_tree([0.5, 0.5, 0.5])
    held = quat_from_axis_angle([0.0, 0.0, 1.0], 0.5)
    posed = np.vstack([held, quat_from_axis_angle([[1.0, 0, 0], [1.0, 0, 1.0]], [0.7, 0.5])])
    target = tree_pose(tree, quat_to_matrix3(posed))[2][2]
    plan = dls_plan(tree, [PositionGoal(2, target), JointRotationGoal(0, held, weight=0.5)])
    result = solve_dls(plan, rest(3), tolerance=1e-6, max_iterations=200)
    assert result.converged, result.errors
    assert quat_angle(result.rotations[0], held) < 1e-6
    assert np.linalg.norm(pose(tree, result)[2][2] - target) < 1e-6


def test_joint_rotation_goal_pulls_in_proportion_to_its_weight():
    # A goal the joint cannot meet while the tip is reached: a heavier joint goal wins more.
    tree = chain_tree([0.5, 0.5])
    held = quat_from_axis_angle([0.0, 0.0, 1.0], 0.8)
    gaps = []
    for weight in (0.0, 0.1, 10.0):
        goals = [PositionGoal(1, (0.0, 0.6, 0.5))] + ([JointRotationGoal(0, held, weight)] if weight else [])
        result = solve_dls(dls_plan(tree, goals), rest(2), tolerance=1e-9, max_iterations=300)
        gaps.append((quat_angle(result.rotations[0], held), result.errors[0]))
    assert gaps[0][0] > gaps[1][0] > gaps[2][0]
    assert gaps[0][1] < 1e-6 < gaps[1][1] < gaps[2][1]


def test_stiffness_moves_a_bone_less():
    tree = chain_tree([0.5, 0.5, 0.5])
    moved = []
    for stiffness in (0.0, 0.9):
        plan = dls_plan(tree, [PositionGoal(2, (0.6, 0.9, 0.3))], [None, BoneDofs(stiffness=(stiffness,) * 3), None])
        result = solve_dls(plan, rest(3), tolerance=1e-6, max_iterations=200)
        assert result.converged
        moved.append(quat_angle(result.rotations[1], [0, 0, 0, 1.0]))
    assert moved[1] < 0.5 * moved[0]


@pytest.mark.parametrize("selective", SELECTIVE)
def test_same_input_same_bits(selective):
    tree = y_tree()
    plan = dls_plan(tree, [PositionGoal(3, (0.9, 2.1, 0.3)), PositionGoal(5, (-0.8, 2.2, -0.2)),
                           RotationGoal(1, quat_from_axis_angle([0, 1.0, 0], 0.3), 0.5)])
    first = solve_dls(plan, rest(6), selective=selective)
    second = solve_dls(plan, rest(6), selective=selective)
    np.testing.assert_array_equal(first.rotations, second.rotations)
    np.testing.assert_array_equal(first.errors, second.errors)
    assert first.iterations == second.iterations


def test_target_straight_along_the_chain_is_reached():
    tree = chain_tree([0.5] * 4)
    result = solve_dls(dls_plan(tree, [PositionGoal(3, (0.0, 1.2, 0.0))]), rest(4), tolerance=1e-5)
    assert result.converged and np.all(np.isfinite(result.rotations))


def test_target_at_the_root_stays_finite():
    tree = chain_tree([0.5, 0.5])
    result = solve_dls(dls_plan(tree, [PositionGoal(1, (0.0, 0.0, 0.0))]), rest(2), tolerance=1e-5)
    assert np.all(np.isfinite(result.rotations))
    assert result.converged, result.errors
    unequal = chain_tree([0.5, 0.3])
    result = solve_dls(dls_plan(unequal, [PositionGoal(1, (0.0, 0.0, 0.0))]), rest(2), tolerance=1e-5)
    assert np.all(np.isfinite(result.rotations)) and result.errors[0] == pytest.approx(0.2, abs=1e-4)


def test_zero_length_bones_stay_finite():
    tree = chain_tree([0.5, 0.0, 0.5, 0.0])
    result = solve_dls(dls_plan(tree, [PositionGoal(3, (0.3, 0.6, 0.2)), RotationGoal(3, [0, 0, 0, 1.0])]),
                       rest(4), tolerance=1e-5, max_iterations=200)
    assert np.all(np.isfinite(result.rotations)) and np.all(np.isfinite(result.errors))
    assert result.errors[0] < 1e-4
    assert_lengths_kept(tree, result)


def test_bones_that_move_no_goal_keep_their_bits():
    tree = y_tree()
    start = quat_from_axis_angle([0.3, 0.4, 0.5], np.linspace(0.1, 0.6, 6))
    result = solve_dls(dls_plan(tree, [PositionGoal(3, (1.0, 2.0, 0.5))]), start)
    np.testing.assert_array_equal(result.rotations[[4, 5]], start[[4, 5]])


@pytest.mark.parametrize("build", [
    lambda: PositionGoal(0, (np.nan, 0.0, 0.0)),
    lambda: PositionGoal(0, (np.inf, 0.0, 0.0)),
    lambda: DistanceGoal(0, (0.0, np.nan, 0.0), 1.0),
    lambda: DistanceGoal(0, (0.0, 0.0, 0.0), -1.0),
    lambda: DistanceGoal(0, (0.0, 0.0, 0.0), 1.0, "near"),
    lambda: RotationGoal(0, (0.0, 0.0, 0.0, 0.0)),
    lambda: RotationGoal(0, (0.0, 0.0, 0.0, 1.0), lock_axes=(True, True, True)),
    lambda: JointRotationGoal(0, (np.nan, 0.0, 0.0, 1.0)),
    lambda: PositionGoal(-1, (0.0, 0.0, 0.0)),
    lambda: PositionGoal(0, (0.0, 0.0, 0.0), weight=0.0),
    lambda: BoneDofs(stiffness=(1.5, 0.0, 0.0)),
    lambda: BoneDofs(limit_min=(1.0, 0.0, 0.0), limit_max=(0.5, 0.0, 0.0)),
    lambda: BoneDofs(stretch=2.0),
    lambda: dls_plan(chain_tree([1.0]), [PositionGoal(1, (0.0, 0.0, 0.0))]),
    lambda: dls_plan(chain_tree([1.0]), []),
    lambda: dls_plan(chain_tree([1.0]), [PositionGoal(0, (0.0, 0.0, 0.0))], [None, None]),
    lambda: solve_dls(dls_plan(chain_tree([1.0]), [PositionGoal(0, (0, 1.0, 0))]), rest(1), damping=-1.0),
])
def test_bad_settings_are_rejected_when_built(build):
    with pytest.raises(ValueError):
        build()


def test_stiffness_above_the_cap_acts_as_the_cap():
    assert BoneDofs(stiffness=(1.0, 0.5, 0.0)).stiffness == (0.99, 0.5, 0.0)


def test_non_finite_start_pose_is_left_unchanged():
    start = rest(2)
    start[0, 0] = np.nan
    result = solve_dls(dls_plan(chain_tree([1.0, 1.0]), [PositionGoal(1, (0, 1.0, 1.0))]), start)
    assert not result.converged and np.isinf(result.errors).all() and result.iterations == 0


def test_jacobian_matches_finite_differences():
    from solvers.dls import _apply, _evaluate, _jacobian, _start
    tree = y_tree()
    dofs = [BoneDofs(stretch=0.5), BoneDofs(lock=(False, True, False)), None,
            BoneDofs(use_limit=(True, False, False), stretch=1.0), None, BoneDofs(stiffness=(0.5, 0.2, 0.0))]
    # The first target lies beyond the arm's reach, so the stretchy bones get stretch columns.
    goals = [PositionGoal(3, (2.5, 2.5, 0.3)), DistanceGoal(5, (-0.5, 2.0, 0.0), 0.2, "on", weight=2.0),
             RotationGoal(3, quat_from_axis_angle([1.0, 1.0, 0.0], 0.4), lock_axes=(False, False, True)),
             JointRotationGoal(5, quat_from_axis_angle([0.0, 1.0, 0.0], 0.3), weight=0.5),
             PositionGoal(4, (0.3, 1.5, 0.2), use_tail=False)]
    plan = dls_plan(tree, goals, dofs)
    start = quat_from_euler_xyz(np.array([[0.1, 0.2, -0.3], [0.2, -0.1, 0.3], [0.3, 0.1, 0.0],
                                          [0.4, 0.2, -0.2], [0.0, 0.5, 0.1], [-0.3, 0.1, 0.2]]))
    state = _start(plan, start)
    state = _evaluate(plan, state.quats, state.angles, np.array([1.2, 1.0, 1.0, 1.3, 1.0, 1.0]), 1.0, False)
    jacobian = _jacobian(plan, state)
    assert jacobian.shape[1] == len(plan.columns) + 2
    h = 1e-6
    for column in range(jacobian.shape[1]):
        delta = np.zeros(jacobian.shape[1])
        delta[column] = h
        ahead, behind = _apply(plan, state, delta, 1.0, False), _apply(plan, state, -delta, 1.0, False)
        change = (np.concatenate(ahead.residuals) - np.concatenate(behind.residuals)) / (2 * h)
        expected = -change * plan.row_scale * plan.column_scale[column]
        np.testing.assert_allclose(jacobian[:, column], expected, atol=1e-6, err_msg=f"column {column}")


def test_fully_locked_chain_stays_put():
    tree = chain_tree([0.5, 0.5])
    start = quat_from_axis_angle([1.0, 0.0, 0.0], [0.3, 0.2])
    plan = dls_plan(tree, [PositionGoal(1, (0.5, 0.5, 0.0))], [BoneDofs(lock=(True, True, True))] * 2)
    result = solve_dls(plan, start)
    np.testing.assert_array_equal(result.rotations, start)
    assert not result.converged and np.isfinite(result.errors).all()


@pytest.mark.parametrize("selective", SELECTIVE)
def test_undamped_solve_still_reaches(selective):
    tree = chain_tree(CHAINS[4])
    result = solve_dls(dls_plan(tree, [PositionGoal(3, (0.5, 0.9, -0.3))]), rest(4), damping=0.0, selective=selective,
                       tolerance=1e-6)
    assert result.converged, result.errors


def test_reachable_targets_never_stretch():
    tree = chain_tree([0.5, 0.5, 0.5])
    for target in ((0.5, 0.9, 0.2), (0.0, 1.45, 0.1), (1.0, 1.0, 0.0)):
        plan = dls_plan(tree, [PositionGoal(2, target)], [BoneDofs(stretch=1.0)] * 3)
        result = solve_dls(plan, rest(3), tolerance=1e-6)
        assert result.converged
        np.testing.assert_array_equal(result.stretch, np.ones(3))
