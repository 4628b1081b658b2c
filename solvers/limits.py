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
# HINGE axis (3), min, max; CONE max; TWIST min, max; SWING_TWIST low (3), high (3) with locks at
# 0, then 1.0 when the swing's X and Z are both limited (Blender's ellipse) else 0.0.
HINGE, CONE, TWIST, SWING_TWIST = range(4)
PARAMETERS = 9
X_AXIS, Y_AXIS, Z_AXIS = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
IDENTITY = (X_AXIS, Y_AXIS, Z_AXIS)
# Rounds of one-axis turns ``best_within_limits`` takes; each brings it nearer the best its limits
# allow, and a limited limb's solve repeats them every iteration.
SWEEPS = 6
# Radians a locked axis may stray from 0 in any solver's answer: the clamps and the DLS columns
# write exact zeros, so only rounding counts.
LOCK_TOLERANCE = 1e-12
# Below this a swing-ellipse semi-axis (sin of half an angle) counts as zero: the swing is held in
# a box (Blender's EllipseClamp does the same).
FLAT_ELLIPSE = 1e-9
# The most sx^2 + sz^2 a clamp that must shorten X or Z past a half-turn swing gives: a swing of
# exactly a half turn (Y onto -Y) leaves its twist undefined, so the twist the clamp held would not
# be the one read back; this stops such a swing 2e-4 rad short of it.
SWING_ROOM = 1.0 - 1e-8


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
class SwingTwistLimit:
    """Blender's per-bone IK locks and limits (the bone IK panel's X, Y, Z), on the swing-twist
    split of the pose rotation (``swing_twist_angles``): X and Z hold the swing, Y the twist about
    the bone's own +Y. Angles (radians) within ``min`` (3,) and ``max`` (3,); ``lock`` (3,)
    booleans pin an axis at 0 (lock Y: a swing joint that never twists); ``use_limit`` (3,) says
    which axes ``min`` and ``max`` hold. With X and Z both limited (ranges about 0) the swing keeps
    inside Blender's ellipse as well (``clamp_swing_twist``)."""
    min: tuple = (-np.pi, -np.pi, -np.pi)
    max: tuple = (np.pi, np.pi, np.pi)
    lock: tuple = (False, False, False)
    use_limit: tuple = (True, True, True)

    def __post_init__(self):
        for axis in range(3):
            _check_range(self.min[axis], self.max[axis], "a swing-twist limit axis")

    def encoded(self):
        free = [not locked and used for locked, used in zip(self.lock, self.use_limit)]
        low = tuple(0.0 if locked else float(a) if used else -np.pi
                    for locked, used, a in zip(self.lock, self.use_limit, self.min))
        high = tuple(0.0 if locked else float(a) if used else np.pi
                     for locked, used, a in zip(self.lock, self.use_limit, self.max))
        # Blender's ellipse is centred on the rest pose: ranges that leave it out take the box alone.
        ellipse = all(free[k] and low[k] <= 0.0 <= high[k] for k in (0, 2))
        return SWING_TWIST, low + high + (float(ellipse),)


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
            if not isinstance(limit, (Hinge, Cone, Twist, SwingTwistLimit)):
                raise ValueError(f"bone {i}: {limit!r} is not a Hinge, Cone, Twist or SwingTwistLimit")
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


def rotation_within(limit, angles):
    """The pose rotation (4,) of Blender's IK ``angles`` (x, y, z) (``from_swing_twist_angles``),
    clamped by one ``limit`` (None: as it is): how seeded starts and test poses inside limits are
    drawn."""
    q = np.array(from_swing_twist_angles(tuple(map(float, angles))))
    return q if limit is None else clamp_rotation((limit,), q)[0]


def limit_violation(bone_limits, q):
    """How far (radians) the rotation ``q`` (4,) lies outside one bone's limits (a tuple): the
    angle its clamp would turn it by; 0 when the limits allow it."""
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
def split_swing_twist(q):
    """The decomposition every lock and limit is stated in (Blender's IK_QSegment): a pose
    rotation ``q`` (4-tuple, xyzw) as ``swing * twist``, the twist about the bone's own +Y. Returns
    the swing (4-tuple, (sx, 0, sz, sw) with sw >= 0) and the twist angle (radians, in [-pi, pi])."""
    swing, twist = _split_twist(q, (0.0, 1.0, 0.0))
    sign = 1.0 if swing[3] >= 0.0 else -1.0
    return ((sign * swing[0], 0.0, sign * swing[2], sign * swing[3]),
            _wrapped(2.0 * math.atan2(twist[1], twist[3])))


