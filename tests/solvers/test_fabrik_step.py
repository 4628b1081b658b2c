"""The compiled FABRIK step's parts agree with the numpy definitions they replace: the encoded
limit clamp with each limit's ``clamp``, Horn's best-fit rotation with the SVD's, the best turn
within Euler limits with a hinge's best angle where only one axis may turn, and one compiled
specialisation serves chains and trees whatever arrays the caller hands in."""
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from solvers.chain import straight_chain
from solvers.fabrik import Effector, fabrik_plan, solve_fabrik, solve_fabrik_chain
from solvers.fabrik_loop import fabrik_solve
from solvers.limits import Cone, EulerLimit, Hinge, Twist, best_euler_angles, clamp_encoded, encode_limits
from solvers.rotation_fit import best_rotation
from solvers.transforms import quat_from_euler_xyz, quat_to_matrix3
from solvers.tree import Tree

SETTINGS = settings(max_examples=60, derandomize=True, deadline=None)
unit = st.floats(-1.0, 1.0)
quaternions = st.tuples(unit, unit, unit, unit)
angles = st.floats(-3.0, 3.0)
vectors3 = st.tuples(unit, unit, unit)


def limit_sets():
    axes = vectors3.filter(lambda axis: np.linalg.norm(axis) > 1e-3)
    hinge = st.builds(lambda axis, a, b: Hinge(axis, min(a, b), max(a, b)), axes, angles, angles)
    cone = st.builds(Cone, st.floats(0.0, 3.1))
    twist = st.builds(lambda a, b: Twist(min(a, b), max(a, b)), angles, angles)
    euler = st.builds(lambda lows, spans, lock: EulerLimit(tuple(lows), tuple(a + s for a, s in zip(lows, spans)), lock),
                      st.lists(angles, min_size=3, max_size=3), st.lists(st.floats(0.0, 3.0), min_size=3, max_size=3),
                      st.tuples(st.booleans(), st.booleans(), st.booleans()))
    return st.lists(st.one_of(hinge, cone, twist, euler), min_size=1, max_size=2).map(tuple)


@SETTINGS
@given(quaternions, st.data())
def test_encoded_clamp_gives_each_limits_rotation_and_held_axes(q, data):
    assume(np.linalg.norm(q) > 0.1)
    q = tuple(np.array(q) / np.linalg.norm(q))
    limits = data.draw(limit_sets())
    starts, kinds, parameters = encode_limits(1, (limits,))
    expected, expected_held = np.array(q), np.zeros(3, dtype=bool)
    for limit in limits:
        expected, held = limit.clamp(expected)
        expected_held |= held
    clamped, held = clamp_encoded(kinds, parameters, starts[0], starts[1], q)
    assert min(np.abs(np.subtract(clamped, expected)).max(), np.abs(np.add(clamped, expected)).max()) <= 1e-9
    assert tuple(held) == tuple(expected_held)


links_to_turn = st.lists(st.tuples(vectors3, vectors3, st.floats(0.1, 2.0)), min_size=1, max_size=3).filter(
    lambda links: all(np.linalg.norm(v) > 0.1 and np.linalg.norm(d) > 0.1 for v, d, _ in links))
euler_boxes = st.lists(st.tuples(st.floats(-3.0, 3.0), st.floats(0.0, 3.0)), min_size=3, max_size=3)


def unit_rows(rows):
    rows = np.array(rows, dtype=float)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def served(angles, before, vectors, directions, weights):
    """How well Euler ``angles`` in the frame ``before`` turn the links: the weighted sum of dot
    products a best turn maximises."""
    turned = vectors @ (before @ quat_to_matrix3(quat_from_euler_xyz(np.array(angles)))).T
    return float(weights @ np.einsum("ij,ij->i", turned, directions))


@SETTINGS
@given(links_to_turn, st.sampled_from([0, 1, 2]), st.floats(-3.0, 3.0), st.floats(0.0, 3.0), quaternions)
def test_best_turn_within_euler_limits_is_a_hinges_where_one_axis_may_turn(links, axis, low, span, frame):
    assume(np.linalg.norm(frame) > 0.1)
    if axis == 1:  # Euler Y reads back within [-pi/2, pi/2] only
        low, span = max(low, -np.pi / 2), min(span, np.pi / 2 - max(low, -np.pi / 2))
    span = min(span, np.pi - low)  # bone limits lie within [-pi, pi] (BoneDofs)
    assume(span >= 0.0)
    before = quat_to_matrix3(np.array(frame) / np.linalg.norm(frame))
    vectors, directions = unit_rows([v for v, _, _ in links]), unit_rows([d for _, d, _ in links])
    weights = np.array([w for _, _, w in links])
    p = np.zeros(6)
    p[axis], p[3 + axis] = low, low + span
    angles = best_euler_angles(p, (0.0, 0.0, 0.0), before, vectors, directions, weights)
    expected, _ = Hinge(np.eye(3)[axis], low, low + span).best_angle(vectors, directions @ before, weights)
    assert angles[axis] == pytest.approx(expected, abs=1e-9)
    assert all(angles[k] == 0.0 for k in range(3) if k != axis)


