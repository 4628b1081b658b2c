"""The selected limb's IK/FK switch (``rig.snap``), as Rigify's snap buttons: the IK constraint
tab's IK / FK buttons and Ctrl+Shift+I switch it without moving it. A switch is one undo step
(the frame's end records the pose and the constraint together); with auto-keying on it is keyed
at the current frame, as Key does: the switch (constant) and the limb's bones and handles, so a
shot switches there whether it is played, stepped or scrubbed."""
from imgui_bundle import imgui

from rig.keys import with_switch_key
from rig.snap import SNAP_TOLERANCE, fk_to_ik, ik_to_fk, limb_constraint, mode
from ui import widgets
from ui.timeline import insert_key

MODES = {"IK": fk_to_ik, "FK": ik_to_fk}


def selected_limb(state):
    """The IK constraint of the limb the active bone belongs to (chain, handle or pole), else of
    any selected bone's limb; None when there is none."""
    view = state.view
    for names in ({view.active} - {None}, view.selected):
        constraint = limb_constraint(state.rig, names)
        if constraint is not None:
            return constraint
    return None


def switch(state, constraint, to):
    """Switch ``constraint``'s limb to ``to`` ("IK" or "FK"), snapped; says what it did, and how
    far the limb moved where it could not stay (``rig.snap.Snap.notes`` say why)."""
    if state.drag is not None:
        return
    snap = MODES[to](state.rig, state.pose, constraint)
    state.pose = snap.pose
    constraint.influence, constraint.enabled = snap.influence, snap.enabled
    state.mark_dirty()
    if state.timeline.auto_key:
        key_switch(state, constraint)
    if snap.drift > SNAP_TOLERANCE:
        state.message = f"{constraint.bone} to {to}: it moved {snap.drift * 1000:.1f} mm ({'; '.join(snap.notes)})"
    else:
        state.message = f"{constraint.bone} to {to}, snapped in place"


def toggle_selected(state):
    """Ctrl+Shift+I: the selected limb to FK when it follows its IK, else to IK."""
    constraint = selected_limb(state)
    if constraint is None:
        state.message = "Select a bone of a limb with IK (its chain, handle or pole) to switch IK/FK"
        return
    switch(state, constraint, "FK" if mode(constraint) == "IK" else "IK")


def key_switch(state, constraint):
    """Key the limb's switch (constant) and its chain's, handle's and pole's channels at the current frame."""
    skel, frame = state.rig.skeleton, state.timeline.frame
    controls = [skel.index[n] for n in (constraint.target, constraint.pole_target) if n is not None]
    insert_key(state, sorted(set(state.rig.ik_chain(constraint)) | set(controls)))
    state.timeline.action = with_switch_key(state.timeline.action, constraint.bone, frame, constraint.influence)
    state.message = f"Keyed {constraint.bone}'s {mode(constraint)} and its bones at frame {frame}"


def ik_fk_row(state, constraint):
    """IK and FK (each snaps the limb over) and Key, on one row after what the caller drew."""
    now = mode(constraint)
    for label in MODES:
        if widgets.radio_button(f"{label}##ik_fk", now == label) and now != label:
            switch(state, constraint, label)
        imgui.set_item_tooltip(TOOLTIP)
        imgui.same_line()
    if widgets.small_button("Key##ik_fk"):
        key_switch(state, constraint)
    imgui.set_item_tooltip("Key the switch at this frame (it holds until the next), with the limb's bones and handles.")


TOOLTIP = ("Switch the limb between IK and FK without moving it (Ctrl+Shift+I), as Rigify's snap does:\n"
           "to FK, the solved rotations become the bones' own; to IK, the handle and the pole go\n"
           "where the limb ends and bends.")


def limb_switch(state):
    """The IK/FK row of the selected limb, for a selection the IK constraint tab shows no
    constraint for (a limb's upper bone): the tab's Enabled row has it otherwise."""
    constraint = selected_limb(state)
    if constraint is None or state.selected_constraint() is not None:
        return
    imgui.text(f"IK/FK of {constraint.bone}")
    imgui.same_line()
    ik_fk_row(state, constraint)
