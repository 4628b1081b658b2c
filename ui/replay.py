"""Deterministic input: events sent to the window as the OS would send them, one frame after each.

Positions are window pixels with the origin at the top left (as xdotool and screenshots count
them); pyglet's bottom-left convention is applied here. ``load_events`` reads an events file:

    {"events": [{"type": "move" | "press" | "drag" | "release", "x": px, "y": px,
                 "button": "left" | "middle" | "right", "mods": ["ctrl", "shift", "alt"]},
                {"type": "scroll", "x": px, "y": px, "dy": clicks, "mods": [...]},
                {"type": "key", "key": "Z", "mods": [...]},
                {"type": "click_item" | "hover_item", "label": "Auto IK", "index": 0, "mods": [...]},
                {"type": "set_value", "label": "Iterations", "value": 50, "index": 0},
                {"type": "frame", "count": n}]}

``key`` is any of pyglet's key names (``pyglet.window.key``: "Z", "NUM_5", "PAGEUP"; digits as "1");
``mods`` are held down around every kind of event, as a user holds Ctrl for Ctrl+wheel.

A pointer event ("move", "press", "drag", "release", "scroll") may name a widget instead of
pixels: ``{"type": "press", "label": "timeline_strip", "at": [0.3, 0.1]}`` happens at that
fraction of the widget's rectangle across and down (``at`` from 0 to 1, default its middle), so a
replay scrubs the timeline or drags its markers wherever the layout put the strip.

The item events act on the widget the last frame drew with that label (``ui.widgets.find``: the
whole ImGui label, "Iterations##ik", or its visible part; ``index``, from 0 in drawing order, picks
one of several), wherever the layout put it: click_item clicks its middle, hover_item moves there,
set_value types the value into a slider or field as a user does (Ctrl+click, Ctrl+A, the text,
Enter), so the widget's own clamping applies, clicks a checkbox that shows the other state, or
opens a combo and clicks the row with the value's text.
Widgets under a closed header are not drawn: click the header first.
"""
import math

from pyglet.window import key, mouse

from rig.formats.jsonfields import Reader, load_json
from ui.widgets import TEXT_KINDS, LocateError, find

ITEM_EVENTS = ("click_item", "hover_item", "set_value")
EVENT_TYPES = ("move", "press", "drag", "release", "scroll", "key", "frame") + ITEM_EVENTS
BUTTONS = {"left": mouse.LEFT, "middle": mouse.MIDDLE, "right": mouse.RIGHT}
MODIFIERS = {"ctrl": key.MOD_CTRL, "shift": key.MOD_SHIFT, "alt": key.MOD_ALT}
MODIFIER_KEYS = {key.MOD_CTRL: key.LCTRL, key.MOD_SHIFT: key.LSHIFT, key.MOD_ALT: key.LALT}
MAX_FRAMES = 10000
MAX_INDEX = 10000
SETTLE_FRAMES = 2  # an auto-sized panel takes the size of what a click opened a frame later


def key_symbol(name):
    """pyglet's key symbol for one of its key names ("Z", "ESCAPE", "F1", "NUM_5", "NUM_DECIMAL",
    "PAGEUP"; digits as "1"), any case, or None."""
    attribute = f"_{name}" if name.isdigit() else name.upper()
    symbol = getattr(key, attribute, None) if attribute.replace("_", "").isalnum() else None
    return symbol if isinstance(symbol, int) and not attribute.startswith("MOD_") else None


def _button(button):
    """A button by name ("left") or as pyglet's constant (mouse.LEFT)."""
    return BUTTONS.get(button, button)


def _modifier_bits(mods):
    """Modifier names (["ctrl", "shift"]) or pyglet's modifier bits as they are."""
    if isinstance(mods, int):
        return mods
    bits = 0
    for name in mods:
        bits |= MODIFIERS[name]
    return bits


