"""Plain-float vector and quaternion helpers for single small solves.

On a two-bone limb or a short chain, one numpy call costs more than the arithmetic it does, so
the per-limb fast paths work on tuples of Python floats. Conventions match ``transforms``:
vectors are 3-tuples, quaternions ``(x, y, z, w)`` 4-tuples acting on column vectors, and
degenerate input never gives NaN (zero vectors normalise to the given fallback).

The helpers marked ``register_jitable`` stay plain Python functions when Python calls them and
compile into the numba kernels that call them (``solvers.fabrik_step``, ``solvers.two_bone``), so
a compiled solver uses these same bodies rather than copies (``solvers/__init__`` drops the cached
kernels when this file changes).
"""
import math

from numba.extending import register_jitable

from solvers.tolerances import GIMBAL

EPS = 1e-12


@register_jitable
def stretch_share(amount):
    """A bone's share of the length a far target asks its chain to grow, relative to the others,
    from its IK stretch ``amount`` (floats or arrays): amount cubed, as Blender 3.4's legacy solver
    shares it (measured: tests/data/blender_ik_reference.json). Equal amounts grow bones of any
    length by the same length."""
    return amount ** 3


@register_jitable
def clip(x, low, high):
    return min(high, max(low, x))


@register_jitable
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@register_jitable
def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@register_jitable
def scale(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


@register_jitable
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@register_jitable
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@register_jitable
def length(a):
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@register_jitable
def normalize(a, fallback=(0.0, 1.0, 0.0)):
    n = math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])
    return (a[0] / n, a[1] / n, a[2] / n) if n > EPS else fallback


@register_jitable
def any_perpendicular(v):
    """A unit vector perpendicular to unit ``v`` (the same choice as ``transforms``)."""
    helper = (1.0, 0.0, 0.0) if abs(v[0]) < 0.9 else (0.0, 1.0, 0.0)
    return normalize(cross(v, helper), (0.0, 0.0, 1.0))


@register_jitable
def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


@register_jitable
def qdot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]


@register_jitable
def qconj(q):
    return (-q[0], -q[1], -q[2], q[3])


@register_jitable
def qrotate(q, v):
    """``v`` rotated by unit quaternion ``q``."""
    x, y, z, w = q
    tx = 2.0 * (y * v[2] - z * v[1])
    ty = 2.0 * (z * v[0] - x * v[2])
    tz = 2.0 * (x * v[1] - y * v[0])
    return (v[0] + w * tx + y * tz - z * ty, v[1] + w * ty + z * tx - x * tz, v[2] + w * tz + x * ty - y * tx)


@register_jitable
def qnormalize(q):
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if n <= EPS:
        return (0.0, 0.0, 0.0, 1.0)
    s = (1.0 if q[3] >= 0.0 else -1.0) / n  # w >= 0, as transforms.matrix3_to_quat gives
    return (q[0] * s, q[1] * s, q[2] * s, q[3] * s)


@register_jitable
def qaxis_angle(axis, angle):
    """Rotation by ``angle`` about unit ``axis``."""
    s = math.sin(0.5 * angle)
    return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(0.5 * angle))


@register_jitable
def qbetween(a, b):
    """Shortest arc taking unit ``a`` onto unit ``b`` (minimal twist); opposite vectors turn by
    pi about an arbitrary perpendicular."""
    d = dot(a, b)
    if 1.0 + d < 1e-9:
        p = any_perpendicular(a)
        return (p[0], p[1], p[2], 0.0)
    c = cross(a, b)
    return qnormalize((c[0], c[1], c[2], 1.0 + d))


@register_jitable
def signed_angle(a, b, axis):
    """Angle from ``a`` to ``b`` about unit ``axis`` (both taken perpendicular to it)."""
    return math.atan2(dot(cross(a, b), axis), dot(a, b))


@register_jitable
def aim(pose, local_dir, target_dir, pole_dir=None, up_local=None):
    """The rotation ``pose`` turned so unit ``local_dir`` (the joint's frame) points along unit
    ``target_dir`` (the frame ``pose`` acts in, e.g. the joint's rest frame): the shortest turn,
    keeping the roll; with ``pole_dir`` (same frame) it then rolls about ``target_dir`` until
    ``up_local`` (joint frame) faces the pole, unless either lies along the aim. Returns the
    rotation and whether the pole set the roll."""
    current = normalize(qrotate(pose, local_dir))
    pose = qmul(qbetween(current, target_dir), pose)
    poled = False
    if pole_dir is not None:
        up_perp = sub(up_local, scale(local_dir, dot(up_local, local_dir)))
        pole_perp = sub(pole_dir, scale(target_dir, dot(pole_dir, target_dir)))
        poled = length(up_perp) > 1e-9 and length(pole_perp) > 1e-9 * max(length(pole_dir), EPS)
        if poled:
            roll = signed_angle(qrotate(pose, up_local), pole_perp, target_dir)
            pose = qmul(qaxis_angle(target_dir, roll), pose)
    return pose, poled


