"""The viewport's pyglet event handlers: navigation, picking, drags, Auto IK length, G grab and
R rotate with their axis locks and typed values, P pin.

Pushed onto the window above ImGui's backend; mouse handlers never consume events (ImGui must
see them too), keys the viewport uses are consumed. Nothing reaches the rig while ImGui wants
the mouse or keyboard (a press on a panel never starts a viewport drag). Escape stays with the
window, which cancels any tool through ``ui.viewport.cancel_drag``.

Keys run what the one table ``VIEWPORT_KEYS`` binds them to, and Help > Keymap (``ui.keymap``)
lists that table; ``POINTER_BINDINGS`` says what the mouse handlers below do, for the same window.
"""
from dataclasses import dataclass

import numpy as np
from imgui_bundle import imgui
from pyglet.window import key, mouse

from ui import gizmo, ik_fk, navigation, pins, selection, timeline, viewport

CTRL, SHIFT, ALT = key.MOD_CTRL, key.MOD_SHIFT, key.MOD_ALT
MODIFIER_MASK = CTRL | SHIFT | ALT  # Num Lock and Caps Lock change no binding (nor the numpad's symbols)


@dataclass(frozen=True)
class KeyBinding:
    """``shortcuts`` ((pyglet key symbol, modifier bits), ...) run ``ViewportInput.<method>(*args)``
    ``when`` the viewport is "idle" (no drag: Blender's modal tools take no other command), is
    "dragging", runs a "transform" started by a key (G, R), or "always"; otherwise the key is
    left to others (Enter to a file question). ``section`` and ``label`` are what Help > Keymap
    shows, with ``keys`` in place of the shortcuts where listing each would be too long. With
    ``takes_key`` the method also gets the key symbol pressed (one binding for many keys)."""
    section: str
    label: str
    shortcuts: tuple
    method: str
    args: tuple = ()
    when: str = "idle"
    keys: str = ""
    takes_key: bool = False


TYPED_CHARACTERS = {**{getattr(key, f"_{d}"): str(d) for d in range(10)}, key.PERIOD: ".", key.MINUS: "-",
                    key.NUM_SUBTRACT: "-", key.BACKSPACE: "\b"}
"""Keys typing a value into a running G or R (the number row: numpad digits keep their views)."""
TYPED_KEYS = tuple((symbol, 0) for symbol in TYPED_CHARACTERS)
LOCK_AXES = {key.X: 0, key.Y: 1, key.Z: 2}

NUMPAD_WITHOUT_NUM_LOCK = {key.NUM_INSERT: key.NUM_0, key.NUM_END: key.NUM_1, key.NUM_DOWN: key.NUM_2,
                           key.NUM_NEXT: key.NUM_3, key.NUM_LEFT: key.NUM_4, key.NUM_BEGIN: key.NUM_5,
                           key.NUM_RIGHT: key.NUM_6, key.NUM_HOME: key.NUM_7, key.NUM_UP: key.NUM_8,
                           key.NUM_PRIOR: key.NUM_9, key.NUM_DELETE: key.NUM_DECIMAL}
"""The numpad keys as pyglet names them with Num Lock off (Numpad 1 is NUM_END), to the digits
they bind as: Blender's numpad views work whatever Num Lock says."""

