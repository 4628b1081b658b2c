"""Vector, quaternion and matrix helpers shared by the solvers and the rig.

Quaternions are ``(..., 4)`` arrays in ``(x, y, z, w)`` order. Matrices act on column vectors
(``M @ v``). Every function accepts stacked inputs and never returns NaN for degenerate input:
normalising a zero vector gives the supplied fallback, ``acos`` arguments are clamped.
"""
import math

import numpy as np

from solvers import scalar
from solvers.tolerances import GIMBAL

EPS = 1e-12
IDENTITY_QUAT = np.array([0.0, 0.0, 0.0, 1.0])


def normalize(v, fallback=(0.0, 1.0, 0.0)):
    """Unit vectors along the last axis; vectors shorter than EPS become ``fallback``."""
    v = np.asarray(v, dtype=float)
    if v.shape == (3,) or v.shape == (4,):  # one vector or quaternion: plain floats beat the numpy
        total = 0.0                         # calls, with the same roundings (numpy sums these in order)
        for c in v.tolist():
            total += c * c
        length = math.sqrt(total)
        return v / length if length > EPS else np.array(fallback, dtype=float)
    n = np.sqrt(np.sum(v * v, axis=-1, keepdims=True))
    safe = n > EPS
    if safe.all():
        return v / n
    return np.where(safe, v / np.where(safe, n, 1.0), np.asarray(fallback, dtype=float))


def safe_acos(x):
    return np.arccos(np.clip(x, -1.0, 1.0))


