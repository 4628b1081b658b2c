"""Task-priority IK on a bone tree (Siciliano & Slotine's recursive null-space scheme, with
Baerlocher & Boulic's joint-limit clamping), compiled.

Every iteration linearises the tasks of each level (``solvers.priority_plan``) and solves them in
turn: level k's damped least-squares step acts only in the null space P the levels above leave
(dq += (J_k P)^+ (e_k - J_k dq), then P -= the row space of J_k P), so to first order a lower task
never moves a higher one; below them all a gentle pull toward the start pose moves what is left.
A step that carries a held bone's coordinate past its limit stops that coordinate where the clamp
puts it, takes its column out, and the others solve again for what is left (Baerlocher's scheme),
so limits and locks hold throughout. The solve finishes in priority order: iterations on the
levels above the last alone, and so on up to the first alone, so a lower level short of goals it
cannot reach never holds a higher one off; the first level is held exactly, to
``tolerances.PIN_POSITION`` and ``PIN_ROTATION`` (times ``HOLD_MARGIN``). A column given inertia
is damped at least that much on the lower levels, wherever they stand: where several columns
nearly cancel (a spine bending one way low and back higher up barely moves what it carries), the
least-squares step along them is large and flips with the goals' noise, and a warm-started solve
per frame (tracking) would show it as joints zigzagging from frame to frame. Targets too far to
step to are approached ``priority_tasks.MAX_MOVE`` scales at a time; an iterate that is not finite
is never taken. The rows each level solves are ``solvers.priority_tasks``'.
"""
import math
from typing import NamedTuple

import numpy as np
from numba import njit

from solvers import scalar as sc
from solvers.goals import BoneDofs
from solvers.kinematics import BoneTree, pose_bones
from solvers.limits import clamp_encoded, held_rotation, swing_twist_coordinates
from solvers.priority_plan import GROUND, OWN, POSITION, ROTATION, SHIFT, SWING, TWIST, Task, column_layout, \
    priority_plan
from solvers.priority_tasks import MAX_MOVE, ground_depth, level_system, task_errors, task_point, turn_axes, way_back
from solvers.progress import PATIENCE, min_gain
from solvers.tolerances import HOLD_MARGIN, PIN_POSITION, PIN_ROTATION
from solvers.tree import Tree

MAX_TURN = 0.35  # radians a column may turn in one step
HOLD_DAMPING = 1e-6  # the first level's damping (times the scale): nearly exact, finite at singularities
SINGULAR = 1e-9  # a row whose part outside the levels above is below this share of it adds no freedom taken
REORTHOGONALISE = 0.7  # Gram-Schmidt passes again where one left less than this share of a row
CLAMP_ROUNDS = 4  # Baerlocher's re-solves per iteration after columns stop on limits
HOLD_ITERATIONS = 30  # the most iterations of each finishing pass (levels above the last alone)
SETTLED = 1e-2  # errors within this share of the scale: the pull toward the start pose rests
CRAWL = 1e-3  # a level whose cost falls by less than this share of it an iteration makes no progress
YIELD = 0.1  # the share of its step a level takes while a goal level above it is SETTLED short of its goals


class PriorityResult(NamedTuple):
    """``rotations`` (n, 4) pose rotations, ``shift`` (3,) the top bone's move in its base frame
    (zero unless the root is free), ``errors`` per task (metres, radians; GROUND: depth below),
    ``iterations``, ``at_limit`` (n, 3) axes a limit or lock holds."""
    rotations: np.ndarray
    shift: np.ndarray
    errors: np.ndarray
    iterations: int
    at_limit: np.ndarray


@njit(cache=True)
def _pose(plan, quats, shift, before, world, heads, tails):
    """Forward kinematics with the root bones' heads moved by ``shift`` (base frame)."""
    bones = plan.bones
    offsets = bones.offsets.copy()
    for i in range(len(bones.parents)):
        if bones.parents[i] < 0:
            offsets[i, 0] += shift[0]
            offsets[i, 1] += shift[1]
            offsets[i, 2] += shift[2]
    moved = BoneTree(bones.parents, bones.base_rotation, bones.origin, bones.rest_rotations, offsets, bones.lengths)
    pose_bones(moved, None, quats, before, world, heads, tails)