VIEWPORT_KEYS = (
    KeyBinding("Navigation", "Front view", ((key.NUM_1, 0),), "set_view", ("front",), "always"),
    KeyBinding("Navigation", "Back view", ((key.NUM_1, CTRL),), "set_view", ("back",), "always"),
    KeyBinding("Navigation", "Right view", ((key.NUM_3, 0),), "set_view", ("side",), "always"),
    KeyBinding("Navigation", "Left view", ((key.NUM_3, CTRL),), "set_view", ("left",), "always"),
    KeyBinding("Navigation", "Top view", ((key.NUM_7, 0),), "set_view", ("top",), "always"),
    KeyBinding("Navigation", "Bottom view", ((key.NUM_7, CTRL),), "set_view", ("bottom",), "always"),
    KeyBinding("Navigation", "Perspective / orthographic", ((key.NUM_5, 0),), "toggle_projection", when="always"),
    KeyBinding("Navigation", "Frame the selection", ((key.F, 0), (key.NUM_DECIMAL, 0)), "frame_selected"),
    KeyBinding("Navigation", "Frame every bone", ((key.HOME, 0),), "frame_all"),
    KeyBinding("Selection", "Select all", ((key.A, 0),), "select_all"),
    KeyBinding("Selection", "Deselect all", ((key.A, ALT),), "deselect_all"),
    KeyBinding("Selection", "Hide the selected bones", ((key.H, 0),), "hide"),
    KeyBinding("Selection", "Hide the unselected bones", ((key.H, SHIFT),), "hide", (True,)),
    KeyBinding("Selection", "Reveal the hidden bones", ((key.H, ALT),), "reveal"),
    KeyBinding("Pose tools", "Grab (move) the active bone", ((key.G, 0),), "grab"),
    KeyBinding("Pose tools", "Rotate the active bone", ((key.R, 0),), "rotate"),
    # Blender has no pins: P is free in its pose mode, and Alt clears as Alt+G / Alt+R / Alt+H do
    # (Blender's Alt+P, Propagate, is not in Posekit).
    KeyBinding("Pose tools", "Pin the selected bones (position and rotation)", ((key.P, 0),), "pin"),
    KeyBinding("Pose tools", "Pin the selected bones' positions only", ((key.P, SHIFT),), "pin", (False,)),
    KeyBinding("Pose tools", "Unpin the selected bones (none selected: every pin)", ((key.P, ALT),), "unpin"),
    KeyBinding("Pose tools", "Confirm the grab or rotation", ((key.ENTER, 0), (key.NUM_ENTER, 0)), "confirm",
               when="transform"),
    KeyBinding("Pose tools", "Grab / rotate: lock to an axis (again: local, again: none)",
               tuple((symbol, 0) for symbol in LOCK_AXES), "lock_axis", when="transform", takes_key=True),
    KeyBinding("Pose tools", "Grab: lock to the plane across an axis (again: local, again: none)",
               tuple((symbol, SHIFT) for symbol in LOCK_AXES), "lock_plane", when="transform", takes_key=True),
    KeyBinding("Pose tools", "Grab / rotate: type metres or degrees (- flips)",
               TYPED_KEYS, "type_value", when="transform", keys="0-9 / . / - / Backspace", takes_key=True),
    # Blender steps back with Ctrl+Tab; Shift+Tab, as in every other text entry, does the same.
    KeyBinding("Pose tools", "Grab: type the next axis' value", ((key.TAB, 0),), "next_component", (1,),
               when="transform"),
    KeyBinding("Pose tools", "Grab: type the previous axis' value", ((key.TAB, SHIFT), (key.TAB, CTRL)),
               "next_component", (-1,), when="transform"),
    # Blender binds Shift+I (add IK) and Ctrl+Alt+I (clear IK) in pose mode but not Ctrl+Shift+I.
    KeyBinding("Pose tools", "Switch the selected limb between IK and FK, snapped in place", ((key.I, CTRL | SHIFT),),
               "switch_ik_fk"),
    # Blender's own keys for the Auto IK chain length are Ctrl+PageUp/PageDown; PageUp/PageDown
    # alone do the same, as nothing else uses them in pose mode.
    KeyBinding("Pose tools", "Auto IK drag: longer chain", ((key.PAGEUP, 0), (key.PAGEUP, CTRL)), "step_auto_ik",
               (1,), "dragging"),
    KeyBinding("Pose tools", "Auto IK drag: shorter chain", ((key.PAGEDOWN, 0), (key.PAGEDOWN, CTRL)),
               "step_auto_ik", (-1,), "dragging"),
    # Blender's timeline keys (ui.timeline); none of them clashes with a pose-mode key above.
    KeyBinding("Timeline", "Play / pause", ((key.SPACE, 0),), "on_timeline", ("toggle_play",)),
    KeyBinding("Timeline", "Step back / on a frame", ((key.LEFT, 0), (key.RIGHT, 0)), "on_timeline", ("step",),
               keys="Left / Right", takes_key=True),
    KeyBinding("Timeline", "Jump to the start / end", ((key.LEFT, SHIFT), (key.RIGHT, SHIFT)), "on_timeline",
               ("jump_to_end",), keys="Shift+Left / Shift+Right", takes_key=True),
    KeyBinding("Timeline", "Jump to the previous / next key", ((key.DOWN, 0), (key.UP, 0)), "on_timeline",
               ("jump_to_key",), keys="Down / Up", takes_key=True),
    KeyBinding("Timeline", "Insert a key on the selected bones (all when none is)", ((key.I, 0),), "on_timeline",
               ("insert_key",)),
    KeyBinding("Timeline", "Delete the keys at the current frame", ((key.I, ALT),), "on_timeline", ("delete_key",)),
)
TIMELINE_DIRECTIONS = {key.LEFT: -1, key.RIGHT: 1, key.DOWN: -1, key.UP: 1}
VIEWPORT_SHORTCUTS = {shortcut: binding for binding in VIEWPORT_KEYS for shortcut in binding.shortcuts}

