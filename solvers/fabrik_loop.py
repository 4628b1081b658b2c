"""FABRIK's compiled loop: ``fabrik_solve`` iterates ``solvers.fabrik_step.fabrik_step`` under the
rules ``solvers.progress`` states and compiles in (converged, capped, or stalled for ``patience``
iterations; the best state seen is the answer), all in one kernel call: a free chain's step is
cheap enough that calling a kernel once per iteration from Python cost more than the step itself. Also here: what
the loop measures (each goal's residual, the summed cost), the unfold of a chain lying on one line
with its targets, and the least-twist rotations a free chain ends with.
"""
import math

import numpy as np
from numba import njit

from solvers import scalar as sc
from solvers.fabrik_step import EPS, axis_turn, base_rotation, beyond_reach, fabrik_step, matrix_at, parts, pose, \
    put_matrix, put_vector
from solvers.limits import clamp_encoded
from solvers.progress import stalled_for, summed, within
from solvers.rotation_fit import arc, vector_row


@njit(cache=True)
def _on_one_line(active, effector_bone, heads, tails, targets):
    """True when the ``active`` bones' heads, the effectors' tails (of ``effector_bone``) and the
    targets all lie on one line (within 1e-9 of their spread): FABRIK's passes would then only
    slide joints along it and never bend the chain."""
    k = len(effector_bone)
    points = np.empty((len(active) + 2 * k, 3))
    for a in range(len(active)):
        put_vector(points, a, vector_row(heads, active[a]))
    for e in range(k):
        put_vector(points, len(active) + e, vector_row(tails, effector_bone[e]))
        put_vector(points, len(active) + k + e, vector_row(targets, e))
    first = vector_row(points, 0)
    far, spread = first, 0.0
    for i in range(len(points)):
        reach = sc.length(sc.sub(vector_row(points, i), first))
        if reach > spread:
            far, spread = vector_row(points, i), reach
    if spread < EPS:
        return True
    line = sc.normalize(sc.sub(far, first))
    for i in range(len(points)):
        if sc.length(sc.cross(sc.sub(vector_row(points, i), first), line)) > 1e-9 * spread:
            return False
    return True


@njit(cache=True)
def _errors(effector_bone, world, tails, targets, goals, has_goal):
    """Each effector's (bones ``effector_bone``) tail-to-target distance, then the angle (radians)
    left to each rotation goal, as one array (``summed`` from the effectors' count on counts
    angles), which the loop returns as it is."""
    k = len(effector_bone)
    rotations = 0
    for e in range(k):
        rotations += has_goal[e]
    errors = np.empty(k + rotations)
    for e in range(k):
        errors[e] = sc.length(sc.sub(vector_row(tails, effector_bone[e]), vector_row(targets, e)))
    i = k
    for e in range(k):
        if has_goal[e]:
            alike = abs(sc.qdot(sc.quat_from_matrix3(matrix_at(world, effector_bone[e])),
                                sc.quat_from_matrix3(matrix_at(goals, e))))
            errors[i] = 2.0 * math.acos(min(alike, 1.0))
            i += 1
    return errors


@njit(cache=True)
def _free_chain(active, link_start, limit_start, has_goal):
    """Whether every ``active`` bone turns freely toward a single link (rows of ``link_start``):
    no limits (rows of ``limit_start``), no rotation goal."""
    for e in range(len(has_goal)):
        if has_goal[e]:
            return False
    for j in active:
        if limit_start[j] < limit_start[j + 1] or link_start[j + 1] - link_start[j] != 1:
            return False
    return True


@njit(cache=True)
def _least_twist(t, start, local, world, heads, tails):
    """Pose rotations of a free chain that lay it on the points pose ``local`` reaches (its
    ``world`` rotations, ``heads`` and ``tails``, as ``pose`` gave them), each active bone turned
    from its rotation in ``start`` by the shortest arc once its parent has turned: the roll the
    start pose gave each bone stays, however the iterations turned it on the way (their shortest
    arcs, one per step, do not add up to one)."""
    world = world.copy()
    n = len(t.parents)
    laid = local.copy()
    base = base_rotation(t)
    for j in t.active:
        p = t.parents[j]
        before = sc.mmul(base if p < 0 else matrix_at(world, p), matrix_at(t.rest, j))
        link = t.link_start[j]
        node = t.link_node[link]
        point = vector_row(heads, node) if node < n else vector_row(tails, t.effector_bone[node - n])
        was = matrix_at(start, j)
        toward = sc.mvec(sc.transpose(before), sc.sub(point, vector_row(heads, j)))
        rotation = sc.mmul(arc(sc.mvec(was, vector_row(t.link_vector, link)), toward), was)
        put_matrix(laid, j, rotation)
        put_matrix(world, j, sc.mmul(before, rotation))
    return laid


