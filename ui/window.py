"""The app's window: one frame = panels, solve, viewport draw, ImGui on top.

Wraps a pyglet window (a real one, or a hidden headless one for screenshots and tests). The
scene is drawn 4x multisampled offscreen, resolved into a single-sample frame buffer, the ImGui
panels are drawn over it, and the result is shown on screen or read back as a screenshot.
Viewport input lives in ``ui.input.ViewportInput``, pushed above ImGui's handlers; it reaches
the rig only when ImGui does not want the mouse or keyboard.
"""
import time

from imgui_bundle import imgui
from imgui_bundle.python_backends import pyglet_backend
from pyglet.window import key

from render.capture import OffscreenTarget
from render.context import context_for_window
from render.rig_renderer import RigRenderer
from ui.input import ViewportInput
from ui.overlay import draw_overlay
from ui.panels import main_panel
from ui.viewport import active_chain, cancel_drag

FIXED_DT = 1.0 / 60.0


class PosekitWindow:
    """Owns the GL and ImGui resources of one pyglet window and runs frames for ``state``.

    With ``state.deterministic`` ImGui's clock advances by exactly 1/60 s a frame, so headless
    frames are repeatable byte for byte. ``ctx`` reuses the window's existing moderngl context.
    """

    def __init__(self, window, state, ctx=None):
        self.window, self.state = window, state
        self.ctx = ctx or context_for_window(window)
        self.renderer = RigRenderer(self.ctx)
        self.imgui_context = imgui.create_context()
        imgui.get_io().set_ini_filename("")
        imgui.style_colors_dark()
        self.imgui = pyglet_backend.create_renderer(window)
        self.scene_target = self.frame_target = None
        window.push_handlers(self)
        self.input = ViewportInput(self)
        window.push_handlers(self.input)

    def on_key_press(self, symbol, modifiers):
        if symbol == key.ESCAPE:
            cancel_drag(self.state)
            return True  # pyglet would otherwise close the window on Escape
        return None

    def on_draw(self):
        self.frame()
        self.frame_target.blit(self.ctx.screen)

    def _ensure_targets(self, width, height):
        if self.frame_target is not None and self.frame_target.size == (width, height):
            return
        for target in (self.scene_target, self.frame_target):
            if target is not None:
                target.release()
        self.scene_target = OffscreenTarget(self.ctx, width, height, samples=4)
        self.frame_target = OffscreenTarget(self.ctx, width, height, samples=0, depth=False)

    def frame(self):
        """Run one frame into the frame target; returns nothing, updates state.stats.frame_ms."""
        start = time.perf_counter()
        self.window.switch_to()
        width, height = self.window.get_framebuffer_size()
        self._ensure_targets(width, height)
        self.imgui.process_inputs()
        if self.state.deterministic:
            imgui.get_io().delta_time = FIXED_DT
        imgui.new_frame()
        if main_panel(self.state):
            self.state.resolve()
        self.state.view.active_chain = active_chain(self.state)
        draw_overlay(self.state, self.input.pointer, width, height)
        imgui.render()
        self.scene_target.use()
        self.renderer.draw(self.state.rig, self.state.world, self.state.view, self.state.camera, width, height)
        self.scene_target.blit(self.frame_target.fbo)
        self.frame_target.use()
        self.imgui.render(imgui.get_draw_data())
        self.ctx.finish()
        self.state.stats.frame_ms = (time.perf_counter() - start) * 1e3

    # The ImGui backend pushes these on the window and leaves them there on shutdown.
    IMGUI_EVENTS = ("on_mouse_motion", "on_key_press", "on_key_release", "on_text", "on_mouse_drag",
                    "on_mouse_press", "on_mouse_release", "on_mouse_scroll", "on_resize")

    def _remove_imgui_handlers(self):
        self.window.remove_handlers(*(getattr(self.imgui, name) for name in self.IMGUI_EVENTS))

    def read_rgb(self):
        """The last frame as an (H, W, 3) uint8 array, top row first."""
        return self.frame_target.read_rgb()

    def release(self):
        self.window.remove_handlers(self.input)
        self.window.remove_handlers(self)
        self._remove_imgui_handlers()
        self.renderer.release()
        for target in (self.scene_target, self.frame_target):
            if target is not None:
                target.release()
        self.imgui.shutdown()
        imgui.destroy_context(self.imgui_context)