class InputSender:
    """Sends input events to a PosekitWindow ``app`` and runs one frame after each event."""

    def __init__(self, app):
        self.app = app
        self.position = (0.0, 0.0)
        self.buttons = 0

    def _pyglet_y(self, y):
        return self.app.window.height - y

    def _send(self, event, *args, mods=()):
        """Queue the event as the OS would, with the modifier keys ``mods`` held down around it (as a
        user holds Ctrl for Ctrl+wheel: pyglet's scroll and motion events carry no modifiers, so the
        app reads held keys), let the window dispatch it, then run a frame."""
        self._send_all([(event, args)], mods)

    def _send_all(self, events, mods=()):
        """``_send`` for several events (name, args) in a row, the modifiers held around them all."""
        bits = _modifier_bits(mods)
        held = [symbol for bit, symbol in MODIFIER_KEYS.items() if bits & bit]
        for symbol in held:
            self.app.window.dispatch_event("on_key_press", symbol, bits)
        for event, args in events:
            self.app.window.dispatch_event(event, *args)
        for symbol in held:
            self.app.window.dispatch_event("on_key_release", symbol, bits)
        self.app.window.dispatch_events()
        self.app.frame()

    def _moved(self, x, y):
        dx, dy = x - self.position[0], self.position[1] - y
        self.position = (x, y)
        return dx, dy

    def move(self, x, y, mods=()):
        self._send("on_mouse_motion", x, self._pyglet_y(y), *self._moved(x, y), mods=mods)

    def press(self, x, y, button="left", mods=()):
        self._moved(x, y)
        self.buttons |= _button(button)
        self._send("on_mouse_press", x, self._pyglet_y(y), _button(button), _modifier_bits(mods), mods=mods)

    def drag(self, x, y, button="left", mods=()):
        buttons = self.buttons or _button(button)
        self._send("on_mouse_drag", x, self._pyglet_y(y), *self._moved(x, y), buttons, _modifier_bits(mods), mods=mods)

    def release(self, x, y, button="left", mods=()):
        self._moved(x, y)
        self.buttons &= ~_button(button)
        self._send("on_mouse_release", x, self._pyglet_y(y), _button(button), _modifier_bits(mods), mods=mods)

    def scroll(self, x, y, dy, mods=()):
        self._moved(x, y)
        self._send("on_mouse_scroll", x, self._pyglet_y(y), 0.0, dy, mods=mods)

    def key(self, name, mods=()):
        """Press and release a key (by name, "Z", or pyglet symbol) with modifiers held, then run
        a frame."""
        symbol, bits = key_symbol(name) if isinstance(name, str) else name, _modifier_bits(mods)
        # The modifiers go down before the key and up after it, so ImGui sees Ctrl+A, not A then Ctrl.
        self._send_all([("on_key_press", (symbol, bits)), ("on_key_release", (symbol, bits))], mods)

    def text(self, text):
        """Type ``text`` as the keyboard's characters arrive (into the focused text field)."""
        self._send("on_text", text)

    def frames(self, count=1):
        for _ in range(count):
            self.app.frame()

    def _find(self, label, index, kinds=None):
        """``ui.widgets.find``, given up to SETTLE_FRAMES more frames to put the widget on screen
        (a section opened by the last click shows whole once its panel has grown)."""
        for _ in range(SETTLE_FRAMES):
            try:
                return find(label, index, kinds)
            except LocateError:
                self.frames(1)
        return find(label, index, kinds)

    def click_item(self, label, index=None, mods=(), kinds=None):
        """Click the middle of the widget labelled ``label`` (``ui.widgets.find``)."""
        x, y = self._find(label, index, kinds).centre
        self.move(x, y)
        self.press(x, y, "left", mods)
        self.release(x, y, "left", mods)
        self.frames(1)  # ImGui takes the release a frame later; until then the widget holds the keyboard

    def hover_item(self, label, index=None, mods=()):
        self.move(*self._find(label, index).centre, mods)

    def set_value(self, label, value, index=None):
        """Give the widget labelled ``label`` the value ``value`` through the widget itself: a
        checkbox is clicked if it shows the other state; a slider or field is Ctrl+clicked (a
        slider then takes text), its text selected and replaced, and Enter pressed; a combo is
        opened and the row ``value`` clicked."""
        item = self._find(label, index)
        if item.kind == "checkbox" and isinstance(value, bool):
            if value != item.value:
                self.click_item(label, index)
        elif item.kind in TEXT_KINDS and not isinstance(value, bool):
            x, y = item.centre
            self.move(x, y)
            self.press(x, y, "left", ["ctrl"])
            self.release(x, y, "left")
            self.key("A", ["ctrl"])
            self.text(str(value))
            self.key("RETURN")
            self.frames(2)  # ImGui takes Enter's release a frame later; then the field lets go of the keyboard
        elif item.kind == "combo" and isinstance(value, str):
            self.click_item(label, index)
            self.click_item(value, kinds=("selectable",))
        else:
            raise LocateError(f"'{label}' is a {item.kind.replace('_', ' ')}: set_value takes true or false for a "
                              "checkbox, a number or text for a slider or field, a row's text for a combo")

    def play(self, events):
        """Send events as ``load_events`` returns them; LocateError, naming the event, for an item
        event whose widget is not drawn."""
        for number, event in enumerate(events):
            try:
                self._play(event)
            except LocateError as error:
                raise LocateError(f"events[{number}]: {error}") from None

    def _place(self, event):
        """(x, y) window pixels of a pointer event: its own, or its point of a widget's rectangle."""
        if "label" not in event:
            return event["x"], event["y"]
        left, top, right, bottom = self._find(event["label"], event["index"]).rect
        across, down = event["at"]
        return left + across * (right - left), top + down * (bottom - top)

    def _play(self, event):
        kind = event["type"]
        if kind == "frame":
            self.frames(event["count"])
        elif kind == "key":
            self.key(event["key"], event["mods"])
        elif kind == "set_value":
            self.set_value(event["label"], event["value"], event["index"])
        elif kind in ITEM_EVENTS:
            getattr(self, kind)(event["label"], event["index"], event["mods"])
        elif kind == "scroll":
            self.scroll(*self._place(event), event["dy"], event["mods"])
        elif kind == "move":
            self.move(*self._place(event), event["mods"])
        else:
            getattr(self, kind)(*self._place(event), event["button"], event["mods"])


