"""Goals and per-bone freedoms for every IK method (``solvers.problem``), after Blender's iTaSC.

Every goal names a ``bone`` of a ``solvers.tree.Tree`` and has a ``weight`` > 0: where goals
conflict the solver minimises sum(weight * error**2). Targets are world positions (metres),
rotations unit quaternions (x, y, z, w). Goals and ``BoneDofs`` check their values when they are
built (a NaN target raises ValueError there), so a solve never meets bad settings. The rig makes
goals for every solve, so they are slotted dataclasses, made in half a frozen one's time: treat
them as values. ``BoneDofs`` is built once per plan and frozen.
"""
import math
from dataclasses import dataclass

import numpy as np

DISTANCE_MODES = ("inside", "on", "outside")
# Blender caps IK stiffness below 1 so that a stiff axis still gives a little.
MAX_STIFFNESS = 0.99


def _finite(value, size, what):
    """``value`` as a tuple of ``size`` finite floats; plain floats, since goals are made per solve."""
    try:
        numbers = tuple(map(float, value.tolist() if isinstance(value, np.ndarray) else value))
    except (TypeError, ValueError):
        numbers = ()
    if len(numbers) != size or not all(map(math.isfinite, numbers)):
        raise ValueError(f"{what} must be {size} finite numbers, got {value!r}")
    return numbers


def _unit_quaternion(value, what):
    q = np.asarray(_finite(value, 4, what))
    norm = np.linalg.norm(q)
    if norm < 1e-9:
        raise ValueError(f"{what} must be a non-zero quaternion (x, y, z, w), got {value!r}")
    return tuple(float(x) for x in q / norm)


def _flags(value, what):
    if len(value) != 3:
        raise ValueError(f"{what} needs one flag per axis (X, Y, Z), got {value!r}")
    return tuple(bool(x) for x in value)


def _check_bone_and_weight(goal):
    if isinstance(goal.bone, bool) or not isinstance(goal.bone, (int, np.integer)) or goal.bone < 0:
        raise ValueError(f"{type(goal).__name__}: bone must be a bone index >= 0, got {goal.bone!r}")
    if not (math.isfinite(goal.weight) and goal.weight > 0):
        raise ValueError(f"{type(goal).__name__}: weight must be finite and > 0, got {goal.weight!r}")


@dataclass(slots=True)
class PositionGoal:
    """Bring the tail (``use_tail``, Blender's Use Tail) or the head of ``bone`` to ``target`` (3,).
    ``lock_axes`` (3,) leave the position along those axes free (iTaSC's location locking): the
    axes of ``frame`` (a world rotation (4,), the target's for Blender's reference axis "Target"),
    or of the bone itself when ``frame`` is None (reference axis "Bone").

    ``chain_length`` bones above the tip move for it (0: all of the problem's); ``pole`` (3,), a
    world point the chain's bend faces, turned by ``pole_angle`` radians (Blender's Pole Target
    and Pole Angle); ``soft_reach`` (metres): the distance before full extension over which a
    limb's reach eases in."""
    bone: int
    target: tuple
    weight: float = 1.0
    use_tail: bool = True
    lock_axes: tuple = (False, False, False)
    frame: tuple = None
    chain_length: int = 0
    pole: tuple = None
    pole_angle: float = 0.0
    soft_reach: float = 0.0

    def __post_init__(self):
        _check_bone_and_weight(self)
        self.target = _finite(self.target, 3, "a position goal's target")
        if self.lock_axes != (False, False, False):
            self.lock_axes = _flags(self.lock_axes, "a position goal's lock_axes")
        if all(self.lock_axes):
            raise ValueError("a position goal that locks all three axes constrains nothing")
        if self.frame is not None:
            self.frame = _unit_quaternion(self.frame, "a position goal's frame")
        if self.pole is not None:
            self.pole = _finite(self.pole, 3, "a position goal's pole")
        if not (math.isfinite(self.pole_angle) and math.isfinite(self.soft_reach) and self.soft_reach >= 0
                and self.chain_length >= 0):
            raise ValueError(f"a position goal needs a finite pole angle, soft reach >= 0 and chain length >= 0, "
                             f"got {self.pole_angle!r}, {self.soft_reach!r}, {self.chain_length!r}")


