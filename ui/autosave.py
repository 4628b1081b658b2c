"""Crash recovery: the session (see ``ui.session_file`` for what it holds) autosaved to a recovery
file a few seconds after each change, removed on a clean exit, and offered back on the next start.

The file lives in the user's state directory: ``$POSEKIT_STATE_DIR`` if set (tests), else
``$XDG_STATE_HOME/posekit``, else ``~/.local/state/posekit``. Headless runs never read or write it.
"""
import os
import time

from rig.formats.atomic import save_text_atomic
from rig.formats.jsonfields import FileFormatError
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


class Autosaver:
    """Writes the session to ``path`` once ``delay`` seconds have passed since the first change
    not yet saved (so a long edit is saved every ``delay`` seconds). A change is a new undo step,
    a camera move, a new selection, hidden bone or view switch, another animation frame chosen,
    or a pose file saved. ``clock`` is injectable for tests."""

    def __init__(self, path, delay=AUTOSAVE_DELAY_S, clock=time.monotonic):
        self.path, self.delay, self.clock = path, delay, clock
        self.saved_key = None
        self.changed_at = None

    @staticmethod
    def _key(state, pose_file):
        camera, view, animation = state.camera, state.view, state.animation
        return (id(state), state.history.version, tuple(camera.target), camera.distance, camera.yaw, camera.pitch,
                camera.orthographic, camera.ortho_scale, camera.fov_y, tuple(camera.shift), frozenset(view.selected),
                view.active, frozenset(view.hidden), tuple(getattr(view, name) for name in SHOWN),
                None if animation is None else (animation.clip, animation.frame), pose_file)

    def start(self, state, pose_file=PoseFile()):
        """Treat ``state`` as saved: nothing is written until it changes."""
        self.saved_key, self.changed_at = self._key(state, pose_file), None

    def tick(self, state, pose_file=PoseFile()):
        """Call once a frame with where Save writes the pose; returns True when it wrote the file."""
        key = self._key(state, pose_file)
        if key == self.saved_key:
            self.changed_at = None
            return False
        now = self.clock()
        if self.changed_at is None:
            self.changed_at = now
        if now - self.changed_at < self.delay:
            return False
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            save_text_atomic(self.path, "".join(session_chunks(state, pose_file)) + "\n", suffix=".json")
        except (OSError, ValueError) as error:
            state.report_error(f"Autosave failed: {error}")
            self.changed_at = now  # try again after another delay
            return False
        self.saved_key, self.changed_at = key, None
        return True

    def clear(self):
        """Remove the recovery file on a clean exit."""
        remove_file(self.path)

