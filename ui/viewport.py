"""Viewport tools: pick an IK handle or pole target and drag it in the camera-facing plane.

All positions are window pixels with the origin at the top left (as screenshots and xdotool
count them); the window layer converts pyglet's bottom-left coordinates before calling in.
"""
import time

import numpy as np

from rig.pose import location_for_head, world_matrices
from solvers.transforms import normalize
from ui.state import DragState

PICK_RADIUS_PX = 14.0


def pick_handle(state, x, y, width, height):
    """Name of the IK handle or pole target whose head is nearest the pointer (within
    PICK_RADIUS_PX), nearest the camera when several overlap; None if there is none."""
    targets, poles = state.rig.handle_bones()
    names = sorted(targets | poles)
    if not names:
        return None
    index = [state.rig.skeleton.index[n] for n in names]
    heads = state.world[index, :3, 3]
    pixels = state.camera.world_to_window(heads, width, height)
    distance_px = np.linalg.norm(pixels - np.array([x, y]), axis=1)
    depth = np.linalg.norm(heads - state.camera.eye(), axis=1)
    candidates = np.flatnonzero(distance_px <= PICK_RADIUS_PX)
    if not len(candidates):
        return None
    best = candidates[np.lexsort((distance_px[candidates], np.round(depth[candidates], 3)))[0]]
    return names[best]


def _plane_hit(state, x, y, width, height, point, normal):
    origin, direction = state.camera.window_ray(x, y, width, height)
    denom = float(np.dot(direction, normal))
    if abs(denom) < 1e-9:
        return None
    t = float(np.dot(point - origin, normal)) / denom
    return origin + t * direction if t > 0 else None


def begin_drag(state, x, y, width, height):
    """Start dragging the handle under the pointer; returns True if a drag began."""
    name = pick_handle(state, x, y, width, height)
    if name is None:
        return False
    head = state.world[state.rig.skeleton.index[name], :3, 3].copy()
    normal = normalize(state.camera.target - state.camera.eye())
    hit = _plane_hit(state, x, y, width, height, head, normal)
    offset = head - hit if hit is not None else np.zeros(3)
    state.drag = DragState(name, head, normal, offset, state.pose.copy())
    state.view.selected = {name}
    return True


def update_drag(state, x, y, width, height):
    """Move the dragged handle under the pointer and solve; the arm follows in the same frame."""
    drag = state.drag
    hit = _plane_hit(state, x, y, width, height, drag.plane_point, drag.plane_normal)
    if hit is None:
        return
    bone = state.rig.skeleton.index[drag.bone]
    state.pose.locations[bone] = location_for_head(state.rig.skeleton, state.pose, state.world, bone,
                                                   hit + drag.grab_offset)
    start = time.perf_counter()
    state.resolve()
    state.stats.solve_us = (time.perf_counter() - start) * 1e6


def end_drag(state):
    state.drag = None


def cancel_drag(state):
    """Restore the pose bit for bit as it was when the drag began (no re-solve, which could
    move it by rounding)."""
    if state.drag is not None:
        state.pose = state.drag.pose_before
        state.world = world_matrices(state.rig.skeleton, state.pose)
        state.drag = None
