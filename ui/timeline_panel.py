"""The timeline strip, as Blender's timeline: a header row (auto-keying, the Playback and Keying
popovers, play / step / jump buttons, the current frame and a readout in frames and seconds) over
a strip of frames with the keys as markers.

On the strip a press scrubs (the frame under the pointer becomes current while the button is
held); a press on a marker selects it (Shift: adds or removes it) and dragging it moves its keys
in time, applied on release; Delete or X over the strip deletes the selected markers' keys; the
wheel zooms about the pointer. Whatever the clip's length, the strip maps its width to the frames
shown and labels every ``tick_step`` frames, so a pixel is at most a few frames and labels never
crowd.
"""
import math

import numpy as np
from imgui_bundle import imgui

from rig.keys import INTERPOLATIONS, MAX_FPS
from ui import widgets
from ui.timeline import delete_key, delete_selected_keys, go_to_frame, insert_key, jump_to_end, jump_to_key, \
    load_clip, move_selected_keys, set_interpolation, set_timing, step, toggle_play

STRIP_MIN_HEIGHT = 18.0  # pixels
LABEL_HEIGHT = 12.0  # pixels: the frame numbers' row at the strip's top
MARKER_RADIUS = 4.5  # pixels: a key's diamond, and how near a press must be to take it
EDGE = MARKER_RADIUS + 2.0  # pixels before the first frame shown: its marker drawn whole
LABEL_SPACING = 48.0  # pixels: at least this between frame labels
MIN_VIEW_SPAN = 10  # frames: the most the wheel zooms in
ZOOM = 0.8  # the span a wheel click in leaves
FRAME_FIELD_WIDTH = 64.0
SETTING_WIDTH = 90.0
COLOURS = {"back": (0.16, 0.16, 0.16, 1.0), "range": (0.22, 0.22, 0.22, 1.0), "tick": (0.45, 0.45, 0.45, 1.0),
           "label": (0.7, 0.7, 0.7, 1.0), "key": (0.85, 0.85, 0.85, 1.0), "selected": (1.0, 0.6, 0.15, 1.0),
           "current": (0.3, 0.55, 1.0, 1.0), "outline": (0.0, 0.0, 0.0, 1.0)}


def _colour(name):
    return imgui.get_color_u32(imgui.ImVec4(*COLOURS[name]))


def tick_step(frames_per_pixel):
    """Frames between labels: 1, 2, 5, 10, 20, 50... whichever first leaves LABEL_SPACING pixels."""
    wanted = max(frames_per_pixel * LABEL_SPACING, 1.0)
    magnitude = 10 ** math.floor(math.log10(wanted))
    return next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= wanted)


def frame_at(x, left, width, shown):
    """The whole frame under window pixel column ``x`` of a strip from ``left``, ``width`` wide."""
    first, last = shown
    return round(first + (x - left) / max(width, 1.0) * (last - first))


def x_of(frame, left, width, shown):
    first, last = shown
    return left + (frame - first) / max(last - first, 1e-9) * width


# The header row ---------------------------------------------------------------------------------
TRANSPORT = (("|<##jump_start", "Jump to the start (Shift+Left)", lambda s: jump_to_end(s, False)),
             ("<>##key_before", "Jump to the previous key (Down)", lambda s: jump_to_key(s, -1)),
             ("<##step_back", "Step back a frame (Left)", lambda s: step(s, -1)),
             (None, "Play / pause (Space)", toggle_play),
             (">##step_on", "Step on a frame (Right)", lambda s: step(s, 1)),
             ("<>##key_after", "Jump to the next key (Up)", lambda s: jump_to_key(s, 1)),
             (">|##jump_end", "Jump to the end (Shift+Right)", lambda s: jump_to_end(s, True)))