@register_jitable
def swing_twist_angles(q):
    """Blender's IK angles (x, y, z) of a pose rotation ``q`` (``split_swing_twist``): y the twist,
    x = 2 asin(sx) and z = 2 asin(sz) of the swing (for a swing about X alone, or Z alone, its angle)."""
    swing, twist = split_swing_twist(q)
    return (2.0 * math.asin(sc.clip(swing[0], -1.0, 1.0)), twist, 2.0 * math.asin(sc.clip(swing[2], -1.0, 1.0)))


@register_jitable
def from_swing_twist_parts(sx, sz, twist):
    """The rotation (4-tuple) with swing components ``sx``, ``sz`` (sin of half the per-axis swing
    angles; scaled back onto the unit sphere when their squares sum past 1) and ``twist`` radians
    about +Y: ``swing_twist_angles``'s inverse."""
    size = sx * sx + sz * sz
    if size > 1.0:
        sx, sz, size = sx / math.sqrt(size), sz / math.sqrt(size), 1.0
    return sc.qmul((sx, 0.0, sz, math.sqrt(1.0 - size)), sc.qaxis_angle((0.0, 1.0, 0.0), twist))


@register_jitable
def from_swing_twist_angles(angles):
    """The rotation (4-tuple) of Blender's IK angles (x, y, z) (``swing_twist_angles``)."""
    return from_swing_twist_parts(math.sin(0.5 * angles[0]), math.sin(0.5 * angles[2]), angles[1])


@register_jitable
def _ellipse_scale(x, z, p):
    """How far to scale the swing components (x, z) toward 0 to bring them onto Blender's ellipse
    (IK_QSegment's EllipseClamp: semi-axes the sines of the half limits on the side each lies);
    1 when inside it or when a semi-axis is flat (then the box alone holds the swing)."""
    ax = math.sin(0.5 * p[3]) if x > 0.0 else -math.sin(0.5 * p[0])
    az = math.sin(0.5 * p[5]) if z > 0.0 else -math.sin(0.5 * p[2])
    if ax <= FLAT_ELLIPSE or az <= FLAT_ELLIPSE:
        return 1.0
    size = (x / ax) ** 2 + (z / az) ** 2
    return 1.0 / math.sqrt(size) if size > 1.0 else 1.0


@register_jitable
def clamp_swing_twist(p, q):
    """A SWING_TWIST row ``p`` applied to ``q`` (4-tuple): the twist held in [p[1], p[4]], the
    swing's components sx, sz in [sin(p[0]/2), sin(p[3]/2)] and [sin(p[2]/2), sin(p[5]/2)] (inside
    the ellipse first, when p[6]); the rotation (``q`` untouched when allowed) and the held axes."""
    swing, angle = split_swing_twist(q)
    sx, sz = swing[0], swing[2]
    x, z = sx, sz
    if p[6] != 0.0:
        shrink = _ellipse_scale(x, z, p)
        x, z = x * shrink, z * shrink
    x = sc.clip(x, math.sin(0.5 * p[0]), math.sin(0.5 * p[3]))
    z = sc.clip(z, math.sin(0.5 * p[2]), math.sin(0.5 * p[5]))
    if x * x + z * z > 1.0:  # ranges past a half-turn swing: Z keeps its range, X takes what is left
        room = math.sqrt(max(SWING_ROOM - z * z, 0.0))
        if max(math.sin(0.5 * p[0]), -room) <= min(math.sin(0.5 * p[3]), room):
            x = sc.clip(x, max(math.sin(0.5 * p[0]), -room), min(math.sin(0.5 * p[3]), room))
        else:
            z = math.copysign(math.sqrt(max(SWING_ROOM - x * x, 0.0)), z)
    clamped = sc.clip(angle, p[1], p[4])
    # Held: an angle on its bound give or take AT_LIMIT (``holds``), the swing on the ellipse's rim
    # or moved off a half turn; so an allowed ``q`` gets its at-limit verdict from here as well.
    rim = p[6] != 0.0 and _ellipse_scale(sx * (1.0 + AT_LIMIT), sz * (1.0 + AT_LIMIT), p) < 1.0
    angle_x, angle_z = 2.0 * math.asin(sc.clip(sx, -1.0, 1.0)), 2.0 * math.asin(sc.clip(sz, -1.0, 1.0))
    held = (holds(angle_x, p[0], p[3]) or (rim and p[0] < p[3]) or abs(x - sx) > AT_LIMIT,
            holds(angle, p[1], p[4]),
            holds(angle_z, p[2], p[5]) or (rim and p[2] < p[5]) or abs(z - sz) > AT_LIMIT)
    if x != sx or clamped != angle or z != sz:
        q = from_swing_twist_parts(x, z, clamped)
    return q, held


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
            q, held = clamp_swing_twist(p, q)
            hx, hy, hz = hx or held[0], hy or held[1], hz or held[2]
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
def _best_axis_angle(axis, inner, outer, vectors, directions, weights):
    """The angle about ``axis`` that best turns ``vectors`` (m, 3), first turned by ``inner``,
    onto world ``directions`` (m, 3) seen from ``outer`` (the frame it turns in)."""
    turned = np.empty(vectors.shape)
    seen = np.empty(directions.shape)
    outer_t = sc.transpose(outer)
    for i in range(len(weights)):
        v = sc.mvec(inner, (vectors[i, 0], vectors[i, 1], vectors[i, 2]))
        d = sc.mvec(outer_t, (directions[i, 0], directions[i, 1], directions[i, 2]))
        turned[i, 0], turned[i, 1], turned[i, 2] = v
        seen[i, 0], seen[i, 1], seen[i, 2] = d
    return best_hinge_angle(axis, -math.pi, math.pi, turned, seen, weights)[0]


