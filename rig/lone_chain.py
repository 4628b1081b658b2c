"""The rig's fast path for a lone free chain: a group of one constraint whose plan runs FABRIK
first, on bones with no lock or limit, asking only for a position without a pole. Its FABRIK run
is one compiled call from the target to the world matrices (``solvers.fabrik_posed``), skipping
the problem, result and write that ``rig.ik.solve_goals`` builds; when that run leaves the goal
short, nothing is written and ``solve_goals`` takes its answer as the first method's and goes on
as it always has. The poses are the same (tests/rig/test_lone_chain.py). Input that needs
conditioning (a non-finite target, a partial influence) takes the general path.
"""
import math
from typing import NamedTuple

import numpy as np

from rig.lone_limb import point_floats
from rig.solver_views import chain_arrays
from solvers.fabrik import free_chain_plan
from solvers.fabrik_posed import solve_posed_chain
from solvers.kinematics import STALE, built_under

METHOD = "fabrik"


def takes(plan):
    """Whether a group with ``plan`` is a lone free chain this path solves."""
    return (plan.choice.methods[0] == METHOD and plan.choice.restarts is None and plan.freedoms.limits is None
            and not plan.features and len(plan.chains) == 1)


class ChainRun(NamedTuple):
    """What the compiled FABRIK run did: the tip's distance from the target, the iterations spent
    and, when that distance is beyond the tolerance (nothing written), the answer's rotations."""
    error: float
    iterations: int
    rotations: np.ndarray = None


class _Kept(NamedTuple):
    """What a chain's solves share while its plan, its parent's frame and its bones' locations
    stay (the kernel answers ``STALE`` once they moved): the kernel's tables, what they were built
    under (``kinematics.built_under``), its bones, the bones its forward kinematics moves and a
    buffer for the answer."""
    plan: object
    tables: tuple
    built: np.ndarray
    bones: np.ndarray
    moved: np.ndarray
    solved: np.ndarray


def _kept(skeleton, pose, world, bones, plan):
    """A fresh ``_Kept`` of ``bones`` under ``plan``, kept in ``skeleton.solver_lone_chains``."""
    parent = skeleton.parents[bones[0]]
    chain = chain_arrays(skeleton, pose, world, bones)
    kept = skeleton.solver_lone_chains[bones[0], bones[-1]] = _Kept(
        plan, tuple(free_chain_plan(chain).tables),
        built_under(world[parent] if parent >= 0 else None, pose.locations[bones]),
        np.array(bones, dtype=np.int64), skeleton.subtree(bones[0]), np.empty((len(bones), 4)))
    return kept


def solve_lone_chain(rig, pose, world, goal, bones, plan, iterations):
    """FABRIK for ``goal`` over ``bones`` with at most ``iterations``, into ``pose`` and ``world``
    (the chain and every bone below it) when its answer is within the rig's tolerance, when
    ``plan`` is one this path ``takes``; returns a ``ChainRun``, or None, with nothing run, when
    the group or the goal needs ``solve_goals``' path."""
    skeleton = rig.skeleton
    kept = skeleton.solver_lone_chains.get((bones[0], bones[-1]))
    if (kept is None or kept.plan is not plan) and not takes(plan):
        return None
    if goal.pole is not None or not goal.constraint.influence >= 1.0:
        return None
    try:
        tx, ty, tz = point_floats(goal.target)
    except (TypeError, ValueError):  # not three numbers: the goal's own checks say so
        return None
    if not (math.isfinite(tx) and math.isfinite(ty) and math.isfinite(tz)):
        return None
    if kept is None or kept.plan is not plan:
        kept = _kept(skeleton, pose, world, bones, plan)
    tolerance = float(rig.solver.tolerance)
    for _ in range(2):  # a second time when the parent or the locations moved since the tables were built
        error, spent = solve_posed_chain(kept.tables, kept.built, kept.bones, rig.solver.mode != "continuous", tx, ty,
                                         tz, int(iterations), tolerance, kept.solved, skeleton.rest_local,
                                         skeleton.parents, kept.moved, pose.locations, pose.rotations, pose.scales,
                                         world)
        if error != STALE:
            break
        kept = _kept(skeleton, pose, world, bones, plan)
    if error == STALE:  # still stale: not a chain to trust
        return None
    return ChainRun(error, spent, None if error <= tolerance else kept.solved.copy())
