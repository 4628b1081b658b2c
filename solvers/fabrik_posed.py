"""A lone free chain solved by FABRIK straight into a rig's pose and world matrices: one compiled
call from the target to the posed bones, for the rig's commonest chain solve (a dragged spine,
tail or tentacle; each case of a scripted chain).

``solve_posed_chain`` runs ``fabrik_loop.fabrik_solve`` (FABRIK's one compiled loop) from the
rest pose or the pose's rotations and, when its answer is within the tolerance, writes the
chain's rotations and unit scales into the pose arrays, then ``kinematics.update_world`` over
the bones below the chain: what ``solve_fabrik``, the rig's write and its forward kinematics do
one after another, without the Python between them (through the rig that glue cost as much as
the solve). An answer short of the tolerance is left in ``solved`` and nothing is written: the
caller's other methods go on from it.
"""
import numpy as np
from numba import njit

from solvers.chain import straight_chain
from solvers.fabrik import UNFOLD, free_chain_plan
from solvers.fabrik_loop import fabrik_solve
from solvers.fabrik_step import StepTables
from solvers.kinematics import STALE, built_under, hangs_as_built, update_world
from solvers.progress import PATIENCE, min_gain


@njit(cache=True)
def solve_posed_chain(tables, built, bones, from_rest, tx, ty, tz, max_iterations, tolerance, solved, rest_local,
                      parents, moved, locations, rotations, scales, world):
    """FABRIK on the free chain of ``tables`` (``solvers.fabrik.free_chain_plan``'s, as a plain
    tuple: numba takes one in half a named tuple's time, 2 of a solve's 30 us), the pose's
    ``bones`` (int64, root first) hanging as they did when ``built`` (``kinematics.built_under``),
    toward target (``tx``, ``ty``, ``tz``), world, from the rest pose (``from_rest``) or the
    bones' ``rotations``, under ``max_iterations`` and ``tolerance``. Its answer goes to
    ``solved`` (n, 4); within the tolerance it is also written to ``rotations`` (N, 4) with unit
    ``scales`` (N, 3), and the world matrices of ``moved`` (the chain's first bone and all below
    it, ascending) updated as ``kinematics.update_world`` with ``rest_local``, ``parents`` and
    ``locations``. Returns the tip's distance from the target and the iterations spent; ``STALE``
    and 0, with nothing run, once the bones hang otherwise."""
    if not hangs_as_built(built, parents[bones[0]], bones, locations, world):
        return STALE, 0
    t = StepTables(*tables)
    n = len(bones)
    start = np.empty((n, 4))
    for i in range(n):
        for k in range(4):
            start[i, k] = (1.0 if k == 3 else 0.0) if from_rest else rotations[bones[i], k]
    targets = np.empty((1, 3))
    targets[0, 0], targets[0, 1], targets[0, 2] = tx, ty, tz
    goals = np.zeros((1, 3, 3))
    for k in range(3):
        goals[0, k, k] = 1.0
    answer, iterations, errors, _ = fabrik_solve(t, targets, goals, np.zeros(1, dtype=np.bool_), start, UNFOLD,
                                                 max_iterations, tolerance, PATIENCE, min_gain(tolerance))
    solved[:] = answer
    if errors[0] <= tolerance:
        for i in range(n):
            rotations[bones[i]] = answer[i]
            scales[bones[i]] = 1.0
        update_world(rest_local, parents, moved, locations, rotations, scales, world)
    return errors[0], iterations


def warm():
    """Compile (or load from the cache) ``solve_posed_chain`` for the argument types the rig passes."""
    chain = straight_chain([1.0, 1.0])
    rest_local = np.tile(np.eye(4), (2, 1, 1))
    rest_local[1, 1, 3] = 1.0
    bones, locations = np.array([0, 1]), np.zeros((2, 3))
    solve_posed_chain(tuple(free_chain_plan(chain).tables), built_under(None, locations), bones, True, 0.5, 1.0, 0.5,
                      2, 1e-3, np.empty((2, 4)), rest_local, np.array([-1, 0]), bones, locations,
                      np.tile([0.0, 0.0, 0.0, 1.0], (2, 1)), np.ones((2, 3)), np.empty((2, 4, 4)))
