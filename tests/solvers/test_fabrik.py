import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from solvers.chain import chain_points, straight_chain
from solvers.fabrik import Effector, fabrik_plan, solve_fabrik, solve_fabrik_chain
from solvers.limits import Cone, Hinge, SwingTwistLimit, Twist, clamp_rotation, from_swing_twist_angles
from solvers.transforms import (quat_angle, quat_conjugate, quat_from_axis_angle, quat_from_euler_xyz, quat_mul,
                                swing_twist)
from solvers.tree import Tree, tree_pose
from solvers.transforms import matrix3_to_quat, quat_to_matrix3
from tests.solvers.trees import y_tree

SETTINGS = settings(max_examples=30, derandomize=True, deadline=None)
unit = st.floats(-1.0, 1.0)


def rest(n):
    return np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))


@SETTINGS
@given(st.tuples(unit, unit, unit), st.floats(0.2, 0.95))
def test_reachable_targets_reached_lengths_kept(direction, fraction):
    chain = straight_chain([0.5, 0.4, 0.3, 0.3, 0.5])
    direction = np.asarray(direction)
    assume(np.linalg.norm(direction) >= 1e-3)
    target = direction / np.linalg.norm(direction) * fraction * 2.0
    result = solve_fabrik_chain(chain, rest(5), target, max_iterations=50, tolerance=1e-4)
    points = chain_points(chain, result.rotations)
    np.testing.assert_allclose(np.linalg.norm(np.diff(points, axis=0), axis=1), chain.lengths, atol=1e-9)
    assert result.converged and np.linalg.norm(points[-1] - target) <= 1e-4


def test_unreachable_lies_straight_toward_target():
    chain = straight_chain([0.5] * 10)
    target = np.array([3.0, 3.0, 3.0])
    result = solve_fabrik_chain(chain, rest(10), target)
    points = chain_points(chain, result.rotations)
    direction = target / np.linalg.norm(target)
    np.testing.assert_allclose(points, np.arange(11)[:, None] * 0.5 * direction, atol=1e-9)
    assert result.errors[0] == pytest.approx(np.linalg.norm(target) - 5.0, abs=1e-9)
    assert not result.converged and result.iterations == 1


def test_minimal_twist_keeps_roll_of_a_bone_that_only_swings():
    chain = straight_chain([1.0, 1.0])
    result = solve_fabrik_chain(chain, rest(2), [0.0, 1.9, 0.3], tolerance=1e-6, max_iterations=50)
    for q in result.rotations:
        twist = swing_twist(q, [0.0, 1.0, 0.0])[1]
        assert abs(twist[1]) < 1e-9


def test_hinge_limit_held_and_used():
    chain = straight_chain([1.0, 1.0])
    limits = [None, Hinge((1.0, 0.0, 0.0), 0.0, np.pi / 2)]
    for target, reached in (([0.0, 1.2, 0.9], True), ([0.0, 0.5, 0.5], False)):
        result = solve_fabrik_chain(chain, rest(2), target, limits=limits, max_iterations=40, tolerance=1e-4)
        q = result.rotations[1]
        assert abs(q[1]) < 1e-12 and abs(q[2]) < 1e-12
        angle = 2 * np.arctan2(q[0], q[3])
        assert -1e-12 <= angle <= np.pi / 2 + 1e-12
        assert result.converged == reached
        assert result.at_limit[1, 0] != reached


def test_cone_and_twist_limits_hold():
    chain = straight_chain([0.5] * 4)
    limits = [(Cone(0.3), Twist(-0.1, 0.1))] * 4
    result = solve_fabrik_chain(chain, rest(4), [1.5, 0.2, 0.0], limits=limits, max_iterations=30)
    for q in result.rotations:
        swing, twist = swing_twist(q, [0.0, 1.0, 0.0])
        assert quat_angle(swing, [0, 0, 0, 1.0]) <= 0.3 + 1e-9
        assert quat_angle(twist, [0, 0, 0, 1.0]) <= 0.1 + 1e-9
    assert result.at_limit[:, [0, 2]].any()


def test_limit_clamps_by_hand():
    q, held = clamp_rotation((SwingTwistLimit(min=(-0.1, -1, -1), max=(0.1, 1, 1), lock=(False, False, True)),),
                             from_swing_twist_angles((0.5, 0.2, 0.3)))
    np.testing.assert_allclose(q, from_swing_twist_angles((0.1, 0.2, 0.0)), atol=1e-12)
    assert held.tolist() == [True, False, True]
    with pytest.raises(ValueError):
        Hinge((0.0, 0.0, 0.0), 0.0, 1.0)
    with pytest.raises(ValueError):
        Twist(1.0, -1.0)


