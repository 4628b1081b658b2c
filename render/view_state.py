"""What the viewport shows and highlights, decided by the UI and read by the renderer."""
from dataclasses import dataclass, field, fields, is_dataclass

import numpy as np


@dataclass
class AxisLine:
    """The axis a running transform is locked to: the line through world ``point`` along the unit
    ``direction``, drawn in the colour of world axis ``axis`` (0, 1, 2 for X, Y, Z)."""
    point: np.ndarray
    direction: np.ndarray
    axis: int


@dataclass
class ViewState:
    """Per-frame display state. Bone names, not indices, so it survives rig reloads.

    ``selected``: bones drawn in the selection colour; ``active``: the last one clicked (what the
    bone panels and the rotate tool act on); ``active_chain``: bones of the IK chain
    being dragged or edited (drawn in the chain colour unless selected); ``hovered``: the bone under
    the mouse, lightened. ``hidden``: bones hidden one by one (Blender's H), neither drawn nor
    picked. ``show_*`` toggle bones (with their joints), IK handles and pole targets
    (with pole lines), the ground grid, the axis lines, bone names (drawn by the UI as text) and
    the skinned mesh (when the rig has one); with ``xray_bones`` bones and handles are drawn over
    the mesh instead of inside it. ``constraint_line``: the ``AxisLine`` of a transform's axis
    lock, drawn while it holds. ``show_solver`` asks for the solver's state (residual lines,
    limit rings, reach shells); ``solver_overlay`` is what of it to draw this frame, a
    ``render.solver_overlay.SolverOverlay`` (None: nothing). ``pins``: the pin markers to draw,
    ``render.pin_markers.PinMark``s (those of shown bones); ``trackers`` the tracker glyphs of an
    opened tracker stream at the frame shown, ``render.tracker_markers.TrackerMark``s.
    """
    selected: set = field(default_factory=set)
    active: str | None = None
    active_chain: set = field(default_factory=set)
    hovered: str | None = None
    hidden: set = field(default_factory=set)
    show_bones: bool = True
    show_handles: bool = True
    show_grid: bool = True
    show_axes: bool = True
    show_names: bool = False
    show_mesh: bool = True
    xray_bones: bool = True
    constraint_line: AxisLine | None = None
    show_solver: bool = True
    solver_overlay: object = None
    pins: tuple = ()
    trackers: tuple = ()

    def key(self):
        """This state as a value equal to another state's key exactly when every field is equal:
        arrays by their bytes (``repr`` would print them, ~0.1 ms a frame, and round them to 8
        digits). The window compares it to tell a moving scene from a still one."""
        return _snapshot(self)


def _snapshot(value):
    """``value`` (records, arrays, sets, tuples of them) as nested tuples of plain comparable values."""
    if isinstance(value, np.ndarray):
        return value.dtype.str, value.shape, value.tobytes()
    if is_dataclass(value):
        return type(value), tuple(_snapshot(getattr(value, f.name)) for f in fields(value))
    if isinstance(value, (set, frozenset)):
        return frozenset(value)
    if isinstance(value, (tuple, list)):
        return tuple(_snapshot(item) for item in value)
    return value
