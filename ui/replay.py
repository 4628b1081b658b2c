"""Deterministic input: events sent to the window as the OS would send them, one frame after each.

Positions are window pixels with the origin at the top left (as xdotool and screenshots count
them); pyglet's bottom-left convention is applied here. ``load_events`` reads an events file:

    {"events": [{"type": "move" | "press" | "drag" | "release", "x": px, "y": px,
                 "button": "left" | "middle" | "right", "mods": ["ctrl", "shift", "alt"]},
                {"type": "scroll", "x": px, "y": px, "dy": clicks, "mods": [...]},
                {"type": "key", "key": "Z", "mods": [...]},
                {"type": "frame", "count": n}]}

``key`` is any of pyglet's key names (``pyglet.window.key``: "Z", "NUM_5", "PAGEUP"; digits as "1");
``mods`` are held down around every kind of event, as a user holds Ctrl for Ctrl+wheel.
"""
from pyglet.window import key, mouse

from rig.formats.jsonfields import Reader, load_json

EVENT_TYPES = ("move", "press", "drag", "release", "scroll", "key", "frame")
BUTTONS = {"left": mouse.LEFT, "middle": mouse.MIDDLE, "right": mouse.RIGHT}
MODIFIERS = {"ctrl": key.MOD_CTRL, "shift": key.MOD_SHIFT, "alt": key.MOD_ALT}
MODIFIER_KEYS = {key.MOD_CTRL: key.LCTRL, key.MOD_SHIFT: key.LSHIFT, key.MOD_ALT: key.LALT}
MAX_FRAMES = 10000


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
        bits = _modifier_bits(mods)
        held = [symbol for bit, symbol in MODIFIER_KEYS.items() if bits & bit]
        for symbol in held:
            self.app.window.dispatch_event("on_key_press", symbol, bits)
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
        self.app.window.dispatch_event("on_key_press", symbol, bits)
        self._send("on_key_release", symbol, bits)

    def frames(self, count=1):
        for _ in range(count):
            self.app.frame()

    def play(self, events):
        """Send events as ``load_events`` returns them."""
        for event in events:
            kind = event["type"]
            if kind == "frame":
                self.frames(event["count"])
            elif kind == "key":
                self.key(event["key"], event["mods"])
            elif kind == "scroll":
                self.scroll(event["x"], event["y"], event["dy"], event["mods"])
            elif kind == "move":
                self.move(event["x"], event["y"], event["mods"])
            else:
                getattr(self, kind)(event["x"], event["y"], event["button"], event["mods"])


def _read_event(reader):
    kind = reader.string("type", choices=EVENT_TYPES)
    event = {"type": kind}
    if kind == "frame":
        event["count"] = reader.integer("count", 1, low=1, high=MAX_FRAMES)
        return event
    mods = reader.get("mods", [])
    if not isinstance(mods, list) or any(not isinstance(m, str) or m not in MODIFIERS for m in mods):
        reader.fail("mods", f"a list of modifiers from {', '.join(MODIFIERS)}", mods)
    event["mods"] = list(mods)
    if kind == "key":
        event["key"] = reader.string("key")
        if key_symbol(event["key"]) is None:
            reader.fail("key", "one of pyglet's key names, such as Z, ESCAPE, F1, 1, NUM_5 or PAGEUP", event["key"])
        return event
    event["x"], event["y"] = reader.number("x"), reader.number("y")
    if kind == "scroll":
        event["dy"] = reader.number("dy")
    else:
        event["button"] = reader.string("button", "left", choices=tuple(BUTTONS))
    return event


def events_from_dict(data, path="<events>"):
    return [_read_event(r) for r in Reader(path, data).items("events")]


def load_events(path):
    """Read and validate an events file; raises FileFormatError naming the event and field."""
    return events_from_dict(load_json(path), str(path))