def _read_label(reader, event):
    event["label"] = reader.string("label")
    event["index"] = None if reader.get("index", None) is None else reader.integer("index", low=0, high=MAX_INDEX)


def _read_place(reader, event):
    """Where a pointer event happens: window pixels "x" and "y", or fractions "at" of the rectangle
    of the widget "label" (and "index")."""
    if reader.get("label", None) is None:
        event["x"], event["y"] = reader.number("x"), reader.number("y")
        return
    _read_label(reader, event)
    event["at"] = reader.vector("at", 2, (0.5, 0.5), bound=1.0)
    if min(event["at"]) < 0.0:
        reader.fail("at", "fractions [across, down] of the widget from 0 to 1", list(event["at"]))


def _read_item(reader, event):
    """The fields of an item event: the widget's label and index, set_value's value."""
    _read_label(reader, event)
    if event["type"] == "set_value":
        value = reader.required("value")
        if not isinstance(value, (bool, str)) and not (isinstance(value, (int, float)) and math.isfinite(value)):
            reader.fail("value", "true, false, a finite number or a string", value)
        event["value"] = reader.string("value") if isinstance(value, str) else value
    return event


def _read_event(reader):
    kind = reader.string("type", choices=EVENT_TYPES)
    event = {"type": kind}
    if kind == "frame":
        event["count"] = reader.integer("count", 1, low=1, high=MAX_FRAMES)
        return event
    if kind == "set_value":  # no held modifiers: it types
        return _read_item(reader, event)
    mods = reader.get("mods", [])
    if not isinstance(mods, list) or any(not isinstance(m, str) or m not in MODIFIERS for m in mods):
        reader.fail("mods", f"a list of modifiers from {', '.join(MODIFIERS)}", mods)
    event["mods"] = list(mods)
    if kind == "key":
        event["key"] = reader.string("key")
        if key_symbol(event["key"]) is None:
            reader.fail("key", "one of pyglet's key names, such as Z, ESCAPE, F1, 1, NUM_5 or PAGEUP", event["key"])
        return event
    if kind in ITEM_EVENTS:
        return _read_item(reader, event)
    _read_place(reader, event)
    if kind == "scroll":
        event["dy"] = reader.number("dy")
    else:
        event["button"] = reader.string("button", "left", choices=tuple(BUTTONS))
    return event


def events_from_dict(data, path="<events>"):
    root = Reader(path, data)
    events = [_read_event(r) for r in root.items("events")]
    root.check_fields()  # a key an event's type does not take ("button" on a move) is refused too
    return events


def load_events(path):
    """Read and validate an events file; raises FileFormatError naming the event and field."""
    return events_from_dict(load_json(path), str(path))