@SETTINGS
@given(links_to_turn, euler_boxes, st.tuples(*[st.floats(0.0, 1.0)] * 3), quaternions)
def test_best_turn_within_euler_limits_stays_inside_and_serves_its_links_no_worse(links, box, start, frame):
    assume(np.linalg.norm(frame) > 0.1)
    before = quat_to_matrix3(np.array(frame) / np.linalg.norm(frame))
    vectors, directions = unit_rows([v for v, _, _ in links]), unit_rows([d for _, d, _ in links])
    weights = np.array([w for _, _, w in links])
    low = np.array([a for a, _ in box])
    high = np.minimum(low + np.array([s for _, s in box]), np.pi)  # bone limits lie within [-pi, pi] (BoneDofs)
    low[1], high[1] = np.clip(low[1], -np.pi / 2, np.pi / 2), np.clip(high[1], -np.pi / 2, np.pi / 2)
    begin = low + np.array(start) * (high - low)
    angles = np.array(best_euler_angles(np.concatenate([low, high]), tuple(begin), before, vectors, directions,
                                        weights))
    assert (angles >= low).all() and (angles <= high).all()
    assert served(angles, before, vectors, directions, weights) >= served(begin, before, vectors, directions,
                                                                          weights) - 1e-9


def kabsch(vectors, directions, weights):
    """The rotation best turning unit ``vectors`` onto ``directions``, by SVD."""
    h = sum(w * np.outer(v, u) for v, u, w in zip(vectors, directions, weights))
    u, _, vt = np.linalg.svd(h)
    return vt.T @ np.diag([1.0, 1.0, np.sign(np.linalg.det(vt.T @ u.T))]) @ u.T


@SETTINGS
@given(st.lists(st.tuples(vectors3, vectors3, st.floats(0.1, 2.0)), min_size=2, max_size=4))
def test_horns_rotation_is_the_svds_best_fit(links):
    vectors = np.array([v for v, _, _ in links])
    directions = np.array([d for _, d, _ in links])
    assume((np.linalg.norm(vectors, axis=1) > 0.1).all() and (np.linalg.norm(directions, axis=1) > 0.1).all())
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    weights = np.array([w for _, _, w in links])
    units = vectors / np.linalg.norm(vectors, axis=1)[:, None]
    s = np.linalg.svd(sum(w * np.outer(v, u) for v, u, w in zip(units, directions, weights)), compute_uv=False)
    assume(s[1] > 1e-3 * s[0] and s[1] - s[2] > 1e-3 * s[0])  # a unique optimum, well separated
    rotation = np.array(best_rotation(((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)), vectors, directions,
                                       weights))
    np.testing.assert_allclose(rotation, kabsch(units, directions, weights), atol=1e-9)


def test_links_on_one_line_turn_the_heaviest_by_the_shortest_arc():
    vectors = np.array([[0.0, 1.0, 0.0], [0.0, 2.0, 0.0]])
    directions = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    rotation = np.array(best_rotation(((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)), vectors, directions,
                                       np.array([1.0, 3.0])))
    np.testing.assert_allclose(rotation @ [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(rotation @ [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], atol=1e-12)  # no twist about the arc


def test_one_compiled_step_serves_chains_and_trees_from_any_arrays():
    chain = straight_chain([0.3, 0.25, 0.2])
    limits = [Hinge((1.0, 0.0, 0.0), 0.0, 1.2), (Cone(0.4), Twist(-0.3, 0.3)), EulerLimit((-1, -1, -1), (1, 1, 1))]
    strided = np.tile([0.0, 0.0, 0.0, 1.0, 9.0], (3, 1))[:, :4]  # a non-contiguous view
    solve_fabrik_chain(chain, strided, [0, 0.4, 0.3], limits, target_rotation=[0, 0, 0, 1], max_iterations=3)
    tree = Tree(np.eye(4), [-1, 0, 0], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
                [[0.0, 0.0, 0.0, 1.0]] * 3, [1, 1, 1])
    plan = fabrik_plan(tree, [Effector(1, weight=2.0), Effector(2, use_rotation=True)])
    result = solve_fabrik(plan, np.tile([0.0, 0.0, 0.0, 1.0], (3, 1)), [[1, 1, 0], [-1, 1, 0]],
                          [[0, 0, 0, 1], [0, 0, 0.3826834, 0.9238795]], max_iterations=3)
    assert np.isfinite(result.errors).all()
    free = solve_fabrik_chain(chain, np.tile([0.0, 0.0, 0.0, 1.0], (3, 1)), [0.2, 0.4, 0.1])
    assert free.converged
    assert len(fabrik_solve.signatures) == 1


def test_long_free_chain_converges_like_point_fabrik():
    # Point FABRIK gets within 1e-9 here in 30 iterations; a frame recomposed from its pose
    # rotation each turn used to leave this chain stalled near 1e-3.
    chain = straight_chain([0.1] * 50)
    target = [-1.7108, -0.8426, 0.0559]
    result = solve_fabrik_chain(chain, np.tile([0.0, 0.0, 0.0, 1.0], (50, 1)), target, max_iterations=30,
                                tolerance=1e-9)
    assert result.errors[0] < 1e-6
