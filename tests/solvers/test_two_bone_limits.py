"""Two-bone IK within the bones' limits (``solvers.two_bone_limits``): a hinged middle joint bends
by the angle the target's distance asks for, the first bone rolls the limb within its own limits,
and a target the limits keep out of reach is answered as near as they allow, saying it missed."""
import math

import numpy as np
from hypothesis import assume, given, settings, strategies as st

from solvers.chain import Chain, chain_pose
from solvers.limits import Hinge, SwingTwistLimit, limit_violation, rotation_within
from solvers.transforms import quat_from_axis_angle, quat_from_euler_xyz
from solvers.two_bone_limits import solve_two_bone_limited

SETTINGS = settings(max_examples=200, derandomize=True, deadline=None)
REST = [[0.0, 0.0, 0.0, 1.0]] * 2
ELBOW = Hinge((1.0, 0.0, 0.0), 0.0, 2.6)  # the bench's human elbow: one-sided
SHOULDER = SwingTwistLimit((-1.2, -1.4, -1.5), (1.6, 1.4, 1.0))
# An arm whose forearm is bent 0.1 rad about Z at rest: its hinge (X) is not the rest bend's axis.
ARM = Chain(np.eye(4), [[0.0, 0.0, 0.0], [0.0, 0.3, 0.0]],
            [[0.0, 0.0, 0.0, 1.0], quat_from_axis_angle([0.0, 0.0, 1.0], 0.1)], [0.3, 0.28])
angle = st.floats(-math.pi, math.pi)


def tip(rotations, stretch=None):
    return chain_pose(ARM, rotations, stretch)[1][-1]


def assert_within(limits, rotations):
    for limit, q in zip(limits, rotations):
        assert limit is None or limit_violation((limit,), q) <= 1e-7  # limit_violation's acos resolves 3e-8


def inside(low, high):
    """Angles strictly inside [low, high]: on a limit's edge the rolls it allows can shrink to a
    point, which the scan of rolls may step over (poses there have no area: the bench never
    draws them)."""
    return st.floats(low + MARGIN, high - MARGIN)


MARGIN = 1e-3


@SETTINGS
@given(st.tuples(angle, angle, angle), st.tuples(*map(inside, SHOULDER.min, SHOULDER.max)), inside(0.0, 2.6),
       st.booleans(), st.booleans(), st.tuples(angle, angle, angle))
def test_a_hinged_forearm_reaches_every_tip_within_its_limits(free, box, elbow, limited, poled, pole):
    """Tips of poses inside the limits (free or swing-twist-limited shoulder, one-sided elbow hinge)
    are reached from rest, with or without a pole, and the answer stays inside the limits."""
    limits = (SHOULDER if limited else None, ELBOW)
    shoulder = box if limited else free
    start = rotation_within(SHOULDER, shoulder) if limited else quat_from_euler_xyz(shoulder)
    target = tip([start, quat_from_axis_angle([1.0, 0.0, 0.0], elbow)])
    result = solve_two_bone_limited(ARM, REST, target, limits, pole if poled else None)
    assert result.converged and np.linalg.norm(tip(result.rotations) - target) <= 1e-6
    assert math.isclose(result.errors[0], np.linalg.norm(tip(result.rotations) - target), abs_tol=1e-12)
    assert_within(limits, result.rotations)


FOREARM_BOX = SwingTwistLimit((0.0, -0.3, -0.2), (2.6, 0.3, 0.2))  # a forearm bending about X, a little give in Y, Z


@SETTINGS
@given(st.tuples(*map(inside, SHOULDER.min, SHOULDER.max)), st.tuples(*map(inside, FOREARM_BOX.min, FOREARM_BOX.max)),
       st.booleans())
