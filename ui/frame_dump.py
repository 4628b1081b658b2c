"""A debug hook for tests that drive the real window from outside (tests/xvfb, xdotool): with
``POSEKIT_WIDGETS=FILE`` set, every frame the window draws rewrites FILE (atomically) with where
the labelled widgets are (``ui.widgets.drawn()``: label, kind, rect, visible) and what the viewport
shows (``render.scene_dump``: the camera, every bone's and handle's window pixel), so a test finds
a button by its label and a hand by its name wherever the docked layout put them.

Unset (the normal case) it costs one check of a cached value per frame.
"""
import os

from render.scene_dump import scene_dict
from rig.formats.jsonfields import save_json_atomic
from ui import widgets

WIDGETS_ENV = "POSEKIT_WIDGETS"


def dump_path():
    """The file named by ``POSEKIT_WIDGETS``, or None when the hook is off."""
    return os.environ.get(WIDGETS_ENV) or None


def widget_rows():
    """The last frame's widgets as JSON rows, in drawing order."""
    return [{"label": item.label, "kind": item.kind, "rect": [float(v) for v in item.rect],
             "visible": item.visible, "value": _plain(item.value)} for item in widgets.drawn()]


def _plain(value):
    """A widget's value as JSON holds it: text, a number or a flag as they are, None otherwise."""
    return value if isinstance(value, (str, bool, int, float)) else None


def frame_dict(number, state, width, height):
    """Frame ``number`` as the hook writes it: the widgets, the viewport's free rectangle (left,
    top, right, bottom window pixels), the open rig and status message, and the scene."""
    return {"frame": number, "size": [width, height], "rig": state.rig_path, "message": state.message,
            "active": state.view.active, "free": [float(v) for v in state.free_pixels(width, height)],
            "widgets": widget_rows(), "scene": scene_dict(state.rig, state.world, state.camera, width, height)}


class FrameDump:
    """Writes each frame to ``path`` (nothing when it is None); counts the frames written so a
    reader can wait for one drawn after its input."""

    def __init__(self, path):
        self.path, self.frames = path, 0

    def write(self, state, width, height):
        if self.path is None:
            return
        self.frames += 1
        try:
            save_json_atomic(self.path, frame_dict(self.frames, state, width, height))
        except (OSError, ValueError) as error:  # a debugging aid must never take the app down
            state.report_error(f"Cannot write {self.path}: {error}")
            self.path = None
