"""The compiled FABRIK step's parts: the limit clamp gives rotations its limits allow, Horn's
best-fit rotation agrees with the SVD's, the best turn within Euler limits is a hinge's best angle
where only one axis may turn, and one compiled specialisation serves chains and trees whatever
arrays the caller hands in."""
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from solvers.chain import straight_chain
from solvers.fabrik import Effector, fabrik_plan, solve_fabrik, solve_fabrik_chain
from solvers.fabrik_loop import fabrik_solve
from solvers.limits import Cone, EulerLimit, Hinge, Twist, best_euler_angles, best_hinge_angle, clamp_rotation
from solvers.rotation_fit import best_rotation
from solvers.tolerances import GIMBAL
from solvers.transforms import euler_xyz_from_quat, quat_from_euler_xyz, quat_to_matrix3, swing_twist
from solvers.tree import Tree

SETTINGS = settings(max_examples=60, derandomize=True, deadline=None)
unit = st.floats(-1.0, 1.0)
quaternions = st.tuples(unit, unit, unit, unit)
angles = st.floats(-3.0, 3.0)
vectors3 = st.tuples(unit, unit, unit)


def euler_limit(lows, spans, lock):
    """An EulerLimit within what a bone allows: angles in [-pi, pi], Y in [-pi/2, pi/2] (where
    Euler angles read back as set)."""
    bounds = ((-np.pi, np.pi), (-np.pi / 2, np.pi / 2), (-np.pi, np.pi))
    low = [float(np.clip(a, *b)) for a, b in zip(lows, bounds)]
    return EulerLimit(tuple(low), tuple(float(np.clip(a + s, *b)) for a, s, b in zip(low, spans, bounds)), lock)


one_limit = st.one_of(
    st.builds(lambda axis, a, b: Hinge(axis, min(a, b), max(a, b)), vectors3.filter(lambda v: np.linalg.norm(v) > 1e-3),
              angles, angles),
    st.builds(Cone, st.floats(0.0, 3.1)),
    st.builds(lambda a, b: Twist(min(a, b), max(a, b)), angles, angles),
    st.builds(euler_limit, st.lists(angles, min_size=3, max_size=3), st.lists(st.floats(0.0, 3.0), min_size=3, max_size=3),
              st.tuples(st.booleans(), st.booleans(), st.booleans())))


def twist_angle(q, axis):
    """The signed angle q turns about unit ``axis`` (its twist, Blender's sense), in (-pi, pi]."""
    _, twist = swing_twist(q, axis)
    angle = 2.0 * np.arctan2(twist[:3] @ axis, twist[3])
    return (angle + np.pi) % (2.0 * np.pi) - np.pi


def allowed(limit, q, slack=1e-9):
    """Whether ``limit`` allows rotation ``q``, measured with the numpy transforms (not the clamp)."""
    if isinstance(limit, Hinge):
        axis = np.array(limit.axis)
        swing, _ = swing_twist(q, axis)
        return abs(swing[3]) >= 1.0 - slack and limit.min_angle - slack <= twist_angle(q, axis) <= limit.max_angle + slack
    if isinstance(limit, Cone):
        return float(quat_to_matrix3(q)[1, 1]) >= np.cos(limit.max_angle) - slack
    if isinstance(limit, Twist):
        return limit.min_angle - slack <= twist_angle(q, np.array([0.0, 1.0, 0.0])) <= limit.max_angle + slack
    _, low_high = limit.encoded()
    low, high = np.array(low_high[:3]), np.array(low_high[3:])
    angles = euler_xyz_from_quat(q)
    if abs(quat_to_matrix3(q)[2, 0]) > 1.0 - GIMBAL:  # only X + s Z sets it (s = -sign Y; Z reads 0)
        s = -np.sign(angles[1])
        reach = low[0] + min(s * low[2], s * high[2]), high[0] + max(s * low[2], s * high[2])
        past = (angles[0] - reach[0]) % (2.0 * np.pi)
        return bool(low[1] - slack <= angles[1] <= high[1] + slack
                    and (past <= reach[1] - reach[0] + slack or past >= 2.0 * np.pi - slack))
    return bool(np.all(angles >= low - slack) and np.all(angles <= high + slack))


@SETTINGS
@given(quaternions, one_limit)
def test_a_clamped_rotation_is_one_its_limit_allows(q, limit):
    assume(np.linalg.norm(q) > 0.1)
    q = np.array(q) / np.linalg.norm(q)
    if not isinstance(limit, EulerLimit):  # a half turn across the twist axis has no twist to hold
        axis = np.array(limit.axis) if isinstance(limit, Hinge) else np.array([0.0, 1.0, 0.0])
        assume(float(q[:3] @ axis) ** 2 + q[3] ** 2 > 1e-6)
    clamped, _ = clamp_rotation((limit,), q)
    assert allowed(limit, clamped)
    again, _ = clamp_rotation((limit,), clamped)
    assert min(np.abs(again - clamped).max(), np.abs(again + clamped).max()) <= 1e-9  # q and -q: one rotation
    assert abs(np.linalg.norm(clamped) - 1.0) <= 1e-12


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
    expected, _ = best_hinge_angle(tuple(np.eye(3)[axis]), low, low + span, vectors, directions @ before, weights)
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
