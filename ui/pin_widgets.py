"""The pins' widgets: the tools strip's row (pin, unpin, whole body), the active bone's pin in the
Pose tab, and the outliner's pin items (a right click on a row; a pinned row shows a pin toggle).
Each is one function over the app's state; the keys they name come from the viewport's key table
(``ui.keymap``), so a tooltip cannot drift from what the keys do."""
from imgui_bundle import imgui

from ui import pins, widgets
from ui.panels import help_marker

WHOLE_BODY_TIP = ("While bones are pinned, a drag moves the hips too, so the spine and legs bend and a\n"
                  "hand pulled past the arm's reach brings the body along; pinned bones stay. On by\n"
                  "default once something is pinned. Off: the hips stay put; the pins still hold.")
PIN_TIP_ROW = "Pinned: held here whatever else moves (the pin marker in the viewport)"
PIN_MOVES_TIP = ("Moving a pinned bone itself takes its pin along: G, R, the gizmo, its values here, an Auto IK\n"
                 "drag of it or of the IK handle that pulls it. The pin stays where the edit leaves the bone\n"
                 "(one undo step with it); Escape leaves it where it was; the other pins hold.")


def viewport_keys(method, args=()):
    """``ui.keymap.viewport_keys``, imported when first drawn: ui.keymap reaches ui.state, which
    imports the outliner and so this module."""
    from ui.keymap import viewport_keys as keys
    return keys(method, args)


def _tooltip(text):
    if imgui.is_item_hovered():
        imgui.set_tooltip(text)


def pins_row(state):
    """The tools strip's pin row: Pin and Unpin the selected bones, the whole-body toggle showing
    its state, and how many bones are pinned."""
    if widgets.button("Pin") and state.drag is None:
        pins.pin_selected(state)
    _tooltip(f"Pin the selected bones where they are, position and rotation ({viewport_keys('pin')});\n"
             f"{viewport_keys('pin', (False,))}: their positions only.\n{PIN_MOVES_TIP}")
    imgui.same_line()
    if widgets.button("Unpin") and state.drag is None:
        pins.unpin_selected(state)
    _tooltip(f"Unpin the selected bones; with none selected, every pin ({viewport_keys('unpin')}).")
    imgui.same_line()
    imgui.text_disabled("|")
    imgui.same_line()
    changed, follows = widgets.checkbox("Whole body", state.body_follows)
    if changed and state.drag is None:
        state.whole_body = follows
    help_marker(WHOLE_BODY_TIP)
    imgui.same_line()
    imgui.text_disabled(f"|  {len(state.pins)} pinned" if state.pins else "|  nothing pinned")


def active_bone_pin(state):
    """The active bone's pin in the Pose tab: pinned or not, and whether it holds the rotation."""
    name = state.view.active
    if name is None:
        return
    pin = state.pins.get(name)
    changed, pinned = widgets.checkbox("Pinned", pin is not None)
    if changed and state.drag is None:
        pins.set_pinned(state, name, pinned)
    _tooltip(f"Hold {name} where it is now, above every other goal ({viewport_keys('pin')}; "
             f"{viewport_keys('unpin')} unpins).\n{PIN_MOVES_TIP}")
    imgui.same_line()
    imgui.begin_disabled(pin is None)
    changed, holds = widgets.checkbox("Hold rotation", pin is not None and pin.holds_rotation)
    imgui.end_disabled()
    if changed and pin is not None and state.drag is None:
        pins.hold_rotation(state, name, holds)
    _tooltip("On: the pin holds the bone's rotation as well as its head.\nOff: its head only; the bone may turn "
             f"({viewport_keys('pin', (False,))} pins that way).")


def outliner_pin_items(state, name):
    """Call right after an outliner row's item: its right-click menu pins or unpins the bone."""
    if not imgui.begin_popup_context_item(f"pin_menu {name}"):
        return
    pinned = name in state.pins
    if widgets.menu_item("Pin", viewport_keys("pin"), False, state.drag is None)[0]:
        pins.set_pinned(state, name, True)
    if widgets.menu_item("Pin position only", viewport_keys("pin", (False,)), False, state.drag is None)[0]:
        pins.set_pinned(state, name, True, rotation=False)
    if widgets.menu_item("Unpin", viewport_keys("unpin"), False, pinned and state.drag is None)[0]:
        pins.set_pinned(state, name, False)
    imgui.end_popup()


def outliner_pin_toggle(state, name):
    """On a pinned bone's row, left of its visibility toggle: a ticked "pin" toggle whose click
    unpins. Unpinned rows show none (their right-click menu pins)."""
    if name not in state.pins:
        return
    imgui.same_line()
    style = imgui.get_style()
    room = imgui.get_text_line_height() + style.item_spacing.x  # the visibility toggle's
    width = imgui.calc_text_size("pin").x + imgui.get_text_line_height() + style.item_inner_spacing.x
    imgui.set_cursor_pos_x(imgui.get_cursor_pos_x() + max(imgui.get_content_region_avail().x - room - width, 0.0))
    imgui.push_style_var(imgui.StyleVar_.frame_padding, imgui.ImVec2(0.0, 0.0))  # as tall as the row's text
    clicked, still = widgets.checkbox(f"pin##pin {name}", True)
    imgui.pop_style_var()
    _tooltip(PIN_TIP_ROW + "; click to unpin")
    if clicked and not still and state.drag is None:
        pins.set_pinned(state, name, False)
