"""The compiled FABRIK step's parts: the limit clamp gives rotations its limits allow, Horn's
best-fit rotation agrees with the SVD's, the best turn within swing-twist limits stays inside them
and serves its links no worse than where it started, and one compiled specialisation serves chains and trees whatever
arrays the caller hands in."""
import numpy as np
import pytest
from hypothesis import assume, example, given, settings, strategies as st

from solvers.chain import straight_chain
from solvers.fabrik import Effector, fabrik_plan, solve_fabrik, solve_fabrik_chain
from solvers.fabrik_loop import fabrik_solve
from solvers.limits import (SWING_TWIST, Cone, Hinge, SwingTwistLimit, Twist, best_hinge_angle, best_within_limits,
                            clamp_rotation, swing_twist_angles)
from solvers.rotation_fit import best_rotation
from solvers.transforms import quat_to_matrix3, swing_twist
from solvers.tree import Tree

SETTINGS = settings(max_examples=60, derandomize=True, deadline=None)
unit = st.floats(-1.0, 1.0)
quaternions = st.tuples(unit, unit, unit, unit)
angles = st.floats(-3.0, 3.0)
vectors3 = st.tuples(unit, unit, unit)


def swing_twist_limit(lows, spans, lock, use):
    """A SwingTwistLimit within what a bone allows: angles in [-pi, pi]."""
    low = [float(np.clip(a, -np.pi, np.pi)) for a in lows]
    return SwingTwistLimit(tuple(low), tuple(float(np.clip(a + s, -np.pi, np.pi)) for a, s in zip(low, spans)), lock,
                           use)


