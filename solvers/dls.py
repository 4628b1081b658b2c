"""Damped least squares (DLS) and selectively damped least squares (SDLS) IK on a bone tree.

Several weighted goals (``solvers.goals``) are solved at once, as Blender's iTaSC does: every
iteration linearises all goal errors with the Jacobian of the pose's degrees of freedom (DOFs)
and takes the damped least-squares step toward the minimum of sum(weight * error**2).

DOFs, for each bone that moves some goal:
- a free bone (no lock, no limit) turns about its own current X, Y and Z axes, increments
  composed onto its rotation: no gimbal lock;
- a bone with a lock or a limit moves the swing-twist coordinates of its pose rotation, as
  Blender's IK segments do (``solvers.limits.SwingTwistLimit``): ``exp(u X + w Z) * twist(t)``,
  the swing's rotation vector (u, 0, w) in the frame it turns in and the twist t about its own
  +Y. A locked axis has no column, so it stays exactly at 0 (lock Y: a swing joint, never a
  twist); a coordinate a limit bounds exactly (the twist, a swing about one axis) stops on it,
  and a swing in two axes that the clamp holds stops where the clamp puts it, while the other
  DOFs solve again for what is left (as Blender's IK does);
- a bone with ``BoneDofs.stretch`` > 0 also scales (uniformly, as Blender's IK stretch: its length
  and its children's offsets), within [1, ``MAX_STRETCH``], for goals beyond the unstretched reach
  of their bones.
A DOF's Jacobian column is weighted by 1 - stiffness (stretch columns by the stretch amount);
goal rows by sqrt(weight), angle rows also by the plan's ``scale`` (metres), so damping and
weights mean the same on a finger and on a crane. The iteration loop is ``solvers.iterate``.
"""
import math
from typing import NamedTuple

import numpy as np

from solvers import scalar as sc
from solvers.chain import SolveResult
# dls_plan is re-exported so callers plan and solve through this one module.
from solvers.dls_plan import DISTANCE, MAX_STRETCH, POSITION, ROTATION, TURN_FRAME_AXIS, TURN_OWN_AXIS, UNFOLD, \
    DlsPlan, dls_plan  # noqa: F401
from solvers.iterate import iterate
from solvers.limits import clamp_swing_twist, held_rotation, on_bound, swing_turn, swing_twist_coordinates
from solvers.transforms import EPS
from solvers.tree import tree_pose_rows

# A step aims at most this far (times the plan's scale) toward a position: the linearisation
# only holds nearby.
MAX_MOVE = 1.0
# Retries per iteration: DLS quadruples its damping, SDLS (or undamped DLS) halves its step.
RETRIES = 4
# Adaptive damping (Levenberg-Marquardt): the factor on ``damping`` stays within these bounds.
DAMPING_FACTORS = (1.0 / 16.0, 256.0)
# Buss & Kim's largest joint change per iteration (radians) for SDLS.
SDLS_MAX_ANGLE = np.pi / 4
IDENTITY = (0.0, 0.0, 0.0, 1.0)


class _State(NamedTuple):
    """One iterate, on plain floats (a handful of bones and goals: numpy calls would cost more
    than the arithmetic): per bone its pose rotation (quaternion), swing-twist coordinates (u, t,
    w) (meaningful for held bones), stretch, the frame it turns in and its world rotation (matrices as rows), head
    and tail; per goal its residual (what to add to reach it, unweighted), its map (rows of 3,
    or None for the identity) from the world motion of its point (positions, distances) or the
    world turn of its bone (rotations) to the residual's change, and its error; the damping
    factor, and whether the chain was unfolded already."""
    quats: list
    angles: list
    stretch: list
    before: list
    world: list
    heads: list
    tails: list
    residuals: tuple
    maps: tuple
    errors: list
    damping: float
    unfolded: bool


