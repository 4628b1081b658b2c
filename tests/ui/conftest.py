"""A headless Posekit window for driving the real app with simulated input."""
import pytest

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


@pytest.fixture
def driver(posekit_window):
    """The app on the default rig in its rest pose, its panel laid out as a screenshot has it."""
    posekit_window.state = humanoid_state()
    posekit_window.editor = Editor(posekit_window)
    for _ in range(HEADLESS_FRAMES):
        posekit_window.frame()
    return Driver(posekit_window)