@njit(cache=True)
def _held_at(active, limit_start, limit_kind, limit_parameters, local):
    """The axes (n, 3) the ``active`` bones' limits (as the tables encode them) hold pose
    rotations ``local`` (n, 3, 3) at, as their clamp judges them: the verdict of a start no step
    improved on, which ends on its bounds as often as a step's pose (the best of several solves
    may be one's unchanged start)."""
    held = np.zeros((len(local), 3), dtype=np.bool_)
    for j in active:
        if limit_start[j] < limit_start[j + 1]:
            _, bone_held = clamp_encoded(limit_kind, limit_parameters, limit_start[j], limit_start[j + 1],
                                         sc.quat_from_matrix3(matrix_at(local, j)))
            held[j, 0], held[j, 1], held[j, 2] = bone_held
    return held


@njit(cache=True)
def fabrik_solve(t, targets, goals, has_goal, rotations, unfold, max_iterations, tolerance, patience, min_gain):
    """FABRIK from pose ``rotations`` (n, 4): ``fabrik_step`` iterated under the rules of
    ``solvers.progress`` (until every error is within ``tolerance``, ``max_iterations`` steps, or
    ``patience`` steps in a row without lowering the summed error by ``min_gain``),
    compiled with the step because calling a kernel from Python costs more than a chain's whole
    step. A pose whose bones and targets lie on one line first turns each movable bone by
    ``unfold`` about its X axis, so the passes can bend it; a free chain's bones end turned from
    that start by the least twist (``_least_twist``). Returns the best pose's rotations
    (n, 4), the steps taken, its errors (``_errors``) and the axes its limits held (n, 3)."""
    n = len(t.parents)
    local = np.empty((n, 3, 3))
    for i in range(n):
        put_matrix(local, i, sc.qmatrix((rotations[i, 0], rotations[i, 1], rotations[i, 2], rotations[i, 3])))
    bones, paths = parts(t)
    effector_bone = t.effector_bone
    world, heads, tails = pose(bones, local)
    if _on_one_line(t.active, effector_bone, heads, tails, targets):
        turn = axis_turn((1.0, 0.0, 0.0), unfold)
        for i in range(n):
            if t.movable[i]:
                put_matrix(local, i, sc.mmul(matrix_at(local, i), turn))
        world, heads, tails = pose(bones, local)
    free = _free_chain(t.active, t.link_start, t.limit_start, has_goal)
    beyond = free
    for e in range(len(effector_bone)):
        beyond = beyond and beyond_reach(paths, heads, targets, has_goal, e)
    if beyond:
        # The first step lays each free chain straight at its target, and no later step gets
        # nearer (limits could keep a chain off that line, and their later steps get nearer).
        max_iterations = min(max_iterations, 1)
    held = _held_at(t.active, t.limit_start, t.limit_kind, t.limit_parameters, local)
    start, best_local, best_held = local, local, held
    best_world, best_heads, best_tails = world, heads, tails
    best_errors = _errors(effector_bone, world, tails, targets, goals, has_goal)
    angles_from = len(effector_bone)
    best_cost = summed(best_errors, angles_from)
    iterations, stalled = 0, 0
    while iterations < max_iterations and not within(best_errors, tolerance):
        local, world, heads, tails, held = fabrik_step(t, bones, paths, targets, goals, has_goal, local, world, heads)
        iterations += 1
        errors = _errors(effector_bone, world, tails, targets, goals, has_goal)
        cost = summed(errors, angles_from)
        stalled = stalled_for(stalled, cost, best_cost, min_gain)
        if cost < best_cost:
            best_local, best_held, best_errors, best_cost = local, held, errors, cost
            best_world, best_heads, best_tails = world, heads, tails
        if stalled >= patience:
            break
    if free:
        best_local = _least_twist(t, start, best_local, best_world, best_heads, best_tails)
    solved = np.empty((n, 4))
    for i in range(n):
        solved[i, 0], solved[i, 1], solved[i, 2], solved[i, 3] = sc.quat_from_matrix3(matrix_at(best_local, i))
    return solved, iterations, best_errors, best_held
