"""The rows the priority solver (``solvers.priority``) solves: each task's error, and per level
its weighted Jacobian and residual on the current pose; the world axis each column turns about;
the way back to the start pose. Compiled into the solver's kernel."""
import math

import numpy as np
from numba import njit

from solvers import scalar as sc
from solvers.limits import swing_turn
from solvers.priority_plan import GROUND, OWN, POSITION, ROTATION, SHIFT, SWING

MAX_MOVE = 0.25  # a step aims at most this share of the plan's scale toward a point: linearisation holds nearby
GROUND_LIFT = 1e-7  # metres above its ground a point sunk below it is lifted to



@njit(cache=True)
def turn_axes(plan, coords, before, world):
    """Per column the world axis it turns about (rotations) or moves along (shift), (c, 3)."""
    axes = np.zeros((len(plan.column_kind), 3))
    for col in range(len(plan.column_kind)):
        j, axis, kind = plan.column_bone[col], plan.column_axis[col], plan.column_kind[col]
        e = (1.0 if axis == 0 else 0.0, 1.0 if axis == 1 else 0.0, 1.0 if axis == 2 else 0.0)
        if kind == SHIFT:
            a = sc.qrotate(plan.bones.base_rotation, e)
        elif kind == SWING:
            frame = (before[j, 0], before[j, 1], before[j, 2], before[j, 3])
            a = sc.qrotate(frame, swing_turn((coords[j, 0], 0.0, coords[j, 2]), axis))
        else:  # OWN and TWIST turn about the bone's own axis
            a = sc.qrotate((world[j, 0], world[j, 1], world[j, 2], world[j, 3]), e)
        axes[col, 0], axes[col, 1], axes[col, 2] = a
    return axes



@njit(cache=True)
def task_anchor(plan, t, heads, tails):
    """Task ``t``'s bone head (or tail): where its point's offset starts."""
    b = plan.task_bone[t]
    p = tails[b] if plan.task_tail[t] else heads[b]
    return (p[0], p[1], p[2])



@njit(cache=True)
def task_point(plan, t, world, heads, tails):
    """Task ``t``'s point: its anchor, moved by its offset (turned with the bone when it turns)."""
    a = task_anchor(plan, t, heads, tails)
    b = plan.task_bone[t]
    x, y, z = plan.task_offset[t, 0], plan.task_offset[t, 1], plan.task_offset[t, 2]
    if plan.task_offset_turns[t] and (x != 0.0 or y != 0.0 or z != 0.0):
        x, y, z = sc.qrotate((world[b, 0], world[b, 1], world[b, 2], world[b, 3]), (x, y, z))
    # One return: with an early one for a point with no offset, numba's code ran 4x slower.
    return (a[0] + x, a[1] + y, a[2] + z)



@njit(cache=True)
def ground_depth(plan, t, p):
    """How far point ``p`` lies on the inner side of task ``t``'s ground plane (> 0: below)."""
    n = (plan.task_normal[t, 0], plan.task_normal[t, 1], plan.task_normal[t, 2])
    return -sc.dot(n, sc.sub(p, (plan.task_target[t, 0], plan.task_target[t, 1], plan.task_target[t, 2])))



@njit(cache=True)
def _rotation_error(plan, t, world):
    """Task ``t``'s rotation error as a world rotation vector (target times the bone's inverse)."""
    b = plan.task_bone[t]
    target = (plan.task_target[t, 0], plan.task_target[t, 1], plan.task_target[t, 2], plan.task_target[t, 3])
    return sc.qto_rotvec(sc.qmul(target, sc.qconj((world[b, 0], world[b, 1], world[b, 2], world[b, 3]))))



@njit(cache=True)
def task_errors(plan, world, heads, tails):
    """Each task's error: metres to its point, radians to its rotation, metres below its ground."""
    errors = np.empty(len(plan.task_kind))
    for t in range(len(plan.task_kind)):
        kind = plan.task_kind[t]
        if kind == ROTATION:
            errors[t] = sc.length(_rotation_error(plan, t, world))
        elif kind == POSITION:
            p = task_point(plan, t, world, heads, tails)
            errors[t] = sc.length(sc.sub((plan.task_target[t, 0], plan.task_target[t, 1], plan.task_target[t, 2]), p))
        else:
            errors[t] = max(ground_depth(plan, t, task_point(plan, t, world, heads, tails)), 0.0)
    return errors



