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
from solvers.two_bone_posed import STALE, Limb, posed_row, solve_posed

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


def point_floats(values):
    """Three floats of a point (an array, as goals hold them, or a sequence)."""
    if type(values) is np.ndarray and values.dtype is FLOAT64:
        return values.tolist()
    return [float(v) for v in values]


class _Kept(NamedTuple):
    """What a limb's solves share while its plan, its parent's frame and its bones' locations
    stay: the kernel's posed row (``solvers.two_bone_posed.posed_row``: constants, bones, stretch
    and what the constraint asks, and what lets the kernel tell when the frame or locations
    moved; None when the constraint needs conditioning) and the bones its forward kinematics moves."""
    plan: object
    row: np.ndarray
    moved: np.ndarray


def _asked(constraint, solver):
    """(from rest, pole angle in [-pi, pi], soft reach) for the kernel, or None when the
    constraint needs conditioning. A plan is kept for the whole of its constraint's and the
    solver's settings (``rig.ik_plan.group_plan``), so a limb kept for a plan may keep these."""
    pole_angle, soft = constraint.pole_angle, constraint.soft_reach
    if not (constraint.influence >= 1.0 and 0.0 < constraint.weight < INF and 0.0 <= soft < INF
            and -INF < pole_angle < INF):
        return None
    return solver.mode != "continuous", math.remainder(pole_angle, TAU) if pole_angle else 0.0, float(soft)


def _kept(rig, pose, world, constraint, bones, plan):
    """A fresh ``_Kept`` of ``bones`` under ``plan`` for ``constraint``, kept in ``skeleton.solver_limbs``."""
    skeleton = rig.skeleton
    first, second = int(bones[0]), int(bones[1])
    parent = int(skeleton.parents[first])
    asked = _asked(constraint, rig.solver)
    row = None if asked is None else \
        posed_row(Limb(chain_arrays(skeleton, pose, world, bones), (first, second), plan.freedoms.stretch, *asked),
                  world[parent] if parent >= 0 else None, pose.locations[[first, second]])
    kept = skeleton.solver_limbs[first, second] = _Kept(plan, row, skeleton.subtree(first))
    return kept


def solve_lone_limb(rig, pose, world, goal, bones, plan):
    """Solve ``goal`` over ``bones`` into ``pose`` and ``world`` (the limb and every bone below
    it) when ``plan`` is one this path ``takes``; returns the tip's distance from the target, or
    None, with nothing changed, when the group or the goal needs ``solve_goals``' path."""
    skeleton = rig.skeleton
    kept = skeleton.solver_limbs.get((bones[0], bones[-1]))
    if kept is None or kept.plan is not plan:
        if not takes(plan):
            return None
        kept = _kept(rig, pose, world, goal.constraint, bones, plan)
    if kept.row is None:
        return None
    pole = goal.pole
    try:
        tx, ty, tz = point_floats(goal.target)
        px, py, pz = ORIGIN if pole is None else point_floats(pole)
    except (TypeError, ValueError):  # not three numbers: the goal's own checks say so
        return None
    for _ in range(2):  # a second time when the parent or the locations moved since the row was built
        error = solve_posed(kept.row, tx, ty, tz, pole is not None, px, py, pz, skeleton.rest_local, skeleton.parents,
                            kept.moved, pose.locations, pose.rotations, pose.scales, world)
        if error != STALE:
            break
        kept = _kept(rig, pose, world, goal.constraint, bones, plan)
    return error if error >= 0.0 else None  # NaN: input to condition; still stale: not a limb to trust
