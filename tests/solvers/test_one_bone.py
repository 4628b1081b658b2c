import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from solvers.chain import Chain, chain_pose, straight_chain
from solvers.one_bone import solve_one_bone, validate_one_bone
from solvers.transforms import compose, quat_from_axis_angle

IDENTITY = np.array([[0.0, 0.0, 0.0, 1.0]])
coord = st.floats(-3.0, 3.0)


def tilted_bone():
    base = compose([0.3, -0.2, 0.5], quat_from_axis_angle([1.0, 2.0, 0.5], 0.7))
    return Chain(base, [[0.1, 0.2, 0.0]], quat_from_axis_angle([0.0, 0.0, 1.0], 0.4)[None], [1.5])


@settings(max_examples=50, derandomize=True, deadline=None)
@given(st.tuples(coord, coord, coord))
def test_bone_points_at_target(target):
    chain = tilted_bone()
    head = chain_pose(chain, IDENTITY)[1][0]
    assume(np.linalg.norm(np.subtract(target, head)) >= 1e-3)
    result = solve_one_bone(chain, IDENTITY, target)
    world = chain_pose(chain, result.rotations)[0]
    aim = (np.asarray(target) - head) / np.linalg.norm(np.subtract(target, head))
    assert np.dot(world[0, :, 1], aim) > 1.0 - 1e-12
    assert result.converged and result.errors[0] < 1e-9


def test_hand_solved_aim_keeps_roll():
    chain = straight_chain([1.0])
    result = solve_one_bone(chain, IDENTITY, [1.0, 0.0, 0.0])
    expected = quat_from_axis_angle([0.0, 0.0, 1.0], -np.pi / 2)
    assert abs(np.dot(result.rotations[0], expected)) == pytest.approx(1.0, abs=1e-12)


def test_pole_rolls_up_axis_toward_pole():
    chain = straight_chain([1.0])
    result = solve_one_bone(chain, IDENTITY, [0.0, 0.0, 2.0], pole=[5.0, 3.0, 1.0], pole_angle=0.0)
    world = chain_pose(chain, result.rotations)[0][0]
    np.testing.assert_allclose(world[:, 1], [0.0, 0.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(world[:, 0], np.array([5.0, 3.0, 0.0]) / np.hypot(5.0, 3.0), atol=1e-12)


def test_degenerate_inputs_keep_pose():
    chain = straight_chain([1.0])
    start = quat_from_axis_angle([1.0, 0.0, 0.0], 0.3)[None]
    at_head = solve_one_bone(chain, start, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(at_head.rotations, start)
    nan = solve_one_bone(chain, start, [np.nan, 0.0, 1.0])
    np.testing.assert_array_equal(nan.rotations, start)
    assert not nan.converged
    on_line = solve_one_bone(chain, start, [0.0, 0.0, 2.0], pole=[0.0, 0.0, 5.0])
    assert np.isfinite(on_line.rotations).all() and on_line.converged


def test_validation():
    with pytest.raises(ValueError):
        validate_one_bone(straight_chain([1.0, 1.0]))
    with pytest.raises(ValueError):
        validate_one_bone(straight_chain([0.0]))
