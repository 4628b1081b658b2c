"""Crash recovery: the session (rig path and settings, pose, camera) autosaved to a recovery file
a few seconds after each change, removed on a clean exit, and offered back on the next start.

The file lives in the user's state directory: ``$POSEKIT_STATE_DIR`` if set (tests), else
``$XDG_STATE_HOME/posekit``, else ``~/.local/state/posekit``. Headless runs never read or write it.
"""
import dataclasses
import os
import time

import numpy as np

from render.camera import OrbitCamera
from rig.formats.jsonfields import FileFormatError, Reader, check_header, load_json, save_json_atomic
from rig.formats.rigfile import pose_from_dict, pose_to_dict, rig_from_dict, rig_to_dict
from ui.state import AppState

RECOVERY_FORMAT, RECOVERY_VERSION = "posekit.recovery", 1
STATE_DIR_ENV = "POSEKIT_STATE_DIR"
AUTOSAVE_DELAY_S = 3.0
LATEST_SAVE = 32503680000.0  # seconds since 1970 at the year 3000: later "saved" times are damage


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


def _camera_dict(camera):
    return {k: (list(map(float, v)) if isinstance(v, np.ndarray) else v) for k, v in dataclasses.asdict(camera).items()}


def session_dict(state):
    """Everything needed to put the session back: the rig (settings included), pose and camera."""
    rig = state.rig
    return {"format": RECOVERY_FORMAT, "version": RECOVERY_VERSION, "saved": time.time(),
            "rig_path": os.path.abspath(state.rig_path), "rig": rig_to_dict(rig),
            "pose": pose_to_dict(rig.skeleton, state.pose, rig.name), "camera": _camera_dict(state.camera)}


def read_recovery(path):
    """The recovery file's session as a dict; a damaged file raises FileFormatError."""
    data = load_json(path)
    root = Reader(path, data)
    check_header(root, RECOVERY_FORMAT, RECOVERY_VERSION)
    root.number("saved", low=0.0, high=LATEST_SAVE)
    root.string("rig_path")
    root.child("rig")
    root.child("pose")
    root.child("camera")
    return data


def restore_session(data, path="<recovery>"):
    """A new AppState from a recovery dict; FileFormatError if it does not read."""
    rig = rig_from_dict(data["rig"], path)
    pose, _ = pose_from_dict(data["pose"], rig.skeleton, path)
    state = AppState.for_rig(rig, data["rig_path"], pose)
    camera = Reader(path, data["camera"], "camera.")
    defaults = OrbitCamera()
    state.camera = OrbitCamera(
        target=np.array(camera.vector("target", 3)), distance=camera.number("distance", defaults.distance, 1e-6),
        yaw=camera.number("yaw", defaults.yaw), pitch=camera.number("pitch", defaults.pitch),
        fov_y=camera.number("fov_y", defaults.fov_y, 1e-3, 3.1), orthographic=camera.boolean("orthographic", False),
        ortho_scale=camera.number("ortho_scale", defaults.ortho_scale, 1e-6),
        near=camera.number("near", defaults.near, 1e-6), far=camera.number("far", defaults.far, 1e-3))
    return state


class Autosaver:
    """Writes the session to ``path`` once ``delay`` seconds have passed since the first change
    not yet saved (so a long edit is saved every ``delay`` seconds). A change is a new undo step or
    a camera move. ``clock`` is injectable for tests."""

    def __init__(self, path, delay=AUTOSAVE_DELAY_S, clock=time.monotonic):
        self.path, self.delay, self.clock = path, delay, clock
        self.saved_key = None
        self.changed_at = None

    @staticmethod
    def _key(state):
        camera = state.camera
        return (id(state), state.history.version, tuple(camera.target), camera.distance, camera.yaw, camera.pitch,
                camera.orthographic, camera.ortho_scale, camera.fov_y)

    def start(self, state):
        """Treat ``state`` as saved: nothing is written until it changes."""
        self.saved_key, self.changed_at = self._key(state), None

    def tick(self, state):
        """Call once a frame; returns True when it wrote the file."""
        key = self._key(state)
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
            save_json_atomic(self.path, session_dict(state))
        except (OSError, ValueError) as error:
            state.report_error(f"Autosave failed: {error}")
            self.changed_at = now  # try again after another delay
            return False
        self.saved_key, self.changed_at = key, None
        return True

    def clear(self):
        """Remove the recovery file on a clean exit."""
        remove_file(self.path)

