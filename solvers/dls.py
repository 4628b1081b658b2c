"""Damped least squares (DLS) and selectively damped least squares (SDLS) IK on a bone tree.

Several weighted goals (``solvers.goals``) are solved at once, as Blender's iTaSC does: every
iteration linearises all goal errors with the Jacobian of the pose's degrees of freedom (DOFs)
and takes the damped least-squares step toward the minimum of sum(weight * error**2).

DOFs, for each bone that moves some goal:
- a free bone (no lock, no limit) turns about its own current X, Y and Z axes, increments
  composed onto its rotation: no gimbal lock;
- a bone with a lock or a limit moves the Euler XYZ angles of its pose rotation (those of
  ``solvers.limits.EulerLimit``), so a locked angle stays exactly as it was and a limit clamps
  exactly, after every step. Its Y angle stays within ``EULER_Y_BOUND`` of 0, where Euler angles
  are unique;
- a bone with ``BoneDofs.stretch`` > 0 also scales along its Y axis, within [1, ``MAX_STRETCH``],
  for goals beyond the unstretched reach of their bones.
A DOF's Jacobian column is weighted by 1 - stiffness (stretch columns by the stretch amount);
goal rows by sqrt(weight), angle rows also by the plan's ``scale`` (metres), so damping and
weights mean the same on a finger and on a crane. The iteration loop is ``solvers.iterate``.
"""
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from solvers.chain import SolveResult
from solvers.goals import BoneDofs, DistanceGoal, JointRotationGoal, PositionGoal, RotationGoal
from solvers.iterate import iterate
from solvers.transforms import EPS, euler_xyz_from_quat, matrix3_to_quat, quat_from_euler_xyz, quat_from_rotvec, \
    quat_mul, quat_normalize, quat_to_matrix3, quat_to_rotvec
from solvers.tree import Tree, tree_pose

METHODS = ("dls", "sdls")
# Longest a stretchy bone may grow, as a multiple of its rest length.
MAX_STRETCH = 10.0
# A step aims at most this far (times the plan's scale) toward a position: the linearisation
# only holds nearby.
MAX_MOVE = 1.0
# Retries per iteration: DLS quadruples its damping, SDLS (or undamped DLS) halves its step.
RETRIES = 4
# Adaptive damping (Levenberg-Marquardt): the factor on ``damping`` stays within these bounds.
DAMPING_FACTORS = (1.0 / 16.0, 256.0)
# Buss & Kim's largest joint change per iteration (radians) for SDLS.
SDLS_MAX_ANGLE = np.pi / 4
# Euler bones keep their Y angle within this (radians): at +-pi/2 X and Z would mix.
EULER_Y_BOUND = np.pi / 2 - 1e-3
# Bend (radians) given once to every moving bone when the goals pull exactly along a straight
# chain, where the Jacobian has nothing to offer.
UNFOLD = 1e-2

_POSITION, _DISTANCE, _ROTATION, _JOINT = range(4)


@dataclass
class DlsPlan:
    """A tree, its goals and bone settings checked once, and the bookkeeping the solver needs.

    Columns are the rotation DOFs (``columns``: (bone, axis) pairs, (c, 2) ints) then the stretch
    DOFs (``stretch_bones``). ``moves[g]`` (c,) says which rotation DOFs move goal g;
    ``stretch_reach[g]`` (s,) how far goal g's point moves along a stretch bone's Y per unit
    stretch. ``scale`` (metres) is the longest path from a fixed head to a goal's point.
    """
    tree: Tree
    goals: tuple
    dofs: tuple
    scale: float
    kinds: np.ndarray
    columns: np.ndarray
    stretch_bones: np.ndarray
    column_scale: np.ndarray
    moves: np.ndarray
    stretch_reach: np.ndarray
    row_slices: tuple
    row_scale: np.ndarray
    goal_scale: np.ndarray
    targets: np.ndarray
    target_matrices: np.ndarray
    kept_axes: tuple
    free_bones: np.ndarray
    euler_bones: np.ndarray
    euler_axis_columns: tuple
    column_low: np.ndarray
    column_high: np.ndarray
    low: np.ndarray
    high: np.ndarray
    limited: np.ndarray
    unfold: np.ndarray


def _path(tree, bone):
    """Bone and its ancestors, bone first."""
    path = [bone]
    while tree.parents[path[-1]] >= 0:
        path.append(int(tree.parents[path[-1]]))
    return path


