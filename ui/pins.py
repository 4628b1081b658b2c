"""Pinning bones from the window (``rig.pins`` holds what a pin is).

A pin holds its bone where it was when pinned: the head's position and, unless it is
position-only, the bone's world rotation; every solve while pins exist holds them above every
other goal (``AppState.resolve`` calls ``rig.whole_body.solve_with_pins``). Each pin or unpin is
an undo step (the history snapshots the pins), and pins are saved with the pose and the session.
Pinning or unpinning moves nothing, so no solve is asked for.
"""
from dataclasses import replace

from render.pin_markers import PinMark
from rig.pins import pin_where_it_is


def pin_bones(state, names, rotation=True):
    """Pin each bone of ``names`` where it is now (again, if it was pinned: the pin moves there);
    ``rotation`` False pins positions only."""
    index = state.rig.skeleton.index
    state.pins = {**state.pins, **{name: pin_where_it_is(state.world, index[name], rotation) for name in names}}


def unpin_bones(state, names):
    state.pins = {name: pin for name, pin in state.pins.items() if name not in names}


def pin_selected(state, rotation=True):
    """P (``rotation``) or Shift+P (position only): pin the selected bones where they are."""
    names = sorted(state.view.selected)
    if not names:
        state.message = "Nothing to pin: select bones first"
        return
    pin_bones(state, names, rotation)
    what = "" if rotation else " (position only)"
    state.message = f"Pinned {_listed(names)}{what}"


def unpin_selected(state):
    """Alt+P: unpin the selected bones, or every bone when none is selected (as Alt+R clears
    every bone's rotation then)."""
    names = sorted(state.view.selected & set(state.pins)) if state.view.selected else sorted(state.pins)
    if not names:
        state.message = "No pins to remove" if not state.pins else "None of the selected bones is pinned"
        return
    unpin_bones(state, names)
    state.message = f"Unpinned {_listed(names)}"


def set_pinned(state, name, pinned, rotation=True):
    """Pin bone ``name`` where it is (``rotation``: its rotation too), or unpin it."""
    if pinned:
        pin_bones(state, [name], rotation)
    else:
        unpin_bones(state, [name])


def hold_rotation(state, name, holds):
    """Make the pin on ``name`` hold its bone's rotation (as it is now) or its position only;
    its position stays where it was pinned."""
    pin = state.pins[name]
    rotation = pin_where_it_is(state.world, state.rig.skeleton.index[name]).rotation if holds else None
    state.pins = {**state.pins, name: replace(pin, rotation=rotation)}


def _listed(names, most=3):
    """"foot.L, foot.R" or "foot.L, foot.R, hand.L and 2 more"."""
    shown = ", ".join(names[:most])
    return shown if len(names) <= most else f"{shown} and {len(names) - most} more"


def pin_marks(state):
    """The markers the viewport draws: one per pin on a bone that is shown."""
    return tuple(PinMark(name, pin.position, pin.holds_rotation) for name, pin in sorted(state.pins.items())
                 if name not in state.view.hidden)
