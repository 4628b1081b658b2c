"""The viewport's pyglet event handlers: navigation, picking, drags, Auto IK length, R rotate.

Pushed onto the window above ImGui's backend; mouse handlers never consume events (ImGui must
see them too), keys the viewport uses are consumed. Nothing reaches the rig while ImGui wants
the mouse or keyboard (a press on a panel never starts a viewport drag). Escape stays with the
window, which cancels any tool through ``ui.viewport.cancel_drag``.
"""
import numpy as np
from imgui_bundle import imgui
from pyglet.window import key, mouse

from ui import navigation, viewport
from ui.selection import click_select, pick_bone, update_hover


class ViewportInput:
    """Event handlers for ``app`` (a PosekitWindow: ``app.window``, ``app.state``). Holds only
    input bookkeeping: the pointer in top-left pixels, the held navigation mode, Ctrl's state."""

    def __init__(self, app):
        self.app = app
        self.pointer = np.zeros(2)
        self.navigating = None  # "orbit" or "pan" while a middle (or Alt+left) drag moves the view
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
        if drag is not None and drag.kind == "rotate":
            viewport.update_drag(self.state, x, y, *self._size())
        elif self._mouse_taken():
            self.state.view.hovered = None
        else:
            update_hover(self.state, x, y, *self._size())

    def on_mouse_press(self, x, y, button, modifiers):
        x, y = self._top_left(x, y)
        state = self.state
        if state.drag is not None:
            if button == mouse.RIGHT:
                viewport.cancel_drag(state)
            elif button == mouse.LEFT and state.drag.kind == "rotate":
                viewport.end_drag(state)
            return
        if self._mouse_taken():
            return
        if button == mouse.MIDDLE or (button == mouse.LEFT and modifiers & key.MOD_ALT):
            self.navigating = "pan" if modifiers & key.MOD_SHIFT else "orbit"
        elif button == mouse.LEFT:
            name = pick_bone(state, x, y, *self._size())
            extend = bool(modifiers & key.MOD_SHIFT)
            click_select(state, name, extend)
            if name is not None and not extend:
                viewport.begin_drag(state, name, x, y, *self._size())

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers):
        x, y = self._top_left(x, y)
        state = self.state
        if self.navigating == "orbit":
            state.camera.orbit(dx, -dy)
        elif self.navigating == "pan":
            state.camera.pan(dx, -dy, self.app.window.height)
        elif state.drag is not None and state.drag.kind != "gizmo" and (buttons & mouse.LEFT or state.drag.kind == "rotate"):
            viewport.update_drag(state, x, y, *self._size())

    def on_mouse_release(self, x, y, button, modifiers):
        if self.navigating is not None and button in (mouse.MIDDLE, mouse.LEFT):
            self.navigating = None
        elif button == mouse.LEFT and self.state.drag is not None and self.state.drag.kind != "rotate":
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
        """Run the viewport command bound to ``symbol``; returns whether there was one."""
        state, (width, height) = self.state, self._size()
        ctrl = modifiers & key.MOD_CTRL or self._ctrl()
        view = navigation.view_for_key(symbol, ctrl)
        if view is not None:
            state.camera.set_view(view)
        elif symbol == key.NUM_5:
            state.camera.toggle_projection()
        elif symbol in (key.PAGEUP, key.PAGEDOWN) and ctrl:
            viewport.change_auto_ik_length(state, 1 if symbol == key.PAGEUP else -1)
        elif symbol == key.F and state.drag is None:
            navigation.frame_bones(state, width, height, state.view.selected)
        elif symbol == key.HOME and state.drag is None:
            navigation.frame_bones(state, width, height)
        elif symbol == key.R and not ctrl and not modifiers & key.MOD_ALT:  # Alt+R clears rotations
            viewport.begin_rotate(state, *self.pointer, width, height)
        elif symbol in (key.ENTER, key.NUM_ENTER) and state.drag is not None and state.drag.kind == "rotate":
            viewport.end_drag(state)
        else:
            return False
        return True