def _reach_along(tree, path, use_tail):
    """Per bone on ``path`` (bone first), the Y offset that its stretch scales on the way to the
    goal's point (its tail, or the head of the next bone down the path)."""
    reach = {}
    for depth, j in enumerate(path):
        if depth == 0:
            if use_tail:
                reach[j] = tree.lengths[j]
        else:
            reach[j] = tree.offsets[path[depth - 1]][1]
    return reach


def _beyond_reach(tree, path, kind, goal):
    """Whether a position or distance goal lies beyond what its path reaches unstretched: farther
    from the path's fixed top head than the path is long."""
    top = tree.base[:3, :3] @ tree.offsets[path[-1]] + tree.base[:3, 3]
    span = sum(np.linalg.norm(tree.offsets[c]) for c in path[:-1]) + (tree.lengths[path[0]] if goal.use_tail else 0)
    away = np.linalg.norm(np.asarray(goal.target) - top)
    if kind == _DISTANCE:
        away = {"inside": away - goal.distance, "on": abs(away - goal.distance),
                "outside": goal.distance - away}[goal.mode]
    return away > span * (1.0 + 1e-12)


def _goal_dofs(tree, kind, goal):
    """The bones whose rotation moves a goal; per bone whose stretch moves it, the Y offset it
    scales; and whether the goal lies beyond reach (only such goals get bones to stretch, so a
    reachable target never stretches anything)."""
    path = _path(tree, goal.bone)
    if kind in (_POSITION, _DISTANCE):
        return ((path if goal.use_tail else path[1:]), _reach_along(tree, path, goal.use_tail),
                _beyond_reach(tree, path, kind, goal))
    return (path if kind == _ROTATION else [goal.bone]), {}, False


