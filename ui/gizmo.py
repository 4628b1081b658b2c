"""The viewport gizmo (ImGuizmo): move the selected IK handle or pole target, turn the active bone.

Runs inside the ImGui frame and draws on ImGui's background draw list (over the scene, under the
panels). A gizmo press is a viewport tool like a drag: it starts a ``DragState`` holding the pose
before it, so Escape or a right click restores that pose bit for bit and the whole drag is one
undo step. ImGuizmo matrices are column-major float arrays; ours act on column vectors with
translation in M[:3, 3], so they go across transposed.

ImGuizmo's hover band around a rotation ring is only 3 px wide on some sides, so a press just
off a ring would pick a bone (with Auto IK on, drag a whole chain). A press within ``NEAR_PX``
of where ImGuizmo would take it is moved onto that point before ImGui sees it.
"""
import math

import numpy as np
from imgui_bundle import imgui, imguizmo

from ui import pins, viewport
from ui.state import DragState

guizmo = imguizmo.im_guizmo
OPERATIONS = {"translate": guizmo.OPERATION.translate, "rotate": guizmo.OPERATION.rotate}
MODES = {"translate": guizmo.MODE.world, "rotate": guizmo.MODE.local}  # Blender: G global, R local axes
NEAR_PX = 5
PROBES = sorted(((dx, dy) for dx in range(-NEAR_PX, NEAR_PX + 1) for dy in range(-NEAR_PX, NEAR_PX + 1)
                 if dx * dx + dy * dy <= NEAR_PX * NEAR_PX), key=lambda d: d[0] * d[0] + d[1] * d[1])
"""Pixel offsets a press is tried at, nearest first."""


def gizmo_bone(state):
    """The bone the gizmo acts on, or None: the active (else a selected) IK handle or pole target
    to move, the active bone to rotate."""
    mode, view = state.gizmo.mode, state.view
    if mode == "rotate":
        return view.active
    if mode == "translate":
        targets, poles = state.rig.handle_bones()
        handles = targets | poles
        if view.active in handles and view.active in view.selected:
            return view.active
        return min(view.selected & handles, default=None)
    return None


def _matrix16(m):
    return guizmo.Matrix16(np.asarray(m, dtype=float).T.flatten())


def apply_gizmo(state, name, matrix):
    """Put bone ``name`` where the gizmo's world ``matrix`` (4, 4) says, through the pose channel
    the gizmo mode edits (location to move, rotation to turn), and solve; a pin on it goes too."""
    if state.gizmo.mode == "translate":
        viewport.move_heads(state, [name], [matrix[:3, 3]])
    else:
        viewport.turn_to(state, name, matrix[:3, :3])
    pins.carry(state, name, matrix)


def grab_point(state, x, y):
    """The nearest pixel within ``NEAR_PX`` of window position ``(x, y)`` where the gizmo drawn
    this frame takes a press, or None. ImGuizmo hit-tests ImGui's pointer, so each pixel is tried
    there, and the pointer put back; ImGui floors pointer positions, so the pixels are whole."""
    if not state.gizmo.shown or state.drag is not None:
        return None
    io = imgui.get_io()
    pointer = imgui.ImVec2(io.mouse_pos.x, io.mouse_pos.y)
    x, y = math.floor(x), math.floor(y)
    try:
        for dx, dy in PROBES:
            io.mouse_pos = imgui.ImVec2(x + dx, y + dy)
            if guizmo.is_over(OPERATIONS[state.gizmo.mode]):
                return x + dx, y + dy
    finally:
        io.mouse_pos = pointer
    return None


def take_near_press(state, x, y):
    """Give a left press at ``(x, y)`` to the gizmo when it falls on or just off it: ImGui's
    pointer moves onto the gizmo before the press reaches ImGui. Returns whether it did (the
    viewport then leaves the press alone)."""
    point = grab_point(state, x, y)
    if point is None:
        return False
    imgui.get_io().add_mouse_pos_event(*point)
    state.gizmo.over = True
    return True


def gizmo_frame(state, width, height):
    """Draw the gizmo for this frame and apply what it did; call between ImGui's new_frame and
    render. ``width`` x ``height`` are the window's pixels (ImGui's display size)."""
    gizmo = state.gizmo
    gizmo.over = gizmo.shown = False
    name = gizmo_bone(state)
    if name is None or (state.drag is not None and state.drag is not gizmo.drag):
        return  # nothing to act on, or another tool is running
    guizmo.begin_frame()
    guizmo.set_drawlist(imgui.get_background_draw_list())
    guizmo.set_rect(0.0, 0.0, float(width), float(height))
    camera = state.camera
    guizmo.set_orthographic(camera.orthographic)
    matrix = _matrix16(state.world[state.rig.skeleton.index[name]])
    changed = guizmo.manipulate(_matrix16(camera.view_matrix()), _matrix16(camera.projection_matrix(width / height)),
                                OPERATIONS[gizmo.mode], MODES[gizmo.mode], matrix)
    using = guizmo.is_using()
    gizmo.over, gizmo.shown = using or guizmo.is_over(), True
    if using and gizmo.drag is None and state.drag is None:
        state.drag = gizmo.drag = DragState("gizmo", name, state.pose.copy(), state.world.copy())
    if changed and gizmo.drag is not None and state.drag is gizmo.drag:
        apply_gizmo(state, name, np.asarray(matrix.values, dtype=float).reshape(4, 4).T)
    if not using:
        if gizmo.drag is not None and state.drag is gizmo.drag:
            viewport.end_drag(state)
        gizmo.drag = None
