"""The Chain's checks and its rebasing for chains whose parent moves between solves."""
import numpy as np
import pytest

from solvers.chain import Chain, SolveResult, chain_points, straight_chain
from solvers.transforms import quat_from_axis_angle, quat_to_matrix3


def moved_base(angle, origin):
    base = np.eye(4)
    base[:3, :3] = quat_to_matrix3(quat_from_axis_angle([0.3, 1.0, -0.2], angle))
    base[:3, 3] = origin
    return base


def test_rebased_chain_matches_one_built_on_that_base_and_leaves_the_original_alone():
    offsets = [[0.0, 0.0, 0.0], [0.05, 0.5, 0.0], [0.0, 0.4, -0.1]]
    rest = quat_from_axis_angle([1.0, 0.0, 0.0], [0.1, -0.2, 0.3])
    chain = Chain(moved_base(0.4, [0.1, 1.0, 0.2]), offsets, rest, [0.5, 0.4, 0.3])
    pose = quat_from_axis_angle([0.0, 0.2, 1.0], [0.5, 0.1, -0.4])
    before, floats = chain_points(chain, pose), chain.floats
    base = moved_base(-1.1, [0.5, -0.3, 2.0])
    rebased = chain.rebased(base)
    fresh = Chain(base, offsets, rest, [0.5, 0.4, 0.3])
    np.testing.assert_allclose(chain_points(rebased, pose), chain_points(fresh, pose), atol=1e-12)
    np.testing.assert_allclose(rebased.floats[0], fresh.floats[0], atol=1e-12)
    np.testing.assert_allclose(rebased.float_rest_points, fresh.float_rest_points, atol=1e-12)
    np.testing.assert_array_equal(chain_points(chain, pose), before)
    assert chain.floats == floats


def test_a_rebased_chain_shares_what_its_bones_determine_and_rebuilds_what_its_base_does():
    """What the chain caches may depend on its base and is built again; its shape's caches (the
    bones alone) are shared, so a solve on a moved chain does not redo them."""
    chain = straight_chain([0.5, 0.4, 0.3], moved_base(0.4, [0.1, 1.0, 0.2]))
    built = chain.cached_for_base("plan", lambda: object())
    chain.floats, chain.root, chain.reach  # noqa: B018 - fill the caches
    rebased = chain.rebased(moved_base(-1.1, [0.5, -0.3, 2.0]))
    assert rebased.shape is chain.shape and rebased.shape.floats is chain.shape.floats
    assert rebased.cached_for_base("plan", lambda: object()) is not built
    assert chain.cached_for_base("plan", lambda: object()) is built
    assert rebased.floats[2:] == chain.floats[2:] and rebased.floats[:2] != chain.floats[:2]
    np.testing.assert_allclose(rebased.root, [0.5, -0.3, 2.0])


@pytest.mark.parametrize("base", [np.diag([2.0, 1.0, 1.0, 1.0]), np.diag([-1.0, 1.0, 1.0, 1.0]),
                                  np.full((4, 4), np.nan), np.eye(3)])
def test_rebased_rejects_a_base_that_is_not_rigid(base):
    with pytest.raises(ValueError):
        straight_chain([1.0, 1.0]).rebased(base)


@pytest.mark.parametrize("pole", [[0.0, 2.0, 2.0], None])  # the generic solve, the inlined no-pole one
def test_a_rebased_limb_solves_from_its_new_base_not_the_cached_old_one(pole):
    """The two-bone solver caches the limb's root and root rotation on the chain; a rebased chain
    must not inherit them."""
    from solvers.two_bone import solve_two_bone
    offsets, lengths = [[0.0, 0.0, 0.0], [0.0, 0.5, 0.05]], [0.5, 0.45]
    rest = np.tile([0.0, 0.0, 0.0, 1.0], (2, 1))
    chain = Chain(moved_base(0.4, [0.1, 1.0, 0.2]), offsets, rest, lengths)
    target = [0.4, 1.2, 0.5]
    solve_two_bone(chain, rest, target, pole)
    base = moved_base(-0.7, [0.3, 0.9, 0.1])
    rebased = solve_two_bone(chain.rebased(base), rest, target, pole)
    fresh = solve_two_bone(Chain(base, offsets, rest, lengths), rest, target, pole)
    np.testing.assert_allclose(rebased.rotations, fresh.rotations, atol=1e-12)
    assert rebased.errors[0] < 1e-9


def test_default_stretch_and_limits_are_shared_read_only():
    """A result without stretch or limits gets ones and False that no caller can change for the
    next result."""
    result = SolveResult(np.tile([0.0, 0.0, 0.0, 1.0], (3, 1)), 1, np.zeros(1), True)
    np.testing.assert_array_equal(result.stretch, np.ones(3))
    assert result.at_limit.shape == (3, 3) and not result.at_limit.any()
    with pytest.raises(ValueError):
        result.stretch[0] = 2.0
    with pytest.raises(ValueError):
        result.at_limit[0, 0] = True
    given = SolveResult(np.tile([0.0, 0.0, 0.0, 1.0], (3, 1)), 1, np.zeros(1), True, np.full(3, 2.0))
    given.stretch[0] = 3.0
    assert given.stretch[0] == 3.0 and result.stretch[0] == 1.0