def _transport(state):
    for label, tip, command in TRANSPORT:
        imgui.same_line()
        label = label or ("Pause##play" if state.timeline.playing else "Play##play")
        if widgets.small_button(label):
            command(state)
        if imgui.is_item_hovered():
            imgui.set_tooltip(tip)


def _playback_popover(state):
    """Blender's Playback popover, with the scene's frame rate and range and the file's clips."""
    timeline, action = state.timeline, state.timeline.action
    imgui.set_next_item_width(SETTING_WIDTH)
    changed, fps = widgets.input_float("Frame rate##fps", action.fps, 0.0, 0.0, "%.3g")
    if changed and 0 < fps <= MAX_FPS:
        set_timing(state, fps=fps)
    imgui.set_next_item_width(SETTING_WIDTH)
    changed, start = widgets.drag_int("Start##range_start", action.start, 1.0)
    if changed:
        set_timing(state, start=start)
    imgui.set_next_item_width(SETTING_WIDTH)
    changed, end = widgets.drag_int("End##range_end", action.end, 1.0)
    if changed:
        set_timing(state, end=end)
    _, timeline.follow_root = widgets.checkbox("Camera follows root", timeline.follow_root)
    animation = state.animation
    if animation is not None:
        changed, index = widgets.combo("File clip##file_clip", list(animation.clips).index(animation.clip),
                                       list(animation.clips))
        if changed:
            load_clip(state, list(animation.clips)[index])
        if imgui.is_item_hovered():
            imgui.set_tooltip("A clip of the opened file becomes the keys (one a frame); Ctrl+Z takes it back.")


def _keying_popover(state):
    """Blender's Keying popover: keying and deleting at the current frame, and the interpolation
    of the selected markers' keys (the current frame's when none is) and of new keys."""
    timeline = state.timeline
    if widgets.button("Insert key (I)##insert_key"):
        insert_key(state)
    imgui.same_line()
    if widgets.button("Delete key (Alt+I)##delete_key"):
        delete_key(state)
    current = timeline.action.interpolation_at(timeline.frame) if not timeline.selected else \
        timeline.action.interpolation_at(min(timeline.selected))
    current = current or timeline.interpolation
    imgui.set_next_item_width(SETTING_WIDTH)
    changed, index = widgets.combo("Interpolation##interpolation", INTERPOLATIONS.index(current), list(INTERPOLATIONS))
    if changed:
        set_interpolation(state, INTERPOLATIONS[index])
    if widgets.button(f"Delete {len(timeline.selected)} selected##delete_selected") and timeline.selected:
        delete_selected_keys(state)


def _popover(label, body, state):
    if widgets.small_button(label):
        imgui.open_popup(f"{label}_popover")
    if imgui.begin_popup(f"{label}_popover"):
        body(state)
        if imgui.is_key_pressed(imgui.Key.escape):  # as the menus close
            imgui.close_current_popup()
        imgui.end_popup()


def header_row(state):
    timeline = state.timeline
    _, timeline.auto_key = widgets.checkbox("Auto key", timeline.auto_key)
    if imgui.is_item_hovered():
        imgui.set_tooltip("Blender's auto-keying: every edit keys the bones it moved at the current frame.")
    imgui.same_line()
    _popover("Playback", _playback_popover, state)
    imgui.same_line()
    _popover("Keying", _keying_popover, state)
    _transport(state)
    imgui.same_line()
    imgui.set_next_item_width(FRAME_FIELD_WIDTH)
    changed, frame = widgets.drag_int("##current_frame", timeline.frame, 0.2)
    if changed:
        go_to_frame(state, frame)
    imgui.same_line()
    readout = f"/ {timeline.action.end}  {timeline.action.seconds(timeline.frame):.3f} s"
    if imgui.calc_text_size(readout).x > imgui.get_content_region_avail().x:
        readout = f"/ {timeline.action.end}"  # a narrow window: the seconds are in the tooltip
    widgets.readout("frame_readout", readout)
    if imgui.is_item_hovered():
        imgui.set_tooltip(timeline.summary())


