import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from solvers.ccd import solve_ccd_chain
from solvers.chain import Chain, chain_points, straight_chain
from solvers.limits import Cone, Hinge
from solvers.transforms import compose, quat_angle, quat_from_axis_angle, quat_normalize

SETTINGS = settings(max_examples=30, derandomize=True, deadline=None)
unit = st.floats(-1.0, 1.0)
LENGTHS = [0.5, 0.4, 0.3, 0.3, 0.5]


def rest(n):
    return np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))


def direction_or_none(direction):
    direction = np.asarray(direction)
    norm = np.linalg.norm(direction)
    return None if norm < 1e-3 else direction / norm


# Unit directions; near-zero draws are rejected rather than passed through as trivial examples.
unit_directions = st.tuples(unit, unit, unit).map(direction_or_none).filter(lambda d: d is not None)


def random_bends(rng, count, spread):
    """``count`` seeded pose rotations (count, 4) about random axes, by up to ``spread`` radians."""
    axes = rng.normal(size=(count, 3))
    return quat_from_axis_angle(axes / np.linalg.norm(axes, axis=1, keepdims=True), rng.uniform(0.0, spread, count))


def assert_lengths_kept(chain, rotations):
    points = chain_points(chain, rotations)
    np.testing.assert_allclose(np.linalg.norm(np.diff(points, axis=0), axis=1), chain.lengths, atol=1e-9,
                               err_msg="bone lengths changed")


@SETTINGS
@given(unit_directions, st.floats(0.3, 0.95), st.integers(4, 6))
def test_reachable_targets_reached_lengths_kept(direction, fraction, bones):
    chain = straight_chain(([0.5, 0.4, 0.3, 0.3, 0.5, 0.4])[:bones])
    target = direction * fraction * chain.lengths.sum()
    result = solve_ccd_chain(chain, rest(bones), target, tolerance=1e-3)
    assert_lengths_kept(chain, result.rotations)
    tip = chain_points(chain, result.rotations)[-1]
    assert result.converged, f"not converged: error {result.errors} after {result.iterations} iterations"
    assert np.linalg.norm(tip - target) <= 1e-3
    assert result.errors[0] == pytest.approx(np.linalg.norm(tip - target), abs=1e-12)


@SETTINGS
@given(unit_directions, st.floats(1.1, 3.0))
def test_unreachable_target_chain_points_at_it(direction, factor):
    chain = straight_chain(LENGTHS)
    reach = chain.lengths.sum()
    target = direction * factor * reach
    result = solve_ccd_chain(chain, rest(5), target)
    assert not result.converged
    distance = np.linalg.norm(target)
    assert result.errors[0] == pytest.approx(distance - reach, rel=0.03)
    points = chain_points(chain, result.rotations)
    assert_lengths_kept(chain, result.rotations)
    tip_direction = points[-1] / np.linalg.norm(points[-1])
    assert np.dot(tip_direction, direction) > np.cos(np.radians(3)), "chain does not point at the target"


@SETTINGS
@given(st.lists(unit, min_size=12, max_size=12))
def test_bent_rest_pose_and_moved_base_reach_a_posed_tip(values):
    rng = np.random.default_rng(7)
    n = 5
    rest_rotations = quat_normalize(rng.normal(size=(n, 4)))
    offsets = np.vstack([[0.1, 0.0, 0.2], rng.normal(size=(n - 1, 3)) * 0.3 + [0.0, 0.4, 0.0]])
    base = compose(np.array([1.0, -2.0, 0.5]), quat_normalize(np.array([0.3, -0.2, 0.5, 0.8])))
    chain = Chain(base, offsets, rest_rotations, np.array([0.4, 0.3, 0.5, 0.3, 0.4]))
    pose = quat_from_axis_angle(np.reshape(values[:9], (3, 3)) + 1e-3, np.asarray(values[9:]) * 1.5)
    pose = np.vstack([pose, np.tile([0.0, 0.0, 0.0, 1.0], (2, 1))])
    target = chain_points(chain, pose)[-1]
    result = solve_ccd_chain(chain, rest(n), target, max_iterations=100)
    assert result.converged, f"error {result.errors} after {result.iterations} iterations"
    assert np.linalg.norm(chain_points(chain, result.rotations)[-1] - target) <= 1e-3
    np.testing.assert_allclose(np.linalg.norm(result.rotations, axis=1), 1.0, atol=1e-12)


