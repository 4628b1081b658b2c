"""A headless Posekit window for driving the real app with simulated input."""
import pytest
from pyglet.window import mouse

from app import HEADLESS_FRAMES
from rig.rigfile import load_rig
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

    def _y(self, y):
        return self.height - y

    def _send(self, event, *args):
        """Queue the event as the OS would, let the window dispatch it, then run a frame."""
        self.app.window.dispatch_event(event, *args)
        self.app.window.dispatch_events()
        self.app.frame()

    def move(self, x, y):
        self._send("on_mouse_motion", x, self._y(y), 0, 0)

    def press(self, x, y, button=mouse.LEFT):
        self._send("on_mouse_press", x, self._y(y), button, 0)

    def drag(self, x, y, button=mouse.LEFT):
        self._send("on_mouse_drag", x, self._y(y), 0, 0, button, 0)

    def release(self, x, y, button=mouse.LEFT):
        self._send("on_mouse_release", x, self._y(y), button, 0)

    def key(self, symbol):
        self._send("on_key_press", symbol, 0)

    def pixel_of(self, bone):
        head = self.state.world[self.state.rig.skeleton.index[bone], :3, 3]
        return self.state.camera.world_to_window(head[None], *SIZE)[0]


def humanoid_state():
    state = AppState.for_rig(load_rig("assets/humanoid.json"), "assets/humanoid.json")
    state.deterministic = True
    return state


@pytest.fixture(scope="session")
def posekit_window(gl_session):
    app = PosekitWindow(gl_session.window, humanoid_state(), ctx=gl_session.ctx)
    yield app
    app.release()


@pytest.fixture
def driver(posekit_window):
    """The app on the default rig in its rest pose, its panel laid out as a screenshot has it."""
    posekit_window.state = humanoid_state()
    for _ in range(HEADLESS_FRAMES):
        posekit_window.frame()
    return Driver(posekit_window)
