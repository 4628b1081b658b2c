"""Intrinsic Euler angles in every axis order: BVH's CHANNELS convention."""
import itertools

import numpy as np
import pytest

from solvers.transforms import euler_from_matrix3, quat_angle, quat_from_euler, quat_from_euler_xyz, \
    quat_to_matrix3

ORDERS = ["".join(p) for p in itertools.permutations("XYZ")]


def test_intrinsic_order_turns_about_the_moved_axes():
    """"ZX" is R = Rz @ Rx: 90 deg about Z, then 90 deg about the turned X axis."""
    m = quat_to_matrix3(quat_from_euler(np.radians([90.0, 90.0]), "ZX"))
    np.testing.assert_allclose(m @ [1, 0, 0], [0, 1, 0], atol=1e-12)
    np.testing.assert_allclose(m @ [0, 0, 1], [1, 0, 0], atol=1e-12)


def test_blender_xyz_mode_is_intrinsic_zyx():
    angles = np.random.default_rng(2).uniform(-3, 3, (50, 3))
    np.testing.assert_allclose(quat_angle(quat_from_euler(angles[:, ::-1], "ZYX"), quat_from_euler_xyz(angles)), 0.0,
                               atol=1e-7)


@pytest.mark.parametrize("order", ORDERS)
def test_euler_from_matrix_inverts_quat_from_euler(order):
    rng = np.random.default_rng(4)
    angles = rng.uniform(-np.pi, np.pi, (500, 3))
    angles[:, 1] = rng.uniform(-np.pi / 2, np.pi / 2, 500)
    angles[:4, 1] = [np.pi / 2, -np.pi / 2, np.pi / 2 - 1e-9, -np.pi / 2]  # gimbal lock and near it
    m = quat_to_matrix3(quat_from_euler(angles, order))
    back = euler_from_matrix3(m, order)
    np.testing.assert_allclose(quat_to_matrix3(quat_from_euler(back, order)), m, atol=1e-9)
    np.testing.assert_allclose(back[4:], angles[4:], atol=1e-7)  # unique away from gimbal lock
    assert np.all(np.abs(back[:, 1]) <= np.pi / 2 + 1e-12)


def test_euler_order_must_name_three_axes():
    with pytest.raises(ValueError, match="three different axes"):
        euler_from_matrix3(np.eye(3), "XYX")


def test_one_matrix_to_quaternion_matches_the_stacked_path():
    from solvers.transforms import matrix3_to_quat, quat_normalize, quat_to_matrix3
    rng = np.random.default_rng(5)
    quats = quat_normalize(rng.normal(size=(500, 4)))
    quats[:4] = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]  # each branch's extreme
    matrices = quat_to_matrix3(quats)
    stacked = matrix3_to_quat(matrices)
    one_by_one = np.array([matrix3_to_quat(m) for m in matrices])
    np.testing.assert_allclose(one_by_one, stacked, atol=1e-15)
    assert (one_by_one[:, 3] >= 0).all()


def test_one_pair_products_match_the_stacked_path_bit_for_bit():
    """quat_mul, quat_rotate and cross take plain floats for one pair: the same roundings, so a
    tracked clip's poses keep their bits."""
    from solvers.transforms import cross, quat_mul, quat_normalize, quat_rotate
    rng = np.random.default_rng(6)
    sizes = rng.choice([1e-7, 1.0, 1e4], size=(300, 1))
    quats, others = quat_normalize(rng.normal(size=(300, 4))), rng.normal(size=(300, 4)) * sizes
    vectors, more = rng.normal(size=(300, 3)) * sizes, rng.normal(size=(300, 3))
    for one, stacked in ((lambda k: quat_mul(quats[k], others[k]), quat_mul(quats, others)),
                         (lambda k: quat_rotate(quats[k], vectors[k]), quat_rotate(quats, vectors)),
                         (lambda k: cross(vectors[k], more[k]), np.cross(vectors, more))):
        assert np.array_equal(np.array([one(k) for k in range(300)]), stacked)