def test_straight_chain_toward_a_target_on_its_line_bends():
    chain = straight_chain(LENGTHS)
    target = np.array([0.0, 1.0, 0.0])
    result = solve_ccd_chain(chain, rest(5), target)
    assert result.converged
    assert np.linalg.norm(chain_points(chain, result.rotations)[-1] - target) <= 1e-3


def test_target_behind_the_base_reached():
    chain = straight_chain(LENGTHS)
    target = np.array([0.0, -1.0, 0.0])
    result = solve_ccd_chain(chain, rest(5), target)
    assert result.converged
    assert_lengths_kept(chain, result.rotations)


@SETTINGS
@given(unit_directions, st.floats(0.2, 1.5))
def test_hinge_limits_held(direction, fraction):
    chain = straight_chain([0.5, 0.5, 0.5, 0.5])
    low, high = -0.3, 0.8
    limits = [Cone(1.0)] + [Hinge((1.0, 0.0, 0.0), low, high)] * 3
    result = solve_ccd_chain(chain, rest(4), direction * fraction * 2.0, limits=limits)
    assert_lengths_kept(chain, result.rotations)
    for q in result.rotations[1:]:
        assert abs(q[1]) < 1e-12 and abs(q[2]) < 1e-12, f"hinge turned off its axis: {q}"
        angle = 2.0 * np.arctan2(q[0], q[3])
        assert low - 1e-9 <= angle <= high + 1e-9, f"hinge angle {angle} outside [{low}, {high}]"


def test_hinge_limit_reports_at_limit():
    chain = straight_chain([1.0, 1.0])
    limits = [Hinge((1.0, 0.0, 0.0), 0.0, 0.0), Hinge((1.0, 0.0, 0.0), 0.0, 0.5)]
    result = solve_ccd_chain(chain, rest(2), [0.0, 1.2, 1.5], limits=limits)
    assert not result.converged
    assert result.at_limit[1, 0], "bone 1 pushed against its hinge but at_limit is not set"
    assert not result.at_limit[:, 1:].any()
    np.testing.assert_allclose(result.rotations[1], quat_from_axis_angle([1.0, 0.0, 0.0], 0.5), atol=1e-12)


@SETTINGS
@given(unit_directions, st.floats(0.01, 0.3))
def test_one_iteration_never_turns_a_joint_more_than_max_step(direction, max_step):
    chain = straight_chain(LENGTHS)
    start = quat_from_axis_angle([[1.0, 0.0, 0.0]] * 5, np.full(5, 0.2))
    result = solve_ccd_chain(chain, start, direction * 1.2, max_step=max_step, max_iterations=1)
    assert result.iterations <= 1
    turned = quat_angle(start, result.rotations)
    assert np.all(turned <= max_step + 1e-9), f"turned {turned} with max_step {max_step}"


def test_max_step_still_converges_with_more_iterations():
    chain = straight_chain(LENGTHS)
    target = np.array([0.8, 0.9, 0.3])
    result = solve_ccd_chain(chain, rest(5), target, max_step=0.1, max_iterations=200)
    assert result.converged


def test_deterministic_to_the_bit():
    chain = straight_chain(LENGTHS)
    limits = [None, Hinge((1.0, 0.0, 0.0), -1.0, 1.0), Cone(0.7), None, None]
    runs = [solve_ccd_chain(chain, rest(5), [0.7, 0.6, -0.4], limits=limits, max_step=0.2) for _ in range(2)]
    assert runs[0].rotations.tobytes() == runs[1].rotations.tobytes()
    assert runs[0].errors.tobytes() == runs[1].errors.tobytes()
    assert runs[0].iterations == runs[1].iterations


@pytest.mark.parametrize("target", [[np.nan, 0.0, 0.0], [0.0, np.inf, 1.0]])
def test_non_finite_target_leaves_pose_unchanged(target):
    chain = straight_chain(LENGTHS)
    start = quat_from_axis_angle([[0.0, 0.0, 1.0]] * 5, np.full(5, 0.1))
    result = solve_ccd_chain(chain, start, target)
    np.testing.assert_array_equal(result.rotations, start)
    assert result.rotations is not start
    assert not result.converged and result.iterations == 0
    assert np.isinf(result.errors).all()


