"""A headless Posekit window for driving the real app with simulated input."""
import numpy as np
import pytest
from pyglet.window import mouse

from app import HEADLESS_FRAMES
from rig.rigfile import load_rig
from solvers.transforms import normalize
from tests.conftest import GL_WINDOW_SIZE
from ui.state import AppState
from ui.window import PosekitWindow

SIZE = GL_WINDOW_SIZE


class Driver:
    """Sends pyglet events in top-left window pixels and runs one frame after each, like a user."""

    def __init__(self, app):
        self.app = app
        self.state = app.state
        self.height = app.window.height
        self.last = (0.0, 0.0)  # the pointer as last sent, for pyglet's dx, dy (y up)

    def _y(self, y):
        return self.height - y

    def _send(self, event, *args):
        """Queue the event as the OS would, let the window dispatch it, then run a frame."""
        self.app.window.dispatch_event(event, *args)
        self.app.window.dispatch_events()
        self.app.frame()

    def _delta(self, x, y):
        dx, dy = x - self.last[0], self.last[1] - y
        self.last = (x, y)
        return dx, dy

    def move(self, x, y):
        self._send("on_mouse_motion", x, self._y(y), *self._delta(x, y))

    def press(self, x, y, button=mouse.LEFT, modifiers=0):
        self.last = (x, y)
        self._send("on_mouse_press", x, self._y(y), button, modifiers)

    def drag(self, x, y, button=mouse.LEFT, modifiers=0):
        self._send("on_mouse_drag", x, self._y(y), *self._delta(x, y), button, modifiers)

    def release(self, x, y, button=mouse.LEFT, modifiers=0):
        self._send("on_mouse_release", x, self._y(y), button, modifiers)

    def scroll(self, x, y, clicks):
        """``clicks`` > 0 turns the wheel up (away from the user)."""
        self._send("on_mouse_scroll", x, self._y(y), 0, clicks)

    def key(self, symbol, modifiers=0):
        self._send("on_key_press", symbol, modifiers)
        self._send("on_key_release", symbol, modifiers)

    def hold(self, symbol):
        """Press a key and keep it down (Ctrl for Ctrl+wheel); ``let_go`` releases it."""
        self._send("on_key_press", symbol, 0)

    def let_go(self, symbol):
        self._send("on_key_release", symbol, 0)

    def click(self, x, y, button=mouse.LEFT, modifiers=0):
        self.move(x, y)
        self.press(x, y, button, modifiers)
        self.release(x, y, button, modifiers)

    def pixel_of(self, bone):
        head = self.state.world[self.state.rig.skeleton.index[bone], :3, 3]
        return self.state.camera.world_to_window(head[None], *SIZE)[0]

    def pixel_along(self, bone, fraction):
        """Window pixel of the point ``fraction`` of the way from ``bone``'s head to its tail."""
        world = self.state.world[self.state.rig.skeleton.index[bone]]
        point = world[:3, 3] + world[:3, 1] * self.state.rig.skeleton.lengths[self.state.rig.skeleton.index[bone]] * fraction
        return self.state.camera.world_to_window(point[None], *SIZE)[0]


def plane_point_under(state, x, y, through):
    """Where the pointer's ray meets the camera-facing plane through ``through``."""
    origin, direction = state.camera.window_ray(x, y, *SIZE)
    normal = normalize(state.camera.target - state.camera.eye())
    return origin + direction * np.dot(through - origin, normal) / np.dot(direction, normal)


def humanoid_state():
    state = AppState.for_rig(load_rig("assets/humanoid.json"), "assets/humanoid.json")
    state.deterministic = True
    return state


@pytest.fixture
def posekit_window(gl_session):
    """A fresh app window (fresh ImGui state: what one test opens or collapses does not leak)."""
    app = PosekitWindow(gl_session.window, humanoid_state(), ctx=gl_session.ctx)
    yield app
    app.release()


@pytest.fixture
def driver(posekit_window):
    """The app on the default rig in its rest pose, its panel laid out as a screenshot has it."""
    for _ in range(HEADLESS_FRAMES):
        posekit_window.frame()
    return Driver(posekit_window)