@register_jitable
def quat_from_matrix3(m):
    """Unit quaternion (w >= 0) of rotation matrix ``m`` given as 3 rows of 3 floats: the same
    largest-diagonal choice as ``transforms.matrix3_to_quat``."""
    (m00, m01, m02), (m10, m11, m12), (m20, m21, m22) = m
    trace = m00 + m11 + m22
    largest = max(trace, m00, m11, m22)
    if largest == trace:
        q = (m21 - m12, m02 - m20, m10 - m01, 1.0 + trace)
    elif largest == m00:
        q = (1.0 + m00 - m11 - m22, m01 + m10, m02 + m20, m21 - m12)
    elif largest == m11:
        q = (m01 + m10, 1.0 + m11 - m00 - m22, m12 + m21, m02 - m20)
    else:
        q = (m02 + m20, m12 + m21, 1.0 + m22 - m00 - m11, m10 - m01)
    return qnormalize(q)


@register_jitable
def qmatrix(q):
    """Rotation matrix (3 rows of 3 floats) of quaternion ``q``, normalised on the way (zero gives
    the identity), as ``transforms.quat_to_matrix3``."""
    x, y, z, w = q
    n = x * x + y * y + z * z + w * w
    s = 2.0 / n if n > EPS else 0.0
    xs, ys, zs = x * s, y * s, z * s
    wx, wy, wz = w * xs, w * ys, w * zs
    xx, xy, xz = x * xs, x * ys, x * zs
    yy, yz, zz = y * ys, y * zs, z * zs
    return ((1.0 - (yy + zz), xy - wz, xz + wy),
            (xy + wz, 1.0 - (xx + zz), yz - wx),
            (xz - wy, yz + wx, 1.0 - (xx + yy)))


@register_jitable
def mmul(a, b):
    """Matrix product ``a @ b`` of 3x3 matrices given as rows."""
    (a00, a01, a02), (a10, a11, a12), (a20, a21, a22) = a
    (b00, b01, b02), (b10, b11, b12), (b20, b21, b22) = b
    return ((a00 * b00 + a01 * b10 + a02 * b20, a00 * b01 + a01 * b11 + a02 * b21, a00 * b02 + a01 * b12 + a02 * b22),
            (a10 * b00 + a11 * b10 + a12 * b20, a10 * b01 + a11 * b11 + a12 * b21, a10 * b02 + a11 * b12 + a12 * b22),
            (a20 * b00 + a21 * b10 + a22 * b20, a20 * b01 + a21 * b11 + a22 * b21, a20 * b02 + a21 * b12 + a22 * b22))


@register_jitable
def transpose(m):
    (a, b, c), (d, e, f), (g, h, i) = m
    return ((a, d, g), (b, e, h), (c, f, i))


@register_jitable
def mvec(m, v):
    """``m @ v`` for a 3x3 matrix given as rows."""
    return (dot(m[0], v), dot(m[1], v), dot(m[2], v))


@register_jitable
def column(m, axis):
    """Column ``axis`` of a 3x3 matrix given as rows."""
    return (m[0][axis], m[1][axis], m[2][axis])


@register_jitable
def qfrom_rotvec(v):
    """Unit quaternion of rotation vector ``v`` (zero gives identity), as ``transforms.quat_from_rotvec``."""
    angle = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    half = 0.5 * angle
    s = math.sin(half) / angle if angle > 1e-12 else 0.5
    return (v[0] * s, v[1] * s, v[2] * s, math.cos(half))


@register_jitable
def qto_rotvec(q):
    """Rotation vector (angle in [0, pi]) of unit quaternion ``q``, as ``transforms.quat_to_rotvec``."""
    x, y, z, w = q if q[3] >= 0.0 else (-q[0], -q[1], -q[2], -q[3])
    s = math.sqrt(x * x + y * y + z * z)
    k = 2.0 * math.atan2(s, w) / s if s > 1e-12 else 2.0
    return (x * k, y * k, z * k)


@register_jitable
def qfrom_euler_xyz(angles):
    """Unit quaternion of Euler XYZ ``angles``, as ``transforms.quat_from_euler_xyz``."""
    hx, hy, hz = 0.5 * angles[0], 0.5 * angles[1], 0.5 * angles[2]
    cx, cy, cz = math.cos(hx), math.cos(hy), math.cos(hz)
    sx, sy, sz = math.sin(hx), math.sin(hy), math.sin(hz)
    return (sx * cy * cz - cx * sy * sz, cx * sy * cz + sx * cy * sz, cx * cy * sz - sx * sy * cz,
            cx * cy * cz + sx * sy * sz)


@register_jitable
def qto_euler_xyz(q):
    """Euler XYZ angles of quaternion ``q``, as ``transforms.euler_xyz_from_quat`` (Y in
    [-pi/2, pi/2]; at gimbal lock Z is 0)."""
    return qto_euler_xyz_locked(q)[0]


@register_jitable
def qto_euler_xyz_locked(q):
    """``qto_euler_xyz`` and whether they are at gimbal lock (``tolerances.GIMBAL``), where only
    X - Z (at Y = pi/2) or X + Z (at -pi/2) sets the rotation, and Z is read as 0."""
    (m00, m01, m02), (m10, m11, m12), (m20, m21, m22) = qmatrix(q)
    y = math.atan2(-m20, math.hypot(m21, m22))  # not asin: that loses half the digits near +-pi/2
    if abs(m20) > 1.0 - GIMBAL:
        return (math.atan2(-m12, m11), y, 0.0), True
    return (math.atan2(m21, m22), y, math.atan2(m10, m00)), False
