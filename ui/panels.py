"""ImGui panels, one function each. They read and write the app's state objects and return
whether they changed anything that needs a new solve. They live in the docked windows of ``ui.docked``
around the viewport, so a press in one is always the panel's, never the viewport's."""
import dataclasses
import math

import numpy as np

from imgui_bundle import imgui

from rig.constraints import IK_TYPES, LIMIT_MODES, RANGES, REFERENCE_AXES, SOLVE_MODES, SOLVER_TYPES, IKConstraint, \
    clamp_setting
from rig.ranges import MAX_COORDINATE, MAX_SCALE
from solvers.methods import FEATURES
from solvers.transforms import euler_xyz_from_quat, quat_from_euler_xyz
from ui import widgets
from ui.auto_setup import LIMB_ROLES, apply_auto_setup, choose_limb_end, current_setup, limbs_to_set_up
from ui.honoured import WARNING_COLOUR, dropped_settings, not_honoured_marker, reports_moving
from ui.ik_fk import ik_fk_row
from ui.navigation import frame_bones
from ui.pins import follow_channels

AXES = "XYZ"


def help_marker(text):
    """Dear ImGui's "(?)" marker with a tooltip, for settings that need a word."""
    imgui.same_line()
    imgui.text_disabled("(?)")
    if imgui.is_item_hovered():
        imgui.set_tooltip(text)


# Sliders keep to the settings' ranges even when a value is typed (Ctrl+click), so every value a
# panel takes is one the loaders take.
CLAMP = imgui.SliderFlags_.always_clamp
CHECKBOX_COLUMN = 140.0  # pixels from the panel's left: the second checkbox of a row
NO_LIMB = "(none)"


def wrapped(text, colour=None):
    """Text wrapped at the panel's edge (docked panels have the width the layout gives them)."""
    imgui.push_text_wrap_pos(0.0)
    if colour is None:
        imgui.text_unformatted(text)
    else:
        imgui.text_colored(colour, text)
    imgui.pop_text_wrap_pos()


def _combo(label, value, choices):
    changed, index = widgets.combo(label, choices.index(value), list(choices))
    return changed, choices[index]


def solver_panel(state):
    settings = state.rig.solver
    dirty = False
    changed, settings.type = _combo("Solver##solver_type", settings.type, SOLVER_TYPES)
    dirty |= changed
    help_marker("auto: for each chain, the fastest methods that honour every setting it holds\n"
                "(one-bone, two-bone, FABRIK, CCD, DLS), the next taking over when one falls short.\n"
                "A forced solver runs as asked; the IK constraint tab marks what it does not honour.")
    changed, settings.iterations = widgets.slider_int("Iterations", settings.iterations, *RANGES["iterations"],
                                                    flags=CLAMP)
    dirty |= changed
    changed, tolerance = widgets.input_float("Tolerance", settings.tolerance, 0.0, 0.0, "%.1e")
    if changed:
        settings.tolerance = _clamped_with_note(state, "tolerance", "Tolerance", tolerance, "m")
        dirty = True
    help_marker(f"A chain whose residual is under this many metres stops iterating ({RANGES['tolerance'][0]:g} to "
                f"{RANGES['tolerance'][1]:g}).")
    changed, settings.mode = _combo("Start from", settings.mode, SOLVE_MODES)
    dirty |= changed
    help_marker("continuous: each solve starts from the current pose.\noriginal_pose: from the rest pose.")
    changed, settings.use_target_rotations = widgets.checkbox("Target rotations", settings.use_target_rotations)
    dirty |= changed
    help_marker("Every chain's last bone also takes its target's rotation, as if each constraint had Rotation on.")
    changed, damping = widgets.slider_float("Damping", settings.damping, 0.0, 1.0, "%.3f", CLAMP)
    if changed:
        settings.damping = clamp_setting("damping", damping)
        dirty = True
    help_marker("DLS and SDLS only: how much each step is damped near unreachable targets and\n"
                "straight chains (more: steadier, slower to converge). Ctrl+click to type up to 100.")
    return dirty


def _clamped_with_note(state, name, label, value, unit):
    """``value`` clamped to setting ``name``'s range; the status bar says so when that changed it
    (a field, unlike a slider, shows no range)."""
    clamped = clamp_setting(name, value)
    low, high = RANGES[name]
    note = f"is outside {low:g} to {high:g} {unit}"
    if clamped != value:
        state.message = f"{label} {value:g} {unit} {note}: set to {clamped:g} {unit}"
    elif state.message.startswith(f"{label} ") and note in state.message:
        state.message = ""  # typing on ("1" on the way to "1e-4") made it right: the note no longer holds
    return clamped


