"""Viewport tools that change the pose: drag a handle or bone, Auto IK, grab (G) and rotate (R)
with axis locks and typed values, cancel.

All positions are window pixels with the origin at the top left (as screenshots and xdotool
count them); the window layer converts pyglet's bottom-left coordinates before calling in.
Every tool starts from a ``DragState`` holding the pose before it, so Escape or a right click
restores that pose bit for bit, whatever the tool.
"""

import numpy as np

from render.view_state import AxisLine
from rig.pose import location_for_head, rest_basis, rotation_for_world
from solvers.transforms import normalize, quat_from_axis_angle, quat_mul, quat_to_matrix3
from ui import autoik, pins
from ui.state import DragState
from ui.transform_input import next_lock, typed_axes, typed_count


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


def update_drag(state, x, y, width, height):
    """Move the dragged point under the pointer (or turn the bone by its angle) and solve; the rig
    follows in the same frame. A value typed into a G or R replaces the pointer's."""
    if state.drag.kind == "rotate":
        _rotate(state, x, y)
        return
    point = _grab_point(state, x, y, width, height)
    if point is not None:
        _move_to(state, point)


def _grab_point(state, x, y, width, height):
    """Where the dragged point goes: under the pointer in the view plane, slid onto the locked
    axis' line; typed values move it that far along each free axis (world X, Y, Z with no lock;
    untyped ones are 0, as in Blender)."""
    drag = state.drag
    axes = typed_axes(drag.lock)
    values = drag.typed.values(len(axes))
    if values is not None:
        return drag.plane_point + sum(value * _lock_direction(state, axis) for value, axis in zip(values, axes))
    if drag.lock is not None and drag.lock.plane:  # the pointer's ray meets the locked plane
        normal = _lock_direction(state, drag.lock)
        hit = _plane_hit(state, x, y, width, height, drag.plane_point, normal)
        offset = drag.grab_offset - np.dot(drag.grab_offset, normal) * normal
        return None if hit is None else hit + offset
    hit = _plane_hit(state, x, y, width, height, drag.plane_point, drag.plane_normal)
    if hit is None:
        return None
    point = hit + drag.grab_offset
    if drag.lock is None:
        return point
    direction = _lock_direction(state, drag.lock)
    return drag.plane_point + np.dot(point - drag.plane_point, direction) * direction


def _lock_direction(state, lock):
    """The locked axis in the world; a local one is the dragged bone's as it was before the tool."""
    drag = state.drag
    return lock.direction(drag.world_before[state.rig.skeleton.index[drag.bone]])


def _move_to(state, point):
    drag = state.drag
    drag.moved = point - drag.plane_point
    if drag.kind == "auto_ik":
        drag.target = point
        state.pose = drag.pose_before.copy()  # Blender re-solves from the start each step
        state.mark_dirty()
    else:
        index = [state.rig.skeleton.index[name] for name in drag.followers]
        names, points = (drag.bone, *drag.followers), [point, *(drag.world_before[index, :3, 3] + drag.moved)]
        move_heads(state, names, points)
        for name, head in zip(names, points):
            after = drag.world_before[state.rig.skeleton.index[name]].copy()
            after[:3, 3] = head
            pins.carry(state, name, after)


def move_heads(state, names, points):
    """Put each bone of ``names`` with its head at its world point of ``points`` through its
    location channel; the frame then solves once."""
    skeleton = state.rig.skeleton
    for name, point in zip(names, points):
        bone = skeleton.index[name]
        state.pose.locations[bone] = location_for_head(skeleton, state.pose, state.world, bone, point)
    state.mark_dirty()


def turn_to(state, name, rotation):
    """Give bone ``name`` the world orientation ``rotation`` (3, 3) through its rotation channel;
    the frame then solves."""
    bone = state.rig.skeleton.index[name]
    state.pose.rotations[bone] = rotation_for_world(state.rig.skeleton, state.world, bone, rotation)
    state.mark_dirty()


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
        state.mark_dirty()
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


def begin_grab(state, x, y, width, height):
    """Blender's G on the active bone: what a left drag on it does (its head, Auto IK tip or IK
    target in the view plane), following the pointer with no button held; returns True if it
    began (a bone that cannot move that way does not). Where it moves a head, the other selected
    bones a drag would move by the head go the same way."""
    name = state.view.active
    if name is None or state.drag is not None:
        return False
    drag = drag_for(state, name, x, y, width, height)
    if drag is None:
        return False
    drag.modal = True
    if drag.kind == "translate":
        drag.followers = _followers(state, drag.bone, x, y, width, height)
    state.drag = drag
    return True


def _followers(state, name, x, y, width, height):
    """The selected bones besides ``name`` that a drag would move by the head, less those above
    ``name`` and those below another moved bone (they follow their parent, as in Blender)."""
    skeleton = state.rig.skeleton
    above = {skeleton.names[i] for i in skeleton.ancestors(skeleton.index[name])}
    drags = (drag_for(state, other, x, y, width, height) for other in sorted(state.view.selected - {name} - above))
    moved = {name} | {drag.bone for drag in drags if drag is not None and drag.kind == "translate"} - above
    index = {skeleton.index[other] for other in moved}
    return tuple(sorted(other for other in moved - {name}
                        if not index.intersection(skeleton.ancestors(skeleton.index[other]))))


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
                           start_px=np.array([x, y], dtype=float), modal=True)
    return True


