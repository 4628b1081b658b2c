"""The timeline in a saved session (``ui.session_file``): ``"timeline"`` holds the current frame
and the switches, ``"action"`` the keys (``rig.formats.keysfile``). An action is a value, so its
text is encoded once and kept with it: an autosave after a pose edit does not encode a long clip
again. Sessions saved before keys existed read with an empty action over their pose."""
import json

from rig.formats.keysfile import action_from_dict, action_to_dict
from rig.keys import INTERPOLATIONS, MAX_FRAME

TIMELINE_KEYS = ("action", "timeline")  # the session file's keys this module reads


def action_json(state):
    """The state's action as strict JSON text, encoded once per action (and skeleton)."""
    action, skeleton = state.timeline.action, state.rig.skeleton
    memo = action.__dict__.setdefault("_session_json", {})
    text = memo.get(id(skeleton))
    if text is None:
        text = memo[id(skeleton)] = json.dumps(action_to_dict(action, skeleton), allow_nan=False)
    return text


def timeline_dict(timeline):
    return {"frame": timeline.frame, "auto_key": timeline.auto_key, "follow_root": timeline.follow_root,
            "interpolation": timeline.interpolation}


def mark_read(root):
    """Let ``root`` (the session's Reader) know the keys this module reads later."""
    for key in TIMELINE_KEYS:
        root.get(key, None)


def restore_timeline(root, state):
    """Put the saved keys and frame into ``state`` (a FileFormatError names a bad field)."""
    if root.get("action", None) is not None:
        state.timeline.action = action_from_dict(root.obj["action"], state.rig.skeleton, root.path, "action.")
    if root.get("timeline", None) is None:
        return
    saved = root.child("timeline")
    timeline = state.timeline
    timeline.frame = saved.integer("frame", 0, low=-MAX_FRAME, high=MAX_FRAME)
    timeline.auto_key = saved.boolean("auto_key", False)
    timeline.follow_root = saved.boolean("follow_root", False)
    timeline.interpolation = saved.string("interpolation", "linear", INTERPOLATIONS)