# The strip --------------------------------------------------------------------------------------
def _marker_row(top, height):
    """The markers' middle: under the frame labels (LABEL_HEIGHT), or the strip's middle if lower,
    kept a marker's height above the strip's bottom edge (a short strip draws them over the labels' foot)."""
    return min(max(top + LABEL_HEIGHT + MARKER_RADIUS, top + height / 2), top + height - MARKER_RADIUS - 3)


def _marker_under(state, x, y, left, width, middle):
    """The key frame whose marker is under the pointer, or None."""
    if abs(y - middle) > MARKER_RADIUS + 2:
        return None
    shown, best = state.timeline.shown_range(), None
    for frame in state.timeline.action.key_frames:
        distance = abs(x_of(frame, left, width, shown) - x)
        if distance <= MARKER_RADIUS and (best is None or distance < best[0]):
            best = (distance, float(frame))
    return None if best is None else best[1]


def _press(state, x, y, left, width, middle):
    timeline = state.timeline
    marker = _marker_under(state, x, y, left, width, middle)
    shift = imgui.get_io().key_shift
    if marker is None:
        if not shift:
            timeline.selected = frozenset()
        timeline.grab = ("scrub", 0.0)
        go_to_frame(state, frame_at(x, left, width, timeline.shown_range()))
        return
    if shift:
        timeline.selected = timeline.selected ^ {marker}
    elif marker not in timeline.selected:
        timeline.selected = frozenset({marker})
    timeline.grab = ("marker", x)


def _held(state, x, left, width):
    """While the press lasts: scrub, or how far the markers are dragged (frames)."""
    timeline = state.timeline
    kind, anchor = timeline.grab
    if kind == "scrub":
        go_to_frame(state, frame_at(x, left, width, timeline.shown_range()))
        return 0
    first, last = timeline.shown_range()
    return round((x - anchor) / max(width, 1.0) * (last - first))


def _zoom(state, x, left, width, clicks):
    timeline = state.timeline
    first, last = timeline.shown_range()
    pivot = first + (x - left) / max(width, 1.0) * (last - first)
    span = max((last - first) * ZOOM ** clicks, MIN_VIEW_SPAN)
    low = pivot - (pivot - first) * span / (last - first)
    timeline.view = (low, low + span)


def _marker_columns(timeline, left, width, dragged):
    """(x, selected) of the markers to draw: one per pixel column, selected ones last (on top), so
    a clip keyed at each of thousands of frames draws as many markers as the strip has pixels."""
    frames = timeline.action.key_frames
    selected = np.isin(frames, list(timeline.selected))
    xs = np.round(x_of(frames + np.where(selected, dragged, 0), left, width, timeline.shown_range()))
    inside = (xs >= left - MARKER_RADIUS) & (xs <= left + width + MARKER_RADIUS)
    columns = {}
    for x, chosen in zip(xs[inside].tolist(), selected[inside].tolist()):
        columns[x] = columns.get(x, False) or chosen
    return sorted(columns.items(), key=lambda item: item[1])


