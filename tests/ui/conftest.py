"""A headless Posekit window for driving the real app with simulated input."""
import pytest
from imgui_bundle import imgui

from app import HEADLESS_FRAMES
from rig.rigfile import load_rig
from tests.conftest import GL_WINDOW_SIZE
from ui.editor import Editor
from ui.replay import InputSender
from ui.state import AppState
from ui.window import PosekitWindow

SIZE = GL_WINDOW_SIZE


class Driver(InputSender):
    """The app's own input replay (top-left window pixels, a frame after each event), plus the
    questions tests ask about the scene."""

    def __init__(self, app):
        super().__init__(app)
        self.state = app.state

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


def start_app(app, state):
    """Give the session's window a new state as a fresh start would: a new editor, no ImGui
    window focused (earlier tests' clicks must not change the panels' look), first frames run."""
    app.state = state
    app.editor = Editor(app)
    imgui.set_window_focus(None)
    for _ in range(HEADLESS_FRAMES):
        app.frame()


@pytest.fixture
def driver(posekit_window):
    """The app on the default rig in its rest pose, its panel laid out as a screenshot has it."""
    start_app(posekit_window, humanoid_state())
    return Driver(posekit_window)
