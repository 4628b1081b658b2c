"""The compiled forward kinematics (``solvers.kinematics``): degenerate channels give no NaN that
was not in the input, and a zero parent scale collapses nothing."""
import numpy as np

from solvers.kinematics import update_world


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


def test_a_parent_scale_moves_the_childs_head_but_not_its_axes():
    world = two_bones(np.tile([0.0, 0.0, 0.0, 1.0], (2, 1)), [[1.0, 2.5, 1.0], [1.0, 1.0, 1.0]])
    np.testing.assert_allclose(world[1, :3, 3], [0.0, 2.5, 0.0])
    np.testing.assert_allclose(world[1, :3, :3], np.eye(3))


def test_a_zero_parent_scale_collapses_nothing():
    world = two_bones(np.tile([0.0, 0.0, 0.0, 1.0], (2, 1)), [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    assert np.isfinite(world).all()
    np.testing.assert_allclose(world[1, :3, :3], np.zeros((3, 3)))  # the parent's axes are gone: so are its child's
    np.testing.assert_allclose(world[1, :3, 3], [0.0, 0.0, 0.0])
