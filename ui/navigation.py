"""Viewport navigation Blender's way: named views on the numpad, projection toggle, framing."""
import numpy as np
from pyglet.window import key

from rig.pose import heads_tails

VIEW_KEYS = {key.NUM_1: ("front", "back"), key.NUM_3: ("side", "left"), key.NUM_7: ("top", "bottom")}
"""Numpad key -> (view, view with Ctrl): Front/Back, Right/Left, Top/Bottom."""


def view_for_key(symbol, ctrl):
    """The named view a numpad key asks for, or None."""
    views = VIEW_KEYS.get(symbol)
    return None if views is None else views[1 if ctrl else 0]


def frame_bones(state, width, height, names=None):
    """Fit the camera to bones ``names`` (every bone when empty or None) in the part of the
    ``width`` x ``height`` window the panels leave free, keeping the view angle."""
    skeleton = state.rig.skeleton
    index = [skeleton.index[n] for n in names] if names else list(range(len(skeleton)))
    heads, tails = heads_tails(skeleton, state.world)
    state.camera.frame_points(np.vstack([heads[index], tails[index]]), aspect=width / height,
                              rect=state.free_rect(width, height))