@register_jitable
def served(q, before, vectors, directions, weights):
    """How well pose rotation ``q`` in the frame ``before`` turns ``vectors`` (m, 3, local) onto
    world ``directions`` (m, 3): the weighted sum of their dot products a best turn maximises."""
    frame = sc.mmul(before, sc.qmatrix(q))
    total = 0.0
    for i in range(len(weights)):
        v = sc.mvec(frame, (vectors[i, 0], vectors[i, 1], vectors[i, 2]))
        total += weights[i] * sc.dot(v, (directions[i, 0], directions[i, 1], directions[i, 2]))
    return total


@register_jitable
def best_within_limits(kinds, parameters, start, stop, q, before, vectors, directions, weights):
    """A pose rotation within the limits in rows ``start:stop`` that turns ``vectors`` (m, 3, unit,
    local) onto world ``directions`` (m, 3) in the frame ``before`` no worse than ``q`` (allowed)
    does: ``SWEEPS`` rounds of one-axis turns, about the frame's X and Z (swing) and the bone's own
    Y (twist), each the best turn about its axis, clamped, and kept when it serves the links better
    (``served``). The clamp of a free turn keeps that turn's other parts, though with one held
    others may serve better: a thigh held at its Z limit would keep its twist, and its knee never
    come round."""
    best = served(q, before, vectors, directions, weights)
    for _ in range(SWEEPS):
        start_of_round = best
        for axis in (X_AXIS, Z_AXIS, Y_AXIS):
            own = axis[1] == 1.0
            if own:
                angle = _best_axis_angle(axis, IDENTITY, sc.mmul(before, sc.qmatrix(q)), vectors, directions, weights)
            else:
                angle = _best_axis_angle(axis, sc.qmatrix(q), before, vectors, directions, weights)
            turn = sc.qaxis_angle(axis, angle)
            trial, _ = clamp_encoded(kinds, parameters, start, stop,
                                     sc.qnormalize(sc.qmul(q, turn) if own else sc.qmul(turn, q)))
            score = served(trial, before, vectors, directions, weights)
            if score > best:
                q, best = trial, score
        if best == start_of_round:  # no turn served better: none will next round either
            break
    return q


# Swing-twist coordinates (u, t, w), the DOFs the Jacobian methods move a held bone by (DLS and
# the priority solver): the pose rotation exp(u X + w Z) * twist(t), swing's rotation vector
# (u, 0, w) in the frame the bone turns in and the twist t about its own +Y.
@register_jitable
def swing_turn(rotvec, axis):
    """How exp(rotvec) turns (an angular velocity, 3 floats) as rotvec moves along ``axis`` (0, 1
    or 2): the left Jacobian of SO(3), J e = e + a (v x e) + b (v x (v x e))."""
    angle = sc.length(rotvec)
    if angle < 1e-4:
        a, b = 0.5 - angle * angle / 24.0, 1.0 / 6.0 - angle * angle / 120.0
    else:
        a, b = (1.0 - math.cos(angle)) / angle ** 2, (angle - math.sin(angle)) / angle ** 3
    e = (1.0 if axis == 0 else 0.0, 1.0 if axis == 1 else 0.0, 1.0 if axis == 2 else 0.0)
    across = sc.cross(rotvec, e)
    return sc.add(sc.add(e, sc.scale(across, a)), sc.scale(sc.cross(rotvec, across), b))


@register_jitable
def held_rotation(coordinates):
    """The pose rotation (4 floats) of swing-twist ``coordinates`` (u, t, w)."""
    u, t, w = coordinates
    return sc.qmul(sc.qfrom_rotvec((u, 0.0, w)), sc.qaxis_angle((0.0, 1.0, 0.0), t))


@register_jitable
def swing_twist_coordinates(q):
    """The swing-twist coordinates (u, t, w) of a pose rotation ``q``."""
    swing, twist = split_swing_twist(q)
    u, _, w = sc.qto_rotvec(swing)
    return u, twist, w