def _evaluate(plan, quats, angles, stretch, damping, unfolded):
    """The state of a pose: forward kinematics, then every goal's residual and error."""
    before, world, heads, tails = tree_pose_rows(plan.tree, quats, stretch)
    residuals, maps, errors = [], [], []
    for g, (kind, b, use_tail, target, target_matrix, kept, _) in enumerate(plan.rows.goals):
        if kind == POSITION:
            point = tails[b] if use_tail else heads[b]
            residual = sc.sub(target, point)
            linear = None
            if len(kept) < 3:  # locked axes: only the residual along the kept axes of the locking frame
                frame = world[b] if target_matrix is None else target_matrix
                linear = tuple(sc.column(frame, i) for i in kept)
                residual = tuple(sc.dot(axis, residual) for axis in linear)
        elif kind == DISTANCE:
            goal = plan.goals[g]
            offset = sc.sub(tails[b] if use_tail else heads[b], target)
            distance = sc.length(offset)
            gap = goal.distance - distance
            violated = {"inside": gap < 0, "on": True, "outside": gap > 0}[goal.mode]
            # At the centre any direction is as good: leave along the bone.
            direction = (offset[0] / distance, offset[1] / distance, offset[2] / distance) if distance > EPS \
                else sc.column(world[b], 1)
            residual = (gap if violated else 0.0,)
            linear = (direction if violated else (0.0, 0.0, 0.0),)
        else:
            # Rotation vectors in the bone's frame: of its world rotation to the target's, or of
            # its pose rotation to the joint goal's.
            current = world[b] if kind == ROTATION else sc.qmatrix(quats[b])
            rotvec = sc.qto_rotvec(sc.quat_from_matrix3(sc.mmul(sc.transpose(current), target_matrix)))
            inverse = _log_jacobian_inverse(rotvec)
            # (inverse @ world.T), kept rows.
            w0, w1, w2 = world[b]
            residual = tuple(rotvec[i] for i in kept)
            linear = tuple((sc.dot(inverse[i], w0), sc.dot(inverse[i], w1), sc.dot(inverse[i], w2)) for i in kept)
        residuals.append(residual)
        maps.append(linear)
        errors.append(math.sqrt(sum(r * r for r in residual)))
    return _State(quats, angles, stretch, before, world, heads, tails, tuple(residuals), tuple(maps), errors,
                  damping, unfolded)


def _log_jacobian_inverse(rotvec):
    """How log(exp(w) exp(v)) changes with a small turn w at rotation vector ``v`` (3 floats): the
    inverse left Jacobian of SO(3), I - K/2 + c K^2 with K = [v]x (exact rows even far from the
    goal, so large rotation errors still step straight). Rows of 3 floats."""
    x, y, z = rotvec
    angle = min(math.sqrt(x * x + y * y + z * z), math.pi - 1e-6)
    if angle < 1e-4:
        c = 1.0 / 12.0
    else:
        c = 1.0 / angle ** 2 - (1.0 + math.cos(angle)) / (2.0 * angle * math.sin(angle))
    # K^2 = v v^T - |v|^2 I
    xy, xz, yz = c * x * y, c * x * z, c * y * z
    return ((1.0 - c * (y * y + z * z), 0.5 * z + xy, xz - 0.5 * y),
            (xy - 0.5 * z, 1.0 - c * (x * x + z * z), 0.5 * x + yz),
            (0.5 * y + xz, yz - 0.5 * x, 1.0 - c * (x * x + y * y)))


def _cost(plan, errors):
    """sqrt(sum(weight * error**2)), angles counted at the plan's scale: what DLS minimises."""
    return math.sqrt(sum((s * e) ** 2 for s, e in zip(plan.rows.goal_scale, errors)))


def _jacobian(plan, state):
    """Weighted Jacobian (rows, columns) of every goal's residual by the plan's DOFs."""
    rows, width = plan.weights.shape
    entries = [0.0] * (rows * width)
    goals, maps, heads = plan.rows.goals, state.maps, state.heads
    points = [(state.tails[b] if use_tail else heads[b]) if kind in (POSITION, DISTANCE) else None
              for kind, b, use_tail, *_ in goals]

    def put(column, g, motion):
        """Goal g's rows of ``column`` for a world motion of its point or a world turn of its bone."""
        first = goals[g].first_row
        if maps[g] is None:
            entries[first * width + column] = motion[0]
            entries[(first + 1) * width + column] = motion[1]
            entries[(first + 2) * width + column] = motion[2]
        else:
            for k, row in enumerate(maps[g]):
                entries[(first + k) * width + column] = sc.dot(row, motion)

    for column, (j, axis, turn, moved) in enumerate(plan.rows.column_axes):
        if turn == TURN_OWN_AXIS:
            turn_axis = sc.column(state.world[j], axis)
        elif turn == TURN_FRAME_AXIS:
            turn_axis = sc.column(state.before[j], axis)
        else:
            # A swing coordinate turns the bone by the left Jacobian of exp at (u, 0, w), in the
            # frame it turns in.
            u, _, w = state.angles[j]
            turn_axis = sc.mvec(state.before[j], swing_turn((u, 0.0, w), axis))
        for g in moved:
            point = points[g]
            put(column, g, turn_axis if point is None else sc.cross(turn_axis, sc.sub(point, heads[j])))
    count = len(plan.rows.column_axes)
    for s, (j, reached) in enumerate(plan.rows.stretch_columns):
        for g, offset in reached:
            put(count + s, g, sc.mvec(state.world[j], offset))
    return np.array(entries).reshape(rows, width) * plan.weights