def dls_plan(tree: Tree, goals, dofs=None):
    """Check ``goals`` (a sequence of ``PositionGoal``, ``RotationGoal``, ``DistanceGoal``,
    ``JointRotationGoal``) and ``dofs`` (None, or one ``BoneDofs`` or None per bone) against
    ``tree`` and return a ``DlsPlan``. Raises ValueError with the reason."""
    n = len(tree)
    goals = tuple(goals)
    if not goals:
        raise ValueError("DLS needs at least one goal")
    dofs = (None,) * n if dofs is None else tuple(dofs)
    if len(dofs) != n:
        raise ValueError(f"dofs must give one entry per bone ({n}), got {len(dofs)}")
    for i, entry in enumerate(dofs):
        if entry is not None and not isinstance(entry, BoneDofs):
            raise ValueError(f"bone {i}: {entry!r} is not BoneDofs")
    dofs = tuple(BoneDofs() if d is None else d for d in dofs)
    kinds = []
    rotating, stretching, spans = [], [], []
    wanted_stretch = set()
    for g, goal in enumerate(goals):
        kind = {PositionGoal: _POSITION, DistanceGoal: _DISTANCE, RotationGoal: _ROTATION,
                JointRotationGoal: _JOINT}.get(type(goal))
        if kind is None:
            raise ValueError(f"goal {g}: {goal!r} is not a DLS goal")
        if goal.bone >= n:
            raise ValueError(f"goal {g}: bone {goal.bone} is not in the tree of {n} bones")
        kinds.append(kind)
        turning, stretch_reach, beyond = _goal_dofs(tree, kind, goal)
        rotating.append(turning)
        stretching.append(stretch_reach)
        wanted_stretch.update(stretch_reach if beyond else ())
        path = _path(tree, goal.bone)
        spans.append(tree.lengths[path[0]] + sum(np.linalg.norm(tree.offsets[c]) for c in path[:-1]))
    scale = float(max(spans)) if max(spans) > 1e-9 else 1.0

    moving = sorted(set().union(*rotating))
    euler = np.array([d.euler for d in dofs])
    locked = np.array([d.lock for d in dofs])
    columns = np.array([(j, axis) for j in moving for axis in range(3) if not locked[j, axis]], dtype=int
                       ).reshape(-1, 2)
    stretch_bones = np.array(sorted(j for j in wanted_stretch if dofs[j].stretch > 0), dtype=int)
    stiffness = np.array([d.stiffness for d in dofs])
    column_scale = np.sqrt(np.concatenate([1.0 - stiffness[columns[:, 0], columns[:, 1]],
                                           [dofs[j].stretch for j in stretch_bones]]))
    moves = np.array([np.isin(columns[:, 0], r) for r in rotating]).reshape(len(goals), len(columns))
    stretch_reach = np.array([[r.get(int(j), 0.0) for j in stretch_bones] for r in stretching]
                             ).reshape(len(goals), len(stretch_bones))

    counts = [3 if k in (_POSITION, _JOINT) else 1 if k == _DISTANCE else 3 - sum(goal.lock_axes)
              for k, goal in zip(kinds, goals)]
    starts = np.concatenate([[0], np.cumsum(counts)])
    row_slices = tuple(slice(int(a), int(b)) for a, b in zip(starts[:-1], starts[1:]))
    goal_scale = np.array([np.sqrt(goal.weight) * (scale if k in (_ROTATION, _JOINT) else 1.0)
                           for k, goal in zip(kinds, goals)])
    row_scale = np.repeat(goal_scale, counts)

    use_limit = np.array([d.use_limit for d in dofs]) & ~locked
    low = np.where(use_limit, [d.limit_min for d in dofs], -np.inf)
    high = np.where(use_limit, [d.limit_max for d in dofs], np.inf)
    # Euler bones turn Y only inside (-pi/2, pi/2), where their angles are those euler_xyz_from_quat
    # (and EulerLimit) reads back from the rotation, short of the gimbal lock at the ends.
    turning_y = euler & ~locked[:, 1]
    low[:, 1] = np.where(turning_y, np.maximum(low[:, 1], -EULER_Y_BOUND), low[:, 1])
    high[:, 1] = np.where(turning_y, np.minimum(high[:, 1], EULER_Y_BOUND), high[:, 1])
    unfold = np.zeros(len(columns) + len(stretch_bones))
    for j in moving:
        for axis in (0, 2, 1):
            hit = np.flatnonzero((columns[:, 0] == j) & (columns[:, 1] == axis))
            if len(hit):
                unfold[hit[0]] = UNFOLD
                break
    targets = np.array([getattr(goal, "target", (0.0, 0.0, 0.0)) for goal in goals])
    target_matrices = quat_to_matrix3(np.array([getattr(goal, "rotation", (0.0, 0.0, 0.0, 1.0)) for goal in goals]))
    kept_axes = tuple(np.flatnonzero(~np.array(goal.lock_axes)) if k == _ROTATION else np.arange(3)
                      for k, goal in zip(kinds, goals))
    moving = np.unique(columns[:, 0])
    euler_column = euler[columns[:, 0]]
    euler_axis_columns = tuple(np.flatnonzero(euler_column & (columns[:, 1] == axis)) for axis in (1, 2))
    stretchy = np.ones(len(stretch_bones))
    column_low = np.concatenate([low[columns[:, 0], columns[:, 1]], stretchy])
    column_high = np.concatenate([high[columns[:, 0], columns[:, 1]], stretchy * MAX_STRETCH])
    return DlsPlan(tree, goals, dofs, scale, np.array(kinds), columns, stretch_bones, column_scale, moves,
                   stretch_reach, row_slices, row_scale, goal_scale, targets, target_matrices, kept_axes,
                   moving[~euler[moving]], moving[euler[moving]], euler_axis_columns, column_low, column_high,
                   low, high, use_limit, unfold)


class _State(NamedTuple):
    """One iterate: pose rotations (n, 4), Euler angles (n, 3) (meaningful for Euler bones),
    stretch (n,), the pose's local and world rotations (n, 3, 3), heads and tails (n, 3), per goal
    its residual (what to add to reach it, unweighted), its map (rows, 3) from the world motion of
    its point (positions, distances) or the world turn of its bone (rotations) to the residual's
    change, and its error; the damping factor, and whether the chain was unfolded already."""
    quats: np.ndarray
    angles: np.ndarray
    stretch: np.ndarray
    local: np.ndarray
    world: np.ndarray
    heads: np.ndarray
    tails: np.ndarray
    residuals: tuple
    maps: tuple
    errors: np.ndarray
    damping: float
    unfolded: bool


