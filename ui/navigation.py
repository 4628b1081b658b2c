"""Viewport navigation Blender's way: what a middle drag does, framing bones (``ui.input`` binds
the numpad views)."""
import itertools

import numpy as np
from pyglet.window import key

from rig.pose import heads_tails
from ui.selection import handle_sizes, handle_width

VIEW_MARGIN = 1.4  # Blender's VIEW3D_MARGIN: framing leaves this much room around what it fits
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
    keeping the view angle, as Blender's View Selected and View All do: what the bones draw (a
    bone from head to tail, an IK handle's or pole's shape about its head) with Blender's margin
    around it, never closer than the largest of them needs to be seen whole, nor than a handle
    does (a point's bounds get that size)."""
    skeleton = state.rig.skeleton
    names = names or [n for n in skeleton.names if n not in state.view.hidden] or skeleton.names
    targets, poles = state.rig.handle_bones()
    bones = [skeleton.index[n] for n in names if n not in targets | poles]
    handles = [n for n in names if n in targets | poles]
    heads, tails = heads_tails(skeleton, state.world)
    corners, sizes = handle_corners(state, handles)
    size = max([handle_width(skeleton), *skeleton.lengths[bones], *sizes])
    state.camera.frame_points(np.vstack([heads[bones], tails[bones], corners]), aspect=width / height,
                              rect=state.free_rect(width, height), size=size, margin=VIEW_MARGIN)


def handle_corners(state, names):
    """The world corners (8 per handle) of the cubes IK handles or poles ``names`` fit in, as
    drawn (a pole's diamond touches its cube's faces), and each cube's diagonal (metres)."""
    half = handle_sizes(state.rig, names)
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=3)))
    index = [state.rig.skeleton.index[n] for n in names]
    world = state.world[index]  # (H, 4, 4)
    offsets = signs[None] * half[:, None, None]  # (H, 8, 3)
    corners = world[:, None, :3, 3] + np.einsum("hij,hkj->hki", world[:, :3, :3], offsets)
    return corners.reshape(-1, 3), list(2.0 * np.sqrt(3.0) * half)