def _handle_choices(state, constraint):
    """"" (none) and the rig's IK handles and poles, the constraint's own bone and chain excluded."""
    targets, poles = state.rig.handle_bones()
    chain = {state.rig.skeleton.names[i] for i in state.rig.ik_chain(constraint)} | {constraint.bone}
    return [""] + sorted((targets | poles) - chain)


def ik_constraint_panel(state):
    """Every field of the selected IK constraint (Blender's Inverse Kinematics panel), and adding
    or removing one on the active bone."""
    constraint = state.selected_constraint()
    active = state.view.active
    if constraint is None:
        if active is None:
            wrapped("Select a bone, an IK handle or a pole to edit its IK constraint.")
            return False
        if widgets.button(f"Add IK constraint to {active}"):
            state.rig.ik.append(IKConstraint(active))
            state.message = f"IK constraint added to {active}: choose its target"
        help_marker("Blender's Inverse Kinematics constraint on this bone; it solves once it has a target.")
        return False
    imgui.text(f"IK constraint on {constraint.bone}")
    imgui.same_line()
    if widgets.small_button("Remove"):
        state.rig.ik.remove(constraint)
        return True
    choices = _handle_choices(state, constraint)
    dirty = False
    changed, constraint.enabled = widgets.checkbox("Enabled", constraint.enabled)
    dirty |= changed
    if constraint.target is not None:
        imgui.same_line(CHECKBOX_COLUMN)
        ik_fk_row(state, constraint)  # a switch asks for its own solve
    changed, target = _combo("Target", constraint.target or "", sorted(set(choices) | {constraint.target or ""}))
    if changed:
        constraint.target = target or None
        dirty = True
    help_marker("The IK handle the chain reaches for (none: the constraint does nothing).")
    changed, pole = _combo("Pole target", constraint.pole_target or "", sorted(set(choices) | {constraint.pole_target or ""}))
    if changed:
        constraint.pole_target = pole or None
        dirty = True
    help_marker("The handle the chain bends toward (a knee or elbow points at it).")
    changed, degrees = widgets.slider_float("Pole angle", math.degrees(constraint.pole_angle),
                                          *map(math.degrees, RANGES["pole_angle"]), "%.1f deg", CLAMP)
    if changed:
        constraint.pole_angle = math.radians(degrees)
        dirty = True
    help_marker("Rotates the chain about the root-to-target axis; at 0 the first bone's X axis faces the pole.")
    changed, constraint.chain_count = widgets.slider_int("Chain length", constraint.chain_count,
                                                       *RANGES["chain_count"], flags=CLAMP)
    dirty |= changed
    help_marker("How many bones the IK moves; 0 means every bone up to the root.")
    changed, constraint.iterations = widgets.slider_int("Iterations##ik", constraint.iterations, *RANGES["iterations"],
                                                      flags=CLAMP)
    dirty |= changed
    dropped = dropped_settings([r for r in state.reports if r.bone == constraint.bone])
    dirty |= _constraint_solver(constraint, dropped)
    for k, (label, attribute, feature) in enumerate(CONSTRAINT_SWITCHES):
        if k % 2:  # two a row, as Blender lays them out
            imgui.same_line(CHECKBOX_COLUMN)
        changed, value = widgets.checkbox(label, getattr(constraint, attribute))
        not_honoured_marker(dropped, feature)
        if changed:
            setattr(constraint, attribute, value)
            dirty = True
    for label, attribute, feature in (("Weight position", "weight", "weights"),
                                      ("Weight rotation", "orient_weight", None), ("Influence", "influence", None)):
        changed, value = widgets.slider_float(label, getattr(constraint, attribute), *RANGES[attribute], flags=CLAMP)
        not_honoured_marker(dropped, feature)
        if changed:
            setattr(constraint, attribute, clamp_setting(attribute, value))
            dirty = True
    help_marker("Influence blends the chain's FK pose (0) with the IK result (1).")
    changed, soft = widgets.slider_float("Soft reach", constraint.soft_reach, 0.0, 0.5, "%.3f m", CLAMP)
    not_honoured_marker(dropped, "soft reach")
    if changed:
        constraint.soft_reach = clamp_setting("soft_reach", soft)
        dirty = True
    help_marker("Game engines' soft IK (two-bone chains): the reach eases in over this distance before\n"
                "full extension, so a knee or elbow never snaps straight. 0: off.")
    if widgets.collapsing_header("iTaSC (DLS, SDLS)"):
        dirty |= _itasc_fields(constraint, dropped)
    return dirty


