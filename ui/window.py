"""The app's window: one frame = panels, solve, viewport draw, ImGui on top.

Wraps a pyglet window (a real one, or a hidden headless one for screenshots and tests). The
scene is drawn offscreen into a single-sample frame buffer where no docked panel covers it, the
ImGui panels are drawn over it (``ui.imgui_renderer`` redraws only their changed parts), and the
result is shown on screen or read back as a screenshot.
Viewport input lives in ``ui.input.ViewportInput``, pushed above ImGui's handlers; it reaches the
rig only when ImGui does not want the mouse or keyboard.

Anti-aliasing is progressive, as in Blender's viewport: while the scene changes from frame to
frame (a drag, an orbit) it is drawn without multisampling, which keeps a software renderer
within a frame; once it holds still for a frame it is drawn once 4x multisampled and that
picture is reused until something changes.
"""
import math
import sys
import time

from imgui_bundle import imgui
from pyglet.window import BaseWindow, key

from render.capture import OffscreenTarget
from render.context import context_for_window
from render.rig_renderer import RigRenderer
from ui import widgets
from ui.docked import docked_panels
from ui.editor import Editor
from ui.frame_dump import FrameDump, dump_path
from ui.gizmo import gizmo_frame
from ui.imgui_renderer import NearestImGuiRenderer
from ui.input import ViewportInput
from ui.layout import DockLayout, layout_path
from ui.overlay import draw_overlay
from ui.pins import pin_marks
from ui.tracks import tracker_marks
from ui.solver_state import solver_overlay
from ui.status import status_bar
from ui.simulation_clock import simulated_solve
from ui.timeline import advance
from ui.viewport import active_chain, cancel_drag, constraint_line

FIXED_DT = 1.0 / 60.0


class InProcessClipboard:
    """ImGui's clipboard kept in this process, for a window whose platform has none to hand text
    to (pyglet's headless window raises NotImplementedError, which ImGui's callback could only
    print): copy and paste between the app's own fields still work."""

    def __init__(self):
        self.text = ""

    def install(self):
        """Make it the clipboard of the current ImGui context."""
        platform = imgui.get_platform_io()
        platform.platform_get_clipboard_text_fn = lambda _context: self.text
        platform.platform_set_clipboard_text_fn = self._set

    def _set(self, _context, text):
        self.text = text


def has_system_clipboard(window):
    """Whether pyglet implements the desktop's clipboard for ``window`` (not for a headless one)."""
    return type(window).set_clipboard_text is not BaseWindow.set_clipboard_text


