"""What the analytic solvers' entry points accept, conditioned once at the entry on plain floats.

Quaternions of any finite non-zero scale are made unit (a start of 1e-300 components, an end
rotation of [1e200, 0, 0, 1e200]); a zero or non-finite start quaternion is the identity. Targets
farther than ``FAR`` from the chain are only a direction: they are pulled in along it, and the
distance they were pulled is added back to the reported error, so nothing squares a 1e308 vector.
Angles and stretch amounts must be finite: anything else is a ValueError naming the argument.
"""
import math

FAR = 1e12  # metres; rig.ranges keeps rigs and targets within 1e6
IDENTITY = (0.0, 0.0, 0.0, 1.0)
LARGEST_FLOAT = 1.7976931348623157e308


def unit_quaternion(q, fallback=IDENTITY):
    """``q`` (4 floats) scaled to unit length; ``fallback`` when it is zero or not finite."""
    largest = max(map(abs, q))
    if not 0.0 < largest < math.inf:
        return fallback
    if 0.5 < largest <= 1.0 and abs(sum(v * v for v in q) - 1.0) < 1e-3:
        return tuple(q)  # unit up to the rounding of poses as stored: taken as it is, as the batch path does
    q = [v / largest for v in q]
    norm = math.sqrt(sum(v * v for v in q))
    return tuple(v / norm for v in q)


def unit_rows(rows):
    """Each quaternion of ``rows`` (lists of 4 floats) made unit, as ``unit_quaternion``. Inline
    first check: this runs on every two-bone solve, whose whole budget is ten microseconds."""
    out = []
    for q in rows:
        x, y, z, w = q
        out.append(q if abs(x * x + y * y + z * z + w * w - 1.0) < 1e-3 else unit_quaternion(q))  # NaN: False
    return out


def near_target(target, origin):
    """(``target`` pulled within FAR of ``origin`` along its direction, how far it was pulled in
    metres, capped at the largest float). Near and non-finite targets are returned as they are."""
    (tx, ty, tz), (ox, oy, oz) = target, origin
    dx, dy, dz = tx - ox, ty - oy, tz - oz
    if dx * dx + dy * dy + dz * dz <= FAR * FAR / 4.0:  # overflow and NaN compare False
        return target, 0.0
    target = tuple(target)
    if not all(map(math.isfinite, target)):
        return target, 0.0
    d = [t - o for t, o in zip(target, origin)]
    largest = max(map(abs, d))
    if largest <= FAR / 2.0:
        return target, 0.0
    unit = [v / largest for v in d]
    norm = math.sqrt(sum(v * v for v in unit))
    distance = min(largest * norm, LARGEST_FLOAT)
    pulled = tuple(o + FAR * v / norm for o, v in zip(origin, unit))
    return pulled, distance - FAR


def finite_angle(angle, what):
    """``angle`` in radians reduced to [-pi, pi]; ValueError when it is not finite."""
    angle = float(angle)
    if not math.isfinite(angle):
        raise ValueError(f"{what} must be a finite angle in radians, got {angle!r}")
    return math.remainder(angle, 2.0 * math.pi)


def stretch_amounts(stretch):
    """Per-bone stretch amounts (floats >= 0) or None; ValueError for NaN, infinite or negative."""
    if stretch is not None and not all(math.isfinite(s) and s >= 0.0 for s in stretch):
        raise ValueError(f"stretch amounts must be finite and >= 0, got {stretch!r}")
    return stretch