@njit(cache=True)
def _solve_spd(matrix, b):
    """x with ``matrix`` x = ``b`` for a small symmetric positive definite ``matrix`` (Cholesky;
    hand-written, as numba's linear algebra needs SciPy's BLAS)."""
    r = len(b)
    lower = np.zeros((r, r))
    for i in range(r):
        for j in range(i + 1):
            total = matrix[i, j]
            for k in range(j):
                total -= lower[i, k] * lower[j, k]
            if i == j:
                lower[i, i] = math.sqrt(max(total, 1e-300))
            else:
                lower[i, j] = total / lower[j, j]
    y = np.zeros(r)
    for i in range(r):
        total = b[i]
        for k in range(i):
            total -= lower[i, k] * y[k]
        y[i] = total / lower[i, i]
    x = np.zeros(r)
    for i in range(r - 1, -1, -1):
        total = y[i]
        for k in range(i + 1, r):
            total -= lower[k, i] * x[k]
        x[i] = total / lower[i, i]
    return x


@njit(cache=True)
def _remove_along(v, basis, spans, lo, hi, taken):
    """``v`` less its parts along rows ``lo``..``hi`` of ``basis`` (orthonormal), in place (modified
    Gram-Schmidt), the parts added to ``taken[lo:hi]``; a second pass only where the first took
    most of ``v`` (rounding then leaves a part along the rows worth removing: "twice is enough",
    Daniel, Gragg, Kaufman and Stewart). Returns the length left. Each part's dot product runs
    over its row's ``spans`` (``_span``) alone: the terms left out are exact zeros, so the sum is
    the same, and a row seldom spans the whole body (a foot's rows move no arm)."""
    before = math.sqrt((v * v).sum())
    for _ in range(2):
        for q in range(lo, hi):
            d = 0.0
            for s in range(1, spans[q, 0] + 1):
                d += v[spans[q, s]] * basis[q, spans[q, s]]
            taken[q] += d
            for col in range(len(v)):
                v[col] -= d * basis[q, col]
        after = math.sqrt((v * v).sum())
        if after > REORTHOGONALISE * before:
            break
        before = after
    return after


@njit(cache=True)
def _span(spans, basis, q):
    """Write to ``spans[q]`` the count, then the columns (ascending), where basis row ``q`` is not 0."""
    count = 0
    for col in range(basis.shape[1]):
        if basis[q, col] != 0.0:
            count += 1
            spans[q, count] = col
    spans[q, 0] = count