# The IK constraint's checkboxes: label, field, the solver feature it asks for (solvers.methods).
CONSTRAINT_SWITCHES = (("Use tail", "use_tail", None), ("Stretch", "use_stretch", "stretch"),
                       ("Position", "use_location", "location off"), ("Rotation", "use_rotation", "target rotation"))


def _constraint_solver(constraint, dropped):
    """The constraint's own solver (auto: the Solver tab's), and what the one that ran could not do."""
    changed, constraint.solver = _combo("Solver##constraint_solver", constraint.solver, SOLVER_TYPES)
    help_marker("The method for this chain; auto takes the Solver tab's choice. A method that cannot take\n"
                "the chain, or drops a setting, is named here and beside the setting.")
    for feature, reasons in dropped.items():
        if feature not in FEATURES:  # the method itself gave way ("two_bone takes chains of 2 bones, ...")
            for reason in reasons:
                wrapped(f"{feature}: {reason.partition(': ')[2]}", WARNING_COLOUR)
    return changed


def _itasc_fields(constraint, dropped):
    """Blender's iTaSC settings: copy pose or distance, the distance and its limit mode, position and
    rotation locks and the axes they are in."""
    dirty = False
    changed, constraint.ik_type = _combo("Type##ik_type", constraint.ik_type, IK_TYPES)
    not_honoured_marker(dropped, "distance")
    help_marker("copy_pose: the tip goes to the target. distance: it keeps a distance from it.")
    dirty |= changed
    if constraint.ik_type == "distance":
        changed, distance = widgets.slider_float("Distance", constraint.distance, 0.0, 5.0, "%.3f m", CLAMP)
        if changed:
            constraint.distance = clamp_setting("distance", distance)
            dirty = True
        changed, constraint.limit_mode = _combo("Limit mode", constraint.limit_mode, LIMIT_MODES)
        help_marker("inside: at most the distance; outside: at least; on_surface: exactly.")
        dirty |= changed
    changed, constraint.lock_location = _per_axis("Lock location", constraint.lock_location, widgets.checkbox)
    not_honoured_marker(dropped, "location locks")
    help_marker("The tip may move freely along a locked axis (of the bone or the target, below).")
    dirty |= changed
    changed, constraint.lock_rotation = _per_axis("Lock rotation", constraint.lock_rotation, widgets.checkbox)
    not_honoured_marker(dropped, "rotation locks")
    help_marker("With Rotation on: a locked axis of the last bone is left free to turn.")
    dirty |= changed
    changed, constraint.reference_axis = _combo("Reference axis", constraint.reference_axis, REFERENCE_AXES)
    help_marker("The axes the location locks are in: the bone's own, or the target's.")
    return dirty | changed


def _per_axis(label, values, widget):
    """One ImGui widget per axis on a row; returns (changed, new tuple)."""
    out, changed = list(values), False
    for k, axis in enumerate(AXES):
        imgui.push_id(f"{label}{axis}")
        if k:
            imgui.same_line()
        imgui.set_next_item_width(70.0)
        hit, out[k] = widget(axis, out[k])
        changed |= hit
        imgui.pop_id()
    imgui.same_line()
    imgui.text(label)
    return changed, tuple(out)


def _clamped_drag(bound, speed, fmt):
    """A per-axis drag field held within +-``bound`` (the loaders' range for the channel)."""
    def drag(axis, value):
        changed, value = widgets.drag_float(axis, value, speed, -bound, bound, fmt, CLAMP)
        return changed, min(max(value, -bound), bound)
    return drag


def transform_panel(state):
    """The active bone's pose channels, as Blender's Transform panel shows them: location (metres,
    in the bone's rest frame), rotation (Euler XYZ degrees) and scale; returns whether one changed."""
    name = state.view.active
    if name is None:
        return False
    bone = state.rig.skeleton.index[name]
    pose = state.pose
    changed, location = _per_axis("Location", tuple(pose.locations[bone]), _clamped_drag(MAX_COORDINATE, 0.005, "%.3f"))
    hit, degrees = _per_axis("Rotation", tuple(np.degrees(euler_xyz_from_quat(pose.rotations[bone])) + 0.0),  # no -0.0
                             _clamped_drag(180.0, 0.5, "%.1f"))
    help_marker("Euler XYZ, degrees, relative to the rest pose. A bone in an IK chain is posed by its IK;\n"
                "its channels here are where that solve starts.")
    scaled, scale = _per_axis("Scale", tuple(pose.scales[bone]), _clamped_drag(MAX_SCALE, 0.005, "%.3f"))
    before = pose.copy() if changed or hit or scaled else None
    if changed:
        pose.locations[bone] = location
    if hit:
        pose.rotations[bone] = quat_from_euler_xyz(np.radians(degrees))
    if scaled:
        pose.scales[bone] = scale
    if before is not None:
        follow_channels(state, [name], before)  # a pinned bone's pin goes where the values put it
    return changed or hit or scaled