def test_a_swing_twist_limited_arm_reaches_every_tip_within_its_limits(shoulder, forearm, poled):
    """Both bones held to swing-twist limits (the forearm not a hinge): tips of poses inside them are
    reached, within the limits (the free bend clamped would lose the distance)."""
    limits = (SHOULDER, FOREARM_BOX)
    target = tip([rotation_within(SHOULDER, shoulder), rotation_within(FOREARM_BOX, forearm)])
    result = solve_two_bone_limited(ARM, REST, target, limits, (0.0, 0.3, 1.0) if poled else None)
    assert result.converged and np.linalg.norm(tip(result.rotations) - target) <= 1e-6
    assert_within(limits, result.rotations)


@SETTINGS
@given(st.tuples(st.floats(-1.0, 1.0), st.floats(-1.0, 1.0), st.floats(-1.0, 1.0)))
def test_a_pole_or_start_does_not_move_a_hinged_answer_off_the_target(target):
    """Where the free answer already fits the limits, the limited one is it: same tip, same pose."""
    target = np.array(target)
    assume(0.1 < np.linalg.norm(target) < 0.55)
    free = solve_two_bone_limited(ARM, REST, target, (None, None))
    hinged = solve_two_bone_limited(ARM, REST, target, (None, Hinge((1.0, 0.0, 0.0), -math.pi, math.pi)))
    assert free.converged and hinged.converged
    assert np.linalg.norm(tip(hinged.rotations) - target) <= 1e-6


def test_a_target_the_hinge_cannot_reach_is_answered_within_it_and_says_so():
    """Nearer the shoulder than the elbow's range folds (it stops at 1.0 rad): the nearest answer
    the hinge allows, ``converged`` False, the residual its true distance, the elbow held."""
    limits = (None, Hinge((1.0, 0.0, 0.0), 0.0, 1.0))
    target = np.array([0.0, 0.1, 0.1])
    result = solve_two_bone_limited(ARM, REST, target, limits)
    miss = np.linalg.norm(tip(result.rotations) - target)
    assert not result.converged and miss > 0.1 and math.isclose(result.errors[0], miss, rel_tol=1e-12)
    assert_within(limits, result.rotations)
    folded = tip([result.rotations[0], quat_from_axis_angle([1.0, 0.0, 0.0], 1.0)])
    assert np.linalg.norm(folded - tip(result.rotations)) < 1e-9  # the hinge's end: the nearest it goes


def test_a_shoulder_that_cannot_turn_there_leaves_a_plain_miss():
    """A shoulder held to a narrow box cannot point the arm behind it: a miss, in limits."""
    limits = (SwingTwistLimit((-0.1, -0.1, -0.1), (0.1, 0.1, 0.1)), ELBOW)
    result = solve_two_bone_limited(ARM, REST, [0.0, -0.3, 0.1], limits)
    assert not result.converged and result.errors[0] > 0.1
    assert_within(limits, result.rotations)
    assert result.at_limit.any()


def test_stretch_and_unsolvable_input_pass_through():
    """A target beyond reach with stretch grows the bones as the free solve does (for a hinge
    that can lay the arm straight: about the rest bend's axis); a non-finite target leaves the
    pose as it was."""
    straightens = Hinge((0.0, 0.0, 1.0), -1.0, 1.0)
    result = solve_two_bone_limited(ARM, REST, [0.0, 1.0, 0.2], (None, straightens), stretch=[1.0, 1.0])
    assert result.stretch.min() > 1.0 and result.converged
    kept = solve_two_bone_limited(ARM, REST, [math.nan, 0.0, 0.0], (SHOULDER, ELBOW))
    np.testing.assert_array_equal(kept.rotations, REST)
    assert not kept.converged and not np.isfinite(kept.errors).all()


finite = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=100, derandomize=True, deadline=None)
@given(st.tuples(finite, finite, finite), st.tuples(finite, finite, finite), st.booleans())
def test_any_finite_target_and_pole_give_a_finite_answer_within_the_limits(target, pole, poled):
    result = solve_two_bone_limited(ARM, REST, target, (SHOULDER, ELBOW), pole if poled else None,
                                    end_rotation=(0.0, 0.0, 0.0, 1.0))
    assert np.isfinite(result.rotations).all() and np.isfinite(result.errors).all()
    assert_within((SHOULDER, ELBOW), result.rotations)
