"""The one place that makes OpenGL contexts (GL 3.3 core or newer) for Posekit.

``create_headless_context()`` serves tests and offscreen rendering (EGL through pyglet's headless
mode, no display needed); ``context_for_window(window)`` serves the app's real pyglet window.
"""
import sys
from dataclasses import dataclass

import moderngl

GL_REQUIRE = 330


@dataclass
class HeadlessContext:
    """A hidden headless pyglet window and the moderngl context attached to its GL context."""
    window: object
    ctx: moderngl.Context

    def release(self):
        self.ctx.release()
        self.window.close()


def create_headless_context(width=64, height=64):
    """Make a hidden window in pyglet's headless (EGL) mode and attach moderngl to it.

    Must run before anything imports ``pyglet.window`` in non-headless mode, because pyglet picks
    its window backend once per process; raises RuntimeError otherwise. Draw into an
    ``OffscreenTarget`` (render.capture), never into this window's own tiny framebuffer.
    """
    import pyglet
    if "pyglet.window" in sys.modules and not pyglet.options["headless"]:
        raise RuntimeError("pyglet.window was imported before headless mode was set; "
                           "call create_headless_context() before importing pyglet.window")
    pyglet.options["headless"] = True
    import pyglet.window
    window = pyglet.window.Window(width, height, visible=False)
    return HeadlessContext(window, context_for_window(window))


def context_for_window(window):
    """A moderngl context for an existing pyglet window's GL context (made current first)."""
    window.switch_to()
    return moderngl.create_context(require=GL_REQUIRE)
