"""Viewport navigation Blender's way: what a middle drag does, framing bones (``ui.input`` binds
the numpad views)."""
import numpy as np
from pyglet.window import key

from rig.pose import heads_tails

ZOOM_DRAG_PIXELS = 20.0  # a Ctrl+middle drag this many pixels up zooms in as one wheel click does


def drag_mode(modifiers):
    """What a middle (or Alt+left) drag does with ``modifiers`` held, as in Blender: Ctrl zooms
    (up zooms in), Shift pans, nothing orbits."""
    if modifiers & key.MOD_CTRL:
        return "zoom"
    return "pan" if modifiers & key.MOD_SHIFT else "orbit"


def frame_bones(state, width, height, names=None):
    """Fit the camera to bones ``names`` (when empty or None: every bone not hidden, or every
    bone when all are) in the part of the ``width`` x ``height`` window the panels leave free,
    keeping the view angle, never closer than the longest of them needs to be seen whole."""
    skeleton = state.rig.skeleton
    names = names or [n for n in skeleton.names if n not in state.view.hidden] or skeleton.names
    index = [skeleton.index[n] for n in names]
    heads, tails = heads_tails(skeleton, state.world)
    state.camera.frame_points(np.vstack([heads[index], tails[index]]), aspect=width / height,
                              rect=state.free_rect(width, height), size=float(skeleton.lengths[index].max()))
