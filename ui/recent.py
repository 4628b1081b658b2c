"""The recently opened rig files, newest first, kept in the user's state directory (next to the
autosave file, see ``ui.autosave.state_dir``) so File > Open Recent survives restarts.

A missing list reads as empty; a damaged one is set aside (see ``ui.autosave.read_state_file``):
it is a convenience, never a reason to fail a start.
"""
import os

from rig.formats.jsonfields import Reader, check_header, is_text, load_json, save_json_atomic
from ui.autosave import read_state_file, state_dir

RECENT_FORMAT, RECENT_VERSION = "posekit.recent", 1
MAX_RECENT = 5


def recent_path():
    return os.path.join(state_dir(), "recent.json")


def _read_recent(path):
    root = Reader(path, load_json(path))
    check_header(root, RECENT_FORMAT, RECENT_VERSION)
    rigs = root.get("rigs", [])
    root.check_fields()
    return [p for p in rigs if isinstance(p, str) and is_text(p)][:MAX_RECENT] if isinstance(rigs, list) else []


class RecentFiles:
    """``paths``: absolute rig paths, newest first, at most ``MAX_RECENT``; ``problem`` says why a
    damaged list was set aside ("" when it read)."""

    def __init__(self, path=None):
        self.path = path or recent_path()
        paths, self.problem = read_state_file(self.path, _read_recent)
        self.paths = paths or []

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
