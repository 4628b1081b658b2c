"""A headless Posekit window for driving the real app with simulated input."""
import numpy as np
import pytest
from imgui_bundle import imgui

from app import HEADLESS_FRAMES
from rig.formats.rigfile import load_rig
from solvers.transforms import normalize
from tests.conftest import GL_WINDOW_SIZE
from ui import widgets
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

    def hold(self, symbol):
        """Press a key and keep it down (Ctrl for Ctrl+wheel); ``let_go`` releases it."""
        self._send("on_key_press", symbol, 0)

    def let_go(self, symbol):
        self._send("on_key_release", symbol, 0)

    def click(self, x, y, button="left", mods=()):
        self.move(x, y)
        self.press(x, y, button, mods)
        self.release(x, y, button, mods)
        self.frames(1)  # ImGui takes queued input a frame at a time: let it see the release before what comes next

    def drag_and_release(self, x, y, button="left"):
        """The last motion of a drag and its release in one frame, as a quick release arrives
        from the OS (``drag`` then ``release`` gives each its own frame)."""
        buttons = self.buttons
        moved = self._moved(x, y)
        self.buttons &= ~buttons
        self._send_all([("on_mouse_drag", (x, self._pyglet_y(y), *moved, buttons, 0)),
                        ("on_mouse_release", (x, self._pyglet_y(y), buttons, 0))])

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
    state = AppState.for_rig(load_rig("assets/humanoid.json"), "assets/humanoid.json", size=SIZE)
    state.deterministic = True
    return state


def id_conflicts():
    """Labels of widgets the last frame drew with an ID another widget had. ImGui counts the
    items that share the hovered item's ID (its "conflicting ID" warning, which only hovering
    finds); ``ui.widgets`` compares every widget drawn through it, hovered or not."""
    shared_hover = imgui.get_current_context().hovered_id_previous_frame_item_count > 1
    return (["the hovered item"] if shared_hover else []) + widgets.id_conflicts()


def fail_on_id_conflicts(app):
    """Make every frame of ``app`` fail the test when it drew two widgets with one ID (their
    clicks and state would be mixed up)."""
    frame = app.frame

    def checked_frame():
        frame()
        conflicts = id_conflicts()
        assert not conflicts, f"widgets with a conflicting ID: {', '.join(conflicts)}"

    app.frame = checked_frame


@pytest.fixture
def posekit_window(gl_session):
    """A fresh app window (fresh ImGui state: what one test opens or collapses does not leak)
    whose frames fail the test on a conflicting widget ID."""
    app = PosekitWindow(gl_session.window, humanoid_state(), ctx=gl_session.ctx)
    fail_on_id_conflicts(app)
    yield app
    app.release()


def start_app(app, state):
    """Give the window a new state as opening a rig does: a new editor, first frames run."""
    app.state = state
    app.editor = Editor(app)
    for _ in range(HEADLESS_FRAMES):
        app.frame()


@pytest.fixture
def driver(posekit_window):
    """The app on the default rig in its rest pose, its panel laid out as a screenshot has it."""
    start_app(posekit_window, humanoid_state())
    return Driver(posekit_window)


def resize(app, width, height):
    """What the OS does to a resized window. pyglet's headless window has no OS behind it: its size
    is set and on_resize sent as pyglet's event loop would."""
    app.window._width, app.window._height = width, height
    app.window.dispatch_event("on_resize", width, height)
    app.window.dispatch_events()


@pytest.fixture
def restore_size(posekit_window):
    """Put the session's window back to SIZE after a test that resizes it: it serves every test."""
    yield
    resize(posekit_window, *SIZE)