@dataclass(slots=True)
class RotationGoal:
    """Turn ``bone`` to the world rotation ``rotation`` (4,). ``lock_axes`` (3,) leave the rotation
    about the bone's own X / Y / Z axis unconstrained (iTaSC's rotation locking): locking Y aims
    the bone's Y axis along the target's and leaves the twist free."""
    bone: int
    rotation: tuple
    weight: float = 1.0
    lock_axes: tuple = (False, False, False)

    def __post_init__(self):
        _check_bone_and_weight(self)
        self.rotation = _unit_quaternion(self.rotation, "a rotation goal's rotation")
        self.lock_axes = _flags(self.lock_axes, "a rotation goal's lock_axes")
        if all(self.lock_axes):
            raise ValueError("a rotation goal that locks all three axes constrains nothing")


@dataclass(slots=True)
class DistanceGoal:
    """Keep the tail (or head) of ``bone`` inside, on or outside the sphere of radius ``distance``
    (metres) around ``target`` (3,): iTaSC's Distance constraint (Blender's "On Surface" is "on")."""
    bone: int
    target: tuple
    distance: float
    mode: str = "on"
    weight: float = 1.0
    use_tail: bool = True

    def __post_init__(self):
        _check_bone_and_weight(self)
        self.target = _finite(self.target, 3, "a distance goal's target")
        if not (np.isfinite(self.distance) and self.distance >= 0):
            raise ValueError(f"a distance goal's distance must be finite and >= 0, got {self.distance!r}")
        if self.mode not in DISTANCE_MODES:
            raise ValueError(f"a distance goal's mode must be one of {DISTANCE_MODES}, got {self.mode!r}")


@dataclass(slots=True)
class JointRotationGoal:
    """Pull ``bone``'s pose rotation (relative to its rest orientation, like ``rotations``) toward
    ``rotation`` (4,): iTaSC's joint rotation constraint (the bone panel's Control Rotation)."""
    bone: int
    rotation: tuple
    weight: float = 1.0

    def __post_init__(self):
        _check_bone_and_weight(self)
        self.rotation = _unit_quaternion(self.rotation, "a joint rotation goal's rotation")


@dataclass(frozen=True)
class BoneDofs:
    """One bone's freedom, field for field Blender's bone IK panel (``rig.constraints.BoneIKSettings``).

    Per local axis X, Y, Z, as Blender's IK means them (``solvers.limits.SwingTwistLimit``): the
    pose rotation is a swing of the bone's +Y (X and Z) after a twist about it (Y). ``lock`` pins
    the axis at 0 (Y locked: the bone never twists; X and Z locked: it only twists);
    ``stiffness`` in [0, 1] slows the axis (its step is weighted by 1 - stiffness; above
    ``MAX_STIFFNESS`` acts as that); ``use_limit`` holds the axis's angle
    (``solvers.limits.swing_twist_angles``) in [``limit_min``, ``limit_max``] (radians, within
    [-pi, pi]). ``stretch`` in [0, 1]: how readily the bone lengthens along its Y axis (0: never).
    """
    lock: tuple = (False, False, False)
    stiffness: tuple = (0.0, 0.0, 0.0)
    use_limit: tuple = (False, False, False)
    limit_min: tuple = (-np.pi,) * 3
    limit_max: tuple = (np.pi,) * 3
    stretch: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "lock", _flags(self.lock, "lock"))
        object.__setattr__(self, "use_limit", _flags(self.use_limit, "use_limit"))
        stiffness = _finite(self.stiffness, 3, "stiffness")
        if min(stiffness) < 0 or max(stiffness) > 1:
            raise ValueError(f"stiffness must lie in [0, 1] per axis, got {self.stiffness!r}")
        object.__setattr__(self, "stiffness", tuple(min(s, MAX_STIFFNESS) for s in stiffness))
        low, high = _finite(self.limit_min, 3, "limit_min"), _finite(self.limit_max, 3, "limit_max")
        for axis, (lo, hi) in enumerate(zip(low, high)):
            if not -np.pi <= lo <= hi <= np.pi:
                raise ValueError(f"axis {'XYZ'[axis]}: limits need -pi <= min <= max <= pi, got min={lo} max={hi}")
        object.__setattr__(self, "limit_min", low)
        object.__setattr__(self, "limit_max", high)
        if not (np.isfinite(self.stretch) and 0 <= self.stretch <= 1):
            raise ValueError(f"stretch must lie in [0, 1], got {self.stretch!r}")

    @property
    def held(self):
        """Whether a lock or a limit holds the bone's rotation (rather than it turning freely)."""
        return any(self.lock) or any(self.use_limit)
