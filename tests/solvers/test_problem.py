"""The one problem type every method runs through (``solvers.problem``): reachable targets reached,
lengths kept, one residual per goal in its unit, limits held, determinism and degenerate input."""
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from solvers.chain import chain_points, straight_chain
from solvers.goals import BoneDofs, JointRotationGoal, PositionGoal, RotationGoal
from solvers.limits import LOCK_TOLERANCE, Hinge, SwingTwistLimit, limit_violation, swing_twist_angles
from solvers.methods import METHODS, solve
from solvers.problem import Freedoms, Problem, Settings
from solvers.transforms import quat_from_rotvec
from solvers.tree import Tree

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True)
ITERATIVE = ["fabrik", "ccd", "dls", "sdls"]
REST3 = np.tile([0.0, 0.0, 0.0, 1.0], (3, 1))
directions = st.tuples(*[st.floats(-1.0, 1.0)] * 3)


def reachable(direction, fraction, reach):
    direction = np.asarray(direction, float)
    assume(np.linalg.norm(direction) > 0.1)
    return direction / np.linalg.norm(direction) * fraction * reach


@pytest.mark.parametrize("method", ITERATIVE)
@SETTINGS
@given(direction=directions, fraction=st.floats(0.3, 0.9))
def test_reachable_targets_are_reached_with_lengths_kept(method, direction, fraction):
    chain = straight_chain([0.5, 0.4, 0.3])
    target = reachable(direction, fraction, 1.2)
    problem = Problem(chain, (PositionGoal(2, target),), Freedoms.free(3))
    result = solve(method, problem, REST3, Settings(200, 1e-6))
    points = chain_points(chain, result.rotations, result.stretch)
    assert np.linalg.norm(points[-1] - target) < 1e-3
    np.testing.assert_allclose(np.linalg.norm(np.diff(points, axis=0), axis=1), chain.lengths, rtol=1e-9)
    assert result.errors.shape == (1,) and result.units == ("m",)
    np.testing.assert_allclose(result.errors[0], np.linalg.norm(points[-1] - target), atol=1e-9)


@pytest.mark.parametrize("method", ["two_bone"] + ITERATIVE)
def test_every_goal_gets_a_residual_in_its_unit(method):
    chain = straight_chain([0.5, 0.4])
    goals = (PositionGoal(1, (0.3, 0.5, 0.2)), RotationGoal(1, (0.0, 0.0, 0.3826834, 0.9238795)),
             JointRotationGoal(0, (0.0, 0.0, 0.0, 1.0), 0.5))
    result = solve(method, Problem(chain, goals, Freedoms.free(2)), REST3[:2], Settings(50, 1e-4))
    assert result.units == ("m", "rad", "rad")
    assert result.errors.shape == (3,) and np.isfinite(result.errors).all() and (result.errors >= 0).all()
    if method == "two_bone":  # it turns the end only with the freedom the reach leaves
        assert result.errors[0] < 1e-6


def test_a_one_bone_chain_reports_its_aim_as_an_angle():
    chain = straight_chain([0.5])
    result = solve("one_bone", Problem(chain, (PositionGoal(0, (1.0, 1.0, 0.0)),), Freedoms.free(1)),
                   REST3[:1], Settings())
    assert result.units == ("rad",) and result.errors[0] < 1e-9


def test_freedoms_are_derived_once_from_the_bone_settings():
    hinge = BoneDofs(lock=(False, True, True), use_limit=(True, False, False), limit_min=(0.0, -3, -3),
                     limit_max=(2.0, 3, 3))
    per_axis = BoneDofs(use_limit=(True, True, True), limit_min=(-0.5,) * 3, limit_max=(0.5,) * 3, stretch=0.2,
                        stiffness=(0.5, 0.0, 0.0))
    freedoms = Freedoms((hinge, per_axis, None))
    assert isinstance(freedoms.limits[0], Hinge) and isinstance(freedoms.limits[1], SwingTwistLimit)
    assert freedoms.limits[2] is None
    np.testing.assert_array_equal(freedoms.stretch, [0.0, 0.2, 0.0])
    np.testing.assert_array_equal(freedoms.stiffness[1], [0.5, 0.0, 0.0])
    free = Freedoms.free(3)
    assert free.limits is None and free.stretch is None and free.stiffness is None