@njit(cache=True)
def _level_rows(plan, level, world, heads, tails, contact):
    """The rows a level asks for now: 3 per position or rotation, 1 per ground point below it or
    in ``contact`` (one the step would carry below)."""
    rows = 0
    for t in range(len(plan.task_kind)):
        if plan.task_level[t] != level:
            continue
        if plan.task_kind[t] != GROUND:
            rows += 3
        elif contact[t] or ground_depth(plan, t, task_point(plan, t, world, heads, tails)) > 0.0:
            rows += 1
    return rows



@njit(cache=True)
def level_system(plan, level, axes, world, heads, tails, contact):
    """The level's weighted Jacobian (rows, columns) and residual (rows,): positions in metres
    (each residual cut to ``MAX_MOVE`` scales), angles counted at the plan's scale."""
    rows = _level_rows(plan, level, world, heads, tails, contact)
    c = len(plan.column_kind)
    jacobian, residual = np.zeros((rows, c)), np.zeros(rows)
    reach = MAX_MOVE * plan.scale
    r = 0
    for t in range(len(plan.task_kind)):
        if plan.task_level[t] != level:
            continue
        kind, b, gain = plan.task_kind[t], plan.task_bone[t], math.sqrt(plan.task_weight[t])
        if kind == ROTATION:
            error = _rotation_error(plan, t, world)
            for i in range(3):
                residual[r + i] = gain * plan.scale * error[i]
            for col in range(c):
                if plan.column_kind[col] != SHIFT and plan.above[plan.column_bone[col], b]:
                    for i in range(3):
                        jacobian[r + i, col] = gain * plan.scale * axes[col, i]
            r += 3
            continue
        p = task_point(plan, t, world, heads, tails)
        # A point carried by the head without turning moves as the head does: its lever is the anchor.
        lever = p if plan.task_offset_turns[t] else task_anchor(plan, t, heads, tails)
        if kind == GROUND:
            depth = ground_depth(plan, t, p)
            if depth <= 0.0 and not contact[t]:
                continue
            residual[r] = gain * (depth + GROUND_LIFT)
        else:
            error = sc.sub((plan.task_target[t, 0], plan.task_target[t, 1], plan.task_target[t, 2]), p)
            size = sc.length(error)
            if size > reach:
                error = sc.scale(error, reach / size)
            for i in range(3):
                residual[r + i] = gain * error[i]
        normal = (plan.task_normal[t, 0], plan.task_normal[t, 1], plan.task_normal[t, 2])
        for col in range(c):
            j = plan.column_bone[col]
            if not plan.above[j, b]:
                continue
            a = (axes[col, 0], axes[col, 1], axes[col, 2])
            head = (heads[j, 0], heads[j, 1], heads[j, 2])
            motion = a if plan.column_kind[col] == SHIFT else sc.cross(a, sc.sub(lever, head))
            if kind == GROUND:
                jacobian[r, col] = gain * sc.dot(normal, motion)
            else:
                for i in range(3):
                    jacobian[r + i, col] = gain * motion[i]
        r += 1 if kind == GROUND else 3
    return jacobian, residual



@njit(cache=True)
def way_back(plan, quats, coords, shift, start_quats, start_coords):
    """Per column the change (in its own units) that would bring it back to the start pose."""
    back = np.zeros(len(plan.column_kind))
    for col in range(len(plan.column_kind)):
        j, axis, kind = plan.column_bone[col], plan.column_axis[col], plan.column_kind[col]
        if kind == SHIFT:
            back[col] = -shift[axis]
        elif kind == OWN:
            q = (quats[j, 0], quats[j, 1], quats[j, 2], quats[j, 3])
            s = (start_quats[j, 0], start_quats[j, 1], start_quats[j, 2], start_quats[j, 3])
            back[col] = sc.qto_rotvec(sc.qmul(sc.qconj(q), s))[axis]
        else:
            back[col] = start_coords[j, axis] - coords[j, axis]
    return back
