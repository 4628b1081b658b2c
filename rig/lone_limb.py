"""The rig's fast path for a lone two-bone limb: a group of one constraint whose plan runs the
analytic two-bone method alone, on bones with no lock or limit, asking only for a position (with
pole, stretch and soft reach as they come). Such a solve is one compiled call from the target to
the world matrices (``solvers.two_bone_posed``), skipping the problem, result and write that
``rig.ik.solve_goals`` builds for every other group; the poses are the same (tests/rig/test_lone_limb.py).
Input that needs conditioning (a non-finite or far target, a partial influence) takes that path.
"""
import math

import numpy as np

from rig.solver_views import chain_arrays
from solvers.two_bone_posed import limb_row, solve_posed

LIMB = ("two_bone",)
LIMB_FEATURES = frozenset({"stretch", "soft reach"})  # what the compiled path takes beyond a position
TAU = 2.0 * math.pi
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


def solve_lone_limb(rig, pose, world, goal, bones, plan):
    """Solve ``goal`` (a lone limb's, ``plan`` one this path ``takes``) over ``bones`` into ``pose`` and
    ``world`` (the limb and every bone below it); returns the tip's distance from the target, or
    None, with nothing changed, when the goal needs ``solve_goals``' path."""
    c = goal.constraint
    pole_angle = c.pole_angle
    if not (c.influence >= 1.0 and 0.0 < c.weight < math.inf and 0.0 <= c.soft_reach < math.inf
            and math.isfinite(pole_angle)):
        return None
    if pole_angle != 0.0:
        pole_angle = math.remainder(pole_angle, TAU)  # as ``solvers.inputs.finite_angle``
    pole = goal.pole
    try:
        tx, ty, tz = _point(goal.target)
        px, py, pz = (0.0, 0.0, 0.0) if pole is None else _point(pole)
    except (TypeError, ValueError):  # not three numbers: the goal's own checks say so
        return None
    stretch = plan.freedoms.stretch
    stretch0, stretch1 = (0.0, 0.0) if stretch is None else stretch.tolist()
    skeleton = rig.skeleton
    chain = chain_arrays(skeleton, pose, world, bones)
    error = solve_posed(limb_row(chain), bones[0], bones[1], rig.solver.mode != "continuous", tx, ty, tz,
                        pole is not None, px, py, pz, float(pole_angle), stretch is not None, stretch0, stretch1,
                        float(c.soft_reach),
                        skeleton.rest_local, skeleton.parents, skeleton.subtree(bones[0]), pose.locations,
                        pose.rotations, pose.scales, world)
    return None if error != error else error
