"""Joint limits shared by the iterative solvers (FABRIK, CCD, DLS).

Every limit acts on a bone's pose rotation ``rotations[i]`` (its rotation relative to its rest
orientation, in the rest frame's axes) and returns the nearest rotation it allows plus which local
axes (x, y, z) it had to hold. Limits check their parameters when they are built; clamping never
raises.
"""
import math
from dataclasses import dataclass

import numpy as np

from solvers.transforms import euler_xyz_from_quat, normalize, quat_from_axis_angle, quat_from_euler_xyz, \
    quat_from_rotvec, quat_mul, quat_to_rotvec, swing_twist

Y = np.array([0.0, 1.0, 0.0])


def _wrap(angle):
    """``angle`` (radians) wrapped into [-pi, pi)."""
    return (angle + np.pi) % (2.0 * np.pi) - np.pi


def _twist_angle(twist, axis):
    """Signed angle in (-pi, pi] of a rotation ``twist`` (4,) about unit ``axis`` (3,)."""
    return _wrap(2.0 * np.arctan2(np.dot(twist[:3], axis), twist[3]))


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

    def clamp(self, q):
        axis = np.asarray(self.axis)
        swing, twist = swing_twist(q, axis)
        angle = _twist_angle(twist, axis)
        clamped = min(max(angle, self.min_angle), self.max_angle)
        held = np.zeros(3, dtype=bool)
        held[int(np.argmax(np.abs(axis)))] = clamped != angle
        return quat_from_axis_angle(axis, clamped), held

    def best_angle(self, vectors, directions, weights):
        """The angle within range that best turns ``vectors`` (k, 3) about the axis onto
        ``directions`` (k, 3) (the most weighted sum of their dot products), and whether the
        range held it: the sum is a sinusoid in the angle, so outside the range its end nearer
        the peak is best. A clamped swing-twist of the best free turn falls short of it."""
        axis = np.asarray(self.axis)
        along = vectors @ axis
        across = weights @ (np.einsum("ij,ij->i", vectors, directions) - along * (directions @ axis))
        turning = weights @ np.einsum("ij,ij->i", np.cross(axis, vectors), directions)
        peak = math.atan2(turning, across)
        if self.min_angle <= peak <= self.max_angle:
            return peak, False
        return min((self.min_angle, self.max_angle), key=lambda end: abs(_wrap(end - peak))), True


@dataclass(frozen=True)
class Cone:
    """The bone's +Y may swing at most ``max_angle`` radians away from its rest direction; twist
    about +Y is left alone."""
    max_angle: float

    def __post_init__(self):
        if not (np.isfinite(self.max_angle) and 0.0 <= self.max_angle <= np.pi):
            raise ValueError(f"a cone limit needs 0 <= max_angle <= pi, got {self.max_angle}")

    def clamp(self, q):
        swing, twist = swing_twist(q, Y)
        rotvec = quat_to_rotvec(swing)
        angle = np.linalg.norm(rotvec)
        held = np.zeros(3, dtype=bool)
        if angle <= self.max_angle:
            return np.asarray(q, dtype=float), held
        held[[0, 2]] = np.abs(rotvec[[0, 2]]) > 1e-12
        return quat_mul(quat_from_rotvec(rotvec * (self.max_angle / angle)), twist), held


@dataclass(frozen=True)
class Twist:
    """Twist about the bone's own +Y held within [min_angle, max_angle] radians; swing untouched."""
    min_angle: float
    max_angle: float

    def __post_init__(self):
        _check_range(self.min_angle, self.max_angle, "a twist limit")

    def clamp(self, q):
        swing, twist = swing_twist(q, Y)
        angle = _twist_angle(twist, Y)
        clamped = min(max(angle, self.min_angle), self.max_angle)
        held = np.array([False, clamped != angle, False])
        if clamped == angle:
            return np.asarray(q, dtype=float), held
        return quat_mul(swing, quat_from_axis_angle(Y, clamped)), held


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

    def clamp(self, q):
        angles = euler_xyz_from_quat(q)
        low = np.where(self.lock, 0.0, self.min)
        high = np.where(self.lock, 0.0, self.max)
        clamped = np.clip(angles, low, high)
        held = clamped != angles
        if not held.any():
            return np.asarray(q, dtype=float), held
        return quat_from_euler_xyz(clamped), held


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
    Returns the allowed rotation (4,) and the held axes (3,) booleans."""
    held = np.zeros(3, dtype=bool)
    for limit in bone_limits:
        q, axes = limit.clamp(q)
        held |= axes
    return q, held


def limit_violation(bone_limits, q):
    """How far (radians) the rotation ``q`` (4,) lies outside one bone's limits (a tuple): the
    angle its clamp would turn it by; 0 when the limits allow it. (Euler angles cannot tell: a
    hinge about Y past 90 degrees reads as X = Z = 180 degrees in Euler XYZ.)"""
    clamped, _ = clamp_rotation(bone_limits, q)
    dot = abs(float(np.dot(clamped, q) / (np.linalg.norm(clamped) * np.linalg.norm(q))))
    return 2.0 * float(np.arccos(min(dot, 1.0)))