def _weighted_residual(plan, state):
    """Every goal's residual, stacked (rows,) and weighted as the Jacobian's rows: half its square
    is the cost DLS minimises, and ``_jacobian`` predicts how a step lowers it."""
    return np.array([r for goal in state.residuals for r in goal]) * plan.row_scale


def _step_residual(plan, state):
    """Weighted residual the linear step aims for: scaled down as a whole (so it still points
    downhill for the weighted cost) until no position is asked to move beyond ``MAX_MOVE`` * scale."""
    residual = _weighted_residual(plan, state)
    largest = max((e for (kind, *_), e in zip(plan.rows.goals, state.errors) if kind in (POSITION, DISTANCE)),
                  default=0.0)
    reach = MAX_MOVE * plan.scale
    return residual * (reach / largest) if largest > reach else residual


def _direction(plan, jacobian, residual, damping, selective):
    """The DOF change (columns,) of one damped least-squares step, in weighted DOF units."""
    u, sigma, vt = np.linalg.svd(jacobian, full_matrices=False)
    values = sigma.tolist()
    floor = 1e-9 * max(values[0] if values else 0.0, EPS)
    square = damping ** 2
    gains = [s / (s * s + square) if s > floor else 0.0 for s in values]
    steps = np.array(gains) * (u.T @ residual)
    if not selective:
        return vt.T @ steps
    # SDLS (Buss & Kim 2005): damp each singular direction by how far a unit change of it moves
    # the goals (M) against how far it is asked to move them (N), per goal block of rows: no
    # joint moves more than SDLS_MAX_ANGLE * min(1, N / M) along it.
    rho = np.sqrt(plan.blocks @ (jacobian * jacobian)).sum(axis=0)
    reach = np.sqrt(plan.blocks @ (u * u)).sum(axis=0).tolist()
    size = np.abs(vt)
    clamped = []
    for gain, step, n, m, peak in zip(gains, steps.tolist(), reach, (size @ rho).tolist(), size.max(axis=1).tolist()):
        limit = SDLS_MAX_ANGLE * min(1.0, n / max(gain * m, EPS))
        largest = abs(step) * peak
        clamped.append(step * (limit / largest) if largest > limit else step)
    total = np.array(clamped) @ vt
    largest = float(np.abs(total).max())
    return total * (SDLS_MAX_ANGLE / largest) if largest > SDLS_MAX_ANGLE else total


class BoundedChange(NamedTuple):
    """One step's DOF ``change`` (columns,) and whether a bound ``cut`` it."""
    change: np.ndarray
    cut: bool


def _bounded_direction(plan, state, jacobian, residual, damping, selective, shrink=1.0):
    """A ``BoundedChange``: one step, ``shrink`` times the least-squares one, that respects limits
    and stretch bounds: DOFs the step would carry past a limit (``_held_columns``) stop there and
    the others solve again for what is left (as Blender's IK solver does), so one blocked DOF does
    not spoil the whole step. Bounds cut the shrunk step itself: a full step cut at a bound and
    then shrunk need not lead downhill, where a small step cut at a bound does."""
    if not plan.bounded:
        return BoundedChange(_direction(plan, jacobian, residual, damping, selective) * (plan.column_scale * shrink),
                             False)
    delta = np.zeros(jacobian.shape[1])
    free = np.ones(len(delta), dtype=bool)
    while free.any():
        trial = delta.copy()
        trial[free] = _direction(plan, jacobian[:, free], residual, damping, selective) * \
            (plan.column_scale[free] * shrink)
        over, stopped = _held_columns(plan, state, trial)
        over &= free
        if not over.any():
            return BoundedChange(trial, not free.all())
        delta[over] = stopped[over]
        residual = residual - jacobian[:, over] @ (delta[over] / (plan.column_scale[over] * shrink))
        free &= ~over
    return BoundedChange(delta, True)


