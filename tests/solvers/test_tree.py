import numpy as np
from hypothesis import given, settings, strategies as st

from solvers.chain import Chain, chain_pose
from solvers.transforms import compose, quat_from_axis_angle, quat_normalize, quat_to_matrix3
from solvers.tree import Tree, tree_pose, tree_pose_rows


def test_tree_pose_matches_chain_pose_with_stretch():
    rest = quat_from_axis_angle([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.3, 1.0, 0.0]], [0.2, -0.4, 0.7])
    base = compose([0.5, 1.0, -0.2], quat_from_axis_angle([0.0, 1.0, 0.0], 0.8))
    chain = Chain(base, [[0.1, 0.2, 0.0], [0.0, 1.0, 0.1], [0.05, 0.8, 0.0]], rest, [1.0, 0.8, 0.6])
    rotations = quat_from_axis_angle([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 1.0]], [0.5, 1.1, -0.3])
    stretch = np.array([1.5, 1.0, 2.0])
    world, points = chain_pose(chain, rotations, stretch)
    tree_world, heads, tails = tree_pose(Tree.from_chain(chain), quat_to_matrix3(rotations), stretch)
    np.testing.assert_allclose(tree_world, world, atol=1e-12)
    np.testing.assert_allclose(heads, points[:-1], atol=1e-12)
    np.testing.assert_allclose(tails[-1], points[-1], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(tails - heads, axis=1), chain.lengths * stretch, atol=1e-12)


@settings(max_examples=25, derandomize=True, deadline=None)
@given(st.integers(1, 8), st.integers(0, 2 ** 32 - 1))
def test_float_tree_pose_matches_the_array_one(n, seed):
    """tree_pose_rows (plain floats, the DLS solver's) agrees with tree_pose on random trees,
    rotations (not quite unit, as a solver's may be) and stretch."""
    rng = np.random.default_rng(seed)
    parents = [int(rng.integers(-1, i)) for i in range(n)]
    base = compose(rng.normal(size=3), quat_normalize(rng.normal(size=4)))
    tree = Tree(base, parents, rng.normal(size=(n, 3)), quat_normalize(rng.normal(size=(n, 4))),
                rng.uniform(0.1, 2.0, n))
    quats = quat_normalize(rng.normal(size=(n, 4))) * (1.0 + 1e-9 * rng.normal(size=(n, 1)))
    stretch = rng.uniform(1.0, 3.0, n)
    local = quat_to_matrix3(quats)
    world, heads, tails = tree_pose(tree, local, stretch)
    before, world_rows, head_rows, tail_rows = tree_pose_rows(tree, [tuple(q) for q in quats.tolist()],
                                                              stretch.tolist())
    np.testing.assert_allclose(np.array(world_rows), world, atol=1e-12)
    np.testing.assert_allclose(np.array(before), world @ np.swapaxes(local, -1, -2), atol=1e-12)
    np.testing.assert_allclose(np.array(head_rows), heads, atol=1e-12)
    np.testing.assert_allclose(np.array(tail_rows), tails, atol=1e-12)