def _draw(state, left, top, width, height, dragged, backdrop):
    """The strip's frames from ``left`` over ``width`` pixels, on a backdrop from ``backdrop[0]``
    to ``backdrop[1]`` (wider: the edge markers and the last label drawn whole)."""
    timeline = state.timeline
    shown = timeline.shown_range()
    draw = imgui.get_window_draw_list()
    right, bottom, middle = left + width, top + height, _marker_row(top, height)
    draw.add_rect_filled(imgui.ImVec2(backdrop[0], top), imgui.ImVec2(backdrop[1], bottom), _colour("back"))
    start_x = min(max(x_of(timeline.action.start, left, width, shown), left), right)
    end_x = min(max(x_of(timeline.action.end, left, width, shown), left), right)
    draw.add_rect_filled(imgui.ImVec2(start_x, top), imgui.ImVec2(end_x, bottom), _colour("range"))
    spacing = tick_step((shown[1] - shown[0]) / max(width, 1.0))
    frame = math.ceil(shown[0] / spacing) * spacing
    while frame <= shown[1]:
        x = math.floor(x_of(frame, left, width, shown)) + 0.5  # a pixel's centre: a crisp line, no blended edge
        draw.add_line(imgui.ImVec2(x, top), imgui.ImVec2(x, bottom), _colour("tick"))
        draw.add_text(imgui.ImVec2(x + 3, top - 1), _colour("label"), f"{frame:g}")
        frame += spacing
    columns = _marker_columns(timeline, left, width, dragged)
    dense = len(columns) * (2 * MARKER_RADIUS + 1) > width  # diamonds would merge: a tick a key instead
    for x, selected in columns:
        if dense:
            draw.add_line(imgui.ImVec2(x + 0.5, middle - MARKER_RADIUS), imgui.ImVec2(x + 0.5, middle + MARKER_RADIUS),
                          _colour("selected" if selected else "key"))
            continue
        points = [imgui.ImVec2(x, middle - MARKER_RADIUS), imgui.ImVec2(x + MARKER_RADIUS, middle),
                  imgui.ImVec2(x, middle + MARKER_RADIUS), imgui.ImVec2(x - MARKER_RADIUS, middle)]
        draw.add_quad_filled(*points, _colour("selected" if selected else "key"))
        draw.add_quad(*points, _colour("outline"))
    x = math.floor(x_of(timeline.frame, left, width, shown)) + 0.5
    if left <= x <= right:
        draw.add_line(imgui.ImVec2(x, top), imgui.ImVec2(x, bottom), _colour("current"), 2.0)


def strip(state):
    """The frames and keys strip, filling the rest of the panel: the frames span the widget
    ("timeline_strip"), inset from the panel's edges so the first marker and the last label fit."""
    timeline = state.timeline
    outer_left, top = imgui.get_cursor_screen_pos()
    outer_width = imgui.get_content_region_avail().x
    last_label = imgui.calc_text_size(f"{timeline.shown_range()[1]:g}").x + 6.0
    left = outer_left + EDGE
    width = max(outer_width - EDGE - last_label, 1.0)
    height = max(imgui.get_content_region_avail().y - 1.0, STRIP_MIN_HEIGHT)
    imgui.set_cursor_screen_pos(imgui.ImVec2(left, top))
    widgets.invisible_button("timeline_strip", imgui.ImVec2(width, height))
    x, y = imgui.get_io().mouse_pos
    middle = _marker_row(top, height)
    dragged = 0
    if imgui.is_item_activated():
        _press(state, x, y, left, width, middle)
    elif imgui.is_item_active() and timeline.grab is not None:
        dragged = _held(state, x, left, width)
    if imgui.is_item_deactivated() and timeline.grab is not None:
        if timeline.grab[0] == "marker":
            move_selected_keys(state, _held(state, x, left, width))
        timeline.grab = None
    if imgui.is_item_hovered():
        wheel = imgui.get_io().mouse_wheel
        if wheel:
            _zoom(state, x, left, width, wheel)
        if imgui.is_key_pressed(imgui.Key.delete) or imgui.is_key_pressed(imgui.Key.x):
            delete_selected_keys(state)
    _draw(state, left, top, width, height, dragged, (outer_left, outer_left + outer_width))


def timeline_panel(state):
    """The whole timeline: the header row over the strip, packed tight so the strip fits the
    docked panel's default height under the tools' row."""
    imgui.push_style_var(imgui.StyleVar_.frame_padding, imgui.ImVec2(4.0, 1.0))
    imgui.push_style_var(imgui.StyleVar_.item_spacing, imgui.ImVec2(6.0, 2.0))
    header_row(state)
    strip(state)
    imgui.pop_style_var(2)