def test_bad_arguments_raise():
    chain = straight_chain(LENGTHS)
    with pytest.raises(ValueError, match="max_step"):
        solve_ccd_chain(chain, rest(5), [0.0, 1.0, 1.0], max_step=0.0)
    with pytest.raises(ValueError, match="limits"):
        solve_ccd_chain(chain, rest(5), [0.0, 1.0, 1.0], limits=[None])
    with pytest.raises(ValueError, match="rotations"):
        solve_ccd_chain(chain, rest(4), [0.0, 1.0, 1.0])


def reach_fraction(chain, result, target):
    return np.linalg.norm(chain_points(chain, result.rotations)[-1] - target) / chain.lengths.sum()


def test_straight_ten_bone_chain_reaches_seeded_targets_within_30_sweeps():
    # The benchmark's case: classic CCD gets about two in three of these within 30 sweeps.
    chain = straight_chain([0.3] * 10)
    reach = chain.lengths.sum()
    rng = np.random.default_rng(11)
    directions = rng.normal(size=(200, 3))
    targets = directions / np.linalg.norm(directions, axis=1, keepdims=True) * rng.uniform(0.2, 0.95, (200, 1)) * reach
    misses = []
    for target in targets:
        result = solve_ccd_chain(chain, rest(10), target, max_iterations=30, tolerance=1e-3 * reach)
        assert_lengths_kept(chain, result.rotations)
        misses.append(reach_fraction(chain, result, target))
    assert np.mean(np.array(misses) <= 1e-3) >= 0.95, f"reached {np.mean(np.array(misses) <= 1e-3):.3f} of targets"


def test_bent_start_reaches_posed_tips_within_30_sweeps():
    chain = straight_chain([0.3] * 10)
    rng = np.random.default_rng(12)
    reached = 0
    for _ in range(100):
        start, target = random_bends(rng, 10, 0.6), chain_points(chain, random_bends(rng, 10, 0.8))[-1]
        result = solve_ccd_chain(chain, start, target, max_iterations=30, tolerance=3e-3)
        reached += reach_fraction(chain, result, target) <= 1e-3
    assert reached >= 95, f"reached {reached} of 100 targets"


@SETTINGS
@given(unit_directions, st.floats(0.2, 1.2))
def test_cone_limits_held(direction, fraction):
    chain = straight_chain([0.3] * 8)
    max_angle = 0.35
    result = solve_ccd_chain(chain, rest(8), direction * fraction * 2.4, limits=[Cone(max_angle)] * 8)
    assert_lengths_kept(chain, result.rotations)
    for q in result.rotations:
        swing = np.arccos(np.clip(1.0 - 2.0 * (q[0] ** 2 + q[2] ** 2), -1.0, 1.0))  # the angle +Y moved
        assert swing <= max_angle + 1e-9, f"bone swung {swing} past its cone {max_angle}"


def test_locked_root_leaves_the_reach_to_the_other_joints():
    chain = straight_chain([0.3] * 6)
    locked = [Hinge((1.0, 0.0, 0.0), 0.0, 0.0)] + [None] * 5
    pose = np.vstack([[0.0, 0.0, 0.0, 1.0], quat_from_axis_angle([[1.0, 0.0, 1.0]] * 5, np.full(5, 0.4))])
    target = chain_points(chain, pose)[-1]
    result = solve_ccd_chain(chain, rest(6), target, limits=locked, max_iterations=30)
    assert result.converged, f"error {result.errors} after {result.iterations} iterations"
    np.testing.assert_allclose(result.rotations[0], [0.0, 0.0, 0.0, 1.0], atol=1e-12)
    assert_lengths_kept(chain, result.rotations)


def test_straight_hinged_chain_toward_a_target_on_its_line_bends_about_its_hinges():
    chain = straight_chain([0.3] * 6)
    # Bones bend one way only, so the root must turn back the other way to set the tip on the line.
    low, high = 0.0, 1.5
    limits = [Hinge((1.0, 0.0, 0.0), -high, high)] + [Hinge((1.0, 0.0, 0.0), low, high)] * 5
    result = solve_ccd_chain(chain, rest(6), [0.0, 1.2, 0.0], limits=limits, max_iterations=30)
    assert result.converged, f"error {result.errors} after {result.iterations} iterations"
    angles = 2.0 * np.arctan2(result.rotations[:, 0], result.rotations[:, 3])
    assert np.all(angles[1:] >= low - 1e-9) and np.all(np.abs(angles) <= high + 1e-9), angles
    np.testing.assert_allclose(result.rotations[:, 1:3], 0.0, atol=1e-12)