def _evaluate(plan, quats, angles, stretch, damping, unfolded):
    """The state of a pose: forward kinematics, then every goal's residual and error."""
    local = quat_to_matrix3(quats)
    world, heads, tails = tree_pose(plan.tree, local, stretch)
    residuals, maps = [], []
    for g, (kind, goal) in enumerate(zip(plan.kinds, plan.goals)):
        b = goal.bone
        if kind == _POSITION:
            residual = plan.targets[g] - (tails[b] if goal.use_tail else heads[b])
            linear = np.eye(3)
        elif kind == _DISTANCE:
            offset = (tails[b] if goal.use_tail else heads[b]) - plan.targets[g]
            distance = np.linalg.norm(offset)
            gap = goal.distance - distance
            violated = {"inside": gap < 0, "on": True, "outside": gap > 0}[goal.mode]
            # At the centre any direction is as good: leave along the bone.
            direction = offset / distance if distance > EPS else world[b][:, 1]
            residual = np.array([gap if violated else 0.0])
            linear = direction[None] if violated else np.zeros((1, 3))
        else:
            # Rotation vectors in the bone's frame: of its world rotation to the target's, or of
            # its pose rotation to the joint goal's.
            current = world[b] if kind == _ROTATION else local[b]
            rotvec = quat_to_rotvec(matrix3_to_quat(current.T @ plan.target_matrices[g]))
            kept = plan.kept_axes[g]
            residual = rotvec[kept]
            linear = (_log_jacobian_inverse(rotvec) @ world[b].T)[kept]
        residuals.append(residual)
        maps.append(linear)
    errors = np.array([np.linalg.norm(r) for r in residuals])
    return _State(quats, angles, stretch, local, world, heads, tails, tuple(residuals), tuple(maps), errors,
                  damping, unfolded)


def _log_jacobian_inverse(rotvec):
    """How log(exp(w) exp(v)) changes with a small turn w at rotation vector ``v`` (3,): the
    inverse left Jacobian of SO(3), I - K/2 + c K^2 with K = [v]x (exact rows even far from the
    goal, so large rotation errors still step straight)."""
    angle = min(np.linalg.norm(rotvec), np.pi - 1e-6)
    x, y, z = rotvec
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    if angle < 1e-4:
        c = 1.0 / 12.0
    else:
        c = 1.0 / angle ** 2 - (1.0 + np.cos(angle)) / (2.0 * angle * np.sin(angle))
    return np.eye(3) - 0.5 * k + c * (k @ k)


def _cost(plan, errors):
    """sqrt(sum(weight * error**2)), angles counted at the plan's scale: what DLS minimises."""
    return float(np.sqrt(np.sum((plan.goal_scale * errors) ** 2)))


def _jacobian(plan, state):
    """Weighted Jacobian (rows, columns) of every goal's residual by the plan's DOFs."""
    bones, axes = plan.columns[:, 0], plan.columns[:, 1]
    count = len(bones)
    turn_axes = state.world[bones, :, axes]
    y_columns, z_columns = plan.euler_axis_columns
    if len(y_columns) or len(z_columns):
        # Euler XYZ (R = Rz Ry Rx): Z turns about the parent-side frame's Z, Y about that frame
        # after Z, X about the bone's own X.
        before = state.world @ np.swapaxes(state.local, -1, -2)
        z = state.angles[bones[y_columns], 2]
        turn_axes[y_columns] = np.einsum("cij,cj->ci", before[bones[y_columns]],
                                         np.stack([-np.sin(z), np.cos(z), np.zeros_like(z)], -1))
        turn_axes[z_columns] = before[bones[z_columns], :, 2]
    stretch_axes = state.world[plan.stretch_bones, :, 1]
    jacobian = np.zeros((len(plan.row_scale), count + len(plan.stretch_bones)))
    for g, (kind, goal) in enumerate(zip(plan.kinds, plan.goals)):
        rows, b = plan.row_slices[g], goal.bone
        moving_axes = turn_axes * plan.moves[g][:, None]
        if kind in (_POSITION, _DISTANCE):
            point = state.tails[b] if goal.use_tail else state.heads[b]
            block = np.empty((3, jacobian.shape[1]))
            block[:, :count] = np.cross(moving_axes, point - state.heads[bones]).T
            block[:, count:] = (stretch_axes * plan.stretch_reach[g][:, None]).T
            jacobian[rows] = state.maps[g] @ block
        else:
            jacobian[rows, :count] = state.maps[g] @ moving_axes.T
    return jacobian * plan.row_scale[:, None] * plan.column_scale[None, :]