def _column_values(plan, state):
    """Each column's DOF value (columns,): swing-twist coordinates, then stretch. Free bones'
    columns are unbounded, so their (unused) coordinates never matter beside their bounds."""
    return np.array([state.angles[j][axis] for j, axis, *_ in plan.rows.column_axes]
                    + [state.stretch[j] for j, _ in plan.rows.stretch_columns])


def _unfold(plan, state):
    """The DOF change (columns,) that bends a straight chain once: every moving bone turns by
    ``UNFOLD`` about the bend axis (X or Z) its bounds leave the most room on, toward its roomier
    side (+ on a tie), so a one-sided hinge bends the way it can; about Y where neither has room."""
    values = _column_values(plan, state)
    room_up, room_down = plan.column_high - values, values - plan.column_low
    room = np.maximum(room_up, room_down)
    delta = np.zeros(len(values))
    for columns in plan.unfold:
        bend = [c for c in columns.bend if room[c] > 0]
        chosen = bend or [c for c in columns.twist if room[c] > 0]
        if chosen:
            c = max(chosen, key=room.__getitem__)
            delta[c] = UNFOLD if room_up[c] >= room_down[c] else -UNFOLD
    return delta


def _held_columns(plan, state, delta):
    """Which columns the change ``delta`` (columns,) carries past a limit or stretch bound, and
    for those the change that stops them on it: a coordinate's bound, or for a swing that only
    the clamp holds, the clamped rotation's coordinates (both swing columns, as Blender's
    ellipse clamp locks both)."""
    over = np.zeros(len(delta), dtype=bool)
    stopped = np.zeros(len(delta))
    change = delta.tolist()
    for j, _, columns, limit, box in plan.rows.bones:
        if box is None:
            continue
        coordinates = state.angles[j]
        moved = [a + (change[c] if c >= 0 else 0.0) for a, c in zip(coordinates, columns)]
        found = [sc.clip(a, lo, hi) for a, lo, hi in zip(moved, *box)]
        if limit is not None:
            clamped, held = clamp_swing_twist(limit, held_rotation(found))
            if held[0] or held[2]:
                swing = swing_twist_coordinates(clamped)
                found[0], found[2] = swing[0], swing[2]
        for axis, c in enumerate(columns):
            if c >= 0 and found[axis] != moved[axis]:
                over[c], stopped[c] = True, found[axis] - coordinates[axis]
    count = len(plan.rows.column_axes)
    for s, (j, _) in enumerate(plan.rows.stretch_columns):
        grown = state.stretch[j] + change[count + s]
        if not 1.0 <= grown <= MAX_STRETCH:
            over[count + s], stopped[count + s] = True, sc.clip(grown, 1.0, MAX_STRETCH) - state.stretch[j]
    return over, stopped


def _apply(plan, state, delta, damping, unfolded):
    """The state after changing the DOFs by ``delta`` (columns,), limits and stretch bounds held."""
    change = delta.tolist()
    quats, angles, stretch = list(state.quats), list(state.angles), list(state.stretch)
    for j, held, columns, limit, box in plan.rows.bones:
        turn = [change[c] if c >= 0 else 0.0 for c in columns]
        if held:
            angles[j] = tuple(a + t for a, t in zip(angles[j], turn))
            if box is not None:
                angles[j] = tuple(sc.clip(a, lo, hi) for a, lo, hi in zip(angles[j], *box))
            quats[j] = held_rotation(angles[j])
            if limit is not None:
                quats[j], clamped = clamp_swing_twist(limit, quats[j])
                if clamped[0] or clamped[1] or clamped[2]:
                    angles[j] = swing_twist_coordinates(quats[j])
        else:
            q = sc.qmul(quats[j], sc.qfrom_rotvec(turn))
            norm = math.sqrt(sc.qdot(q, q))
            quats[j] = (q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm) if norm > EPS else IDENTITY
    count = len(plan.rows.column_axes)
    for s, (j, _) in enumerate(plan.rows.stretch_columns):
        stretch[j] = sc.clip(stretch[j] + change[count + s], 1.0, MAX_STRETCH)
    return _evaluate(plan, quats, angles, stretch, damping, unfolded)


