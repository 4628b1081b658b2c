"""Damped least squares (DLS) and selectively damped least squares (SDLS) IK on a bone tree.

Several weighted goals (``solvers.goals``) are solved at once, as Blender's iTaSC does: every
iteration linearises all goal errors with the Jacobian of the pose's degrees of freedom (DOFs)
and takes the damped least-squares step toward the minimum of sum(weight * error**2).

DOFs, for each bone that moves some goal:
- a free bone (no lock, no limit) turns about its own current X, Y and Z axes, increments
  composed onto its rotation: no gimbal lock;
- a bone with a lock or a limit moves the Euler XYZ angles of its pose rotation (those of
  ``solvers.limits.EulerLimit``), so a locked angle stays exactly as it was and a limit clamps
  exactly, after every step. Its Y angle stays within ``dls_plan.EULER_Y_BOUND`` of 0, where
  Euler angles are unique;
- a bone with ``BoneDofs.stretch`` > 0 also scales along its Y axis, within [1, ``MAX_STRETCH``],
  for goals beyond the unstretched reach of their bones.
A DOF's Jacobian column is weighted by 1 - stiffness (stretch columns by the stretch amount);
goal rows by sqrt(weight), angle rows also by the plan's ``scale`` (metres), so damping and
weights mean the same on a finger and on a crane. The iteration loop is ``solvers.iterate``.
"""
from typing import NamedTuple

import numpy as np

from solvers.chain import SolveResult
# dls_plan is re-exported so callers plan and solve through this one module.
from solvers.dls_plan import DISTANCE, MAX_STRETCH, POSITION, ROTATION, DlsPlan, dls_plan  # noqa: F401
from solvers.iterate import iterate
from solvers.transforms import EPS, euler_xyz_from_quat, matrix3_to_quat, quat_from_euler_xyz, quat_from_rotvec, \
    quat_mul, quat_normalize, quat_to_matrix3, quat_to_rotvec
from solvers.tree import tree_pose

METHODS = ("dls", "sdls")
# A step aims at most this far (times the plan's scale) toward a position: the linearisation
# only holds nearby.
MAX_MOVE = 1.0
# Retries per iteration: DLS quadruples its damping, SDLS (or undamped DLS) halves its step.
RETRIES = 4
# Adaptive damping (Levenberg-Marquardt): the factor on ``damping`` stays within these bounds.
DAMPING_FACTORS = (1.0 / 16.0, 256.0)
# Buss & Kim's largest joint change per iteration (radians) for SDLS.
SDLS_MAX_ANGLE = np.pi / 4


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
        if kind == POSITION:
            residual = plan.targets[g] - (tails[b] if goal.use_tail else heads[b])
            linear = np.eye(3)
        elif kind == DISTANCE:
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
            current = world[b] if kind == ROTATION else local[b]
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
        if kind in (POSITION, DISTANCE):
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
                   if kind in (POSITION, DISTANCE)), default=0.0)
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