def _step_residual(plan, state):
    """Weighted residual the linear step aims for: scaled down as a whole (so it still points
    downhill for the weighted cost) until no position is asked to move beyond ``MAX_MOVE`` * scale."""
    residual = np.concatenate(state.residuals) * plan.row_scale
    largest = max((np.linalg.norm(r) for kind, r in zip(plan.kinds, state.residuals)
                   if kind in (_POSITION, _DISTANCE)), default=0.0)
    reach = MAX_MOVE * plan.scale
    return residual * (reach / largest) if largest > reach else residual


def _clamp_max_abs(values, bound):
    """Scale ``values`` (..., m) so that no entry exceeds ``bound`` (...,) in magnitude."""
    largest = np.max(np.abs(values), axis=-1)
    factor = np.where(largest > bound, bound / np.where(largest > 0, largest, 1.0), 1.0)
    return values * np.asarray(factor)[..., None]


def _direction(plan, jacobian, residual, damping, method):
    """The DOF change (columns,) of one damped least-squares step, in weighted DOF units."""
    u, sigma, vt = np.linalg.svd(jacobian, full_matrices=False)
    usable = sigma > 1e-9 * max(sigma[0] if len(sigma) else 0.0, EPS)
    gain = np.where(usable, sigma / np.where(usable, sigma ** 2 + damping ** 2, 1.0), 0.0)
    alpha = u.T @ residual
    if method == "dls":
        return vt.T @ (gain * alpha)
    # SDLS (Buss & Kim 2005): damp each singular direction by how far a unit change of it moves
    # the goals (M) against how far it is asked to move them (N), per goal block of rows.
    rho = sum(np.linalg.norm(jacobian[rows], axis=0) for rows in plan.row_slices)
    reach = sum(np.linalg.norm(u[rows], axis=0) for rows in plan.row_slices)
    spread = gain * (np.abs(vt) @ rho)
    limit = SDLS_MAX_ANGLE * np.minimum(1.0, reach / np.maximum(spread, EPS))
    parts = _clamp_max_abs((gain * alpha)[:, None] * vt, limit)
    return _clamp_max_abs(parts.sum(axis=0), SDLS_MAX_ANGLE)


def _bounded_direction(plan, state, jacobian, residual, damping, method):
    """The DOF change (columns,) of one step that respects limits and stretch bounds: a DOF the
    step would carry past its bound stops there and the others solve again for what is left
    (as Blender's IK solver does), so one blocked DOF does not spoil the whole step."""
    # Free bones' columns are unbounded, so their (unused) angles never matter here.
    values = np.concatenate([state.angles[plan.columns[:, 0], plan.columns[:, 1]],
                             state.stretch[plan.stretch_bones]])
    delta = np.zeros(len(values))
    free = np.ones(len(values), dtype=bool)
    while free.any():
        trial = delta.copy()
        trial[free] = _direction(plan, jacobian[:, free], residual, damping, method) * plan.column_scale[free]
        moved = values + trial
        over = free & ((moved < plan.column_low) | (moved > plan.column_high))
        if not over.any():
            return trial
        delta[over] = np.clip(moved[over], plan.column_low[over], plan.column_high[over]) - values[over]
        residual = residual - jacobian[:, over] @ (delta[over] / plan.column_scale[over])
        free &= ~over
    return delta


def _apply(plan, state, delta, damping, unfolded):
    """The state after changing the DOFs by ``delta`` (columns,), limits and stretch bounds held."""
    n, count = len(plan.tree), len(plan.columns)
    turn = np.zeros((n, 3))
    turn[plan.columns[:, 0], plan.columns[:, 1]] = delta[:count]
    quats, angles, stretch = state.quats.copy(), state.angles.copy(), state.stretch.copy()
    free, euler = plan.free_bones, plan.euler_bones
    if len(free):
        quats[free] = quat_normalize(quat_mul(quats[free], quat_from_rotvec(turn[free])))
    if len(euler):
        angles[euler] = np.clip(angles[euler] + turn[euler], plan.low[euler], plan.high[euler])
        quats[euler] = quat_from_euler_xyz(angles[euler])
    stretch[plan.stretch_bones] = np.clip(stretch[plan.stretch_bones] + delta[count:], 1.0, MAX_STRETCH)
    return _evaluate(plan, quats, angles, stretch, damping, unfolded)


