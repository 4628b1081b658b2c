"""Constraints and per-bone IK settings as plain data, with the fields of Blender's panels.

Nothing here draws or solves: the solver reads these, the panels edit them. Angles are radians.
"""
import math
from dataclasses import dataclass, field

from solvers.methods import METHODS

SOLVER_TYPES = ("auto",) + tuple(METHODS)  # "auto" picks among the methods (solvers.methods)
SOLVE_MODES = ("continuous", "original_pose")
ITASC_MODES = ("animation", "simulation")  # Blender's iTaSC modes (rig.simulation)
REITERATIONS = ("never", "initial", "always")  # when a simulated frame converges (rig.simulation)
IK_TYPES = ("copy_pose", "distance")
LIMIT_MODES = ("inside", "outside", "on_surface")
REFERENCE_AXES = ("bone", "target")
# Each numeric setting's range, stated once: the loaders refuse values outside it, and the panels
# and the command line clamp to it (a panel that took -5 iterations wrote files the loader refused).
RANGES = {"iterations": (1, 10000), "chain_count": (0, 255), "pole_angle": (-math.pi, math.pi),
          "weight": (0.01, 1.0), "orient_weight": (0.01, 1.0), "influence": (0.0, 1.0), "stretch": (0.0, 1.0),
          "rotation_weight": (0.0, 1.0), "stiffness": (0.0, 0.99), "limit": (-math.pi, math.pi),
          "soft_reach": (0.0, 1000.0), "distance": (0.0, 1e6), "damping": (0.0, 100.0),
          "tolerance": (0.0, 0.1),  # metres of residual; Blender's iTaSC precision has the same range
          "max_velocity": (0.0, 100.0), "feedback": (0.0, 100.0),  # rad/s and 1/s, Blender's iTaSC ranges
          "dt": (1e-4, 10.0)}  # seconds a simulated frame steps


def clamp_setting(name, value):
    """``value`` clamped to the range of setting ``name`` (see RANGES); a NaN becomes its low end."""
    low, high = RANGES[name]
    return low if value != value else type(low)(min(max(value, low), high))


@dataclass
class IKConstraint:
    """Blender's Inverse Kinematics constraint on ``bone`` (the chain's last bone).

    ``target`` / ``pole_target`` name bones of the same rig (IK handles); ``target=None`` is
    targetless IK. ``chain_count`` 0 means "up to the root". ``pole_angle`` rotates the chain about
    the root-to-target axis: at 0 the first bone's X axis faces the pole, as in Blender.
    ``weight`` is the position weight for tree IK, ``orient_weight`` the rotation weight used when
    ``use_rotation`` is on. The iTaSC fields (``ik_type`` to ``distance``) are used by the DLS
    solver. ``soft_reach`` (metres, game engines' soft IK) eases a two-bone chain's reach in over
    that distance before full extension, so a knee never snaps straight.
    """
    bone: str
    target: str | None = None
    pole_target: str | None = None
    pole_angle: float = 0.0
    chain_count: int = 0
    use_tail: bool = True
    use_stretch: bool = True
    iterations: int = 500
    use_location: bool = True
    weight: float = 1.0
    use_rotation: bool = False
    orient_weight: float = 1.0
    influence: float = 1.0
    solver: str = "auto"
    enabled: bool = True
    ik_type: str = "copy_pose"
    lock_location: tuple = (False, False, False)
    lock_rotation: tuple = (False, False, False)
    reference_axis: str = "bone"
    limit_mode: str = "inside"
    distance: float = 1.0
    soft_reach: float = 0.0


@dataclass
class CopyRotationConstraint:
    """Blender's Copy Rotation: ``bone`` takes the world rotation of ``target`` (per-axis mix off)."""
    bone: str
    target: str
    use_axes: tuple = (True, True, True)
    influence: float = 1.0
    enabled: bool = True


@dataclass(frozen=True)
class BoneIKSettings:
    """Blender's bone IK panel: per-axis lock, stiffness (0..1), limits (radians), IK stretch.
    Frozen: an edit replaces the bone's settings (``dataclasses.replace``), so what the solve
    derived from the old ones (``rig.ik.group_plan``) can tell they changed."""
    lock: tuple = (False, False, False)
    stiffness: tuple = (0.0, 0.0, 0.0)
    use_limit: tuple = (False, False, False)
    limit_min: tuple = (-3.141592653589793,) * 3
    limit_max: tuple = (3.141592653589793,) * 3
    stretch: float = 0.0
    use_rotation_control: bool = False
    rotation_weight: float = 1.0


@dataclass
class SolverSettings:
    """Armature-wide IK solver settings.

    ``mode`` "continuous" starts each solve from the current pose, "original_pose" from the rest
    pose (Urho3D's USE_ORIGINAL_POSE). ``use_target_rotations`` lets effectors drive end rotations.
    ``itasc_mode`` "simulation" is Blender's iTaSC Simulation mode (``rig.simulation``): each solve
    steps the Jacobian methods through the time since the last one, no bone turning faster than
    ``max_velocity`` (rad/s), the residual corrected at ``feedback`` (1/s); ``reiteration`` says
    which frames converge instead ("never", "initial": the first one, "always").
    """
    type: str = "auto"
    iterations: int = 100
    tolerance: float = 1e-5
    mode: str = "continuous"
    use_target_rotations: bool = False
    damping: float = 0.1
    itasc_mode: str = "animation"
    max_velocity: float = 50.0
    feedback: float = 20.0
    reiteration: str = "initial"


@dataclass
class ConstraintSet:
    ik: list = field(default_factory=list)
    copy_rotation: list = field(default_factory=list)