def posed_tips(chain, first_turns, rng, count):
    """Seeded tips of ``chain`` posed with ``first_turns()`` (k, 4) for its first k bones and
    random bends (up to 0.8 rad about random axes) for the rest: targets known to be reachable."""
    for _ in range(count):
        first = np.reshape(first_turns(), (-1, 4))
        yield chain_points(chain, np.vstack([first, random_bends(rng, len(chain) - len(first), 0.8)]))[-1]


@pytest.mark.parametrize("axis", [(1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.6, 0.0, 0.8)])
def test_hinged_root_reaches_every_posed_tip_within_two_sweeps(axis):
    """A hinged root can only turn the tip about its axis: the joints past it aim at the
    target's point on that orbit, so the root's turn finishes the move."""
    chain = straight_chain([0.3] * 6)
    limits = [Hinge(axis, -1.5, 1.5)] + [None] * 5
    rng = np.random.default_rng(13)
    for target in posed_tips(chain, lambda: quat_from_axis_angle(axis, rng.uniform(-1.5, 1.5)), rng, 60):
        result = solve_ccd_chain(chain, rest(6), target, limits=limits, max_iterations=2, tolerance=1e-9)
        assert result.converged, f"error {result.errors} after {result.iterations} sweeps"
        assert_lengths_kept(chain, result.rotations)
        assert abs(2.0 * np.arctan2(np.dot(result.rotations[0, :3], axis), result.rotations[0, 3])) <= 1.5 + 1e-9


def test_hinged_root_short_of_its_range_gets_as_close_as_the_range_allows():
    """Targets the root would have to turn past its range for stay out of reach; the root ends
    at its limit, reported, and the tip no further than the nearest reachable tip."""
    chain = straight_chain([0.3] * 6)
    limits = [Hinge((0.0, 0.0, 1.0), -0.2, 0.2)] + [None] * 5
    # Straight along -X needs a root turn of pi / 2; at its limit the chain can still lie at 0.2
    # rad from its rest line, so the best tip is 1.8 m along that direction.
    result = solve_ccd_chain(chain, rest(6), [-1.8, 0.0, 0.0], limits=limits, max_iterations=30)
    tip = chain_points(chain, result.rotations)[-1]
    best = np.linalg.norm(np.array([-1.8, 0.0, 0.0]) - 1.8 * np.array([-np.sin(0.2), np.cos(0.2), 0.0]))
    assert np.linalg.norm(tip - [-1.8, 0.0, 0.0]) <= best + 1e-3
    assert result.at_limit[0, 2]


def test_locked_root_then_hinged_joint_reaches_every_posed_tip():
    """Locked joints at the start of the chain hand the sweeps' root to the first joint that
    can turn."""
    chain = straight_chain([0.3] * 6)
    limits = [Hinge((1.0, 0.0, 0.0), 0.0, 0.0), Hinge((0.0, 0.0, 1.0), -1.0, 1.0)] + [None] * 4
    rng = np.random.default_rng(5)
    first_turns = lambda: np.vstack([rest(1), quat_from_axis_angle([0.0, 0.0, 1.0], rng.uniform(-1.0, 1.0))])
    for target in posed_tips(chain, first_turns, rng, 30):
        result = solve_ccd_chain(chain, rest(6), target, limits=limits, max_iterations=2, tolerance=1e-9)
        assert result.converged, f"error {result.errors} after {result.iterations} sweeps"
        np.testing.assert_allclose(result.rotations[0], [0.0, 0.0, 0.0, 1.0], atol=1e-12)


@SETTINGS
@given(st.floats(-1.2, 1.2), st.floats(-0.8, 0.8))
def test_a_hinge_turns_by_the_angle_between_the_lines_across_its_axis(angle, off_plane):
    """One hinged bone aiming at a target off its plane turns as far as the target's projection
    onto that plane lies from the bone: the nearest the tip can come."""
    chain = straight_chain([1.0])
    target = [off_plane, np.cos(angle), np.sin(angle)]
    result = solve_ccd_chain(chain, rest(1), target, limits=[Hinge((1.0, 0.0, 0.0), -2.0, 2.0)], max_iterations=1)
    np.testing.assert_allclose(result.rotations[0], quat_from_axis_angle([1.0, 0.0, 0.0], angle), atol=1e-12)