def _degrees_slider(axis, radians):
    changed, degrees = widgets.slider_float(axis, math.degrees(radians), *map(math.degrees, RANGES["limit"]), "%.0f",
                                          CLAMP)
    return changed, clamp_setting("limit", math.radians(degrees))


def bone_ik_panel(state):
    """Blender's bone IK panel for the active bone: lock, stiffness and limits per axis, stretch,
    Control Rotation; settings the solve of a chain moving the bone did not honour are marked."""
    name = state.view.active
    if name is None:
        imgui.text_disabled("no active bone")
        return False
    settings = state.rig.ik_settings(name)
    dropped = dropped_settings(reports_moving(state, name))
    imgui.text(name)
    fields = {}
    changed, fields["lock"] = _per_axis("Lock", settings.lock, widgets.checkbox)
    not_honoured_marker(dropped, "locks")
    help_marker("A locked axis never rotates under IK, as in Blender: Y is the twist about the bone's own axis\n"
                "(lock Y: the bone swings but never twists), X and Z its swing.")
    hit, fields["stiffness"] = _per_axis("Stiffness", settings.stiffness,
                                         lambda axis, v: widgets.slider_float(axis, v, *RANGES["stiffness"], "%.2f", CLAMP))
    changed |= hit
    not_honoured_marker(dropped, "stiffness")
    help_marker("How much the bone resists rotating about this axis (0 = free): a stiff joint turns less and\n"
                "the others take up the move (CCD, DLS, SDLS).")
    hit, fields["use_limit"] = _per_axis("Limit", settings.use_limit, widgets.checkbox)
    changed |= hit
    not_honoured_marker(dropped, "limits")
    hit, fields["limit_min"] = _per_axis("Min", settings.limit_min, _degrees_slider)
    changed |= hit
    hit, fields["limit_max"] = _per_axis("Max", settings.limit_max, _degrees_slider)
    changed |= hit
    help_marker("Per-axis range in degrees where Limit is on, as Blender's IK reads it: Y bounds the twist about\n"
                "the bone's own axis, X and Z its swing (with both, within an ellipse); every solver holds it.")
    hit, fields["stretch"] = widgets.slider_float("IK stretch", settings.stretch, *RANGES["stretch"], flags=CLAMP)
    changed |= hit
    not_honoured_marker(dropped, "stretch")
    help_marker("How much the bone may stretch to reach the target (with the constraint's Stretch on).")
    hit, fields["use_rotation_control"] = widgets.checkbox("Control rotation", settings.use_rotation_control)
    changed |= hit
    not_honoured_marker(dropped, "rotation control")
    help_marker("iTaSC's joint rotation: the solve also pulls the bone toward the rotation it has now\n"
                "(DLS, SDLS), with the weight below.")
    hit, fields["rotation_weight"] = widgets.slider_float("Rotation weight", settings.rotation_weight,
                                                          *RANGES["rotation_weight"], flags=CLAMP)
    changed |= hit
    if changed:
        fields["stretch"] = clamp_setting("stretch", fields["stretch"])
        fields["rotation_weight"] = clamp_setting("rotation_weight", fields["rotation_weight"])
        state.rig.bone_ik[name] = dataclasses.replace(settings, **fields)
    return changed


def _axis_checkbox(axis, value):
    changed, value = widgets.checkbox(axis, value)
    imgui.set_item_tooltip(f"Copy the target's {axis} angle (world space, Euler XYZ); off keeps the bone's own.")
    return changed, value


def _copy_rotation_fields(constraint):
    """One Copy Rotation constraint's settings; returns whether any changed."""
    imgui.text(f"{constraint.bone} copies {constraint.target}")
    dirty, constraint.enabled = widgets.checkbox("Enabled", constraint.enabled)
    imgui.set_item_tooltip("Off: the bone keeps its own rotation.")
    changed, constraint.use_axes = _per_axis("Axes", constraint.use_axes, _axis_checkbox)
    dirty |= changed
    changed, influence = widgets.slider_float("Influence", constraint.influence, *RANGES["influence"], flags=CLAMP)
    imgui.set_item_tooltip("Blends the bone's own world rotation (0) with the copied one (1).\n"
                           "The bone's pose channel stays as you set it.")
    if changed:
        constraint.influence = clamp_setting("influence", influence)
    return dirty or changed


