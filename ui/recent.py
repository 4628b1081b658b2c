"""The recently opened rig files, newest first, kept in the user's state directory (next to the
autosave file, see ``ui.autosave.state_dir``) so File > Open Recent survives restarts.

A missing or damaged list reads as empty: it is a convenience, never a reason to fail a start.
"""
import os

from rig.formats.jsonfields import FileFormatError, Reader, check_header, load_json, save_json_atomic
from ui.autosave import state_dir

RECENT_FORMAT, RECENT_VERSION = "posekit.recent", 1
MAX_RECENT = 5


def recent_path():
    return os.path.join(state_dir(), "recent.json")


class RecentFiles:
    """``paths``: absolute rig paths, newest first, at most ``MAX_RECENT``."""

    def __init__(self, path=None):
        self.path = path or recent_path()
        self.paths = self._read()

    def _read(self):
        if not os.path.exists(self.path):
            return []
        try:
            data = load_json(self.path)
            if not isinstance(data, dict):
                return []
            check_header(Reader(self.path, data), RECENT_FORMAT, RECENT_VERSION)
        except FileFormatError:
            return []
        rigs = data.get("rigs")
        return [p for p in rigs if isinstance(p, str)][:MAX_RECENT] if isinstance(rigs, list) else []

    def add(self, path):
        """Put ``path`` first and write the list; returns an error message or ""."""
        path = os.path.abspath(path)
        self.paths = ([path] + [p for p in self.paths if p != path])[:MAX_RECENT]
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            save_json_atomic(self.path, {"format": RECENT_FORMAT, "version": RECENT_VERSION, "rigs": self.paths})
        except OSError as error:
            return f"cannot write the recent files list: {error}"
        return ""