@njit(cache=True)
def _direction(plan, levels, axes, world, heads, tails, contact, active, fixed, back, damping, pull, inertia):
    """One step's column changes: the first ``levels`` levels in priority order, each in the null
    space of those above, then ``pull`` times the way ``back`` to the start in what is left.
    Inactive columns change by ``fixed`` (where a limit stopped them) and serve no level; the
    levels below the first damp each column at least by its ``inertia`` (times the scale).

    The levels above are kept as an orthonormal ``basis`` of their row space (Gram-Schmidt, rows
    whose remainder falls below ``SINGULAR`` of their size add none): the null space left is what
    is orthogonal to it. A level's rows, less their parts in it (J P), are R Q with Q its new
    basis rows and R the parts Gram-Schmidt takes along them (a QR factoring); the damped step
    (R^T R + l^2 I)^-1 R^T (e - J dq) along Q is (J P)'s damped pseudo-inverse."""
    c = len(plan.column_kind)
    weight = plan.column_weight
    x = np.zeros(c)
    for col in range(c):
        if not active[col]:
            x[col] = fixed[col] / weight[col]
    held_back = np.flatnonzero(inertia > 0.0)  # the columns with inertia (the others add 0 below)
    basis, spans = np.zeros((c, c)), np.empty((c, c + 1), dtype=np.int64)
    v, discarded = np.empty(c), np.zeros(c)
    count = 0
    unsettled = False  # a goal level above is still far from its goals
    for k in range(levels):
        jacobian, left = level_system(plan, plan.levels[k], axes, world, heads, tails, contact)
        m = len(left)
        if m == 0 or count == c:
            continue
        first = count
        along = np.zeros((m, c))  # R: row i's parts along the basis rows first.. (rows before first: none)
        made = np.empty(m, dtype=np.int64)  # the basis rows there are after row i: R is 0 to their right
        for i in range(m):
            for col in range(c):
                entry = jacobian[i, col] * weight[col]  # weighted units: a stiff axis is a dear one
                left[i] -= entry * x[col]
                v[col] = entry if active[col] else 0.0
            whole = math.sqrt((v * v).sum())  # the row's own size, before the levels above take their parts
            _remove_along(v, basis, spans, 0, first, discarded)
            if not (math.isfinite(whole) and math.isfinite(left[i])):
                return np.zeros(c)
            rest = _remove_along(v, basis, spans, first, count, along[i])
            if rest > SINGULAR * whole and rest > 1e-300 and count < c:
                basis[count] = v / rest
                _span(spans, basis, count)
                along[i, count] = rest
                count += 1
            made[i] = count
        size = math.sqrt((left * left).sum())
        if unsettled:  # its null-space steps would hold the level above off at second order: go gently
            left *= YIELD
        unsettled = unsettled or (k > 0 and size > SETTLED * plan.scale)
        new = count - first
        if new == 0:
            continue
        # Damping shrinks with what is left to do (Levenberg-Marquardt's way): steady far from a
        # goal or at a singularity, Gauss-Newton's pace near one.
        square = (HOLD_DAMPING * plan.scale) ** 2 if k == 0 else \
            (damping * min(plan.scale, size)) ** 2
        normal, rhs = np.zeros((new, new)), np.zeros(new)
        for q in range(new):
            # R's rows above the one that made basis row q are 0 there: sums from that row on
            # skip only zeros (the same sums).
            since = np.searchsorted(made, first + q, side="right")
            for i in range(since, m):
                rhs[q] += along[i, first + q] * left[i]
            for p in range(q + 1):
                total = 0.0
                for i in range(since, m):
                    total += along[i, first + q] * along[i, first + p]
                normal[q, p] = normal[p, q] = total
            normal[q, q] += square
        # Columns with inertia are damped on the levels below the first by at least that much
        # (Tikhonov's term in their weighted units): a direction those levels' goals hardly see moves little.
        if k > 0 and len(held_back):
            for q in range(new):
                for p in range(q + 1):
                    total = 0.0
                    for col in held_back:
                        total += basis[first + q, col] * basis[first + p, col] * (inertia[col] * plan.scale) ** 2
                    normal[q, p] += total
                    if p != q:
                        normal[p, q] += total
        z = _solve_spd(normal, rhs)
        for q in range(new):
            for col in range(c):
                x[col] += z[q] * basis[first + q, col]
    if pull > 0.0:
        toward = np.zeros(c)
        for col in range(c):
            if active[col]:
                toward[col] = back[col] / weight[col] - x[col]
        _remove_along(toward, basis, spans, 0, count, discarded)
        x += pull * toward
    return x * weight


@njit(cache=True)
def _bounded(plan, dq):
    """``dq`` scaled down so no column turns more than ``MAX_TURN`` nor shifts more than
    ``MAX_MOVE`` scales in one step (the whole step scaled: its priorities stay)."""
    factor = 1.0
    for col in range(len(dq)):
        most = MAX_MOVE * plan.scale if plan.column_kind[col] == SHIFT else MAX_TURN
        if abs(dq[col]) * factor > most:
            factor = most / abs(dq[col])
    return dq * factor


