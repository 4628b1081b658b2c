"""Joint limits shared by the solvers (the analytic ones clamp their answer; FABRIK and CCD clamp
inside their passes).

Every limit acts on a bone's pose rotation ``rotations[i]`` (its rotation relative to its rest
orientation, in the rest frame's axes) and gives the nearest rotation it allows plus which local
axes (x, y, z) it had to hold. Limits check their parameters when they are built; clamping never
raises. The clamp is written once, on floats (``clamp_encoded``): the kernels compile it in and
``clamp_rotation`` runs it in Python.
"""
import math
from dataclasses import dataclass

import numpy as np

from numba.extending import register_jitable

from solvers import scalar as sc
from solvers.tolerances import AT_LIMIT
from solvers.transforms import normalize

# Kinds of limit as compiled kernels read them (``encode_limits``); each row's parameters:
# HINGE axis (3), min, max; CONE max; TWIST min, max; EULER low (3), high (3) with locks at 0.
HINGE, CONE, TWIST, EULER = range(4)
PARAMETERS = 9
X_AXIS, Y_AXIS, Z_AXIS = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
IDENTITY = (X_AXIS, Y_AXIS, Z_AXIS)
# Rounds of one-axis turns ``best_euler_angles`` takes; each brings it nearer the best within the
# box, and a limited limb's solve repeats them every iteration.
EULER_SWEEPS = 6


def _check_range(low, high, what):
    if not (np.isfinite(low) and np.isfinite(high) and low <= high):
        raise ValueError(f"{what} needs finite min <= max, got min={low} max={high}")


@dataclass(frozen=True)
class Hinge:
    """Rotation only about ``axis`` (3,, the bone's rest axes), by an angle in [min_angle, max_angle]
    radians; any other rotation is dropped."""
    axis: tuple
    min_angle: float
    max_angle: float

    def __post_init__(self):
        if not np.isfinite(self.axis).all() or np.linalg.norm(self.axis) < 1e-9:
            raise ValueError(f"a hinge axis must be a finite non-zero vector, got {self.axis}")
        _check_range(self.min_angle, self.max_angle, "a hinge")
        object.__setattr__(self, "axis", tuple(normalize(self.axis)))

    def encoded(self):
        return HINGE, (*self.axis, self.min_angle, self.max_angle)


@dataclass(frozen=True)
class Cone:
    """The bone's +Y may swing at most ``max_angle`` radians away from its rest direction; twist
    about +Y is left alone."""
    max_angle: float

    def __post_init__(self):
        if not (np.isfinite(self.max_angle) and 0.0 <= self.max_angle <= np.pi):
            raise ValueError(f"a cone limit needs 0 <= max_angle <= pi, got {self.max_angle}")

    def encoded(self):
        return CONE, (self.max_angle,)


@dataclass(frozen=True)
class Twist:
    """Twist about the bone's own +Y held within [min_angle, max_angle] radians; swing untouched."""
    min_angle: float
    max_angle: float

    def __post_init__(self):
        _check_range(self.min_angle, self.max_angle, "a twist limit")

    def encoded(self):
        return TWIST, (self.min_angle, self.max_angle)


@dataclass(frozen=True)
class EulerLimit:
    """Blender's per-bone IK limits: Euler XYZ angles (radians, see ``quat_from_euler_xyz``) held
    within ``min`` (3,) and ``max`` (3,); ``lock`` (3,) booleans pin an axis at 0."""
    min: tuple = (-np.pi, -np.pi, -np.pi)
    max: tuple = (np.pi, np.pi, np.pi)
    lock: tuple = (False, False, False)

    def __post_init__(self):
        for axis in range(3):
            _check_range(self.min[axis], self.max[axis], "an Euler limit axis")

    def encoded(self):
        low = tuple(0.0 if locked else float(a) for locked, a in zip(self.lock, self.min))
        high = tuple(0.0 if locked else float(a) for locked, a in zip(self.lock, self.max))
        return EULER, low + high


