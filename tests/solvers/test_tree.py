import numpy as np

from solvers.chain import Chain, chain_pose
from solvers.transforms import compose, quat_from_axis_angle, quat_to_matrix3
from solvers.tree import Tree, tree_pose


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
