"""Viewport tools that change the pose: drag a handle or bone, Auto IK, rotate (R), cancel.

All positions are window pixels with the origin at the top left (as screenshots and xdotool
count them); the window layer converts pyglet's bottom-left coordinates before calling in.
Every tool starts from a ``DragState`` holding the pose before it, so Escape or a right click
restores that pose bit for bit, whatever the tool.
"""
import time

import numpy as np

from rig.pose import location_for_head, rest_basis, rotation_for_world
from solvers.transforms import normalize, quat_from_axis_angle, quat_mul
from ui import autoik
from ui.state import DragState


def _plane_hit(state, x, y, width, height, point, normal):
    origin, direction = state.camera.window_ray(x, y, width, height)
    denom = float(np.dot(direction, normal))
    if abs(denom) < 1e-9:
        return None
    t = float(np.dot(point - origin, normal)) / denom
    return origin + t * direction if t > 0 else None


def _view_normal(state):
    return normalize(state.camera.target - state.camera.eye())


def _plane_drag(state, kind, name, point, x, y, width, height, goal=None):
    """A drag moving world ``point`` with the pointer in the camera-facing plane through it."""
    normal = _view_normal(state)
    hit = _plane_hit(state, x, y, width, height, point, normal)
    offset = point - hit if hit is not None else np.zeros(3)
    return DragState(kind, name, state.pose.copy(), state.world.copy(), plane_point=point.copy(),
                     plane_normal=normal, grab_offset=offset, goal=goal)


def drag_for(state, name, x, y, width, height):
    """The drag a press on ``name`` starts, or None where the bone cannot move that way.

    Handles, poles, roots and unconnected bones translate. With Auto IK on, a bone Blender gives
    a temporary IK to moves its tip and its connected parents follow; a bone that already has an
    IK constraint with a target drags that target instead.
    """
    rig = state.rig
    skeleton = rig.skeleton
    bone = skeleton.index[name]
    targets, poles = rig.handle_bones()
    head = state.world[bone, :3, 3]
    if name in targets | poles:
        return _plane_drag(state, "translate", name, head, x, y, width, height)
    if state.auto_ik:
        owner = autoik.owning_constraint(rig, name)
        if owner is not None:
            target = skeleton.index[owner.target]
            return _plane_drag(state, "translate", owner.target, state.world[target, :3, 3], x, y, width, height)
        if autoik.uses_auto_ik(skeleton, bone):
            tail = head + state.world[bone, :3, 1] * skeleton.lengths[bone]
            goal = autoik.goal_constraint(rig, bone, state.auto_ik_length)
            return _plane_drag(state, "auto_ik", name, tail, x, y, width, height, goal)
    if not skeleton.connected[bone]:
        return _plane_drag(state, "translate", name, head, x, y, width, height)
    return None


def begin_drag(state, name, x, y, width, height):
    """Start dragging ``name`` (the bone pressed on); returns True if a drag began."""
    state.drag = drag_for(state, name, x, y, width, height)
    return state.drag is not None


def _solve(state):
    start = time.perf_counter()
    state.resolve()
    state.stats.solve_us = (time.perf_counter() - start) * 1e6


def update_drag(state, x, y, width, height):
    """Move the dragged point under the pointer and solve; the rig follows in the same frame."""
    drag = state.drag
    if drag.kind == "rotate":
        _rotate_to(state, x, y)
        return
    hit = _plane_hit(state, x, y, width, height, drag.plane_point, drag.plane_normal)
    if hit is None:
        return
    point = hit + drag.grab_offset
    if drag.kind == "auto_ik":
        drag.target = point
        state.pose = drag.pose_before.copy()  # Blender re-solves from the start each step
        _solve(state)
    else:
        move_head(state, drag.bone, point)


def move_head(state, name, point):
    """Put bone ``name``'s head at world ``point`` through its location channel and solve."""
    bone = state.rig.skeleton.index[name]
    state.pose.locations[bone] = location_for_head(state.rig.skeleton, state.pose, state.world, bone, point)
    _solve(state)


def turn_to(state, name, rotation):
    """Give bone ``name`` the world orientation ``rotation`` (3, 3) through its rotation channel
    and solve."""
    bone = state.rig.skeleton.index[name]
    state.pose.rotations[bone] = rotation_for_world(state.rig.skeleton, state.world, bone, rotation)
    _solve(state)


def change_auto_ik_length(state, step):
    """PageUp (+1) / PageDown (-1) during an Auto IK drag: step the setting, re-solve
    from the pose before the drag so bones leaving the chain return exactly."""
    drag = state.drag
    if drag is None or drag.kind != "auto_ik":
        return False
    state.auto_ik_length = autoik.step_length(state.auto_ik_length, step)
    bone = state.rig.skeleton.index[drag.bone]
    drag.goal.chain_count = autoik.effective_length(state.rig.skeleton, bone, state.auto_ik_length)
    if drag.target is not None:
        state.pose = drag.pose_before.copy()
        _solve(state)
    return True


def active_chain(state):
    """Bone names the current tool or selection involves: the Auto IK chain while dragging,
    else the selected IK constraint's chain."""
    rig = state.rig
    constraint = state.drag.goal if state.drag is not None and state.drag.goal is not None \
        else state.selected_constraint()
    if constraint is None:
        return set()
    return {rig.skeleton.names[i] for i in rig.ik_chain(constraint)}


def begin_rotate(state, x, y, width, height):
    """Blender's R on the active bone: returns True if a rotation began."""
    name = state.view.active
    if name is None or state.drag is not None:
        return False
    head = state.world[state.rig.skeleton.index[name], :3, 3]
    pivot = state.camera.world_to_window(head[None], width, height)[0]
    if not np.isfinite(pivot).all():
        return False
    state.drag = DragState("rotate", name, state.pose.copy(), state.world.copy(), pivot_px=pivot,
                           start_px=np.array([x, y], dtype=float))
    return True


def rotation_angle(pivot, start, now):
    """Counter-clockwise screen angle (radians, y up) from ``start`` to ``now`` around ``pivot``."""
    a, b = start - pivot, np.asarray(now, dtype=float) - pivot
    if np.linalg.norm(a) < 1e-9 or np.linalg.norm(b) < 1e-9:
        return 0.0
    return float(np.arctan2(-(a[0] * b[1] - a[1] * b[0]), a[0] * b[0] + a[1] * b[1]))


def _rotate_to(state, x, y):
    """Turn the bone about the view axis (toward the viewer) through its head by the pointer's
    angle; the new rotation goes in the bone's pose channel, on the pose from before R."""
    drag, skeleton = state.drag, state.rig.skeleton
    bone = skeleton.index[drag.bone]
    angle = rotation_angle(drag.pivot_px, drag.start_px, (x, y))
    axis = rest_basis(skeleton, drag.world_before, bone).T @ state.camera.rotation()[:, 2]
    pose = drag.pose_before.copy()
    pose.rotations[bone] = quat_mul(quat_from_axis_angle(axis, angle), drag.pose_before.rotations[bone])
    state.pose = pose
    _solve(state)


def end_drag(state):
    state.drag = None


def cancel_drag(state):
    """Restore the pose bit for bit as it was when the tool began (no re-solve, which could
    move it by rounding)."""
    if state.drag is not None:
        state.pose = state.drag.pose_before
        state.world = state.drag.world_before
        state.drag = None

