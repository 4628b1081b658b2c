"""IK stretch in the iterative chain solvers: a target out of reach is met by growing the bones by
their stretch amounts, a target within reach grows nothing; the bones share the extra length as
Blender does."""
import numpy as np
import pytest
import pytest
from hypothesis import assume, given, settings, strategies as st

from solvers.ccd import solve_ccd_chain
from solvers.chain import chain_points, straight_chain
from solvers.dls import dls_plan, solve_dls
from solvers.fabrik import solve_fabrik_chain
from solvers.goals import BoneDofs, PositionGoal
from solvers.tree import Tree
from solvers.two_bone import solve_two_bone

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


def _dls_chain(chain, rotations, target, stretch):
    tree = Tree(chain.base, np.arange(len(chain)) - 1, chain.offsets, chain.rest_rotations, chain.lengths)
    plan = dls_plan(tree, [PositionGoal(len(chain) - 1, target)], [BoneDofs(stretch=s) for s in stretch])
    return solve_dls(plan, rotations, max_iterations=200, tolerance=1e-9)


@pytest.mark.parametrize("solve", [solve_fabrik_chain, solve_ccd_chain, solve_two_bone, _dls_chain])
def test_bones_share_the_extra_length_as_blender_does(solve):
    """Blender 3.4 grows each bone by a share of the extra length that goes with the cube of its
    IK stretch, whatever its length (tests/data/blender_ik_reference.json): amounts 1 and 0.5
    share 8 to 1."""
    chain = straight_chain([0.3, 0.28])
    rest = np.tile([0.0, 0.0, 0.0, 1.0], (2, 1))
    if solve is solve_two_bone:
        result = solve(chain, rest, np.array([0.0, 0.76, 0.0]), stretch=np.array([1.0, 0.5]))
    elif solve is _dls_chain:
        result = solve(chain, rest, np.array([0.0, 0.76, 0.0]), [1.0, 0.5])
    else:
        result = solve(chain, rest, np.array([0.0, 0.76, 0.0]), max_iterations=100, tolerance=1e-9,
                       stretch=np.array([1.0, 0.5]))
    np.testing.assert_allclose((result.stretch - 1.0) * chain.lengths, [0.16, 0.02], atol=1e-6)


def test_a_rebased_chain_measures_its_reach_from_its_new_root():
    chain = straight_chain([0.3, 0.25, 0.2, 0.15])
    assert chain.reach == pytest.approx(0.9) and np.allclose(chain.root, 0.0)
    base = np.eye(4)
    base[:3, 3] = [1.0, 2.0, 3.0]
    moved = chain.rebased(base)
    assert np.allclose(moved.root, [1.0, 2.0, 3.0]) and moved.reach == chain.reach
