"""The compiled forward kinematics (``solvers.kinematics``): degenerate channels give no NaN that
was not in the input, scale is inherited, and the solvers' body agrees with the rig's."""
import numpy as np
from hypothesis import given, settings, strategies as st

from solvers.ccd import _free_tables
from solvers.chain import Chain, bone_hierarchy
from solvers.fabrik import Effector, fabrik_plan
from solvers.fabrik_step import pose
from solvers.kinematics import BoneTree, pose_matrices, stretch_scales, update_world
from solvers.transforms import compose, quat_normalize, quat_to_matrix3
from solvers.tree import Tree


def two_bones(rotations, scales):
    """A root and a child one unit up its Y, posed by ``rotations`` (2, 4) and ``scales`` (2, 3)."""
    rest_local = np.tile(np.eye(4), (2, 1, 1))
    rest_local[1, 1, 3] = 1.0
    world = np.empty((2, 4, 4))
    update_world(rest_local, np.array([-1, 0]), np.array([0, 1]), np.zeros((2, 3)), np.asarray(rotations, float),
                 np.asarray(scales, float), world)
    return world


def test_a_zero_or_non_finite_quaternion_counts_as_no_rotation():
    for bad in ([0.0, 0.0, 0.0, 0.0], [np.nan, 0.0, 0.0, 1.0]):
        world = two_bones([bad, [0.0, 0.0, 0.0, 1.0]], np.ones((2, 3)))
        np.testing.assert_array_equal(world[0], np.eye(4))
        np.testing.assert_array_equal(world[1, :3, 3], [0.0, 1.0, 0.0])


def test_a_quaternion_of_any_length_turns_as_its_unit_quaternion():
    half_turn_about_z = np.array([0.0, 0.0, 1.0, 0.0])
    world = two_bones([3.0 * half_turn_about_z, [0.0, 0.0, 0.0, 1.0]], np.ones((2, 3)))
    np.testing.assert_allclose(world[1, :3, 3], [0.0, -1.0, 0.0], atol=1e-15)


def test_a_parent_scale_is_inherited_by_the_child():
    """Blender's default and glTF: the child's head rides on the scaled parent and its frame
    carries the parent's scale times its own."""
    world = two_bones(np.tile([0.0, 0.0, 0.0, 1.0], (2, 1)), [[1.0, 2.5, 1.0], [2.0, 1.0, 1.0]])
    np.testing.assert_allclose(world[1, :3, 3], [0.0, 2.5, 0.0])
    np.testing.assert_allclose(world[1, :3, :3], np.diag([2.0, 2.5, 1.0]))