def copy_rotation_panel(state):
    """The rig's Copy Rotation constraints (Blender's, World Space to World Space, Euler XYZ, mix
    Replace): enabled, the axes copied, influence."""
    if not state.rig.copy_rotation:
        imgui.text_disabled("this rig has no Copy Rotation constraints")
    dirty = False
    for k, constraint in enumerate(state.rig.copy_rotation):
        imgui.push_id(f"copy_rotation{k}")  # the same labels on every constraint
        dirty |= _copy_rotation_fields(constraint)
        imgui.pop_id()
    return dirty


VIEW_BUTTONS = (("Front", "front"), ("Right", "side"), ("Top", "top"),
                ("Back", "back"), ("Left", "left"), ("Bottom", "bottom"))


def view_panel(state):
    """What the viewport shows (the skinned mesh too, when the rig has one), and the named views
    (numpad 1/3/7, Ctrl for the opposite)."""
    view = state.view
    for label, attribute in (("Bones", "show_bones"), ("Handles", "show_handles"), ("Grid", "show_grid"),
                             ("Axes", "show_axes"), ("Names", "show_names")):
        if attribute not in ("show_bones", "show_axes"):
            imgui.same_line()
        _, value = widgets.checkbox(label, getattr(view, attribute))
        setattr(view, attribute, value)
    _, view.show_solver = widgets.checkbox("Solver state##show_solver", view.show_solver)
    help_marker("Over the viewport: a red line from a chain's tip to the target it cannot reach, with the\n"
          "distance; an orange ring on each joint held at its limit; while a handle is dragged, the\n"
          "sphere its chain can reach.")
    if state.mesh is not None:
        _, view.show_mesh = widgets.checkbox("Mesh", view.show_mesh)
        imgui.same_line()
        _, view.xray_bones = widgets.checkbox("X-ray", view.xray_bones)
        help_marker("Draw bones and handles over the mesh instead of hidden inside it")
    for k, (label, name) in enumerate(VIEW_BUTTONS):
        if k % 3:
            imgui.same_line()
        if widgets.button(label, imgui.ImVec2(64.0, 0.0)):
            state.camera.set_view(name)
    camera = state.camera
    if widgets.button("Orthographic" if camera.orthographic else "Perspective", imgui.ImVec2(98.0, 0.0)):
        camera.toggle_projection()
    help_marker("Numpad 5 toggles too. Navigate: middle drag (or Alt+left) orbits, Shift+middle pans,\n"
          "Ctrl+middle drag (up: in) or the wheel zooms. Help > Keymap lists every key.")
    imgui.same_line()
    if widgets.button("Frame (F)"):
        size = imgui.get_io().display_size
        frame_bones(state, size.x, max(size.y, 1.0), view.selected)


def auto_setup_panel(state):
    """What automatic IK set-up recognises (role -> bones) and a button to apply it; returns
    whether it changed the rig (it solves the new rig itself)."""
    setup = current_setup(state)
    report = setup.report
    if not report.roles:
        imgui.text_disabled("no limbs recognised")
        return False
    for role, bones in report.roles.items():
        how = report.found_by.get(role)
        imgui.text(f"{role}: {', '.join(bones)}" + (f"  ({how})" if how else ""))
    for warning in report.warnings:
        imgui.text_disabled(warning)
    if setup.applied:
        imgui.text_disabled(f"created {', '.join(report.created)}")
    pending = limbs_to_set_up(state)
    label = "Set up IK automatically" if not setup.applied else "Re-run set-up"
    if not pending:
        imgui.begin_disabled()
    clicked = widgets.button(label)
    if not pending:
        imgui.end_disabled()
    help_marker("Adds hand/foot IK handles, elbow/knee poles and IK constraints to the limbs above\n"
          "that have no IK constraint yet. Undo (Ctrl+Z) takes it back.")
    if not setup.applied and widgets.tree_node("Fix limbs"):
        _limb_choices(state, report)
        imgui.tree_pop()
    return bool(clicked and pending and apply_auto_setup(state))


def _limb_choices(state, report):
    """One combo per limb: the hand or foot bone it ends at (its parent and grandparent make the
    rest of the limb), or none."""
    choices = [NO_LIMB] + list(state.rig.skeleton.names)
    for role in LIMB_ROLES:
        current = report.roles[role][2] if role in report.roles else NO_LIMB
        changed, end = _combo(f"{role} ends at", current, choices)
        if changed:
            choose_limb_end(state, role, None if end == NO_LIMB else end)