@settings(max_examples=10, derandomize=True, deadline=None)
@given(st.tuples(unit, unit, unit), st.tuples(unit, unit, unit))
def test_tree_reaches_every_reachable_effector(a, b):
    tree = y_tree()
    start = rest(6)
    start[[3, 5]] = quat_from_axis_angle([1.0, 0.0, 0.0], 1.2)
    _, heads, tails = tree_pose(tree, quat_to_matrix3(start))
    # Elbows bent 1.2 rad: hands 0.825 from the shoulders; 0.15 more stays within each arm's reach.
    targets = np.array([tails[3] + 0.15 * np.asarray(a), tails[5] + 0.15 * np.asarray(b)])
    plan = fabrik_plan(tree, [Effector(3), Effector(5)])
    result = solve_fabrik(plan, start, targets, max_iterations=60, tolerance=1e-3)
    _, heads2, tails2 = tree_pose(tree, quat_to_matrix3(result.rotations))
    np.testing.assert_allclose(np.linalg.norm(tails2 - heads2, axis=1), tree.lengths, atol=1e-9)
    assert result.converged, result.errors


def test_tree_chain_length_limits_moved_bones_and_target_rotation():
    tree = y_tree()
    start = rest(6)
    start[[3, 5]] = quat_from_axis_angle([1.0, 0.0, 0.0], 1.2)
    # Targets taken from a pose that only the arms' bones reach, so both goals are reachable.
    posed = start.copy()
    posed[[2, 4]] = quat_from_axis_angle([0.3, 0.2, 1.0], 0.3)
    posed[[3, 5]] = quat_from_axis_angle([1.0, 0.1, 0.0], 0.8)
    world, _, tails = tree_pose(tree, quat_to_matrix3(posed))
    goal = matrix3_to_quat(world[3])
    plan = fabrik_plan(tree, [Effector(3, chain_length=2, use_rotation=True), Effector(5, chain_length=2)])
    result = solve_fabrik(plan, start, tails[[3, 5]], np.stack([goal, [0, 0, 0, 1.0]]), max_iterations=60)
    np.testing.assert_array_equal(result.rotations[:2], rest(2))
    solved = tree_pose(tree, quat_to_matrix3(result.rotations))[0]
    np.testing.assert_allclose(solved[3], quat_to_matrix3(goal), atol=1e-9)
    assert result.converged, result.errors


def test_determinism_and_degenerate_targets():
    chain = straight_chain([0.5] * 6)
    start = np.tile(quat_from_axis_angle([1.0, 0.2, 0], 0.1), (6, 1))
    first = solve_fabrik_chain(chain, start, [0.4, 1.1, -0.5])
    second = solve_fabrik_chain(chain, start, [0.4, 1.1, -0.5])
    assert first.rotations.tobytes() == second.rotations.tobytes()
    bad = solve_fabrik_chain(chain, start, [np.nan, 0, 0])
    np.testing.assert_array_equal(bad.rotations, start)
    assert not bad.converged
    at_root = solve_fabrik_chain(chain, start, [0.0, 0.0, 0.0])
    assert np.isfinite(at_root.rotations).all()


def test_plan_validation():
    tree = y_tree()
    with pytest.raises(ValueError):
        fabrik_plan(tree, [Effector(9)])
    with pytest.raises(ValueError):
        fabrik_plan(tree, [Effector(3, weight=0.0)])
    with pytest.raises(ValueError):
        fabrik_plan(tree, [Effector(3)], limits=[None] * 5)


