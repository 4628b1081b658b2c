"""The rig's fast path for a lone two-bone limb: a group of one constraint whose plan runs the
analytic two-bone method alone, on bones with no lock or limit, asking only for a position (with
pole, stretch and soft reach as they come). Such a solve is one compiled call from the target to
the world matrices (``solvers.two_bone_posed``), skipping the problem, result and write that
``rig.ik.solve_goals`` builds for every other group; the poses are the same (tests/rig/test_lone_limb.py).
Input that needs conditioning (a non-finite or far target, a partial influence) takes that path.
"""
import math
from typing import NamedTuple

import numpy as np

from rig.solver_views import chain_arrays
from solvers.two_bone_posed import limb_row, solve_posed

LIMB = ("two_bone",)
LIMB_FEATURES = frozenset({"stretch", "soft reach"})  # what the compiled path takes beyond a position
TAU = 2.0 * math.pi  # pole angles reduce to [-pi, pi] as ``solvers.inputs.finite_angle`` does
INF = math.inf
ORIGIN = (0.0, 0.0, 0.0)  # the kernel's pole when there is none
FLOAT64 = np.dtype(float)


def takes(plan):
    """Whether a group with ``plan`` is a lone limb this path solves."""
    return (plan.choice.methods == LIMB and plan.choice.restarts is None and plan.freedoms.limits is None
            and plan.features <= LIMB_FEATURES and len(plan.chains) == 1)


def _point(values):
    """Three floats of a point (an array, as goals hold them, or a sequence)."""
    if type(values) is np.ndarray and values.dtype is FLOAT64:
        return values.tolist()
    return [float(v) for v in values]


class _Limb(NamedTuple):
    """What a limb's solves share while its plan and base stay: the kernel's constants row, its
    bones, the bones its forward kinematics moves and the stretch amounts (``has_stretch``)."""
    plan: object
    row: np.ndarray
    first: int
    second: int
    moved: np.ndarray
    has_stretch: bool
    stretch0: float
    stretch1: float


def _limb(skeleton, chain, bones, plan):
    """The ``_Limb`` of ``bones`` hanging as ``chain`` under ``plan``, kept with the chain's base."""
    limb = chain.base_memo.get("lone_limb")
    if limb is None or limb.plan is not plan:
        stretch = plan.freedoms.stretch
        limb = chain.base_memo["lone_limb"] = _Limb(plan, limb_row(chain), int(bones[0]), int(bones[1]),
                                                     skeleton.subtree(bones[0]), stretch is not None,
                                                     *((0.0, 0.0) if stretch is None else stretch.tolist()))
    return limb


def solve_lone_limb(rig, pose, world, goal, bones, plan):
    """Solve ``goal`` (a lone limb's, ``plan`` one this path ``takes``) over ``bones`` into ``pose`` and
    ``world`` (the limb and every bone below it); returns the tip's distance from the target, or
    None, with nothing changed, when the goal needs ``solve_goals``' path."""
    c = goal.constraint
    pole_angle, soft = c.pole_angle, c.soft_reach
    if not (c.influence >= 1.0 and 0.0 < c.weight < INF and 0.0 <= soft < INF and -INF < pole_angle < INF):
        return None
    pole = goal.pole
    try:
        tx, ty, tz = _point(goal.target)
        px, py, pz = ORIGIN if pole is None else _point(pole)
    except (TypeError, ValueError):  # not three numbers: the goal's own checks say so
        return None
    skeleton = rig.skeleton
    limb = _limb(skeleton, chain_arrays(skeleton, pose, world, bones), bones, plan)
    error = solve_posed(limb.row, limb.first, limb.second, rig.solver.mode != "continuous", tx, ty, tz,
                        pole is not None, px, py, pz, math.remainder(pole_angle, TAU) if pole_angle else 0.0,
                        limb.has_stretch, limb.stretch0, limb.stretch1, float(soft), skeleton.rest_local,
                        skeleton.parents, limb.moved, pose.locations, pose.rotations, pose.scales, world)
    return None if error != error else error