def _stalled(plan, state, jacobian, residual):
    """Whether the goals pull (weighted ``residual``) straight along a straight chain not yet
    unfolded: a pull too weak for any turn, or a weak one pulling a tip back along its bone."""
    if state.unfolded:
        return False
    gradient = residual @ jacobian
    size = math.sqrt(residual @ residual)
    pull = math.sqrt(gradient @ gradient) / (plan.scale * size) if size > 0 else math.inf
    # Stretch cannot shorten a bone, so only the turns count against a pull back along the chain.
    turns = gradient[:len(plan.rows.column_axes)]
    turn_pull = math.sqrt(turns @ turns) / (plan.scale * size) if size > 0 else math.inf
    return pull <= STALLED_PULL or turn_pull <= STRAIGHT_PULL and _pulls_inward(plan, state)


def _step(plan, selective, base_damping):
    low_factor, high_factor = DAMPING_FACTORS
    adaptive = not selective and base_damping > 0

    def step(state):
        if plan.weights.shape[1] == 0:
            return state
        jacobian = _jacobian(plan, state)
        residual = _step_residual(plan, state)
        if _stalled(plan, state, jacobian, residual):
            # Goals pulling straight along a straight chain: no turn moves it that way to first
            # order, so bend it once so the Jacobian can act.
            return _apply(plan, state, _unfold(plan, state), state.damping, True)
        cost = _cost(plan, state.errors)
        factor = state.damping
        first = None
        for attempt in range(RETRIES + 1):
            # Adaptive damping changes the step; otherwise each retry halves it, cut at the bounds
            # afresh where they cut it (a step within them stays within them as it shrinks).
            shrink = 1.0 if adaptive else 0.5 ** attempt
            if adaptive or first is None or first.cut:
                damping = base_damping * plan.scale * (factor if adaptive else 1.0)
                bounded = _bounded_direction(plan, state, jacobian, residual, damping, selective, shrink)
                first = bounded if first is None else first
                change = bounded.change
            else:
                change = first.change * shrink
            candidate = _apply(plan, state, change, factor, state.unfolded)
            if _cost(plan, candidate.errors) < cost:
                return candidate._replace(damping=max(factor / 2.0, low_factor))
            factor = min(factor * 4.0, high_factor) if adaptive else factor
        return state._replace(damping=factor)

    return step


def _start(plan, rotations, lay_straight=True):
    """The first state: the given pose at the plan's start stretch, held bones' rotations pulled
    onto their locks and inside their limits, the plan's aims laid straight (unless not
    ``lay_straight``: a step in time never jumps there). Only held bones get coordinates (the
    others' are never read)."""
    quats, angles = [], []
    for q in rotations.tolist():
        norm = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]
        # Unit rotations are kept bit for bit, so a pose the solve leaves alone comes back unchanged.
        if abs(norm - 1.0) >= 1e-12:
            norm = math.sqrt(norm)
            q = [x / norm for x in q] if norm > EPS else IDENTITY
        quats.append(tuple(q))
        angles.append((0.0, 0.0, 0.0))
    for j, held, columns, limit, box in plan.rows.bones:
        if held:
            found = swing_twist_coordinates(quats[j])
            angles[j] = tuple(a if c >= 0 else 0.0 for a, c in zip(found, columns))
            if box is not None:
                angles[j] = tuple(sc.clip(a, lo, hi) for a, lo, hi in zip(angles[j], *box))
            if limit is not None:
                quats[j], _ = clamp_swing_twist(limit, held_rotation(angles[j]))
                angles[j] = swing_twist_coordinates(quats[j])
            elif angles[j] != found:
                quats[j] = held_rotation(angles[j])
    stretch = list(plan.start_stretch)
    for aim in plan.aims if lay_straight else ():
        _lay_straight(plan, aim, quats, stretch)
    return _evaluate(plan, quats, angles, stretch, 1.0, False)


def _lay_straight(plan, aim, quats, stretch):
    """Turn the free bones of ``aim`` (a ``dls_plan.StraightAim``), parents first, each by the
    shortest arc that points its segment at the target from its head (``quats`` in place)."""
    for j, segment in aim.segments:
        rows = tree_pose_rows(plan.tree, quats, stretch)
        local = sc.transpose(rows.before[j])
        current = sc.normalize(sc.qrotate(quats[j], segment))
        wanted = sc.normalize(sc.mvec(local, sc.sub(aim.target, rows.heads[j])))
        quats[j] = sc.qnormalize(sc.qmul(sc.qbetween(current, wanted), quats[j]))


