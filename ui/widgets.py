"""The ImGui widgets the app draws, each noting where it was drawn, so replayed input can act on a
widget by its label wherever the layout put it (``ui.replay``: click_item, hover_item, set_value).

Panels call ``widgets.checkbox(...)`` where they would call ``imgui.checkbox(...)``; the result is
ImGui's. After each frame ``drawn()`` lists the items it drew, in drawing order: the label as given
to ImGui, its ID, the rectangle that takes clicks (a slider's frame, not its label) and the value it
showed. Items a collapsed window skipped are not listed, nor those under a closed header.
"""
import math
from dataclasses import dataclass

from imgui_bundle import imgui


@dataclass(frozen=True)
class Item:
    label: str  # as given to ImGui: "Iterations##ik"
    kind: str  # the widget function: "slider_int", "checkbox", ...
    id: int
    rect: tuple  # (left, top, right, bottom) window pixels of the part that takes clicks
    value: object  # what it showed (a checkbox's state, a slider's number), None for buttons and headers
    visible: bool  # its middle is inside its window, not scrolled or clipped out of it

    @property
    def name(self):
        """The visible label: the part before "##"."""
        return self.label.split("##")[0]

    @property
    def centre(self):
        left, top, right, bottom = self.rect
        return (left + right) / 2.0, (top + bottom) / 2.0


_drawn = []  # this frame's notes, (label, kind, id, rect, value, clip): made Items only when asked for


def begin_frame():
    """Forget the previous frame's items; the window calls it before the panels draw."""
    _drawn.clear()


def drawn():
    """The items the last frame drew, in drawing order."""
    return [_item(*note) for note in _drawn]


def _note(label, kind, value, clip):
    """Record the item the widget just submitted (ImGui's last item), drawn inside ``clip``
    (its window's clip rectangle, an ImVec4 of left, top, right, bottom). Every widget of every
    frame is noted, so this keeps plain values; ``drawn`` makes the Items."""
    data = imgui.get_current_context().last_item_data
    low, high = data.nav_rect.min, data.nav_rect.max
    _drawn.append((label, kind, data.id_, (low.x, low.y, high.x, high.y), value, clip))


def _item(label, kind, id_, rect, value, clip):
    left, top, right, bottom = rect
    middle_x, middle_y = (left + right) * 0.5, (top + bottom) * 0.5
    visible = clip.x <= middle_x < clip.z and clip.y <= middle_y < clip.w
    return Item(label, kind, id_, rect, value, visible)


def _noting(label, kind, draw):
    """``draw()``'s result, with the item it drew noted as a ``kind`` labelled ``label``."""
    # Read before drawing: an open menu's widget leaves its popup the current window.
    window = imgui.internal.get_current_window_read()
    skipped, clip = window.skip_items, window.clip_rect.to_vec4()
    result = draw()
    if not skipped:  # a collapsed or hidden window submits nothing: the last item is an older one
        _note(label, kind, result[1] if isinstance(result, tuple) else None, clip)
    return result


def _located(widget):
    """``widget`` as ImGui draws it, noting the item it drew and the value it shows."""
    kind = widget.__name__

    def draw(label, *args, **kwargs):
        return _noting(label, kind, lambda: widget(label, *args, **kwargs))

    draw.__name__ = draw.__qualname__ = kind
    draw.__doc__ = f"imgui.{kind}, noted in ``drawn()``."
    return draw


def _typing(label, text_field):
    """Whether the widget ``label`` is about to draw takes typed text this frame: a field being
    edited, or a slider or drag field Ctrl+clicked into one."""
    context, item = imgui.get_current_context(), imgui.get_id(label)
    return context.active_id == item and (text_field or context.temp_input_id == item)


def _names_a_number(text):
    """Whether ``text`` reads as a finite number, or as no number at all (then ImGui ignores it)."""
    try:
        return math.isfinite(float(text))
    except ValueError:
        return True


def _finite(widget, text_field=False):
    """``widget`` (one taking and returning a float, as ``(changed, value)``) refusing a typed NaN
    or infinity as it refuses text that is no number: unchanged, the value it was given. ImGui's
    own clamp would turn "inf" into a slider's end, so the text typed is read too. No panel then
    sees a NaN and no widget shows one (the widget locator file writes strict JSON)."""
    def checked(label, value, *args, **kwargs):
        typing = _typing(label, text_field)
        changed, new = widget(label, value, *args, **kwargs)
        typed = imgui.internal.get_input_text_state(imgui.get_item_id()) if typing else None
        if changed and not (math.isfinite(new) and (typed is None or _names_a_number(typed.get_text()))):
            return False, value
        return changed, new

    checked.__name__ = widget.__name__
    return checked


