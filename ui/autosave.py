"""Crash recovery: the session (see ``ui.session_file`` for what it holds) autosaved to a recovery
file a few seconds after each change, removed on a clean exit, and offered back on the next start.
The frame only captures the session's text; a thread of its own writes the file (a temporary file
synced to disk, then renamed: milliseconds a frame should not stall for), one write at a time, and
the next frame reports a failed write in the status bar.

The file lives in the user's state directory: ``$POSEKIT_STATE_DIR`` if set (tests), else
``$XDG_STATE_HOME/posekit``, else ``~/.local/state/posekit``. Headless runs never read or write it.
"""
import os
import threading
import time

from rig.formats.atomic import save_bytes_atomic
from rig.formats.jsonfields import FileFormatError
from ui.ground_state import GroundChoice
from ui.session_file import SHOWN, PoseFile, session_chunks

STATE_DIR_ENV = "POSEKIT_STATE_DIR"
AUTOSAVE_DELAY_S = 3.0


def state_dir():
    if os.environ.get(STATE_DIR_ENV):
        return os.environ[STATE_DIR_ENV]
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "posekit")


def recovery_path():
    return os.path.join(state_dir(), "recovery.json")


def remove_file(path):
    """Remove ``path`` if it is a file; anything else (gone already, a folder in its place) is left,
    since a clean exit must not fail over a state file."""
    try:
        os.unlink(path)
    except OSError:
        pass


def set_aside(path):
    """Rename a damaged state file (or whatever sits at its path) out of the way, keeping it for the
    user to look at; returns the new path, or None when it could not be moved."""
    aside = f"{path}.damaged-{time.strftime('%Y%m%d-%H%M%S')}"
    try:
        os.replace(path, aside)
    except OSError:
        return None
    return aside


def read_state_file(path, read):
    """``read(path)`` for a state file (recovery, recent files), or None when there is none. A
    damaged one is set aside and reported once: returns (value or None, a one-line message or "")."""
    if not os.path.lexists(path):
        return None, ""
    try:
        return read(path), ""
    except FileFormatError as error:
        aside = set_aside(path)
        where = f"moved to {aside}" if aside else "it could not be moved"
        return None, f"a damaged state file was set aside ({where}): {error}"


class FileWrite:
    """The session's text (``chunks``) written to ``path`` on a thread of its own; ``key`` says
    which session it holds. ``error`` is what the write raised, for the main thread to report
    (None while it runs and after it succeeds)."""

    def __init__(self, path, chunks, key):
        self.key, self.error = key, None
        # Not a daemon: the interpreter waits for it, so quitting never cuts a write short.
        self.thread = threading.Thread(target=self._write, args=(path, chunks), name="posekit-autosave")
        self._go = threading.Event()
        self.thread.start()
        self._go.set()

    def _write(self, path, chunks):
        # Thread.start() waits for the thread to run, which then keeps the GIL until it blocks: at
        # once here, rather than after the Python part of the write (milliseconds of the frame).
        self._go.wait()
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            save_bytes_atomic(path, ("".join(chunks) + "\n").encode(), suffix=".json")
        except Exception as error:  # handed to the main thread, which reports or raises it
            self.error = error

    def done(self):
        return not self.thread.is_alive()

    def wait(self):
        self.thread.join()


class Autosaver:
    """Writes the session to ``path`` once ``delay`` seconds have passed since the first change
    not yet saved (so a long edit is saved every ``delay`` seconds). A change is a new undo step
    (a pin or unpin too), a camera move, a new selection, hidden bone or view switch, another
    animation frame chosen, the whole-body choice, or a pose file saved. ``clock`` is injectable
    for tests. ``writing`` is the FileWrite in flight (at most one), if any."""

    def __init__(self, path, delay=AUTOSAVE_DELAY_S, clock=time.monotonic):
        self.path, self.delay, self.clock = path, delay, clock
        self.saved_key = None
        self.changed_at = None
        self.writing = None

    @staticmethod
    def _key(state, pose_file):
        camera, view, animation = state.camera, state.view, state.animation
        return (id(state), state.history.version, tuple(camera.target), camera.distance, camera.yaw, camera.pitch,
                camera.orthographic, camera.ortho_scale, camera.fov_y, tuple(camera.shift), frozenset(view.selected),
                view.active, frozenset(view.hidden), tuple(getattr(view, name) for name in SHOWN),
                None if animation is None else (animation.clip, animation.frame), state.whole_body, pose_file,
                GroundChoice.of(state))

    @property
    def pending(self):
        """Whether a change waits to be saved or a write is in flight (frames must go on to finish it)."""
        return self.changed_at is not None or self.writing is not None

    def start(self, state, pose_file=PoseFile()):
        """Treat ``state`` as saved: nothing is written until it changes."""
        self.wait()
        self._take_finished_write(state)
        self.saved_key, self.changed_at = self._key(state, pose_file), None

    def tick(self, state, pose_file=PoseFile()):
        """Call once a frame with where Save writes the pose; returns True when it began writing
        the file (``wait`` waits for the write)."""
        self._take_finished_write(state)
        key = self._key(state, pose_file)
        if key == self.saved_key or (self.writing is not None and key == self.writing.key):
            self.changed_at = None
            return False
        now = self.clock()
        if self.changed_at is None:
            self.changed_at = now
        if now - self.changed_at < self.delay or self.writing is not None:
            return False  # one write at a time: a later change is saved once this one is written
        try:
            chunks = session_chunks(state, pose_file)
        except ValueError as error:  # a NaN or infinity, which strict JSON has not
            state.report_error(f"Autosave failed: {self.path}: {error}")
            self.changed_at = now  # try again after another delay
            return False
        self.writing, self.changed_at = FileWrite(self.path, chunks, key), None
        return True

    def _take_finished_write(self, state):
        """Note a finished write as saved, or report why it failed (to ``state``'s status bar) and
        try again after another delay; what is not an OSError is a bug and raised here."""
        writing = self.writing
        if writing is None or not writing.done():
            return
        self.writing = None
        if writing.error is None:
            self.saved_key = writing.key
        elif isinstance(writing.error, OSError):
            state.report_error(f"Autosave failed: {writing.error}")
            self.changed_at = self.clock()
        else:
            raise writing.error

    def wait(self):
        """Wait for the write in flight, if any (its outcome is taken at the next tick)."""
        if self.writing is not None:
            self.writing.wait()

    def clear(self):
        """Remove the recovery file on a clean exit, once a write in flight has finished."""
        self.wait()
        remove_file(self.path)