@njit(cache=True)
def _clamped(plan, j, coords, at_limit):
    """Bone ``j``'s rotation from its coordinates, held by its limits: the rotation, with its
    coordinates set to where the clamp put them and ``at_limit[j]`` to the held axes."""
    q, held = clamp_encoded(plan.limit_kinds, plan.limit_parameters, plan.limit_starts[j], plan.limit_starts[j + 1],
                            held_rotation((coords[j, 0], coords[j, 1], coords[j, 2])))
    u, t, w = swing_twist_coordinates(q)
    coords[j, 0], coords[j, 1], coords[j, 2] = u, t, w
    at_limit[j, 0], at_limit[j, 1], at_limit[j, 2] = held
    return q


@njit(cache=True)
def _apply(plan, quats, coords, shift, dq, at_limit):
    """The pose after column changes ``dq``: (quats, coords, shift), held bones clamped."""
    quats, coords, shift = quats.copy(), coords.copy(), shift.copy()
    turns = np.zeros((len(quats), 3))
    for col in range(len(dq)):
        j, axis, kind = plan.column_bone[col], plan.column_axis[col], plan.column_kind[col]
        if kind == SHIFT:
            shift[axis] += dq[col]
        elif kind == OWN:
            turns[j, axis] = dq[col]
        else:
            coords[j, axis] += dq[col]
    for j in range(len(quats)):
        if plan.held[j]:
            q = _clamped(plan, j, coords, at_limit)
        elif turns[j, 0] != 0.0 or turns[j, 1] != 0.0 or turns[j, 2] != 0.0:
            q = sc.qnormalize(sc.qmul((quats[j, 0], quats[j, 1], quats[j, 2], quats[j, 3]),
                                      sc.qfrom_rotvec((turns[j, 0], turns[j, 1], turns[j, 2]))))
        else:
            continue
        quats[j, 0], quats[j, 1], quats[j, 2], quats[j, 3] = q
    return quats, coords, shift


@njit(cache=True)
def _touching(plan, contact, moved_quats, moved_shift):
    """Mark in ``contact`` the ground points the pose ``moved`` carries below their ground that the
    step did not hold; whether there were any."""
    n = len(moved_quats)
    before, world, heads, tails = np.empty((n, 4)), np.empty((n, 4)), np.empty((n, 3)), np.empty((n, 3))
    _pose(plan, moved_quats, moved_shift, before, world, heads, tails)
    touched = False
    for t in range(len(plan.task_kind)):
        if plan.task_kind[t] == GROUND and not contact[t]:
            if ground_depth(plan, t, task_point(plan, t, world, heads, tails)) > 0.0:
                contact[t], touched = True, True
    return touched


@njit(cache=True)
def _step(plan, levels, posed, quats, coords, shift, start_quats, start_coords, damping, pull, inertia, at_limit):
    """One iteration from the pose ``posed`` (``_posed``): the priority step, solved again
    (``CLAMP_ROUNDS`` at most) without the columns a limit stopped (their change fixed where the
    clamp put them), and with the ground points it would carry below held on their ground (an
    active set: a point the step lifts off is free to go)."""
    before, world, heads, tails = posed
    axes = turn_axes(plan, coords, before, world)
    back = way_back(plan, quats, coords, shift, start_quats, start_coords) if pull > 0.0 else np.zeros(0)
    c = len(plan.column_kind)
    active, fixed = np.ones(c, dtype=np.bool_), np.zeros(c)
    contact = np.zeros(len(plan.task_kind), dtype=np.bool_)
    grounded = (plan.task_kind == GROUND).any()
    for _ in range(CLAMP_ROUNDS + 1):
        dq = _bounded(plan, _direction(plan, levels, axes, world, heads, tails, contact, active, fixed, back, damping,
                                       pull, inertia))
        moved = _apply(plan, quats, coords, shift, dq, at_limit)
        stopped = False
        for col in range(c):
            kind = plan.column_kind[col]
            if active[col] and (kind == SWING or kind == TWIST):
                j, axis = plan.column_bone[col], plan.column_axis[col]
                change = moved[1][j, axis] - coords[j, axis]
                if abs(change - dq[col]) > 1e-12:  # the clamp took some of it: the limit holds this column
                    active[col], fixed[col], stopped = False, change, True
        touched = grounded and levels > 0 and _touching(plan, contact, moved[0], moved[2])
        if not stopped and not touched:
            break
    return moved