def _step(plan, method, base_damping):
    low_factor, high_factor = DAMPING_FACTORS

    def step(state):
        jacobian = _jacobian(plan, state)
        residual = _step_residual(plan, state)
        if jacobian.shape[1] == 0:
            return state
        gradient = jacobian.T @ residual
        size = np.linalg.norm(residual)
        if not state.unfolded and size > 0 and np.linalg.norm(gradient) <= 1e-6 * plan.scale * size:
            # Goals pulling straight along a straight chain: bend it once so the Jacobian can act.
            return _apply(plan, state, plan.unfold, state.damping, True)
        cost = _cost(plan, state.errors)
        factor = state.damping
        for attempt in range(RETRIES + 1):
            adaptive = method == "dls" and base_damping > 0
            damping = base_damping * plan.scale * (factor if adaptive else 1.0)
            shrink = 1.0 if adaptive else 0.5 ** attempt
            delta = _bounded_direction(plan, state, jacobian, residual, damping, method) * shrink
            candidate = _apply(plan, state, delta, factor, state.unfolded)
            if _cost(plan, candidate.errors) < cost:
                return candidate._replace(damping=max(factor / 2.0, low_factor))
            factor = min(factor * 4.0, high_factor) if adaptive else factor
        return state._replace(damping=factor)

    return step


def _start(plan, rotations):
    """The first state: the given pose, unstretched, limited Euler angles pulled inside their limits."""
    # Unit rotations are kept bit for bit, so a pose the solve leaves alone comes back unchanged.
    unit = np.abs(np.sum(rotations * rotations, axis=1) - 1.0) < 1e-12
    quats = np.where(unit[:, None], rotations, quat_normalize(rotations))
    angles = euler_xyz_from_quat(quats)
    euler = plan.euler_bones
    clamped = np.clip(angles[euler], plan.low[euler], plan.high[euler])
    changed = euler[np.any(clamped != angles[euler], axis=1)]
    angles[euler] = clamped
    quats[changed] = quat_from_euler_xyz(angles[changed])
    return _evaluate(plan, quats, angles, np.ones(len(rotations)), 1.0, False)


def solve_dls(plan: DlsPlan, rotations, max_iterations=100, tolerance=1e-3, damping=0.1, method="dls"):
    """Move the plan's bones toward all its goals at once; returns a ``SolveResult``.

    ``rotations`` (n, 4) is the start pose (rest or current). Every solve starts unstretched;
    ``result.stretch`` (n,) is 1 except on stretchy bones serving a goal beyond reach (within
    [1, ``MAX_STRETCH``]), as the two-bone solver stretches only for far targets. ``damping`` >= 0 is the DLS damping relative to the plan's scale; with "dls" it
    adapts per iteration (Levenberg-Marquardt: a step that does not lower the cost is retried with
    more damping, a step that does lets it relax), with "sdls" it softens Buss & Kim's selective
    damping. ``result.errors`` (k,) per goal: metres for positions and distances, radians for
    rotations; ``converged`` when every error is within ``tolerance``. ``result.at_limit`` (n, 3)
    marks Euler angles that sit on a limit. Bones that move no goal keep their rotations bit for
    bit. Non-finite rotations leave the pose unchanged (errors inf, not converged). The same input
    gives the same bits. Raises ValueError for a bad ``method``, ``damping`` or shape.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if not (np.isfinite(damping) and damping >= 0):
        raise ValueError(f"damping must be finite and >= 0, got {damping!r}")
    n = len(plan.tree)
    rotations = np.asarray(rotations, dtype=float)
    if rotations.shape != (n, 4):
        raise ValueError(f"rotations must be ({n}, 4), one per bone, got {rotations.shape}")
    if not np.isfinite(rotations).all():
        return SolveResult(rotations.copy(), 0, np.full(len(plan.goals), np.inf), False)
    moving = np.concatenate([plan.free_bones, plan.euler_bones])

    def finish(state):
        result = rotations.copy()
        result[moving] = state.quats[moving]
        at_limit = np.zeros((n, 3), dtype=bool)
        euler = plan.euler_bones
        angles = state.angles[euler]
        at_limit[euler] = plan.limited[euler] & ((angles <= plan.low[euler]) | (angles >= plan.high[euler]))
        return result, state.stretch.copy(), at_limit

    return iterate(_start(plan, rotations), _step(plan, method, damping), lambda state: state.errors,
                   finish, max_iterations=max_iterations, tolerance=tolerance,
                   cost=lambda errors: _cost(plan, errors))
