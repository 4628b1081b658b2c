"""The window draws only while something can change: after input for a moment, during a drag, while
an autosave waits or a message awaits an answer; never when left alone."""
from types import SimpleNamespace

from pyglet.window import key

from ui import widgets
from ui.pacing import SETTLE_S, FramePacer
from ui.status import MESSAGE_SECONDS


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class Window:
    def __init__(self):
        self.handlers, self.draws = {}, 0

    def push_handlers(self, **handlers):
        self.handlers.update(handlers)

    def remove_handlers(self, **handlers):
        for name in handlers:
            self.handlers.pop(name)

    def draw(self, dt):
        self.draws += 1


def idle_app():
    return SimpleNamespace(window=Window(), state=SimpleNamespace(drag=None, solve_pending=False, message="", error="",
                                                                  message_shown_at=None, message_lasts=False,
                                                                  timeline=SimpleNamespace(playing=False)), warmup=None,
                           editor=SimpleNamespace(autosaver=None, recovery=None, unsaved=None, quit_requested=False),
                           imgui_context=SimpleNamespace(input_events_queue=[]))


def frames(pacer, clock, seconds):
    """Ticks at 60 Hz for ``seconds``; returns how many drew."""
    before = pacer.app.window.draws
    for _ in range(round(seconds * 60)):
        clock.now += 1 / 60
        pacer.tick(1 / 60)
    return pacer.app.window.draws - before


def test_an_idle_window_stops_drawing_once_it_settles():
    clock = Clock()
    pacer = FramePacer(idle_app(), clock)
    assert 0 < frames(pacer, clock, 1.0) <= SETTLE_S * 60 + 1
    assert frames(pacer, clock, 10.0) == 0


def test_input_wakes_it_for_a_moment():
    clock = Clock()
    app = idle_app()
    pacer = FramePacer(app, clock)
    frames(pacer, clock, 2.0)
    app.window.handlers["on_mouse_motion"](10, 10, 1, 0)
    assert frames(pacer, clock, 0.2) == 12
    assert frames(pacer, clock, 2.0) < SETTLE_S * 60
    assert frames(pacer, clock, 2.0) == 0


def test_a_drag_a_pending_solve_playback_a_pending_autosave_and_an_open_question_keep_it_drawing():
    clock = Clock()
    app = idle_app()
    pacer = FramePacer(app, clock)
    frames(pacer, clock, 2.0)
    for busy, idle in ((lambda: setattr(app.state, "drag", object()), lambda: setattr(app.state, "drag", None)),
                       (lambda: setattr(app.state, "solve_pending", True),
                        lambda: setattr(app.state, "solve_pending", False)),
                       (lambda: setattr(app.state.timeline, "playing", True),
                        lambda: setattr(app.state.timeline, "playing", False)),
                       (lambda: setattr(app.editor, "autosaver", SimpleNamespace(pending=True)),
                        lambda: setattr(app.editor, "autosaver", SimpleNamespace(pending=False))),
                       (lambda: setattr(app.editor, "recovery", object()), lambda: setattr(app.editor, "recovery", None)),
                       (lambda: app.imgui_context.input_events_queue.append("key"),
                        lambda: app.imgui_context.input_events_queue.clear())):
        busy()
        assert frames(pacer, clock, 3.0) == 180
        idle()
        assert frames(pacer, clock, 1.0) == 0


def test_released_it_leaves_no_handlers():
    app = idle_app()
    pacer = FramePacer(app, Clock())
    pacer.release()
    assert app.window.handlers == {}


def test_text_typed_faster_than_the_frames_keeps_it_drawing_until_imgui_has_taken_it_all(driver):
    """ImGui takes one key and its character a frame: ten typed between two frames take ten
    frames, and the pacer must not settle in between (the field would stay half typed)."""
    app, clock = driver.app, Clock()
    pacer = FramePacer(app, clock)
    app.editor.save_pose_as()
    for _ in range(3):
        app.frame()  # the question opens with its path field taking the keys
    for char in "abcdefghij":
        symbol = getattr(key, char.upper())
        app.imgui.on_key_press(symbol, 0)
        app.imgui.on_text(char)
        app.imgui.on_key_release(symbol, 0)
    clock.now = SETTLE_S + 1.0  # long after the keys woke it
    frames = 0
    while pacer.busy() and frames < 100:
        app.frame()
        frames += 1
    assert frames > 1
    assert widgets.find("##name").value.endswith("abcdefghij")
    pacer.release()


def test_an_idle_window_wakes_when_a_status_message_is_due_to_clear():
    """The frame that clears an info message must come though nothing else moves."""
    clock = Clock()
    app = idle_app()
    pacer = FramePacer(app, clock)
    frames(pacer, clock, 1.0)
    app.state.message, app.state.message_shown_at = "Pose copied", clock.now
    assert frames(pacer, clock, MESSAGE_SECONDS - 0.1) == 0
    assert frames(pacer, clock, 0.2) > 0
    app.state.message = ""  # what that frame's status bar does
    assert frames(pacer, clock, 10.0) == 0
