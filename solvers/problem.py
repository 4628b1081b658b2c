"""One IK problem, whatever method solves it: the bones that move, the goals and the bones'
freedoms, and the ``Settings`` a method runs under.

A ``Problem`` holds the bones that move (a ``Chain`` for one chain, root first; a ``Tree`` for
chains that share bones), goals from one vocabulary (``solvers.goals``: position with optional
pole, rotation with per-axis locks, distance, joint rotation; each weighted) and every bone's
freedom (``Freedoms``: Blender's bone IK settings as ``BoneDofs``, with what the geometric
methods derive from them). ``solvers.methods.solve`` runs one method on it and returns a
``SolveResult`` whose ``errors`` hold one residual per goal, in the goal's order, in ``units``
("m" for positions and distances, "rad" for rotations; a method that aims, as one bone does,
measures its position residual as an angle).
"""
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from solvers.chain import Chain
from solvers.goals import JointRotationGoal, PositionGoal, RotationGoal
from solvers.limits import Hinge, SwingTwistLimit, limit_violation

REST = np.array([0.0, 0.0, 0.0, 1.0])


def _joint_limit(dofs):
    """The geometric methods' limit for one bone's ``BoneDofs`` (None: free): a bone with two axes
    locked is a Hinge about the third (the rotations its swing-twist limit allows, but the solvers
    then turn it about that axis directly rather than clamp a turn onto it)."""
    if dofs is None or not dofs.held:
        return None
    limit = swing_twist_limit(dofs)
    if sum(dofs.lock) == 2:
        axis = dofs.lock.index(False)
        return Hinge(tuple(float(a == axis) for a in range(3)), limit.min[axis], limit.max[axis])
    return limit


def swing_twist_limit(dofs):
    """One bone's ``BoneDofs`` as a ``SwingTwistLimit`` (the limit on the swing-twist coordinates
    the Jacobian methods move a held bone by)."""
    low = [lo if on else -np.pi for lo, on in zip(dofs.limit_min, dofs.use_limit)]
    high = [hi if on else np.pi for hi, on in zip(dofs.limit_max, dofs.use_limit)]
    return SwingTwistLimit(tuple(low), tuple(high), tuple(dofs.lock), tuple(dofs.use_limit))


@dataclass(frozen=True)
class Freedoms:
    """Every bone's freedom, checked and derived once (a rig keeps it per constraint group):
    ``dofs`` (n,) ``BoneDofs`` or None for a free bone; derived from them, ``limits`` (n,) the
    geometric methods' joint limits (``solvers.limits``; None when no bone has a lock or limit),
    ``stretch`` (n,) IK stretch amounts and ``stiffness`` (n, 3), each None when all zero;
    ``rest_allowed`` (n,) whether each bone's limits allow its rest pose (a start left alone)."""
    dofs: tuple
    limits: tuple = field(init=False)
    stretch: np.ndarray = field(init=False)
    stiffness: np.ndarray = field(init=False)
    rest_allowed: tuple = field(init=False)

    def __post_init__(self):
        limits = tuple(_joint_limit(d) for d in self.dofs)
        object.__setattr__(self, "rest_allowed", tuple(limit is None or limit_violation((limit,), REST) == 0.0
                                                       for limit in limits))
        stretch = np.array([d.stretch if d else 0.0 for d in self.dofs])
        stiffness = np.array([d.stiffness if d else (0.0, 0.0, 0.0) for d in self.dofs])
        object.__setattr__(self, "limits", limits if any(limits) else None)
        object.__setattr__(self, "stretch", stretch if stretch.any() else None)
        object.__setattr__(self, "stiffness", stiffness if stiffness.any() else None)

    @classmethod
    def free(cls, count):
        return cls((None,) * count)


@dataclass(frozen=True)
class Problem:
    """The bones that move (``Chain`` or ``Tree``), the ``goals`` (a tuple of ``solvers.goals``
    goals, bones indexed in ``bones``) and the ``freedoms`` (``Freedoms``) of those bones."""
    bones: object
    goals: tuple
    freedoms: Freedoms

    @property
    def is_chain(self):
        return isinstance(self.bones, Chain)

    def units(self, aims):
        """Each goal's residual unit: "rad" for rotations, and for the first goal's position when
        the method ``aims`` (measures its reach as an angle)."""
        if len(self.goals) == 1 and not aims and type(self.goals[0]) is PositionGoal:
            return ("m",)  # the usual drag, answered without a walk over the goals
        return tuple("rad" if isinstance(g, (RotationGoal, JointRotationGoal)) or aims and k == 0
                     else "m" for k, g in enumerate(self.goals))


class Settings(NamedTuple):
    """How long and how closely a method works: at most ``iterations``, done when every goal is
    within ``tolerance`` (metres or radians); ``damping`` for the Jacobian methods; ``simulation``
    (a ``solvers.simulation.Simulation``) makes a Jacobian method take one frame of iTaSC's
    Simulation mode instead of iterating (None: it iterates). (A named tuple: one is made per
    method run, and a tuple is made in a third of a dataclass's time.)"""
    iterations: int = 100
    tolerance: float = 1e-3
    damping: float = 0.1
    simulation: object = None
