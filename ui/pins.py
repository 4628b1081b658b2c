"""Pinning bones from the window (``rig.pins`` holds what a pin is).

A pin holds its bone where it was when pinned: the head's position and, unless it is
position-only, the bone's world rotation; every solve while pins exist holds them above every
other goal (``AppState.resolve`` calls ``rig.whole_body.solve_with_pins``). Each pin or unpin is
an undo step (the history snapshots the pins), and pins are saved with the pose and the session.
Pinning or unpinning moves nothing, so no solve is asked for.

An edit of a pinned bone itself takes its pin along, as a fixed point in Cascadeur or a pinned
effector in Maya's HumanIK moves when it is the one manipulated: a pin holds its bone against
everything else, not against the user's hand on it. A grab, a rotate, the gizmo, a typed value or a
clear (Alt+R, Alt+G, Reset pose) places the bone, and its pin goes where the edit puts it
(``carry``, ``follow_channels``), held there while the drag runs; a drag that pulls the bone by a
goal (Auto IK on it, or the IK handle whose chain ends at it or at the bone carrying it) lets its
pin go while it runs, the goal right below the other pins. When the drag is confirmed each such pin
records where it left its bone, in the same undo step as the edit (``end_edit``); cancelling leaves
the pins as they were. The other pins hold throughout.
"""
from dataclasses import replace

from render.pin_markers import PinMark
from rig.evaluate import active_ik
from rig.pins import moved_with, pin_where_it_is
from rig.pose import world_matrices


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
    """The markers the viewport draws: one per pin on a bone that is shown, a dragged bone's
    where it will stay."""
    return tuple(PinMark(name, pin.position, pin.holds_rotation) for name, pin in sorted(pins_after_edit(state).items())
                 if name not in state.view.hidden)


def pulled_by_handle(rig, name):
    """The bones a drag of bone ``name`` pulls when it is an IK handle: each active chain's last
    bone aiming at it and, where the chain's tail reaches it, the bones connected at that tail
    (the foot at the ankle the foot's handle pulls)."""
    skeleton, pulled = rig.skeleton, set()
    for constraint in active_ik(rig):
        if constraint.target == name:
            tip = skeleton.index[constraint.bone]
            pulled.add(constraint.bone)
            if constraint.use_tail:
                pulled.update(skeleton.names[c] for c in skeleton.children(tip) if skeleton.connected[c])
    return pulled


def lifted(state):
    """The pinned bones the running drag pulls by a goal (Auto IK on the bone, an IK handle's
    chain): their pins let go until it ends."""
    drag = state.drag
    if drag is None:
        return ()
    pulled = {drag.bone} if drag.kind == "auto_ik" else pulled_by_handle(state.rig, drag.bone)
    return tuple(sorted(pulled & set(state.pins)))


def carry(state, name, after):
    """During a drag that places bone ``name`` (grab, rotate, gizmo): its pin, if it has one, goes
    where the edit puts the bone, world matrix ``after`` (4, 4), from where it was when the drag began."""
    pin = state.pins.get(name)
    if pin is not None:
        drag = state.drag
        drag.pin_moves[name] = moved_with(pin, drag.world_before[state.rig.skeleton.index[name]], after)


def follow_channels(state, names, before):
    """After a typed edit of the channels of bones ``names`` (``before``: the pose it changed), each
    pinned one takes its pin along as the edit moved it; no drag runs, so at once (one undo step)."""
    pinned = [name for name in names if name in state.pins]
    if not pinned:
        return
    index = state.rig.skeleton.index
    old, new = world_matrices(state.rig.skeleton, before), world_matrices(state.rig.skeleton, state.pose)
    state.pins = {**state.pins, **{name: moved_with(state.pins[name], old[index[name]], new[index[name]])
                                   for name in pinned}}


def held_pins(state):
    """The pins a solve holds now: while a drag runs, the pins it moves where it puts them, those
    it pulls by a goal let go."""
    drag = state.drag
    if drag is None:
        return state.pins
    let_go = set(lifted(state))
    return {name: drag.pin_moves.get(name, pin) for name, pin in state.pins.items() if name not in let_go}


def pins_after_edit(state):
    """The pins as they would be were the running drag confirmed now: those it moves where it puts them, those it
    pulls where their bones are."""
    drag = state.drag
    if drag is None:
        return state.pins
    pins = {**state.pins, **drag.pin_moves}
    index = state.rig.skeleton.index
    for name in lifted(state):
        pins[name] = pin_where_it_is(state.world, index[name], pins[name].holds_rotation)
    return pins


def end_edit(state):
    """When a drag is confirmed, its last step solved: the pins of the bones it moved record where
    it left them."""
    moved = sorted(set(state.drag.pin_moves) | set(lifted(state)))
    if not moved:
        return
    state.pins = pins_after_edit(state)
    state.message = f"Pin moved with {_listed(moved)}"
