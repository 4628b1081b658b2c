"""IK stretch in the iterative chain solvers: a target out of reach is met by growing the bones by
their stretch amounts, a target within reach grows nothing."""
import numpy as np
from hypothesis import assume, given, settings, strategies as st

from solvers.ccd import solve_ccd_chain
from solvers.chain import chain_points, straight_chain
from solvers.fabrik import solve_fabrik_chain

SOLVERS = {"fabrik": solve_fabrik_chain, "ccd": solve_ccd_chain}
SETTINGS = settings(max_examples=30, deadline=None, derandomize=True)
directions = st.tuples(*[st.floats(-1, 1)] * 3)


@SETTINGS
@given(solver=st.sampled_from(sorted(SOLVERS)), direction=directions, beyond=st.floats(0.05, 2.0),
       amounts=st.lists(st.one_of(st.just(0.0), st.floats(0.01, 1.0)), min_size=4, max_size=4))
def test_a_far_target_is_met_by_stretching(solver, direction, beyond, amounts):
    assume(np.linalg.norm(direction) > 0.1 and sum(amounts) > 0.05)
    chain = straight_chain([0.3, 0.25, 0.2, 0.15])
    target = np.array(direction) / np.linalg.norm(direction) * (0.9 + beyond)
    result = SOLVERS[solver](chain, np.tile([0.0, 0.0, 0.0, 1.0], (4, 1)), target, max_iterations=100,
                             tolerance=1e-6, stretch=np.array(amounts))
    tip = chain_points(chain, result.rotations, result.stretch)[-1]
    assert np.linalg.norm(tip - target) < 1e-4
    assert result.errors[0] < 1e-4
    grown = np.flatnonzero(np.array(amounts) > 0)
    assert (result.stretch[grown] > 1.0).all()
    np.testing.assert_array_equal(result.stretch[np.array(amounts) == 0], 1.0)


@SETTINGS
@given(solver=st.sampled_from(sorted(SOLVERS)), direction=directions, distance=st.floats(0.1, 0.85))
def test_a_target_within_reach_stretches_nothing(solver, direction, distance):
    assume(np.linalg.norm(direction) > 0.1)
    chain = straight_chain([0.3, 0.25, 0.2, 0.15])
    target = np.array(direction) / np.linalg.norm(direction) * distance
    result = SOLVERS[solver](chain, np.tile([0.0, 0.0, 0.0, 1.0], (4, 1)), target, max_iterations=100,
                             tolerance=1e-6, stretch=np.full(4, 0.5))
    np.testing.assert_array_equal(result.stretch, 1.0)
