"""Viewport navigation Blender's way: framing bones (``ui.input`` binds the numpad views)."""
import numpy as np

from rig.pose import heads_tails


def frame_bones(state, width, height, names=None):
    """Fit the camera to bones ``names`` (when empty or None: every bone not hidden, or every
    bone when all are) in the part of the ``width`` x ``height`` window the panels leave free,
    keeping the view angle."""
    skeleton = state.rig.skeleton
    names = names or [n for n in skeleton.names if n not in state.view.hidden] or skeleton.names
    index = [skeleton.index[n] for n in names]
    heads, tails = heads_tails(skeleton, state.world)
    state.camera.frame_points(np.vstack([heads[index], tails[index]]), aspect=width / height,
                              rect=state.free_rect(width, height))