def test_long_chain_stays_rigid_over_many_iterations():
    chain = straight_chain([0.1] * 50)
    result = solve_fabrik_chain(chain, rest(50), [1.5, 2.0, -1.0], max_iterations=40, tolerance=1e-9)
    points = chain_points(chain, result.rotations)
    assert np.isfinite(result.rotations).all()
    np.testing.assert_allclose(np.linalg.norm(result.rotations, axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(np.diff(points, axis=0), axis=1), 0.1, atol=1e-9)


def test_target_on_the_line_of_a_straight_chain_still_bends_it():
    chain = straight_chain([0.5] * 4)
    result = solve_fabrik_chain(chain, rest(4), [0.0, 1.2, 0.0], max_iterations=60, tolerance=1e-4)
    assert result.converged
    assert np.linalg.norm(chain_points(chain, result.rotations)[-1] - [0.0, 1.2, 0.0]) <= 1e-4


def test_chain_with_offset_joints_and_tilted_base_reaches_and_keeps_its_shape():
    """Bones whose children hang off their axis (unconnected joints) keep those offsets."""
    from solvers.chain import Chain
    base = np.eye(4)
    base[:3, :3] = quat_to_matrix3(quat_from_axis_angle([0.3, 0.2, 1.0], 0.7))
    base[:3, 3] = [0.2, 1.0, -0.4]
    offsets = [[0.0, 0.0, 0.0], [0.05, 0.5, 0.0], [0.0, 0.45, -0.06], [0.0, 0.4, 0.0]]
    rotations = np.stack([quat_from_axis_angle([1.0, 0.0, 0.0], 0.1 * i) for i in range(4)])
    chain = Chain(base, offsets, rotations[::-1], [0.5, 0.45, 0.4, 0.3])
    start = chain_points(chain, rest(4))
    target = start[0] + np.array([0.6, 0.9, 0.5])
    result = solve_fabrik_chain(chain, rest(4), target, max_iterations=60, tolerance=1e-5)
    points = chain_points(chain, result.rotations)
    assert result.converged and np.linalg.norm(points[-1] - target) <= 1e-5
    np.testing.assert_allclose(np.linalg.norm(np.diff(points, axis=0), axis=1),
                               np.linalg.norm(np.diff(start, axis=0), axis=1), atol=1e-9)


def test_free_chain_bones_turn_from_their_start_roll_by_the_least_twist():
    # Each step turns a bone by a shortest arc; on a chain coiled in 3D many of them do not add
    # up to one. The solve must still hand back each bone's shortest arc from where it started
    # (its roll kept): a turn whose axis is square to the bone's start direction.
    chain = straight_chain([0.3] * 10)
    start = np.tile(quat_from_euler_xyz([0.3, 0.7, 0.1]), (10, 1))
    result = solve_fabrik_chain(chain, start, [0.9, 1.4, -1.1], max_iterations=60, tolerance=1e-9)
    assert result.iterations > 5
    was = quat_to_matrix3(start[0]) @ [0.0, 1.0, 0.0]
    for q in result.rotations:
        turn = quat_mul(q, quat_conjugate(start[0]))
        assert abs(np.dot(turn[:3], was)) < 1e-9


@pytest.mark.parametrize("limits", [None, [None, Hinge((1.0, 0.0, 0.0), -1.0, 1.0), None, Cone(0.8)]])
def test_stretched_chain_solves_as_one_planned_at_its_grown_size(limits):
    # The chain's plan is resized for the grown bones rather than planned again: the solve must
    # match one planned from scratch for them, straight path reach included.
    from solvers.chain import Chain, stretch_to_reach
    offsets = [[0.0, 0.0, 0.0], [0.05, 0.5, 0.0], [0.0, 0.45, -0.06], [0.0, 0.4, 0.0]]
    chain = Chain(np.eye(4), offsets, rest(4), [0.5, 0.45, 0.4, 0.3])
    amounts = [0.2, 0.5, 1.0, 0.4]
    for target in ([0.3, 2.2, 0.4], [0.9, 1.0, -1.4]):
        result = solve_fabrik_chain(chain, rest(4), target, limits, stretch=amounts, max_iterations=40)
        grown = stretch_to_reach(chain, target, amounts)
        planned = solve_fabrik(fabrik_plan(Tree.from_chain(grown.chain), [Effector(3)], limits), rest(4), [target],
                               max_iterations=40)
        np.testing.assert_allclose(result.stretch, grown.factors)
        np.testing.assert_allclose(result.rotations, planned.rotations, atol=1e-12)
        np.testing.assert_allclose(result.errors, planned.errors, atol=1e-12)
        assert result.iterations == planned.iterations


def test_free_branches_keep_iterating_while_one_target_is_within_reach():
    # Two free chains on one tree: the one whose target is out of reach lies straight at once,
    # which must not end the solve for the other.
    tree = Tree(np.eye(4), [-1, 0, 1, 0, 3], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0],
                                              [0.0, 1.0, 0.0]], rest(5), [1.0] * 5)
    plan = fabrik_plan(tree, [Effector(2, chain_length=2), Effector(4, chain_length=2)])
    result = solve_fabrik(plan, rest(5), [[4.0, 1.0, 0.0], [-0.8, 2.2, 0.6]], max_iterations=50, tolerance=1e-6)
    assert result.errors[0] == pytest.approx(2.0, abs=1e-9)  # 4 m from its top head, 2 m of bones
    assert result.errors[1] < 1e-6 and result.iterations > 1