@njit(cache=True)
def _finite(quats, shift):
    return np.isfinite(quats).all() and np.isfinite(shift).all()


@njit(cache=True)
def _posed(plan, quats, shift):
    """The pose's (before, world, heads, tails) (``_pose``): measured after a step, and the next
    step starts from it."""
    n = len(quats)
    before, world, heads, tails = np.empty((n, 4)), np.empty((n, 4)), np.empty((n, 3)), np.empty((n, 3))
    _pose(plan, quats, shift, before, world, heads, tails)
    return before, world, heads, tails


@njit(cache=True)
def _level_costs(plan, errors):
    """Each level's summed error (angles at the plan's scale), first level first: the solve goes on
    while any of them falls (a level may give way while a higher one gains; the first level's
    drift in a long step is the last iterations' to mend)."""
    costs = np.zeros(len(plan.levels))
    for t in range(len(errors)):
        k = np.searchsorted(plan.levels, plan.task_level[t])
        costs[k] += errors[t] * (plan.scale if plan.task_kind[t] == ROTATION else 1.0)
    return costs


@njit(cache=True)
def _met(plan, errors, keep, tolerance):
    """Whether the first ``keep`` levels are met: within ``tolerance``, the first level within what
    it holds to (``HOLD_MARGIN`` inside it)."""
    for t in range(len(errors)):
        k = np.searchsorted(plan.levels, plan.task_level[t])
        if k == 0:
            bound = HOLD_MARGIN * (PIN_ROTATION if plan.task_kind[t] == ROTATION else PIN_POSITION)
        else:
            bound = tolerance
        if k < keep and not errors[t] <= bound:
            return False
    return True


@njit(cache=True)
def _level_errors(plan, errors, count):
    """The errors of the tasks on the first ``count`` levels (others 0)."""
    top = plan.levels[min(count, len(plan.levels)) - 1]
    return np.where(plan.task_level <= top, errors, 0.0)


@njit(cache=True)
def _progressed(costs, best, tolerance):
    """Whether some level not yet within the tolerance lowered its best cost by ``CRAWL`` of it (and
    ``min_gain``): a level crawling toward goals it cannot reach, or wavering in rounding, does not."""
    for k in range(len(costs)):
        if best[k] == np.inf or best[k] > tolerance and costs[k] < best[k] - max(CRAWL * best[k], min_gain(tolerance)):
            return True
    return False


@njit(cache=True)
def _run(plan, keep, state, start_quats, start_coords, budget, tolerance, damping, pull, inertia, at_limit):
    """Iterate on the first ``keep`` levels from ``state`` (quats, coords, shift, the pose
    ``_posed``, errors, iterations done) until they are met, ``budget`` iterations pass, or
    ``PATIENCE`` in a row lower none of their costs; returns the state."""
    quats, coords, shift, posed, errors, done = state
    best, stalled = np.full(len(plan.levels), np.inf), 0
    for _ in range(budget):
        if _met(plan, errors, keep, tolerance):
            break
        costs = _level_costs(plan, errors)[:keep]
        stalled = 0 if _progressed(costs, best[:keep], tolerance) else stalled + 1
        best[:keep] = np.minimum(best[:keep], costs)
        if stalled >= PATIENCE:
            break
        # Near the first two levels' goals the pull rests: its steps, null-space to first order only,
        # would hold them off (lower levels' goals, often out of reach, do not keep it on).
        near = _level_errors(plan, errors, 2).max() <= SETTLED * plan.scale
        moved = _step(plan, keep, posed, quats, coords, shift, start_quats, start_coords, damping,
                      0.0 if near else pull, inertia, at_limit)
        done += 1
        if not _finite(moved[0], moved[2]):
            break
        quats, coords, shift = moved
        posed = _posed(plan, quats, shift)
        errors = task_errors(plan, posed[1], posed[2], posed[3])
    return quats, coords, shift, posed, errors, done


