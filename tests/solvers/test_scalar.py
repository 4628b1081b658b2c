"""The plain-float helpers agree with their numpy counterparts in solvers.transforms."""
import numpy as np
from hypothesis import given, settings, strategies as st

from solvers import scalar as sc
from solvers.transforms import euler_xyz_from_quat, quat_from_euler_xyz, quat_from_rotvec, quat_normalize, quat_to_matrix3, \
    quat_to_rotvec

SETTINGS = settings(max_examples=40, derandomize=True, deadline=None)
seeds = st.integers(0, 2 ** 32 - 1)
# Each helper's branch points: zero, tiny and half-turn rotations, w < 0, a zero quaternion.
EDGE_QUATS = [(0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0, -1.0), (1.0, 0.0, 0.0, 0.0), (1e-14, 0.0, 0.0, 1.0),
              (0.3, -0.2, 0.1, -0.9), (0.0, 0.0, 0.0, 0.0)]
EDGE_VECTORS = [(0.0, 0.0, 0.0), (1e-13, 0.0, 0.0), (0.0, np.pi, 0.0), (1e-5, -2e-5, 3e-5)]


@SETTINGS
@given(seeds)
def test_quaternion_helpers_match_transforms(seed):
    rng = np.random.default_rng(seed)
    quats = np.vstack([EDGE_QUATS, rng.normal(size=(20, 4)) * rng.uniform(0.5, 2.0)])
    for q in quats:
        np.testing.assert_allclose(sc.qmatrix(tuple(q)), quat_to_matrix3(q), atol=1e-14)
    for q in quat_normalize(quats):
        np.testing.assert_allclose(sc.qto_rotvec(tuple(q)), quat_to_rotvec(q), atol=1e-14)
    for q in np.vstack([quat_normalize(quats), quat_from_euler_xyz([[0.3, np.pi / 2, 0.1], [0.2, -np.pi / 2, 0.4]])]):
        np.testing.assert_allclose(sc.qto_euler_xyz(tuple(q)), euler_xyz_from_quat(q), atol=1e-12)
    for v in np.vstack([EDGE_VECTORS, rng.normal(size=(20, 3)) * 2.0]):
        np.testing.assert_allclose(sc.qfrom_rotvec(tuple(v)), quat_from_rotvec(v), atol=1e-15)
        np.testing.assert_allclose(sc.qfrom_euler_xyz(tuple(v)), quat_from_euler_xyz(v), atol=1e-15)


@SETTINGS
@given(seeds)
def test_matrix_helpers_match_numpy(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=(2, 3, 3))
    v = rng.normal(size=3)
    rows_a, rows_b = tuple(map(tuple, a.tolist())), tuple(map(tuple, b.tolist()))
    np.testing.assert_allclose(sc.mmul(rows_a, rows_b), a @ b, atol=1e-14)
    np.testing.assert_array_equal(sc.transpose(rows_a), a.T)
    np.testing.assert_allclose(sc.mvec(rows_a, tuple(v)), a @ v, atol=1e-14)
    np.testing.assert_array_equal([sc.column(rows_a, k) for k in range(3)], a.T)