def validate_limits(count, limits):
    """Check and normalise per-bone limits at set-up: ``limits`` is None or a sequence of length
    ``count`` whose items are None, one limit, or a tuple of limits applied in order. Returns a
    tuple of tuples, or None when no bone has a limit."""
    if limits is None:
        return None
    if len(limits) != count:
        raise ValueError(f"limits must give one entry per bone ({count}), got {len(limits)}")
    normalised = []
    for i, entry in enumerate(limits):
        entry = () if entry is None else entry if isinstance(entry, tuple) else (entry,)
        for limit in entry:
            if not isinstance(limit, (Hinge, Cone, Twist, EulerLimit)):
                raise ValueError(f"bone {i}: {limit!r} is not a Hinge, Cone, Twist or EulerLimit")
        normalised.append(entry)
    return tuple(normalised) if any(normalised) else None


def sole_hinge(bone_limits):
    """The bone's Hinge when that is its only limit, else None."""
    return bone_limits[0] if bone_limits and len(bone_limits) == 1 and isinstance(bone_limits[0], Hinge) else None


def clamp_rotation(bone_limits, q):
    """Apply one bone's limits (a tuple, possibly empty) to its pose rotation ``q`` (4,).
    Returns the allowed rotation (4,) and the held axes (3,) booleans: those whose angle ends on
    a bound, give or take ``tolerances.AT_LIMIT`` (``holds``). The kernels' own body
    (``clamp_encoded``), run here on Python floats."""
    rows = [limit.encoded() for limit in bone_limits]
    clamped, held = clamp_encoded([kind for kind, _ in rows], [values for _, values in rows], 0, len(rows),
                                  tuple(map(float, q)))
    return np.array(clamped), np.array(held)


def limit_violation(bone_limits, q):
    """How far (radians) the rotation ``q`` (4,) lies outside one bone's limits (a tuple): the
    angle its clamp would turn it by; 0 when the limits allow it. (Euler angles cannot tell: a
    hinge about Y past 90 degrees reads as X = Z = 180 degrees in Euler XYZ.)"""
    clamped, _ = clamp_rotation(bone_limits, q)
    dot = abs(float(np.dot(clamped, q) / (np.linalg.norm(clamped) * np.linalg.norm(q))))
    return 2.0 * float(np.arccos(min(dot, 1.0)))


def encode_limits(count, limits):
    """Validated ``limits`` (``validate_limits``'s tuple, or None) as arrays a compiled kernel
    reads: ``starts`` (count + 1,) so that bone i's limits are rows ``starts[i]:starts[i + 1]`` of
    ``kinds`` (rows,) and ``parameters`` (rows, PARAMETERS), in the order they apply."""
    rows = [limit.encoded() for entry in (limits or ((),) * count) for limit in entry]
    sizes = [len(entry) for entry in (limits or ((),) * count)]
    parameters = np.zeros((len(rows), PARAMETERS))
    for i, (_, values) in enumerate(rows):
        parameters[i, :len(values)] = values
    return (np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64),
            np.array([kind for kind, _ in rows], dtype=np.int64), parameters)


@register_jitable
def _split_twist(q, axis):
    """``swing_twist`` on floats: (swing, twist) with ``q = swing * twist``, twist about unit ``axis``."""
    along = sc.dot((q[0], q[1], q[2]), axis)
    x, y, z, w = axis[0] * along, axis[1] * along, axis[2] * along, q[3]
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    twist = (x / norm, y / norm, z / norm, w / norm) if norm > 1e-12 else (0.0, 0.0, 0.0, 1.0)
    return sc.qmul(q, sc.qconj(twist)), twist


@register_jitable
def _wrapped(angle):
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


@register_jitable
def on_bound(angle, low, high):
    """Whether ``angle`` (radians) lies within ``AT_LIMIT`` of a bound of [low, high], or beyond
    it; a range a whole turn wide has no bound to sit on."""
    return high - low < 2.0 * math.pi and (angle <= low + AT_LIMIT or angle >= high - AT_LIMIT)