def rotation_angle(pivot, start, now):
    """Counter-clockwise screen angle (radians, y up) from ``start`` to ``now`` around ``pivot``."""
    a, b = start - pivot, np.asarray(now, dtype=float) - pivot
    if np.linalg.norm(a) < 1e-9 or np.linalg.norm(b) < 1e-9:
        return 0.0
    return float(np.arctan2(-(a[0] * b[1] - a[1] * b[0]), a[0] * b[0] + a[1] * b[1]))


def _rotate(state, x, y):
    """Turn the bone about the locked axis, else the view axis (toward the viewer), through its
    head by the typed angle or the pointer's; the new rotation goes in the bone's pose channel,
    on the pose from before R."""
    drag, skeleton = state.drag, state.rig.skeleton
    bone = skeleton.index[drag.bone]
    axis = _rotation_axis(state)
    drag.angle = _rotation_amount(state, axis, x, y)
    local_axis = rest_basis(skeleton, drag.world_before, bone).T @ axis
    pose = drag.pose_before.copy()
    pose.rotations[bone] = quat_mul(quat_from_axis_angle(local_axis, drag.angle), drag.pose_before.rotations[bone])
    state.pose = pose
    after = drag.world_before[bone].copy()
    after[:3, :3] = quat_to_matrix3(quat_from_axis_angle(axis, drag.angle)) @ after[:3, :3]
    pins.carry(state, drag.bone, after)
    state.mark_dirty()


def _rotation_axis(state):
    toward_viewer = state.camera.rotation()[:, 2]
    return toward_viewer if state.drag.lock is None else _lock_direction(state, state.drag.lock)


def _rotation_amount(state, axis, x, y):
    """The angle (radians) to turn: the typed degrees, else the pointer's angle, reversed about an
    axis facing away from the viewer so the bone still turns the way the pointer goes round."""
    drag = state.drag
    values = drag.typed.values(1)
    if values is not None:
        return float(np.radians(values[0]))
    angle = rotation_angle(drag.pivot_px, drag.start_px, (x, y))
    return angle if np.dot(axis, state.camera.rotation()[:, 2]) >= 0.0 else -angle


def lock_axis(state, axis, x, y, width, height, plane=False):
    """X / Y / Z during G or R: lock to ``axis`` (0, 1, 2) or step its lock (global, local, none),
    and apply at once from the pointer at ``x``, ``y`` or the typed value. Shift (``plane``)
    locks a grab to the plane across the axis; a rotation turns about the axis either way."""
    drag = state.drag
    drag.lock = next_lock(drag.lock, axis, plane and drag.kind != "rotate")
    drag.typed = drag.typed.within(typed_count(drag.lock, drag.kind == "rotate"))
    update_drag(state, x, y, width, height)


def type_value(state, char, x, y, width, height):
    """A digit, '.', '-' or '\\b' (Backspace) typed into the active component during G or R;
    applied at once (erasing the last character typed gives the pointer back)."""
    state.drag.typed = state.drag.typed.type(char)
    update_drag(state, x, y, width, height)


def next_component(state, step, x, y, width, height):
    """Tab (``step`` 1) or Shift+Tab (-1) during G: type into the next or previous free axis'
    value, wrapping; a rotation's one angle stays where it is."""
    drag = state.drag
    drag.typed = drag.typed.step(typed_count(drag.lock, drag.kind == "rotate"), step)
    update_drag(state, x, y, width, height)


def constraint_line(state):
    """The locked axis' line for the renderer, through the grabbed point (where it was) or the
    turned bone's head; None when nothing is locked."""
    drag = state.drag
    if drag is None or drag.lock is None or drag.lock.plane:  # a plane is named in the overlay's text
        return None
    through = drag.plane_point if drag.kind != "rotate" else \
        drag.world_before[state.rig.skeleton.index[drag.bone], :3, 3]
    return AxisLine(through.copy(), _lock_direction(state, drag.lock), drag.lock.axis)


def end_drag(state):
    """Keep the drag's result. Its last move is solved first, while the drag still says what is
    dragged: the pointer's last motion and the release can come in one frame, and that frame's
    solve would otherwise drop Auto IK's goal or the dragged goal's lead over the others. The pins
    it moved then record where it left their bones (``ui.pins.end_edit``)."""
    state.solve_if_pending()
    if state.drag is not None:
        pins.end_edit(state)
    state.drag = None


def cancel_drag(state):
    """Restore the pose bit for bit as it was when the tool began (no re-solve, which could
    move it by rounding)."""
    if state.drag is not None:
        state.pose = state.drag.pose_before
        state.world = state.drag.world_before
        state.drag = None

