"""Frames only when something can change: input, a drag, a pending autosave, a modal awaiting an
answer. An idle window draws nothing (drawing every sixtieth of a second kept half a core busy).

The window's events mark it awake for ``SETTLE_S`` seconds, long enough for ImGui's hover and
click states to settle; ``tick`` runs at the display rate and draws only then."""
import time

from ui.status import message_expiry

FRAME_S = 1.0 / 60.0
SETTLE_S = 0.5
INPUT_EVENTS = ("on_mouse_motion", "on_mouse_press", "on_mouse_release", "on_mouse_drag", "on_mouse_scroll",
                "on_mouse_enter", "on_mouse_leave", "on_key_press", "on_key_release", "on_text", "on_text_motion",
                "on_resize", "on_expose", "on_activate", "on_deactivate", "on_show", "on_file_drop")


class FramePacer:
    """Draws ``app`` (a PosekitWindow) when it is awake or busy; ``clock`` is injectable for tests."""

    def __init__(self, app, clock=time.monotonic):
        self.app, self.clock = app, clock
        self.awake_until = clock() + SETTLE_S
        self.frames = 0
        app.window.push_handlers(**{name: self.wake for name in INPUT_EVENTS})

    def wake(self, *args):
        """An event handler for every input event: keep drawing a while; the event goes on."""
        self.awake_until = max(self.awake_until, self.clock() + SETTLE_S)

    def busy(self):
        """Whether the app changes with no input: a drag in progress, a solve asked for, playback, an
        autosave waiting for its delay or being written, a message the user has not answered, a
        status message whose time is up, the solvers' warm-up finished and not yet in the status
        bar, or input ImGui has
        yet to take (it takes one key press and its character a frame, so text typed or pasted
        faster than the frames come waits in its queue: stopping then would leave it half typed)."""
        editor, state = self.app.editor, self.app.state
        autosaver = editor.autosaver
        expiry = message_expiry(state)
        return (state.drag is not None or state.solve_pending or state.timeline.playing or editor.recovery is not None or editor.unsaved is not None
                or editor.quit_requested or (autosaver is not None and autosaver.pending)
                or (expiry is not None and self.clock() >= expiry)
                or (self.app.warmup is not None and self.app.warmup.news)
                or len(self.app.imgui_context.input_events_queue) > 0)

    def tick(self, dt):
        if self.clock() < self.awake_until or self.busy():
            self.frames += 1
            self.app.window.draw(dt)

    def release(self):
        self.app.window.remove_handlers(**{name: self.wake for name in INPUT_EVENTS})