def cross(a, b):
    """``np.cross`` of vectors (..., 3); one pair in plain floats (the same roundings, a tenth of the time)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape == b.shape == (3,):
        return np.array(scalar.cross(a.tolist(), b.tolist()))
    return np.cross(a, b)


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
    if a.shape == b.shape == (4,):  # one pair: plain floats beat the numpy calls, with the same roundings
        return np.array(scalar.qmul(a.tolist(), b.tolist()))
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ], axis=-1)


_CONJUGATE = np.array([-1.0, -1.0, -1.0, 1.0])


def quat_conjugate(q):
    return np.asarray(q, dtype=float) * _CONJUGATE


def quat_rotate(q, v):
    """Rotate vectors ``v`` (..., 3) by unit quaternions ``q`` (..., 4)."""
    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float)
    if q.shape == (4,) and v.shape == (3,):  # one vector: plain floats, the same roundings as below
        x, y, z, w = q.tolist()
        a, b, c = v.tolist()
        tx, ty, tz = 2.0 * (y * c - z * b), 2.0 * (z * a - x * c), 2.0 * (x * b - y * a)
        return np.array([a + w * tx + (y * tz - z * ty), b + w * ty + (z * tx - x * tz),
                         c + w * tz + (x * ty - y * tx)])
    u = q[..., :3]
    w = q[..., 3:4]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def quat_from_axis_angle(axis, angle):
    axis = normalize(axis, fallback=(1.0, 0.0, 0.0))
    if axis.shape == (3,) and np.ndim(angle) == 0:  # one turn: plain floats, numpy's sine and cosine
        half = 0.5 * float(angle)
        sine = float(np.sin(half))
        x, y, z = axis.tolist()
        return np.array([x * sine, y * sine, z * sine, float(np.cos(half))])
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


def _quadratic_form(rows):
    """(16, k) coefficients that turn the flattened outer product q q^T (..., 16) of a quaternion
    into ``rows`` (k dicts of {"xy": coefficient}): one matrix product for any stack."""
    form = np.zeros((4, 4, len(rows)))
    for k, row in enumerate(rows):
        for pair, coefficient in row.items():
            form["xyzw".index(pair[0]), "xyzw".index(pair[1]), k] = coefficient
    return form.reshape(16, len(rows))


# A unit quaternion's rotation matrix, row by row, less the identity: each entry is the textbook
# sum (1 - 2 (yy + zz), 2 (xy - wz), ...) with the same roundings, so results keep their bits.
MATRIX_FORM = _quadratic_form([
    {"yy": -2, "zz": -2}, {"xy": 2, "wz": -2}, {"xz": 2, "wy": 2},
    {"xy": 2, "wz": 2}, {"xx": -2, "zz": -2}, {"yz": 2, "wx": -2},
    {"xz": 2, "wy": -2}, {"yz": 2, "wx": 2}, {"xx": -2, "yy": -2}])
IDENTITY9 = np.eye(3).ravel()


def quat_to_matrix3(q):
    """Rotation matrices (..., 3, 3) for quaternions (..., 4), normalised on the way."""
    q = quat_normalize(q)
    outer = (q[..., :, None] * q[..., None, :]).reshape(q.shape[:-1] + (16,))
    return (IDENTITY9 + outer @ MATRIX_FORM).reshape(q.shape[:-1] + (3, 3))


def matrix3_to_quat(m):
    """Unit quaternions (..., 4) for rotation matrices (..., 3, 3); sign chosen with w >= 0."""
    m = np.asarray(m, dtype=float)
    if m.shape == (3, 3):  # one matrix: plain floats beat a dozen tiny numpy calls
        return np.array(scalar.quat_from_matrix3(m.tolist()))
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
    if np.shape(a) == np.shape(b) == axis.shape == (3,):  # one pair: plain floats, the same roundings (sums in order)
        a, b = np.asarray(a, dtype=float).tolist(), np.asarray(b, dtype=float).tolist()
        return np.arctan2(scalar.dot(scalar.cross(a, b), axis.tolist()), scalar.dot(a, b))
    return np.arctan2(np.sum(cross(a, b) * axis, axis=-1), np.sum(a * b, axis=-1))


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


def quat_to_rotvec(q):
    """Rotation vectors (..., 3) (axis times angle in [0, pi]) of unit quaternions (..., 4)."""
    q = np.asarray(q, dtype=float)
    q = np.where(q[..., 3:4] < 0, -q, q)
    s = np.linalg.norm(q[..., :3], axis=-1, keepdims=True)
    angle = 2.0 * np.arctan2(s, q[..., 3:4])
    scale = np.where(s > 1e-12, angle / np.where(s > 1e-12, s, 1.0), 2.0)
    return q[..., :3] * scale


def quat_from_rotvec(v):
    """Unit quaternions (..., 4) for rotation vectors (..., 3); zero vectors give identity."""
    v = np.asarray(v, dtype=float)
    angle = np.linalg.norm(v, axis=-1, keepdims=True)
    half = 0.5 * angle
    scale = np.where(angle > 1e-12, np.sin(half) / np.where(angle > 1e-12, angle, 1.0), 0.5)
    return np.concatenate([v * scale, np.cos(half)], axis=-1)


def quat_angle(a, b):
    """Angle in [0, pi] of the rotation taking unit quaternion ``a`` to ``b`` (both (..., 4))."""
    d = np.abs(np.sum(np.asarray(a, float) * np.asarray(b, float), axis=-1))
    return 2.0 * safe_acos(d)


def swing_twist(q, axis):
    """Split unit quaternions ``q`` (..., 4) into ``(swing, twist)`` with ``q = swing * twist``,
    ``twist`` a rotation about the unit ``axis`` (..., 3) and ``swing`` about an axis perpendicular
    to it. A pure half-turn swing gives identity twist."""
    q = np.asarray(q, dtype=float)
    axis = normalize(axis)
    projected = axis * np.sum(q[..., :3] * axis, axis=-1, keepdims=True)
    twist = np.concatenate([projected, q[..., 3:4]], axis=-1)
    norm = np.linalg.norm(twist, axis=-1, keepdims=True)
    twist = np.where(norm > 1e-12, twist / np.where(norm > 1e-12, norm, 1.0), IDENTITY_QUAT)
    return quat_mul(q, quat_conjugate(twist)), twist


def quat_from_euler_xyz(angles):
    """Unit quaternions (..., 4) for Euler angles (..., 3) in radians, XYZ order as Blender's
    'XYZ' mode: rotate about X first, then Y, then Z (``R = Rz @ Ry @ Rx``)."""
    angles = np.asarray(angles, dtype=float)
    half = 0.5 * angles
    c, s = np.cos(half), np.sin(half)
    cx, cy, cz = np.moveaxis(c, -1, 0)
    sx, sy, sz = np.moveaxis(s, -1, 0)
    return np.stack([
        sx * cy * cz - cx * sy * sz,
        cx * sy * cz + sx * cy * sz,
        cx * cy * sz - sx * sy * cz,
        cx * cy * cz + sx * sy * sz,
    ], axis=-1)


def euler_xyz_from_quat(q):
    """Euler angles (..., 3), XYZ order (see ``quat_from_euler_xyz``), of unit quaternions (..., 4);
    the Y angle lies in [-pi/2, pi/2]."""
    m = quat_to_matrix3(q)
    y = np.arctan2(-m[..., 2, 0], np.hypot(m[..., 2, 1], m[..., 2, 2]))  # not arcsin: see qto_euler_xyz
    x = np.arctan2(m[..., 2, 1], m[..., 2, 2])
    z = np.arctan2(m[..., 1, 0], m[..., 0, 0])
    gimbal = np.abs(m[..., 2, 0]) > 1.0 - GIMBAL
    x = np.where(gimbal, np.arctan2(-m[..., 1, 2], m[..., 1, 1]), x)
    z = np.where(gimbal, 0.0, z)
    return np.stack([x, y, z], axis=-1)


_AXIS_INDEX = {"X": 0, "Y": 1, "Z": 2}


def quat_from_euler(angles, order):
    """Unit quaternions (..., 4) for intrinsic Euler angles (..., len(order)) in radians.

    ``order`` names the axes in the order they turn, each about the frame the earlier turns left
    (BVH's CHANNELS order): "ZXY" gives ``R = Rz @ Rx @ Ry``. Any number of axes, repeats allowed.
    """
    angles = np.asarray(angles, dtype=float)
    q = np.broadcast_to(IDENTITY_QUAT, angles.shape[:-1] + (4,))
    for k, axis in enumerate(order.upper()):
        q = quat_mul(q, quat_from_axis_angle(np.eye(3)[_AXIS_INDEX[axis]], angles[..., k]))
    return q


def euler_from_matrix3(m, order):
    """Intrinsic Euler angles (..., 3), radians, of rotation matrices (..., 3, 3) for a
    three-axis ``order`` such as "ZXY" or "XYZ" (see ``quat_from_euler``). The middle angle lies
    in [-pi/2, pi/2]; at gimbal lock the last angle is 0."""
    i, j, k = (_AXIS_INDEX[a] for a in order.upper())
    if len({i, j, k}) != 3:
        raise ValueError(f"Euler order must name three different axes, got '{order}'")
    s = 1.0 if (j - i) % 3 == 1 else -1.0  # +1 for cyclic orders (XYZ, YZX, ZXY)
    m = np.asarray(m, dtype=float)
    middle = np.arcsin(np.clip(s * m[..., i, k], -1.0, 1.0))
    first = np.arctan2(-s * m[..., j, k], m[..., k, k])
    last = np.arctan2(-s * m[..., i, j], m[..., i, i])
    gimbal = np.abs(m[..., i, k]) > 1.0 - GIMBAL
    first = np.where(gimbal, np.arctan2(s * m[..., k, j], m[..., j, j]), first)
    last = np.where(gimbal, 0.0, last)
    return np.stack([first, middle, last], axis=-1)