class PosekitWindow:
    """Owns the GL and ImGui resources of one pyglet window and runs frames for ``state``.

    With ``state.deterministic`` ImGui's clock advances by exactly 1/60 s a frame and the layout
    is the default one, never read from or written to the state directory, so headless frames are
    repeatable byte for byte. ``ctx`` reuses the window's existing moderngl context.
    """

    def __init__(self, window, state, ctx=None):
        self.window, self.state = window, state
        self.ctx = ctx or context_for_window(window)
        self.renderer = RigRenderer(self.ctx)
        self.imgui_context = imgui.create_context()
        self.layout = DockLayout(None if state.deterministic else layout_path())
        imgui.style_colors_dark()
        style = imgui.get_style()  # opaque panels: the scene is drawn only where none covers it
        background = style.color_(imgui.Col_.window_bg)
        style.set_color_(imgui.Col_.window_bg, imgui.ImVec4(background.x, background.y, background.z, 1.0))
        self.imgui = NearestImGuiRenderer(window)
        self.clipboard = None if has_system_clipboard(window) else InProcessClipboard()
        if self.clipboard is not None:
            self.clipboard.install()
        self.scene_target = self.still_target = self.moving_target = self.frame_target = None
        self.last_scene = self.still_scene = None
        self.editor = Editor(self)
        self.dump = FrameDump(dump_path())  # POSEKIT_WIDGETS: where widgets and bones are, for tests/xvfb
        self.warmup = None  # ui.solver_warmup.SolverWarmup: a real window's, compiling the solvers
        window.push_handlers(self)
        self.input = ViewportInput(self)
        window.push_handlers(self.input)

    def now(self):
        """Seconds on the app's clock: ImGui's, at 1/60 s a frame, when deterministic (the same
        input then clears a message at the same frame), else the wall clock the frame pacer uses."""
        return imgui.get_time() if self.state.deterministic else time.monotonic()

    def on_key_press(self, symbol, modifiers):
        if symbol == key.ESCAPE:
            if imgui.get_io().want_capture_keyboard or imgui.is_popup_open("", imgui.PopupFlags_.any_popup):
                self.imgui.on_key_press(symbol, modifiers)  # closes ImGui's popups and menus
            else:
                cancel_drag(self.state)
            return True  # pyglet would otherwise close the window on Escape
        if imgui.get_io().want_capture_keyboard:
            return None
        return self.editor.on_key_press(symbol, modifiers)

    def on_file_drop(self, x, y, paths):
        """A file dropped on the window opens as a rig (the first, if several)."""
        if paths and self.state.drag is None:
            self.editor.replace_scene(paths[0])
        return True

    def on_draw(self):
        self.frame()
        self.imgui.present(self.frame_target, self.ctx.screen)

    def _targets(self):
        return (self.scene_target, self.still_target, self.moving_target, self.frame_target)

    def _ensure_targets(self, width, height):
        if self.frame_target is not None and self.frame_target.size == (width, height):
            return
        for target in self._targets():
            if target is not None:
                target.release()
        self.scene_target = OffscreenTarget(self.ctx, width, height, samples=4)
        self.still_target = OffscreenTarget(self.ctx, width, height, samples=0, depth=False)
        self.moving_target = OffscreenTarget(self.ctx, width, height, samples=0)  # depth: moving scenes draw here
        self.frame_target = OffscreenTarget(self.ctx, width, height, samples=0, depth=False)  # the scene + ImGui
        self.last_scene = self.still_scene = None

    def scene_region(self, width, height):
        """The framebuffer pixels (x, y, width, height from the bottom left) no panel covers, with
        the see-through splitters along them: the docked panels are opaque, so the scene is
        drawn only there."""
        scale_x, scale_y = width / self.window.width, height / self.window.height
        left, top, right, bottom = self.state.free_pixels(self.window.width, self.window.height)
        seam = imgui.get_style().docking_separator_size
        x0, x1 = max(int((left - seam) * scale_x), 0), min(math.ceil((right + seam) * scale_x), width)
        y0 = max(height - math.ceil((bottom + seam) * scale_y), 0)
        y1 = min(int(height - (top - seam) * scale_y), height)
        return x0, y0, max(x1 - x0, 0), max(y1 - y0, 0)

    def _scene_key(self, width, height, region):
        """Everything the scene's picture depends on, to tell a moving scene from a still one."""
        state = self.state
        camera = state.camera
        constraints = [(c.bone, c.target, c.pole_target) for c in state.rig.ik]
        return (width, height, region, state.world.tobytes(), camera.view_matrix().tobytes(),
                camera.projection_matrix(width / height).tobytes(), state.view.key(), constraints, id(state.rig),
                id(state.mesh), state.ground)

    def _draw_scene(self, width, height):
        """A fast single-sample picture while the scene moves, the cached multisampled one once it
        holds still; returns (the target holding it, the region it was drawn in)."""
        region = self.scene_region(width, height)
        key = self._scene_key(width, height, region)
        draw = lambda: self.renderer.draw(self.state.rig, self.state.world, self.state.view, self.state.camera,
                                          width, height, mesh=self.state.mesh, region=region,
                                          ground=self.state.ground)
        if key != self.last_scene:
            self.last_scene, self.still_scene = key, None
            self.moving_target.use()
            draw()
            return self.moving_target, region
        if key != self.still_scene:
            self.scene_target.use()
            draw()
            self.scene_target.blit(self.still_target.fbo)
            self.still_scene = key
        return self.still_target, region

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
        widgets.begin_frame()
        self.editor.draw()
        if self.warmup is not None:
            self.warmup.show(self.state)
        status_bar(self.state, self.now())
        advance(self.state, self.now())  # playback: the frame the clock has reached, before the panels show it
        dirty, free = docked_panels(self.state, self.layout)
        if dirty:
            self.state.mark_dirty()
        self.state.set_free_pixels(free, width, height, self.layout.floating)
        gizmo_frame(self.state, *imgui.get_io().display_size)
        simulated_solve(self.state, self.now())  # once, after every input of the frame, before anything reads the world
        self.state.view.active_chain = active_chain(self.state)
        self.state.view.constraint_line = constraint_line(self.state)
        self.state.view.solver_overlay = solver_overlay(self.state)
        self.state.view.pins = pin_marks(self.state)
        self.state.view.trackers = tracker_marks(self.state)
        draw_overlay(self.state, self.input.pointer, width, height)
        self.editor.end_frame()
        problem = self.layout.save_if_changed()
        if problem:
            self.state.report_error(problem)
        imgui.render()
        scene, region = self._draw_scene(width, height)
        self.imgui.render_over(imgui.get_draw_data(), scene, region, self.frame_target,
                               on_scene=scene is self.moving_target)
        self.ctx.finish()
        self.dump.write(self.state, self.window.width, self.window.height)  # ImGui's pixels, not the framebuffer's
        self.state.stats.frame_ms = (time.perf_counter() - start) * 1e3

    # The ImGui backend pushes these on the window and leaves them there on shutdown.
    IMGUI_EVENTS = ("on_mouse_motion", "on_key_press", "on_key_release", "on_text", "on_mouse_drag",
                    "on_mouse_press", "on_mouse_release", "on_mouse_scroll", "on_resize")

    def _remove_imgui_handlers(self):
        self.window.remove_handlers(*(getattr(self.imgui, name) for name in self.IMGUI_EVENTS))

    def read_rgb(self):
        """The last frame as an (H, W, 3) uint8 array, top row first."""
        self.imgui.present(self.frame_target, self.frame_target.fbo)
        return self.frame_target.read_rgb()

    def release(self):
        """Keep the layout for the next run, then free the window's GL and ImGui resources."""
        problem = self.layout.save()
        if problem:  # the window is closing: nowhere left to show it
            print(f"posekit: warning: {problem}", file=sys.stderr)
        self.window.remove_handlers(self.input)
        self.window.remove_handlers(self)
        self._remove_imgui_handlers()
        self.renderer.release()
        for target in self._targets():
            if target is not None:
                target.release()
        self.imgui.shutdown()
        imgui.destroy_context(self.imgui_context)