@register_jitable
def holds(angle, low, high):
    """Whether the range [low, high] holds ``angle`` (radians, before its clamp): ``on_bound``,
    except that a range no wider than ``2 * AT_LIMIT`` (a lock) holds only an angle more than
    ``AT_LIMIT`` outside it (a lock leaves every angle on its bound)."""
    if high - low <= 2.0 * AT_LIMIT:
        return angle < low - AT_LIMIT or angle > high + AT_LIMIT
    return on_bound(angle, low, high)


@register_jitable
def _gimbal_split(c, s, low_x, high_x, low_z, high_z):
    """At gimbal lock only the sum ``x + s * z`` (s = +-1) of Euler X and Z sets the rotation:
    angles (x, z) within their ranges whose sum is the one nearest ``c`` (mod 2 pi) they can
    make, z nearest 0, and whether that sum is more than ``AT_LIMIT`` from ``c`` (the ranges
    held it)."""
    low = low_x + min(s * low_z, s * high_z)
    high = high_x + max(s * low_z, s * high_z)
    wanted = low + (c - low) % (2.0 * math.pi)
    made = wanted
    if wanted > high:
        made = high if wanted - high <= low + 2.0 * math.pi - wanted else low
    z = sc.clip(0.0, low_z, high_z)
    x = sc.clip(made - s * z, low_x, high_x)
    z = sc.clip(s * (made - x), low_z, high_z)
    return x, z, abs(_wrapped(made - wanted)) > AT_LIMIT


@register_jitable
def clamp_encoded(kinds, parameters, start, stop, q):
    """``clamp_rotation`` on floats for the encoded limits in rows ``start:stop``: the allowed
    rotation of ``q`` (4-tuple) and the held axes (3 booleans)."""
    hx, hy, hz = False, False, False
    for row in range(start, stop):
        p = parameters[row]
        kind = kinds[row]
        if kind == HINGE:
            axis = (p[0], p[1], p[2])
            _, twist = _split_twist(q, axis)
            angle = _wrapped(2.0 * math.atan2(sc.dot((twist[0], twist[1], twist[2]), axis), twist[3]))
            clamped = sc.clip(angle, p[3], p[4])
            q = sc.qaxis_angle(axis, clamped)
            if holds(angle, p[3], p[4]):
                largest = max(abs(p[0]), abs(p[1]), abs(p[2]))
                if abs(p[0]) == largest:
                    hx = True
                elif abs(p[1]) == largest:
                    hy = True
                else:
                    hz = True
        elif kind == CONE:
            swing, twist = _split_twist(q, (0.0, 1.0, 0.0))
            rotvec = sc.qto_rotvec(swing)
            angle = sc.length(rotvec)
            if holds(angle, -p[0], p[0]):
                hx, hz = hx or abs(rotvec[0]) > 1e-12, hz or abs(rotvec[2]) > 1e-12
            if angle > p[0]:
                q = sc.qmul(sc.qfrom_rotvec(sc.scale(rotvec, p[0] / angle)), twist)
        elif kind == TWIST:
            swing, twist = _split_twist(q, (0.0, 1.0, 0.0))
            angle = _wrapped(2.0 * math.atan2(twist[1], twist[3]))
            clamped = sc.clip(angle, p[0], p[1])
            hy = hy or holds(angle, p[0], p[1])
            if clamped != angle:
                q = sc.qmul(swing, sc.qaxis_angle((0.0, 1.0, 0.0), clamped))
        else:
            angles, locked = sc.qto_euler_xyz_locked(q)
            clamped = (sc.clip(angles[0], p[0], p[3]), sc.clip(angles[1], p[1], p[4]), sc.clip(angles[2], p[2], p[5]))
            if locked and abs(clamped[1] - angles[1]) <= AT_LIMIT:  # at gimbal lock, and the limit keeps it there
                x, z, moved = _gimbal_split(angles[0], -1.0 if angles[1] > 0.0 else 1.0, p[0], p[3], p[2], p[5])
                clamped = (x, clamped[1], z)
                hx, hy, hz = hx or moved, hy or holds(angles[1], p[1], p[4]), hz or moved
            else:
                hx, hy, hz = hx or holds(angles[0], p[0], p[3]), hy or holds(angles[1], p[1], p[4]), \
                    hz or holds(angles[2], p[2], p[5])
            if clamped[0] != angles[0] or clamped[1] != angles[1] or clamped[2] != angles[2]:
                q = sc.qfrom_euler_xyz(clamped)
    return q, (hx, hy, hz)


