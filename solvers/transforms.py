"""Vector, quaternion and matrix helpers shared by the solvers and the rig.

Quaternions are ``(..., 4)`` arrays in ``(x, y, z, w)`` order. Matrices act on column vectors
(``M @ v``). Every function accepts stacked inputs and never returns NaN for degenerate input:
normalising a zero vector gives the supplied fallback, ``acos`` arguments are clamped.
"""
import numpy as np

EPS = 1e-12
IDENTITY_QUAT = np.array([0.0, 0.0, 0.0, 1.0])


def normalize(v, fallback=(0.0, 1.0, 0.0)):
    """Unit vectors along the last axis; vectors shorter than EPS become ``fallback``."""
    v = np.asarray(v, dtype=float)
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    safe = n > EPS
    out = np.where(safe, v / np.where(safe, n, 1.0), np.broadcast_to(np.asarray(fallback, float), v.shape))
    return out


def safe_acos(x):
    return np.arccos(np.clip(x, -1.0, 1.0))


def any_perpendicular(v):
    """A unit vector perpendicular to each unit vector in ``v``."""
    v = np.asarray(v, dtype=float)
    helper = np.where(np.abs(v[..., :1]) < 0.9, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    return normalize(np.cross(v, helper), fallback=(0.0, 0.0, 1.0))


def quat_normalize(q):
    return normalize(q, fallback=IDENTITY_QUAT)


def quat_mul(a, b):
    """Hamilton product ``a * b`` (apply ``b`` first, then ``a``)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ], axis=-1)


def quat_conjugate(q):
    q = np.asarray(q, dtype=float)
    return q * np.array([-1.0, -1.0, -1.0, 1.0])


def quat_rotate(q, v):
    """Rotate vectors ``v`` (..., 3) by unit quaternions ``q`` (..., 4)."""
    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float)
    u = q[..., :3]
    w = q[..., 3:4]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def quat_from_axis_angle(axis, angle):
    axis = normalize(axis, fallback=(1.0, 0.0, 0.0))
    half = 0.5 * np.asarray(angle, dtype=float)[..., None]
    return np.concatenate([axis * np.sin(half), np.cos(half)], axis=-1)


def quat_between(a, b):
    """Shortest-arc rotation taking direction ``a`` onto direction ``b`` (minimal twist).

    Opposite vectors rotate by pi about an arbitrary perpendicular axis; zero vectors give identity.
    """
    a = normalize(a)
    b = normalize(b)
    d = np.sum(a * b, axis=-1, keepdims=True)
    axis = np.cross(a, b)
    q = np.concatenate([axis, 1.0 + d], axis=-1)
    opposite = (1.0 + d) < 1e-9
    flip = np.concatenate([any_perpendicular(a), np.zeros_like(d)], axis=-1)
    return quat_normalize(np.where(opposite, flip, q))


def quat_to_matrix3(q):
    """Rotation matrices (..., 3, 3) for unit quaternions (..., 4)."""
    q = quat_normalize(q)
    x, y, z, w = np.moveaxis(q, -1, 0)
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    m = np.stack([
        1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy),
        2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx),
        2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy),
    ], axis=-1)
    return m.reshape(q.shape[:-1] + (3, 3))


def matrix3_to_quat(m):
    """Unit quaternions (..., 4) for rotation matrices (..., 3, 3); sign chosen with w >= 0."""
    m = np.asarray(m, dtype=float)
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    trace = m00 + m11 + m22
    candidates = np.stack([
        np.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1], 1 + trace], -1),
        np.stack([1 + m00 - m11 - m22, m[..., 0, 1] + m[..., 1, 0], m[..., 0, 2] + m[..., 2, 0], m[..., 2, 1] - m[..., 1, 2]], -1),
        np.stack([m[..., 0, 1] + m[..., 1, 0], 1 + m11 - m00 - m22, m[..., 1, 2] + m[..., 2, 1], m[..., 0, 2] - m[..., 2, 0]], -1),
        np.stack([m[..., 0, 2] + m[..., 2, 0], m[..., 1, 2] + m[..., 2, 1], 1 + m22 - m00 - m11, m[..., 1, 0] - m[..., 0, 1]], -1),
    ], axis=-2)
    pick = np.argmax(np.stack([trace, m00, m11, m22], -1), axis=-1)
    q = np.take_along_axis(candidates, pick[..., None, None], axis=-2)[..., 0, :]
    q = quat_normalize(q)
    return np.where(q[..., 3:4] < 0, -q, q)


def translation_matrix(t):
    t = np.asarray(t, dtype=float)
    m = np.broadcast_to(np.eye(4), t.shape[:-1] + (4, 4)).copy()
    m[..., :3, 3] = t
    return m


def compose(translation, rotation, scale=None):
    """4x4 matrices T @ R @ S from translations (...,3), quaternions (...,4), scales (...,3)."""
    r = quat_to_matrix3(rotation)
    if scale is not None:
        r = r * np.asarray(scale, dtype=float)[..., None, :]
    m = np.zeros(r.shape[:-2] + (4, 4))
    m[..., :3, :3] = r
    m[..., :3, 3] = translation
    m[..., 3, 3] = 1.0
    return m


def rigid_inverse(m):
    """Inverse of rigid 4x4 transforms (rotation + translation, no scale)."""
    m = np.asarray(m, dtype=float)
    r_t = np.swapaxes(m[..., :3, :3], -1, -2)
    out = np.zeros_like(m)
    out[..., :3, :3] = r_t
    out[..., :3, 3] = -np.einsum('...ij,...j->...i', r_t, m[..., :3, 3])
    out[..., 3, 3] = 1.0
    return out


def signed_angle(a, b, axis):
    """Angle from ``a`` to ``b`` about ``axis`` (right-handed), in (-pi, pi]."""
    axis = normalize(axis)
    return np.arctan2(np.sum(np.cross(a, b) * axis, axis=-1), np.sum(a * b, axis=-1))


def quat_slerp(a, b, t):
    """Spherical interpolation from ``a`` (t=0) to ``b`` (t=1) along the shorter arc."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    t = np.asarray(t, dtype=float)[..., None]
    d = np.sum(a * b, axis=-1, keepdims=True)
    b = np.where(d < 0, -b, b)
    d = np.abs(d)
    angle = safe_acos(d)
    s = np.sin(angle)
    near = s < 1e-6
    wa = np.where(near, 1.0 - t, np.sin((1.0 - t) * angle) / np.where(near, 1.0, s))
    wb = np.where(near, t, np.sin(t * angle) / np.where(near, 1.0, s))
    return quat_normalize(wa * a + wb * b)