@njit(cache=True)
def solve_kernel(plan, start, iterations, tolerance, damping, pull, inertia):
    """The compiled solve (``solve_priority``): (rotations, shift, errors, iterations, at_limit)."""
    n = len(start)
    quats, coords, shift = np.empty((n, 4)), np.zeros((n, 3)), np.zeros(3)
    at_limit = np.zeros((n, 3), dtype=np.bool_)
    for j in range(n):
        q = sc.qnormalize((start[j, 0], start[j, 1], start[j, 2], start[j, 3]))
        if plan.held[j]:
            coords[j, 0], coords[j, 1], coords[j, 2] = swing_twist_coordinates(q)
            q = _clamped(plan, j, coords, at_limit)
        quats[j, 0], quats[j, 1], quats[j, 2], quats[j, 3] = q
    start_quats, start_coords = quats.copy(), coords.copy()
    posed = _posed(plan, quats, shift)
    levels = len(plan.levels)
    state = (quats, coords, shift, posed, task_errors(plan, posed[1], posed[2], posed[3]), 0)
    # Then in priority order: the levels above the last alone, and so on up to the first (a level
    # short of goals it cannot reach pushes on, and would hold those above it off).
    for keep in range(levels, 0, -1):
        state = _run(plan, keep, state, start_quats, start_coords, iterations if keep == levels else HOLD_ITERATIONS,
                     tolerance, damping, pull if keep == levels else 0.0, inertia, at_limit)
    quats, coords, shift, _, errors, done = state
    return quats, shift, errors, done, at_limit


def solve_priority(plan, start, iterations=100, tolerance=1e-5, damping=0.1, pull=0.1, inertia=None):
    """Solve ``plan``'s tasks (a ``solvers.priority_plan.PriorityPlan``) from pose rotations
    ``start`` (n, 4): at most ``iterations`` (then the first level alone, ``HOLD_ITERATIONS`` more),
    done when every task is within ``tolerance`` or the summed error stops falling;
    ``damping`` of the lower levels (times the scale), ``pull`` toward the start each iteration
    (0: none), ``inertia`` (per column of the plan, or None: none) the least damping of each
    column on the lower levels (times the scale; module doc). Returns a ``PriorityResult``.
    Non-finite start rotations count as no rotation; ValueError for an ``inertia`` that is not
    one finite, non-negative value per column."""
    columns = len(plan.column_kind)
    inertia = np.zeros(columns) if inertia is None else np.ascontiguousarray(inertia, dtype=float)
    if inertia.shape != (columns,) or not (np.isfinite(inertia).all() and (inertia >= 0.0).all()):
        raise ValueError(f"inertia must be one finite value >= 0 per column ({columns}), got {inertia.shape}")
    start = np.asarray(start, dtype=float)
    if not np.isfinite(start).all():
        start = np.nan_to_num(start, nan=0.0, posinf=0.0, neginf=0.0)
    start = np.require(start, requirements=("C", "W"))
    quats, shift, errors, done, at_limit = solve_kernel(plan, start, int(iterations), float(tolerance),
                                                        float(damping), float(pull), inertia)
    return PriorityResult(quats, shift, errors, int(done), at_limit)


def warm():
    """Compile (or load from the cache) the kernel: a two-bone tree with a pin, a ground and a reach."""
    tree = Tree(np.eye(4), [-1, 0, 0], [[0.0, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.5, 0.0]],
                [[0.0, 0.0, 0.0, 1.0]] * 3, [0.5, 0.5, 0.5])
    tasks = [Task(POSITION, 1, 0, (0.0, 1.0, 0.0), use_tail=True), Task(ROTATION, 1, 0, (0.0, 0.0, 0.0, 1.0)),
             Task(GROUND, 2, 0, (0.0, 0.0, 0.0), use_tail=True), Task(POSITION, 2, 1, (0.3, 0.6, 0.0), use_tail=True)]
    layout = column_layout(tree.bone_tree, (None, None, BoneDofs(lock=(False, True, False))), (0, 1, 2), root_free=True)
    plan = priority_plan(tree.bone_tree, tasks, layout)
    solve_priority(plan, np.tile([0.0, 0.0, 0.0, 1.0], (3, 1)), iterations=2)