# The gradient, relative to the residual and the plan's scale, below which the goals pull along a
# straight chain: any pull that weak stalls; one that weak pulling a tip back along its bone (a
# target inside reach on the chain's line) cannot shorten it (a target 2e-6 off the line of a
# straight 3-bone chain left SDLS 0.3 short), where one pulling outward is at its best already.
STALLED_PULL = 1e-6
STRAIGHT_PULL = 1e-3


def _pulls_inward(plan, state):
    """Whether a position goal pulls its tail back along its bone where a bend could shorten the
    chain (the bone and its parent both move; a lone bone's length is its reach)."""
    moving = set(plan.free_bones.tolist()) | set(plan.held_bones.tolist())
    parents = plan.tree.parents
    return any(kind == POSITION and use_tail and len(kept) == 3 and b in moving and parents[b] in moving
               and sc.dot(state.residuals[g], sc.column(state.world[b], 1)) < 0
               for g, (kind, b, use_tail, _, _, kept, _) in enumerate(plan.rows.goals))


def _checked(plan, rotations, damping):
    """``rotations`` as an (n, 4) float array; ValueError for a bad ``damping`` or shape."""
    if not (np.isfinite(damping) and damping >= 0):
        raise ValueError(f"damping must be finite and >= 0, got {damping!r}")
    n = len(plan.tree)
    rotations = np.asarray(rotations, dtype=float)
    if rotations.shape != (n, 4):
        raise ValueError(f"rotations must be ({n}, 4), one per bone, got {rotations.shape}")
    return rotations


def _finish(plan, rotations, state):
    """(rotations (n, 4), stretch (n,), at_limit (n, 3)) of ``state``: the given ``rotations``
    with the moving bones' replaced (the others kept bit for bit)."""
    moving = np.concatenate([plan.free_bones, plan.held_bones])
    result = rotations.copy()
    result[moving] = np.array(state.quats)[moving]
    at_limit = np.zeros((len(rotations), 3), dtype=bool)
    for j, _, _, limit, box in plan.rows.bones:
        if limit is not None:
            at_limit[j] = clamp_swing_twist(limit, state.quats[j])[1]
        elif box is not None:
            at_limit[j] = [on_bound(a, lo, hi) for a, lo, hi in zip(state.angles[j], *box)]
    return result, np.array(state.stretch), at_limit


def solve_dls(plan: DlsPlan, rotations, max_iterations=100, tolerance=1e-3, damping=0.1, selective=False):
    """Move the plan's bones toward all its goals at once; returns a ``SolveResult``.

    ``rotations`` (n, 4) is the start pose (rest or current). ``result.stretch`` (n,) is 1 except on
    stretchy bones serving a goal beyond reach, as the geometric methods stretch only for far targets: a
    far position goal alone on its bones gets the stretch that lays its chain straight at the target
    (``dls_plan``), others stretch as DOFs within [1, ``MAX_STRETCH``]. ``damping`` >= 0 is the DLS
    damping relative to the plan's scale; for DLS it adapts per iteration (Levenberg-Marquardt: a
    step that does not lower the cost is retried with more damping, a step that does lets it relax);
    ``selective`` steps as SDLS, where it softens Buss & Kim's selective damping. ``result.errors``
    (k,) per goal: metres for positions and distances, radians for rotations; ``converged`` when every
    error is within ``tolerance``. ``result.at_limit`` (n, 3) marks axes that sit on a limit.
    Bones that move no goal keep their rotations bit for bit. Non-finite rotations leave the pose
    unchanged (errors inf, not converged). The same input gives the same bits. Raises ValueError for a
    bad ``damping`` or shape.
    """
    rotations = _checked(plan, rotations, damping)
    if not np.isfinite(rotations).all():
        return SolveResult(rotations.copy(), 0, np.full(len(plan.goals), np.inf), False)
    return iterate(_start(plan, rotations), _step(plan, selective, damping), lambda state: state.errors,
                   lambda state: _finish(plan, rotations, state), max_iterations=max_iterations, tolerance=tolerance,
                   cost=lambda errors: _cost(plan, errors))