button = _located(imgui.button)
small_button = _located(imgui.small_button)
checkbox = _located(imgui.checkbox)
radio_button = _located(imgui.radio_button)
slider_int = _located(imgui.slider_int)
slider_float = _located(_finite(imgui.slider_float))
drag_float = _located(_finite(imgui.drag_float))
drag_int = _located(imgui.drag_int)
invisible_button = _located(imgui.invisible_button)
input_float = _located(_finite(imgui.input_float, text_field=True))
input_text = _located(imgui.input_text)
collapsing_header = _located(imgui.collapsing_header)
tree_node = _located(imgui.tree_node)
tree_node_ex = _located(imgui.tree_node_ex)
begin_menu = _located(imgui.begin_menu)
menu_item = _located(imgui.menu_item)
selectable = _located(imgui.selectable)


def text_colored(text, colour):
    """imgui.text_colored, noted in ``drawn()`` (as a "text" item, so tests can see a warning)."""
    return _noting(text, "text", lambda: imgui.text_colored(colour, text))


def readout(name, text):
    """imgui.text_disabled of ``text``, noted in ``drawn()`` as a "text" item labelled ``name``
    whose value is the text (a readout that changes, found by its name)."""
    return _noting(name, "text", lambda: (imgui.text_disabled(text), text))


def tab_item(label, flags=0):
    """imgui.begin_tab_item with no close button: whether the tab is the selected one (then end it
    with imgui.end_tab_item), noted in ``drawn()``."""
    return _noting(label, "tab_item", lambda: imgui.begin_tab_item_simple(label, flags))


def _combo_list(label, current, items):
    """What imgui.combo draws, its rows drawn here so that each is noted."""
    changed = False
    if not imgui.begin_combo(label, items[current] if 0 <= current < len(items) else ""):
        return changed, current
    for index, text in enumerate(items):
        imgui.push_id(index)  # rows may share a text
        chosen = index == current
        if selectable(text, chosen)[0] and not chosen:
            current, changed = index, True
        if chosen:
            imgui.set_item_default_focus()  # the list opens scrolled to the current row
        imgui.pop_id()
    imgui.end_combo()  # ImGui's last item is the combo again
    return changed, current


def combo(label, current, items):
    """imgui.combo: ``(changed, index)``; its list's rows are noted as selectables."""
    return _noting(label, "combo", lambda: _combo_list(label, current, list(items)))


TEXT_KINDS = ("slider_int", "slider_float", "drag_float", "drag_int", "input_float", "input_text")
"""Widgets that take a typed value: Ctrl+click turns a slider or drag field into a text field."""


class LocateError(LookupError):
    """No single drawn widget has the label asked for, or it cannot take what was asked of it;
    ``str()`` is a one-line message."""


def find(label, index=None, kinds=None):
    """The drawn item labelled ``label``: its whole ImGui label ("Iterations##ik") or, when no
    label is that, its visible part ("Iterations"); only widgets of ``kinds`` when given.
    ``index`` (from 0, in drawing order) picks one of several; LocateError if there is none, or
    several and no index."""
    items = [item for item in drawn() if kinds is None or item.kind in kinds]
    matches = [item for item in items if item.label == label] or [item for item in items if item.name == label]
    if not matches:
        raise LocateError(f"no widget labelled '{label}' is drawn (none is under a closed header)")
    if index is None and len(matches) > 1:
        raise LocateError(f"{len(matches)} widgets are labelled '{label}': give \"index\" "
                          f"(0 to {len(matches) - 1}, in drawing order)")
    if index is not None and index >= len(matches):
        raise LocateError(f"index {index} is past the {len(matches)} widgets labelled '{label}'")
    item = matches[index or 0]
    if not item.visible:
        raise LocateError(f"the widget labelled '{label}' is outside its window (scroll it into view)")
    return item


def id_conflicts():
    """Labels of items the last frame drew with an ID an earlier item had (ImGui would mix up
    their clicks and state)."""
    seen, conflicts = set(), []
    for item in drawn():
        if item.id == 0:  # plain text takes no input and has no ID to mix up
            continue
        if item.id in seen:
            conflicts.append(item.label)
        seen.add(item.id)
    return conflicts