one_limit = st.one_of(
    st.builds(lambda axis, a, b: Hinge(axis, min(a, b), max(a, b)), vectors3.filter(lambda v: np.linalg.norm(v) > 1e-3),
              angles, angles),
    st.builds(Cone, st.floats(0.0, 3.1)),
    st.builds(lambda a, b: Twist(min(a, b), max(a, b)), angles, angles),
    st.builds(swing_twist_limit, st.lists(angles, min_size=3, max_size=3),
              st.lists(st.floats(0.0, 3.0), min_size=3, max_size=3), st.tuples(st.booleans(), st.booleans(), st.booleans()),
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
    _, row = limit.encoded()
    swing, _ = swing_twist(q, np.array([0.0, 1.0, 0.0]))
    swing = swing * np.sign(swing[3] or 1.0)
    low, high = np.sin(0.5 * np.array(row[:3])), np.sin(0.5 * np.array(row[3:6]))
    inside = all(low[k] - slack <= swing[k] <= high[k] + slack for k in (0, 2))
    if row[6]:  # X and Z both limited: Blender's ellipse, semi-axes on the side each component lies
        semi = [high[k] if swing[k] > 0 else -low[k] for k in (0, 2)]
        inside &= min(semi) <= 1e-9 or (swing[0] / semi[0]) ** 2 + (swing[2] / semi[1]) ** 2 <= 1.0 + slack
    twist = twist_angle(q, np.array([0.0, 1.0, 0.0]))
    return bool(inside and row[1] - slack <= twist <= row[4] + slack)


@SETTINGS
@given(quaternions, one_limit)
def test_a_clamped_rotation_is_one_its_limit_allows(q, limit):
    assume(np.linalg.norm(q) > 0.1)
    q = np.array(q) / np.linalg.norm(q)
    axis = np.array(limit.axis) if isinstance(limit, Hinge) else np.array([0.0, 1.0, 0.0])
    assume(float(q[:3] @ axis) ** 2 + q[3] ** 2 > 1e-6)  # a half turn across the twist axis has no twist to hold
    clamped, _ = clamp_rotation((limit,), q)
    assert allowed(limit, clamped)
    again, _ = clamp_rotation((limit,), clamped)
    assert min(np.abs(again - clamped).max(), np.abs(again + clamped).max()) <= 1e-9  # q and -q: one rotation
    assert abs(np.linalg.norm(clamped) - 1.0) <= 1e-12


links_to_turn = st.lists(st.tuples(vectors3, vectors3, st.floats(0.1, 2.0)), min_size=1, max_size=3).filter(
    lambda links: all(np.linalg.norm(v) > 0.1 and np.linalg.norm(d) > 0.1 for v, d, _ in links))
boxes = st.lists(st.tuples(st.floats(-3.0, 3.0), st.floats(0.0, 3.0)), min_size=3, max_size=3)


def unit_rows(rows):
    rows = np.array(rows, dtype=float)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def served(q, before, vectors, directions, weights):
    """How well pose rotation ``q`` in the frame ``before`` turns the links: the weighted sum of
    dot products a best turn maximises."""
    turned = vectors @ (before @ quat_to_matrix3(np.asarray(q))).T
    return float(weights @ np.einsum("ij,ij->i", turned, directions))


@SETTINGS
@given(links_to_turn, boxes, st.tuples(st.booleans(), st.booleans(), st.booleans()), quaternions, quaternions)
# A clamp that shortened Z past a half-turn swing made one (Y onto -Y), whose twist reads back as 0.
@example([((0.0, 0.0, 1.0), (0.0, 0.0, 1.0), 1.0)], [(1.0, 0.0), (1.0, 0.0), (1.0, 2.0)], (False, False, False),
         (0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0, 1.0))
def test_best_turn_within_limits_stays_inside_and_serves_its_links_no_worse(links, box, lock, start, frame):
    assume(np.linalg.norm(frame) > 0.1 and np.linalg.norm(start) > 0.1)
    before = quat_to_matrix3(np.array(frame) / np.linalg.norm(frame))
    vectors, directions = unit_rows([v for v, _, _ in links]), unit_rows([d for _, d, _ in links])
    weights = np.array([w for _, _, w in links])
    limit = swing_twist_limit([a for a, _ in box], [s for _, s in box], lock, (True, True, True))
    _, row = limit.encoded()
    nearest = [0.0 if row[k] <= 0.0 <= row[k + 3] else min(abs(np.sin(0.5 * row[k])), abs(np.sin(0.5 * row[k + 3])))
               for k in (0, 2)]
    assume(nearest[0] ** 2 + nearest[1] ** 2 < 1.0)  # some unit swing lies within the X and Z ranges
    begin, _ = clamp_rotation((limit,), np.array(start) / np.linalg.norm(start))
    q = best_within_limits(np.array([SWING_TWIST]), np.array([row]), 0, 1, tuple(begin), before, vectors, directions,
                           weights)
    assert allowed(limit, np.array(q))
    assert served(q, before, vectors, directions, weights) >= served(begin, before, vectors, directions, weights) - 1e-9


def test_a_lock_on_y_drops_only_the_twist():
    """Blender's lock Y with X and Z free is a swing joint: the clamp keeps where the bone points
    and drops its twist about its own axis."""
    q = np.array([0.3, 0.5, -0.2, 0.78])
    q /= np.linalg.norm(q)
    clamped, held = clamp_rotation((SwingTwistLimit(lock=(False, True, False)),), q)
    assert held.tolist() == [False, True, False]
    assert swing_twist_angles(tuple(clamped))[1] == 0.0
    np.testing.assert_allclose(quat_to_matrix3(clamped)[:, 1], quat_to_matrix3(q)[:, 1], atol=1e-12)


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
    limits = [Hinge((1.0, 0.0, 0.0), 0.0, 1.2), (Cone(0.4), Twist(-0.3, 0.3)), SwingTwistLimit((-1, -1, -1), (1, 1, 1))]
    strided = np.tile([0.0, 0.0, 0.0, 1.0, 9.0], (3, 1))[:, :4]  # a non-contiguous view
    solve_fabrik_chain(chain, strided, [0, 0.4, 0.3], limits, target_rotation=[0, 0, 0, 1], max_iterations=3)
    compiled = len(fabrik_solve.signatures)  # other tests may have compiled before: what counts is no more now
    tree = Tree(np.eye(4), [-1, 0, 0], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
                [[0.0, 0.0, 0.0, 1.0]] * 3, [1, 1, 1])
    plan = fabrik_plan(tree, [Effector(1, weight=2.0), Effector(2, use_rotation=True)])
    result = solve_fabrik(plan, np.tile([0.0, 0.0, 0.0, 1.0], (3, 1)), [[1, 1, 0], [-1, 1, 0]],
                          [[0, 0, 0, 1], [0, 0, 0.3826834, 0.9238795]], max_iterations=3)
    assert np.isfinite(result.errors).all()
    free = solve_fabrik_chain(chain, np.tile([0.0, 0.0, 0.0, 1.0], (3, 1)), [0.2, 0.4, 0.1])
    assert free.converged
    assert len(fabrik_solve.signatures) == compiled, fabrik_solve.signatures


def test_long_free_chain_converges_like_point_fabrik():
    # Point FABRIK gets within 1e-9 here in 30 iterations; a frame recomposed from its pose
    # rotation each turn used to leave this chain stalled near 1e-3.
    chain = straight_chain([0.1] * 50)
    target = [-1.7108, -0.8426, 0.0559]
    result = solve_fabrik_chain(chain, np.tile([0.0, 0.0, 0.0, 1.0], (50, 1)), target, max_iterations=30,
                                tolerance=1e-9)
    assert result.errors[0] < 1e-6