@register_jitable
def violation_of(clamped, q):
    """``limit_violation`` from a rotation ``q`` and its clamp (4-tuples): the angle between them."""
    dot = abs(sc.qdot(clamped, q)) / math.sqrt(sc.qdot(clamped, clamped) * sc.qdot(q, q))
    return 2.0 * math.acos(min(dot, 1.0))


@register_jitable
def best_hinge_angle(axis, low, high, vectors, directions, weights):
    """The angle in [low, high] that best turns ``vectors`` (m, 3, unit) about ``axis`` onto
    ``directions`` (m, 3) (the most weighted sum of their dot products), and whether the range
    held it: the sum is a sinusoid in the angle, so outside the range its end nearer the peak is
    best (a clamped swing-twist of the best free turn falls short of it)."""
    across, turning = 0.0, 0.0
    for i in range(len(weights)):
        v, d = (vectors[i, 0], vectors[i, 1], vectors[i, 2]), (directions[i, 0], directions[i, 1], directions[i, 2])
        across += weights[i] * (sc.dot(v, d) - sc.dot(v, axis) * sc.dot(d, axis))
        turning += weights[i] * sc.dot(sc.cross(axis, v), d)
    peak = math.atan2(turning, across)
    if low <= peak <= high:
        return peak, holds(peak, low, high)
    to_low = abs(_wrapped(low - peak))
    to_high = abs(_wrapped(high - peak))
    return (low if to_low <= to_high else high), holds(peak, low, high)


@register_jitable
def _best_axis_angle(axis, low, high, inner, outer, vectors, directions, weights):
    """The angle in [low, high] about ``axis`` that best turns ``vectors`` (m, 3), first turned
    by ``inner``, onto world ``directions`` (m, 3) seen from ``outer`` (the frame it turns in)."""
    turned = np.empty(vectors.shape)
    seen = np.empty(directions.shape)
    outer_t = sc.transpose(outer)
    for i in range(len(weights)):
        v = sc.mvec(inner, (vectors[i, 0], vectors[i, 1], vectors[i, 2]))
        d = sc.mvec(outer_t, (directions[i, 0], directions[i, 1], directions[i, 2]))
        turned[i, 0], turned[i, 1], turned[i, 2] = v
        seen[i, 0], seen[i, 1], seen[i, 2] = d
    return best_hinge_angle(axis, low, high, turned, seen, weights)[0]


@register_jitable
def best_euler_angles(p, angles, before, vectors, directions, weights):
    """Euler XYZ ``angles`` within the encoded EULER limit ``p`` that best turn ``vectors``
    (m, 3, unit, local) onto world ``directions`` (m, 3) in the frame ``before``, by turns of one
    axis at a time from ``angles`` (``EULER_SWEEPS`` rounds): with the others fixed, an axis turns
    the vectors as a hinge does (``best_hinge_angle``). Y stays within [-pi/2, pi/2], where Euler
    angles read back as set."""
    x, y, z = angles
    low_y, high_y = max(p[1], -0.5 * math.pi), min(p[4], 0.5 * math.pi)
    for _ in range(EULER_SWEEPS):
        rz, ry = _axis_matrix(Z_AXIS, z), _axis_matrix(Y_AXIS, y)
        x = _best_axis_angle(X_AXIS, p[0], p[3], IDENTITY, sc.mmul(before, sc.mmul(rz, ry)), vectors, directions,
                             weights)
        rx = _axis_matrix(X_AXIS, x)
        y = _best_axis_angle(Y_AXIS, low_y, high_y, rx, sc.mmul(before, rz), vectors, directions, weights)
        ry = _axis_matrix(Y_AXIS, y)
        z = _best_axis_angle(Z_AXIS, p[2], p[5], sc.mmul(ry, rx), before, vectors, directions, weights)
    return x, y, z


@register_jitable
def _axis_matrix(axis, angle):
    return sc.qmatrix(sc.qaxis_angle(axis, angle))
