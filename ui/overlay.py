"""Text drawn over the viewport with ImGui's draw lists: bone names, the residuals of chains that
fall short (beside the lines the renderer draws), the Auto IK chain length near the pointer, and
what G or R is doing: its angle or distance, axis lock and typed value (Blender shows these in its
header)."""
import math

import numpy as np
from imgui_bundle import imgui

from rig.pose import heads_tails
from ui.transform_input import typed_count

NAME_COLOUR = imgui.IM_COL32(235, 235, 235, 220)
TOOL_COLOUR = imgui.IM_COL32(255, 225, 120, 255)
RESIDUAL_COLOUR = imgui.IM_COL32(255, 150, 120, 255)  # render.style's residual line, lightened to read as text
SHADOW = imgui.IM_COL32(0, 0, 0, 200)
POINTER_OFFSET = (18.0, 14.0)


def _text(draw_list, x, y, colour, text):
    """Text with a one-pixel shadow so it reads over light and dark bones alike."""
    draw_list.add_text(imgui.ImVec2(x + 1.0, y + 1.0), SHADOW, text)
    draw_list.add_text(imgui.ImVec2(x, y), colour, text)


def bone_names(state, width, height):
    """Each shown (not hidden) bone's name at its middle, under the panels."""
    skeleton = state.rig.skeleton
    heads, tails = heads_tails(skeleton, state.world)
    pixels = state.camera.world_to_window((heads + tails) / 2.0, width, height)
    draw_list = imgui.get_background_draw_list()
    for name, (x, y) in zip(skeleton.names, pixels):
        if np.isfinite(x) and np.isfinite(y) and name not in state.view.hidden:
            _text(draw_list, x + 6.0, y - 7.0, NAME_COLOUR, name)


LABEL_GAP = 6.0  # pixels between a residual line and its label


def label_corner(start, end, text_size):
    """Top-left corner for a label of ``text_size`` (w, h) beside the middle of the window-pixel
    segment ``start``-``end``, on its upper side and clear of it whatever its slope."""
    along = np.asarray(end, float) - np.asarray(start, float)
    normal = np.array([along[1], -along[0]]) / max(float(np.linalg.norm(along)), 1e-9)
    if normal[1] > 0.0 or not normal.any():
        normal = -normal if normal.any() else np.array([0.0, -1.0])
    half = np.asarray(text_size, float) / 2.0
    centre = (np.asarray(start, float) + end) / 2.0 + normal * (LABEL_GAP + np.abs(normal) @ half)
    return centre - half


def residual_labels(state, width, height):
    """Each residual line's label beside its middle, under the panels."""
    draw_list = imgui.get_background_draw_list()
    for line in state.view.solver_overlay.residuals:
        ends = state.camera.world_to_window(np.array([line.tip, line.target]), width, height)
        if np.isfinite(ends).all():
            size = imgui.calc_text_size(line.label)
            _text(draw_list, *label_corner(ends[0], ends[1], (size.x, size.y)), RESIDUAL_COLOUR, line.label)


def tool_text(state):
    """The running tool's values, or None; the keys it takes are in the status bar."""
    drag = state.drag
    if drag is None:
        return None
    lines = []
    if drag.kind == "auto_ik":
        lines.append(f"Auto IK length: {state.auto_ik_length}  ({drag.goal.chain_count} bones)")
    if drag.modal:
        lines.append(rotate_text(drag) if drag.kind == "rotate" else grab_text(drag))
    return "\n".join(lines) or None


def rotate_text(drag):
    """"Rot 45| deg about global X": the typed or pointer angle and the axis."""
    value = drag.typed.label(1) if drag.typed.values(1) is not None else f"{math.degrees(drag.angle):.1f}"
    return f"Rot {drag.bone}: {value} deg about {drag.lock.label() if drag.lock else 'the view axis'}"


def grab_text(drag):
    """"Move 0.1| m along global Z" or "Move D [1|]  2  0 m along global X Y Z": the typed
    distances (the active one bracketed when there are several) and their axes, else the offset
    moved and the axis or plane it is locked to."""
    count = typed_count(drag.lock)
    if drag.typed.values(count) is not None:
        axes = drag.lock.label() if drag.lock is not None else "global X Y Z"
        return f"Move {drag.bone}: {'' if count == 1 else 'D '}{drag.typed.label(count)} m along {axes}"
    x, y, z = drag.moved if drag.moved is not None else np.zeros(3)
    along = f" along {drag.lock.label()}" if drag.lock is not None else ""
    return f"Move {drag.bone}: D {x:.3f} {y:.3f} {z:.3f} m{along}"


def text_position(pointer, text_size, rect):
    """Beside the pointer, kept inside ``rect`` (the viewport's free (left, top, right, bottom)
    pixels, as the panels drawn over it leave it): flipped left or up near its right or bottom,
    and pushed inside where the pointer is near or past an edge."""
    left, top, right, bottom = rect
    x, y = pointer[0] + POINTER_OFFSET[0], pointer[1] + POINTER_OFFSET[1]
    if x + text_size[0] > right:
        x = pointer[0] - POINTER_OFFSET[0] - text_size[0]
    if y + text_size[1] > bottom:
        y = pointer[1] - POINTER_OFFSET[1] - text_size[1]
    return max(min(x, right - text_size[0]), left), max(min(y, bottom - text_size[1]), top)


def draw_overlay(state, pointer, width, height):
    """Everything the viewport shows as text this frame; ``pointer`` in top-left pixels."""
    if state.view.show_names:
        bone_names(state, width, height)
    if state.view.solver_overlay is not None:
        residual_labels(state, width, height)
    draw_list = imgui.get_foreground_draw_list()
    if state.drag is not None and state.drag.kind == "rotate":
        # Blender's rotate line from the pivot to the pointer.
        pivot = state.drag.pivot_px
        draw_list.add_line(imgui.ImVec2(*pivot), imgui.ImVec2(*pointer), SHADOW, 3.0)
        draw_list.add_line(imgui.ImVec2(*pivot), imgui.ImVec2(*pointer), TOOL_COLOUR, 1.0)
    text = tool_text(state)
    if text is not None:
        size = imgui.calc_text_size(text)
        rect = state.free_pixels(width, height)
        _text(draw_list, *text_position(pointer, (size.x, size.y), rect), TOOL_COLOUR, text)
