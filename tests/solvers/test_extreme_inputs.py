"""The analytic solvers on extreme but finite input through their API: targets and poles up to the
float maximum, start and end quaternions of any non-zero scale, huge pole angles. Every result is
finite (no NaN in rotations, stretch or errors); what cannot be solved (a non-finite angle or stretch)
is a ValueError naming the argument."""
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from solvers.chain import chain_pose, straight_chain, stretch_to_reach
from solvers.one_bone import solve_one_bone
from solvers.two_bone import solve_two_bone

SETTINGS = settings(max_examples=150, derandomize=True, deadline=None)
anything = st.floats(allow_nan=False, allow_infinity=False)  # every finite float, 1e-300 to 1.8e308
vector = st.tuples(anything, anything, anything)
quaternion = st.tuples(anything, anything, anything, anything)
ARM = straight_chain([0.6, 0.5])
BONE = straight_chain([0.6])


def assert_finite(result, bones):
    assert np.isfinite(result.rotations).all() and np.isfinite(result.stretch).all()
    assert not np.isnan(result.errors).any()
    np.testing.assert_allclose(np.linalg.norm(result.rotations, axis=1), np.ones(bones), atol=1e-9)


@SETTINGS
@given(vector, quaternion, quaternion)
def test_two_bone_stays_finite_for_any_finite_target_start_and_end_rotation(target, start, end):
    result = solve_two_bone(ARM, [start, start], target, end_rotation=end)
    assert_finite(result, 2)


@SETTINGS
@given(vector, vector, anything)
def test_two_bone_stays_finite_for_any_finite_pole_and_pole_angle(target, pole, angle):
    assert_finite(solve_two_bone(ARM, [[0, 0, 0, 1]] * 2, target, pole, angle), 2)


@SETTINGS
@given(vector, vector, quaternion, anything)
def test_one_bone_stays_finite_for_any_finite_input(target, pole, start, angle):
    assert_finite(solve_one_bone(BONE, [start], target), 1)
    assert_finite(solve_one_bone(BONE, [start], target, pole, angle), 1)


@SETTINGS
@given(st.floats(1e13, 1e300))
def test_a_far_target_is_a_direction_and_the_error_its_true_distance(far):
    result = solve_two_bone(ARM, [[0, 0, 0, 1]] * 2, [far, 0.0, 0.0])
    assert math.isclose(result.errors[0], far - 1.1, rel_tol=1e-9) and not result.converged
    points = chain_pose(ARM, result.rotations, result.stretch)[1]
    np.testing.assert_allclose((points[-1] - points[0]) / 1.1, [1.0, 0.0, 0.0], atol=1e-9)  # straight at it


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e150, 1e300])
def test_a_start_of_any_scale_solves_as_the_unit_start(scale):
    start = np.array([[0.1, 0.2, 0.3, 0.9], [0.0, 0.3, 0.0, 0.95]])
    unit = start / np.linalg.norm(start, axis=1, keepdims=True)
    np.testing.assert_allclose(solve_two_bone(ARM, start * scale, [0.3, 0.5, 0.4]).rotations,
                               solve_two_bone(ARM, unit, [0.3, 0.5, 0.4]).rotations, atol=1e-12)


@pytest.mark.parametrize("call, argument", [
    (lambda: solve_two_bone(ARM, [[0, 0, 0, 1]] * 2, [0.3, 0.5, 0.4], [1, 0, 0], math.inf), "pole_angle"),
    (lambda: solve_one_bone(BONE, [[0, 0, 0, 1]], [0.3, 0.5, 0.4], [1, 0, 0], -math.inf), "pole_angle"),
    (lambda: solve_two_bone(ARM, [[0, 0, 0, 1]] * 2, [3, 3, 3], stretch=[math.nan, 0.5]), "stretch"),
])
def test_settings_that_cannot_be_solved_are_a_value_error_naming_them(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()


@SETTINGS
@given(st.tuples(st.floats(0.0, 1.7e308), st.floats(0.0, 1.7e308)), vector)
def test_any_finite_stretch_stays_finite_and_shares_as_its_ratio_says(stretch, target):
    """Stretch amounts up to the float maximum (a soak's 1e300 gave NaN: cubed, they overflow):
    the result is finite, and as shares are relative, amounts scaled down to at most 1 give the
    same pose; the iterative solvers' stretch (``stretch_to_reach``) likewise."""
    result = solve_two_bone(ARM, [[0, 0, 0, 1]] * 2, target, stretch=stretch)
    assert_finite(result, 2)
    largest = max(stretch)
    assume(largest > 1.0)
    scaled = solve_two_bone(ARM, [[0, 0, 0, 1]] * 2, target, stretch=[s / largest for s in stretch])
    np.testing.assert_allclose(result.stretch, scaled.stretch, rtol=1e-9)
    np.testing.assert_allclose(result.rotations, scaled.rotations, atol=1e-9)
    grown = stretch_to_reach(ARM, [3.0, 0.0, 0.0], stretch)
    assert np.isfinite(grown.factors).all() and math.isclose(grown.chain.reach, 3.0, rel_tol=1e-3)