@pytest.mark.parametrize("method", ["two_bone"] + ITERATIVE)
@SETTINGS
@given(direction=directions, fraction=st.floats(0.2, 1.3))
def test_limits_hold_and_the_answer_is_the_same_twice(method, direction, fraction):
    chain = straight_chain([0.5, 0.4])
    elbow = BoneDofs(lock=(False, True, True), use_limit=(True, False, False), limit_min=(0.0, -3, -3),
                     limit_max=(2.4, 3, 3))
    shoulder = BoneDofs(use_limit=(True, True, True), limit_min=(-1.0, -0.5, -1.0), limit_max=(1.0, 0.5, 1.0))
    freedoms = Freedoms((shoulder, elbow))
    problem = Problem(chain, (PositionGoal(1, reachable(direction, fraction, 0.9)),), freedoms)
    first = solve(method, problem, REST3[:2], Settings(100, 1e-4))
    second = solve(method, problem, REST3[:2], Settings(100, 1e-4))
    np.testing.assert_array_equal(first.rotations, second.rotations)
    for limit, rotation in zip(freedoms.limits, first.rotations):
        assert limit_violation((limit,), rotation) <= 1e-6


@pytest.mark.parametrize("method", ["fabrik", "dls"])
def test_a_tree_takes_one_residual_per_goal(method):
    tree = Tree(np.eye(4), [-1, 0, 0], [[0, 0, 0], [0, 0.5, 0], [0, 0.5, 0]], np.tile([0.0, 0, 0, 1], (3, 1)),
                [0.5, 0.4, 0.4])
    goals = (PositionGoal(1, (0.3, 0.7, 0.0), chain_length=2), PositionGoal(2, (-0.3, 0.7, 0.0), chain_length=2),
             RotationGoal(2, (0.0, 0.0, 0.0, 1.0)))
    result = solve(method, Problem(tree, goals, Freedoms.free(3)), REST3, Settings(100, 1e-4))
    assert result.units == ("m", "m", "rad")
    assert result.errors.shape == (3,) and np.isfinite(result.errors).all()


@pytest.mark.parametrize("method", ["two_bone"] + ITERATIVE)
def test_a_target_far_out_of_reach_lays_the_chain_straight_without_nan(method):
    chain = straight_chain([0.5, 0.4])
    result = solve(method, Problem(chain, (PositionGoal(1, (1e9, 0.0, 0.0)),), Freedoms.free(2)), REST3[:2],
                   Settings(50, 1e-4))
    points = chain_points(chain, result.rotations)
    assert np.isfinite(result.rotations).all() and np.isfinite(result.errors).all()
    np.testing.assert_allclose((points[-1] - points[0]) / 0.9, [1.0, 0.0, 0.0], atol=1e-3)


def test_a_goal_with_a_non_finite_target_is_refused_when_it_is_made():
    with pytest.raises(ValueError, match="target"):
        PositionGoal(1, (np.nan, 0.0, 0.0))
    with pytest.raises(ValueError, match="pole"):
        PositionGoal(1, (0.0, 0.0, 0.0), pole=(np.inf, 0.0, 0.0))


SWING_JOINTS = (BoneDofs(lock=(False, True, False)),
                BoneDofs(lock=(False, True, False), use_limit=(True, False, True), limit_min=(-0.7, -3, -0.4),
                         limit_max=(0.5, 3, 0.9)))
CHAIN_SIZE = {"one_bone": 1, "two_bone": 2}


@pytest.mark.parametrize("method", list(METHODS))
@settings(max_examples=20, deadline=None, derandomize=True)
@given(direction=directions, fraction=st.floats(0.1, 1.5), limited=st.booleans(),
       start=st.lists(st.tuples(*[st.floats(-1.0, 1.0)] * 3), min_size=3, max_size=3), turn=st.booleans())
def test_a_bone_whose_y_is_locked_never_twists(method, direction, fraction, limited, start, turn):
    """Blender's lock Y: a swing joint, whatever the target (near, far, behind), the start pose
    (twisted ones included) or a rotation goal that a twist would serve."""
    n = CHAIN_SIZE.get(method, 3)
    chain = straight_chain([0.5, 0.4, 0.3][:n])
    target = reachable(direction, fraction, chain.reach)
    goals = (PositionGoal(n - 1, target),) + ((RotationGoal(n - 1, (0.0, 0.6, 0.0, 0.8)),) if turn else ())
    poses = np.array([quat_from_rotvec(np.asarray(v)) for v in start[:n]])
    result = solve(method, Problem(chain, goals, Freedoms((SWING_JOINTS[limited],) * n)), poses, Settings(100, 1e-4))
    twists = [abs(swing_twist_angles(tuple(q))[1]) for q in result.rotations]
    assert max(twists) <= LOCK_TOLERANCE, twists