def test_a_zero_parent_scale_gives_finite_children():
    world = two_bones(np.tile([0.0, 0.0, 0.0, 1.0], (2, 1)), [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    assert np.isfinite(world).all()
    np.testing.assert_allclose(world[1, :3, :3], np.zeros((3, 3)))  # the parent's axes are gone: so are its child's
    np.testing.assert_allclose(world[1, :3, 3], [0.0, 0.0, 0.0])


def test_stretch_scales_are_each_bones_stretch_over_its_parents():
    np.testing.assert_allclose(stretch_scales([-1, 0, 1, 0], [2.0, 3.0, 1.0, 0.0]),
                               np.repeat([[2.0], [1.5], [1.0 / 3.0], [0.0]], 3, axis=1))
    np.testing.assert_array_equal(stretch_scales([-1, 0], [0.0, 2.0]), [[0.0] * 3, [2.0] * 3])  # no inverse of 0


def random_tree(rng, n):
    """A random tree of ``n`` bones (parents before children) on a random rigid base."""
    return Tree(compose(rng.normal(size=3), quat_normalize(rng.normal(size=4))),
                [int(rng.integers(-1, i)) for i in range(n)], rng.normal(size=(n, 3)),
                quat_normalize(rng.normal(size=(n, 4))), rng.uniform(0.1, 2.0, n))


def rig_pose(tree, quats, stretch):
    """World rotations (unscaled), heads and tails by the rig's ``update_world``, the whole stretch
    per bone written as inherited scales."""
    hierarchy = bone_hierarchy(tree.base, tree.parents, tree.offsets, tree.rest_rotations)
    frames = np.empty((len(tree), 4, 4))
    update_world(hierarchy.rest_local, hierarchy.parents, hierarchy.bones, hierarchy.locations, quats,
                 stretch_scales(tree.parents, stretch), frames)
    world = frames[:, :3, :3] / stretch[:, None, None]
    heads = frames[:, :3, 3]
    return world, heads, heads + frames[:, :3, 1] * tree.lengths[:, None]


@settings(max_examples=25, derandomize=True, deadline=None)
@given(st.integers(1, 8), st.integers(0, 2 ** 32 - 1))
def test_the_solvers_forward_kinematics_agrees_with_the_rigs_on_random_trees_with_stretch(n, seed):
    """``pose_bones`` (through ``pose_matrices``) gives the rig's world rotations, heads and tails;
    a stretched bone moves its children's heads by its stretch and its frame stays rigid."""
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n)
    quats = quat_normalize(rng.normal(size=(n, 4)))
    stretch = rng.uniform(0.5, 3.0, n)
    posed = pose_matrices(*tree.bone_tree, stretch, quats)
    before, world, heads, tails = posed[:, 0:3], posed[:, 3:6], posed[:, 6], posed[:, 7]
    rig_world, rig_heads, rig_tails = rig_pose(tree, quats, stretch)
    np.testing.assert_allclose(world, rig_world, rtol=0.0, atol=1e-12)
    np.testing.assert_allclose(before, rig_world @ np.swapaxes(quat_to_matrix3(quats), -1, -2), rtol=0.0, atol=1e-12)
    np.testing.assert_allclose(heads, rig_heads, rtol=0.0, atol=1e-12)
    np.testing.assert_allclose(tails, rig_tails, rtol=0.0, atol=1e-12)


@settings(max_examples=10, derandomize=True, deadline=None)
@given(st.integers(1, 8), st.integers(0, 2 ** 32 - 1))
def test_ccd_and_fabrik_tables_pose_bones_as_the_rig_does(n, seed):
    """The kernels' tables carry the tree as ``pose_bones`` reads it: CCD's chain and FABRIK's
    tree (through its ``pose``) come out where the rig puts them."""
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n)
    quats = quat_normalize(rng.normal(size=(n, 4)))
    unstretched = np.ones(n)
    rig_world, rig_heads, rig_tails = rig_pose(tree, quats, unstretched)
    local = np.ascontiguousarray(quat_to_matrix3(quats))
    world, heads, tails = pose(fabrik_plan(tree, [Effector(n - 1)]).tables, local)
    np.testing.assert_allclose(world, rig_world, rtol=0.0, atol=1e-12)
    np.testing.assert_allclose(heads, rig_heads, rtol=0.0, atol=1e-12)
    np.testing.assert_allclose(tails, rig_tails, rtol=0.0, atol=1e-12)
    chain = Chain(tree.base, tree.offsets, tree.rest_rotations, tree.lengths)
    as_tree = Tree.from_chain(chain)
    posed = pose_matrices(*_free_tables(chain)[:len(BoneTree._fields)], unstretched, quats)
    world, heads, tails = posed[:, 3:6], posed[:, 6], posed[:, 7]
    chain_world, chain_heads, chain_tails = rig_pose(as_tree, quats, unstretched)
    np.testing.assert_allclose(world, chain_world, rtol=0.0, atol=1e-12)
    np.testing.assert_allclose(heads, chain_heads, rtol=0.0, atol=1e-12)
    np.testing.assert_allclose(tails, chain_tails, rtol=0.0, atol=1e-12)
