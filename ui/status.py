"""The status bar, the window's bottom row as in Blender: the keys of the tool that runs now and the
last message, in red when it is an error. An error also shows as a toast, a small window in the
viewport's top right corner, until it is clicked; other messages clear MESSAGE_SECONDS after they
first show, as Blender's reports do."""
from imgui_bundle import imgui

from ui import widgets

ERROR_COLOUR = imgui.ImVec4(1.0, 0.45, 0.4, 1.0)
TOAST_MARGIN = 10.0  # pixels from the viewport's edges
TOAST_WRAP = 360.0  # pixels: longer errors wrap
MESSAGE_GAP = 24.0  # pixels between the keys and the message

NAVIGATION_KEYS = "MMB orbit  Shift MMB pan  Wheel zoom  F frame  A select all  H hide"
GIZMO_KEYS = {"none": "", "translate": "LMB gizmo move  ", "rotate": "LMB gizmo turn  "}
TRANSFORM_KEYS = "X/Y/Z axis  0-9 . - type a value  LMB/Enter confirm  Esc/RMB cancel"
GRAB_KEYS = "X/Y/Z axis  Shift+X/Y/Z plane  0-9 . - type  Tab/Shift+Tab next/previous axis  LMB/Enter confirm  " \
    "Esc/RMB cancel"
AUTO_IK_KEYS = "Ctrl+wheel / PgUp / PgDn chain length  release LMB confirm  Esc/RMB cancel"
DRAG_KEYS = "release LMB confirm  Esc/RMB cancel"
MESSAGE_SECONDS = 5.0


def message_expiry(state):
    """When (seconds, on the clock that showed it) the message clears, or None: there is none, it
    is an error not yet dismissed, it tells of work still running, or it has not shown yet."""
    if not state.message or state.message == state.error or state.message_lasts or state.message_shown_at is None:
        return None
    return state.message_shown_at + MESSAGE_SECONDS


def expire_message(state, now):
    """Note when the message first shows and clear it once its time is up, ``now`` seconds on
    any clock that only goes forward."""
    if state.message and state.message_shown_at is None:
        state.message_shown_at = now
    expiry = message_expiry(state)
    if expiry is not None and now >= expiry:
        state.message = ""


def tool_keys(state):
    """What the keys and buttons do now, as one line."""
    drag = state.drag
    if drag is None:
        select = "LMB select, drag Auto IK" if state.auto_ik else "LMB select, drag"
        return f"{GIZMO_KEYS[state.gizmo.mode]}{select}  G grab  R rotate  {NAVIGATION_KEYS}"
    if drag.modal:
        return TRANSFORM_KEYS if drag.kind == "rotate" else GRAB_KEYS
    return AUTO_IK_KEYS if drag.kind == "auto_ik" else DRAG_KEYS


def status_bar(state, now):
    """The bottom row, the message as it stands at ``now`` (seconds; see ``expire_message``);
    submit it before the dock space, whose work area it shortens."""
    expire_message(state, now)
    imgui.push_style_var(imgui.StyleVar_.window_padding, imgui.ImVec2(8.0, imgui.get_style().frame_padding.y))
    imgui.push_style_color(imgui.Col_.window_bg, imgui.get_style_color_vec4(imgui.Col_.menu_bar_bg))
    flags = imgui.WindowFlags_.no_scrollbar | imgui.WindowFlags_.no_nav | imgui.WindowFlags_.no_focus_on_appearing
    shown = imgui.internal.begin_viewport_side_bar("##status_bar", imgui.get_main_viewport(), imgui.Dir.down,
                                                   imgui.get_frame_height(), flags)
    imgui.pop_style_color()
    imgui.pop_style_var()
    if shown:
        keys, message = tool_keys(state), state.message
        fits = imgui.calc_text_size(keys).x + MESSAGE_GAP + imgui.calc_text_size(message).x \
            <= imgui.get_content_region_avail().x
        if message and not fits:  # a message the keys would push out of sight goes first
            _message(state)
            imgui.same_line(0.0, MESSAGE_GAP)
        imgui.text_disabled(keys)
        if message and fits:
            imgui.same_line(0.0, MESSAGE_GAP)
            _message(state)
    imgui.end()


def _message(state):
    """The last message, red when it is an error; hovered, the whole of it."""
    if state.message == state.error:
        imgui.text_colored(ERROR_COLOUR, state.message)
    else:
        imgui.text_unformatted(state.message)
    if imgui.is_item_hovered():
        imgui.set_tooltip(state.message)


TOAST_FLAGS = (imgui.WindowFlags_.no_decoration | imgui.WindowFlags_.always_auto_resize
               | imgui.WindowFlags_.no_docking | imgui.WindowFlags_.no_saved_settings
               | imgui.WindowFlags_.no_focus_on_appearing | imgui.WindowFlags_.no_nav | imgui.WindowFlags_.no_move)


def error_toast(state, rect):
    """``state.error`` in the top right corner of ``rect`` (the viewport's window pixels, left,
    top, right, bottom) until its Dismiss button or the toast itself is clicked."""
    if not state.error:
        return
    left, top, right, _ = rect
    imgui.set_next_window_pos(imgui.ImVec2(right - TOAST_MARGIN, top + TOAST_MARGIN), imgui.Cond_.always,
                              imgui.ImVec2(1.0, 0.0))
    imgui.begin("##error_toast", None, TOAST_FLAGS)
    imgui.push_text_wrap_pos(max(min(TOAST_WRAP, right - left - 4.0 * TOAST_MARGIN), 1.0))
    imgui.text_colored(ERROR_COLOUR, state.error)
    imgui.pop_text_wrap_pos()
    dismissed = widgets.small_button("Dismiss##toast")
    dismissed |= imgui.is_window_hovered() and imgui.is_mouse_clicked(imgui.MouseButton_.left)
    imgui.end()
    if dismissed:
        state.error = ""