POINTER_BINDINGS = (
    ("Navigation", "Middle drag / Alt+left drag", "Orbit"),
    ("Navigation", "Shift+middle drag", "Pan"),
    ("Navigation", "Wheel / Ctrl+middle drag (up: in)", "Zoom"),
    ("Selection", "Left click", "Select a bone (on nothing: deselect all)"),
    ("Selection", "Shift+left click", "Add to the selection, make active, remove"),
    ("Pose tools", "Left drag", "Move a handle, pole or bone (Auto IK: its chain)"),
    ("Pose tools", "Ctrl+wheel down / up", "Auto IK drag: longer / shorter chain"),
    ("Pose tools", "Left click", "Confirm the grab or rotation"),
    ("Pose tools", "Escape / right click", "Cancel the drag, grab or rotation"),  # Escape: ui.window
)
"""(section, keys, what they do) for what the pointer handlers below (and the window's Escape)
do, as Help > Keymap shows it; keep it in step with them."""


class ViewportInput:
    """Event handlers for ``app`` (a PosekitWindow: ``app.window``, ``app.state``). Holds only
    input bookkeeping: the pointer in top-left pixels, the held navigation mode, Ctrl's state."""

    def __init__(self, app):
        self.app = app
        self.pointer = np.zeros(2)
        self.navigating = None  # "orbit", "pan" or "zoom" while a middle (or Alt+left) drag moves the view
        self.keys = key.KeyStateHandler()

    @property
    def state(self):
        return self.app.state

    def _size(self):
        return self.app.window.width, self.app.window.height

    def _top_left(self, x, y):
        self.pointer = np.array([x, self.app.window.height - y], dtype=float)
        return self.pointer

    def _mouse_taken(self):
        """Whether the pointer belongs to a panel or to the gizmo, not to the viewport tools."""
        return imgui.get_io().want_capture_mouse or self.state.gizmo.over

    def _ctrl(self):
        return self.keys[key.LCTRL] or self.keys[key.RCTRL]

    def on_mouse_motion(self, x, y, dx, dy):
        x, y = self._top_left(x, y)
        drag = self.state.drag
        if drag is not None and drag.modal:
            viewport.update_drag(self.state, x, y, *self._size())
        elif self._mouse_taken():
            self.state.view.hovered = None
        else:
            selection.update_hover(self.state, x, y, *self._size())

    def on_mouse_press(self, x, y, button, modifiers):
        x, y = self._top_left(x, y)
        state = self.state
        if state.drag is not None:
            if button == mouse.RIGHT:
                viewport.cancel_drag(state)
            elif button == mouse.LEFT and state.drag.modal:
                viewport.end_drag(state)
            return
        if self._mouse_taken():
            return
        if button == mouse.MIDDLE or (button == mouse.LEFT and modifiers & key.MOD_ALT):
            self.navigating = navigation.drag_mode(modifiers)
        elif button == mouse.LEFT:
            if gizmo.take_near_press(state, x, y):
                return
            name = selection.pick_bone(state, x, y, *self._size())
            extend = bool(modifiers & key.MOD_SHIFT)
            selection.click_select(state, name, extend)
            if name is not None and not extend:
                viewport.begin_drag(state, name, x, y, *self._size())

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers):
        x, y = self._top_left(x, y)
        state = self.state
        if self.navigating == "orbit":
            state.camera.orbit(dx, -dy)
        elif self.navigating == "pan":
            state.camera.pan(dx, -dy, self.app.window.height)
        elif self.navigating == "zoom":
            state.camera.zoom(dy / navigation.ZOOM_DRAG_PIXELS)
        elif state.drag is not None and state.drag.kind != "gizmo" and (buttons & mouse.LEFT or state.drag.modal):
            viewport.update_drag(state, x, y, *self._size())

    def on_mouse_release(self, x, y, button, modifiers):
        if self.navigating is not None and button in (mouse.MIDDLE, mouse.LEFT):
            self.navigating = None
        elif button == mouse.LEFT and self.state.drag is not None and not self.state.drag.modal:
            viewport.end_drag(self.state)

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y):
        if scroll_y == 0:
            return
        if self._ctrl() and self.state.drag is not None:
            # Blender: Ctrl+wheel down lengthens the Auto IK chain, Ctrl+wheel up shortens it.
            viewport.change_auto_ik_length(self.state, 1 if scroll_y < 0 else -1)
        elif not imgui.get_io().want_capture_mouse:
            self.state.camera.zoom(scroll_y)

    def on_key_press(self, symbol, modifiers):
        self.keys.on_key_press(symbol, modifiers)
        if imgui.get_io().want_capture_keyboard:
            return None
        return True if self._key(symbol, modifiers) else None

    def on_key_release(self, symbol, modifiers):
        self.keys.on_key_release(symbol, modifiers)

    def _key(self, symbol, modifiers):
        """Run the viewport command bound to ``symbol`` with ``modifiers``; returns whether there
        was one (keys bound here never reach the editor's shortcuts, Alt+R is not bound here)."""
        mods = modifiers & MODIFIER_MASK | (CTRL if self._ctrl() else 0)
        symbol = NUMPAD_WITHOUT_NUM_LOCK.get(symbol, symbol)
        binding = VIEWPORT_SHORTCUTS.get((symbol, mods))
        if binding is None:
            return False
        if binding.when not in self._running():
            return False
        getattr(self, binding.method)(*binding.args, *((symbol,) if binding.takes_key else ()))
        return True

    def _running(self):
        """The ``KeyBinding.when`` values that hold now."""
        drag = self.state.drag
        if drag is None:
            return ("always", "idle")
        return ("always", "dragging", "transform") if drag.modal else ("always", "dragging")

    # Key commands (VIEWPORT_KEYS) ----------------------------------------------------------------
    def set_view(self, name):
        self.state.camera.set_view(name)

    def toggle_projection(self):
        self.state.camera.toggle_projection()

    def frame_selected(self):
        navigation.frame_bones(self.state, *self._size(), self.state.view.selected)

    def frame_all(self):
        navigation.frame_bones(self.state, *self._size())

    def select_all(self):
        selection.select_all(self.state)

    def deselect_all(self):
        selection.deselect_all(self.state)

    def hide(self, unselected=False):
        selection.hide(self.state, unselected)

    def reveal(self):
        selection.reveal(self.state)

    def rotate(self):
        viewport.begin_rotate(self.state, *self.pointer, *self._size())

    def grab(self):
        viewport.begin_grab(self.state, *self.pointer, *self._size())

    def pin(self, rotation=True):
        pins.pin_selected(self.state, rotation)

    def unpin(self):
        pins.unpin_selected(self.state)

    def confirm(self):
        viewport.end_drag(self.state)

    def lock_axis(self, symbol):
        viewport.lock_axis(self.state, LOCK_AXES[symbol], *self.pointer, *self._size())

    def lock_plane(self, symbol):
        viewport.lock_axis(self.state, LOCK_AXES[symbol], *self.pointer, *self._size(), plane=True)

    def type_value(self, symbol):
        viewport.type_value(self.state, TYPED_CHARACTERS[symbol], *self.pointer, *self._size())

    def next_component(self, step):
        viewport.next_component(self.state, step, *self.pointer, *self._size())

    def switch_ik_fk(self):
        ik_fk.toggle_selected(self.state)

    def step_auto_ik(self, step):
        viewport.change_auto_ik_length(self.state, step)

    def on_timeline(self, command, symbol=None):
        """A timeline command; arrow keys give it their direction (jump_to_end: the end for Right)."""
        if symbol is None:
            getattr(timeline, command)(self.state)
        elif command == "jump_to_end":
            timeline.jump_to_end(self.state, TIMELINE_DIRECTIONS[symbol] > 0)
        else:
            getattr(timeline, command)(self.state, TIMELINE_DIRECTIONS[symbol])
