"""Viewport navigation Blender's way: framing bones (``ui.input`` binds the numpad views)."""
import numpy as np

from rig.pose import heads_tails


def frame_bones(state, width, height, names=None):
    """Fit the camera to bones ``names`` (every bone when empty or None) in the part of the
    ``width`` x ``height`` window the panels leave free, keeping the view angle."""
    skeleton = state.rig.skeleton
    index = [skeleton.index[n] for n in names] if names else list(range(len(skeleton)))
    heads, tails = heads_tails(skeleton, state.world)
    state.camera.frame_points(np.vstack([heads[index], tails[index]]), aspect=width / height,
                              rect=state.free_rect(width, height))
