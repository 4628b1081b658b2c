"""What is under the pointer, Blender's click selection rules for bones and handles, and its
select all (A / Alt+A) and hide / reveal (H, Shift+H / Alt+H).

Positions are window pixels with a top-left origin; the picking math is ``render.picking``.
"""
import numpy as np

from render.picking import PickItems, pick
from render.style import DEFAULT_STYLE

HANDLE_RADIUS_PX = 14.0
BONE_RADIUS_PX = 9.0
HANDLE_BIAS_PX = 3.0
"""A handle wins over a bone at the same depth within this many pixels (a hand's IK handle sits
on the hand's head), so both stay pickable however small the rig is on screen."""


def rig_extent(skeleton):
    """Rest bounding-box diagonal in metres (handles are drawn at a fraction of it)."""
    rest = np.r_[skeleton.rest_heads, skeleton.rest_tails]
    return float(np.linalg.norm(rest.max(axis=0) - rest.min(axis=0))) if len(rest) else 1.0


def handle_sizes(rig, names):
    """Half-size (metres) of the shape each of ``names`` is drawn as when it is an IK handle (a
    cube, for targets) or a pole (a diamond), as ``render.rig_renderer`` sizes them."""
    targets, _ = rig.handle_bones()
    style, extent = DEFAULT_STYLE, rig_extent(rig.skeleton)
    return np.array([(style.handle_size if n in targets else style.pole_size) * extent for n in names])


def pickable(state):
    """(names, PickItems) of what is shown: handles and poles as points, bones as segments;
    hidden bones are left out. Shapes are sized as the renderer draws them (render.style)."""
    skeleton, view, style = state.rig.skeleton, state.view, DEFAULT_STYLE
    targets, poles = state.rig.handle_bones()
    handles = targets | poles
    names = [n for n in skeleton.names
             if n not in view.hidden and (view.show_handles if n in handles else view.show_bones)]
    index = np.array([skeleton.index[n] for n in names], dtype=int)
    is_handle = np.array([n in handles for n in names], dtype=bool)
    heads = state.world[index, :3, 3]
    tails = heads + state.world[index, :3, 1] * skeleton.lengths[index, None]
    ends = np.where(is_handle[:, None], heads, tails)
    radius = np.where(is_handle, HANDLE_RADIUS_PX, BONE_RADIUS_PX)
    handle_size = handle_sizes(state.rig, names)
    length = np.linalg.norm(tails - heads, axis=1)
    # A bone: its octahedron's waist near the head, its joint sphere at the tail.
    start = np.where(is_handle, handle_size, style.bone_waist * length)
    end = np.where(is_handle, handle_size, style.joint_radius * length)
    return names, PickItems(heads, ends, radius, np.where(is_handle, HANDLE_BIAS_PX, 0.0), start, end,
                            np.where(is_handle, handle_size, length))


def handle_width(skeleton):
    """How wide (metres) an IK handle's cube is drawn on ``skeleton``'s rig."""
    return 2.0 * DEFAULT_STYLE.handle_size * rig_extent(skeleton)


def pick_bone(state, x, y, width, height):
    """Name of the bone, handle or pole under the pointer, or None."""
    names, items = pickable(state)
    slack = handle_width(state.rig.skeleton)
    best = pick(state.camera, items, x, y, width, height, slack)
    return None if best is None else names[best]


def click_select(state, name, extend):
    """Blender's click: select ``name`` alone and make it active; with ``extend`` (Shift) add it,
    make a selected but inactive one active, or deselect the active one. A plain click on
    nothing clears the selection."""
    view = state.view
    if name is None:
        if not extend:
            view.selected, view.active = set(), None
        return
    if not extend:
        view.selected, view.active = {name}, name
    elif name not in view.selected:
        view.selected = view.selected | {name}
        view.active = name
    elif view.active != name:
        view.active = name
    else:
        view.selected = view.selected - {name}
        view.active = None


def select_all(state):
    """Blender's A: select every bone not hidden; the active bone stays active."""
    view = state.view
    view.selected = set(state.rig.skeleton.names) - view.hidden


def deselect_all(state):
    """Blender's Alt+A: as a click on empty space, nothing selected and nothing active."""
    click_select(state, None, False)


def hide(state, unselected=False):
    """Blender's H hides the selected bones (Shift+H, ``unselected``: the others); hidden bones
    leave the selection, and stop being active or hovered, so no tool acts on what is not seen."""
    view = state.view
    names = set(state.rig.skeleton.names) - view.selected if unselected else view.selected
    set_hidden(view, view.hidden | names)


def set_hidden(view, names):
    """Make ``names`` exactly the hidden bones of ``view``; those hidden leave the selection and
    stop being active or hovered."""
    view.hidden = set(names)
    view.selected = view.selected - view.hidden
    view.active = None if view.active in view.hidden else view.active
    view.hovered = None if view.hovered in view.hidden else view.hovered


def reveal(state):
    """Blender's Alt+H: show every hidden bone again, and select them as Blender does."""
    view = state.view
    view.selected = view.selected | view.hidden
    view.hidden = set()


def update_hover(state, x, y, width, height):
    state.view.hovered = pick_bone(state, x, y, width, height)
