"""ImGui panels, one function each. They read and write the app's state objects and return
whether they changed anything that needs a new solve."""
import math

from imgui_bundle import imgui

from rig.constraints import SOLVE_MODES, SOLVER_TYPES


def _help(text):
    """Dear ImGui's "(?)" marker with a tooltip, for settings that need a word."""
    imgui.same_line()
    imgui.text_disabled("(?)")
    if imgui.is_item_hovered():
        imgui.set_tooltip(text)


def _combo(label, value, choices):
    changed, index = imgui.combo(label, choices.index(value), list(choices))
    return changed, choices[index]


def solver_panel(state):
    settings = state.rig.solver
    dirty = False
    changed, settings.type = _combo("Solver", settings.type, SOLVER_TYPES)
    dirty |= changed
    _help("auto: one-bone for chains of 1, two-bone for 2, FABRIK for longer chains.")
    changed, settings.iterations = imgui.slider_int("Iterations", settings.iterations, 1, 1000)
    dirty |= changed
    changed, tolerance = imgui.input_float("Tolerance", settings.tolerance, 0.0, 0.0, "%.1e")
    if changed and math.isfinite(tolerance) and tolerance >= 0.0:
        settings.tolerance = tolerance
        dirty = True
    changed, settings.mode = _combo("Start from", settings.mode, SOLVE_MODES)
    dirty |= changed
    _help("continuous: each solve starts from the current pose.\noriginal_pose: from the rest pose.")
    return dirty


def ik_constraint_panel(state):
    """Every field of the selected IK constraint (Blender's Inverse Kinematics panel)."""
    constraint = state.selected_constraint()
    if constraint is None:
        imgui.text_wrapped("Select an IK handle, a pole or a chain's last bone to edit its IK constraint.")
        return False
    bones = [""] + state.rig.skeleton.names
    imgui.text(f"IK constraint on {constraint.bone}")
    dirty = False
    changed, constraint.enabled = imgui.checkbox("Enabled", constraint.enabled)
    dirty |= changed
    changed, target = _combo("Target", constraint.target or "", bones)
    if changed:
        constraint.target = target or None
        dirty = True
    changed, pole = _combo("Pole target", constraint.pole_target or "", bones)
    if changed:
        constraint.pole_target = pole or None
        dirty = True
    changed, degrees = imgui.slider_float("Pole angle", math.degrees(constraint.pole_angle), -180.0, 180.0, "%.1f deg")
    if changed and math.isfinite(degrees):
        constraint.pole_angle = math.radians(degrees)
        dirty = True
    _help("Rotates the chain about the root-to-target axis; at 0 the first bone's X axis faces the pole.")
    changed, constraint.chain_count = imgui.slider_int("Chain length", constraint.chain_count, 0, 255)
    dirty |= changed
    _help("How many bones the IK moves; 0 means every bone up to the root.")
    changed, constraint.iterations = imgui.slider_int("Iterations##ik", constraint.iterations, 1, 10000)
    dirty |= changed
    for label, attribute in (("Use tail", "use_tail"), ("Stretch", "use_stretch"),
                             ("Position", "use_location"), ("Rotation", "use_rotation")):
        changed, value = imgui.checkbox(label, getattr(constraint, attribute))
        if changed:
            setattr(constraint, attribute, value)
            dirty = True
    for label, attribute, low in (("Weight position", "weight", 0.01), ("Weight rotation", "orient_weight", 0.01),
                                  ("Influence", "influence", 0.0)):
        changed, value = imgui.slider_float(label, getattr(constraint, attribute), low, 1.0)
        if changed and math.isfinite(value):
            setattr(constraint, attribute, min(max(value, low), 1.0))
            dirty = True
    return dirty


def stats_panel(state):
    stats = state.stats
    if state.deterministic:
        imgui.text_disabled("timings hidden in deterministic mode")
    else:
        imgui.text(f"frame {stats.frame_ms:6.2f} ms   solve {stats.solve_us:7.1f} us")
    imgui.text(f"iterations {stats.iterations}   residual {stats.error:.2e} m")


def view_panel(state):
    """What the viewport draws: the skinned mesh, the bones, both, and bones over the mesh."""
    view = state.view
    if state.mesh is not None:
        _, view.show_mesh = imgui.checkbox("Mesh", view.show_mesh)
        imgui.same_line()
    _, view.show_bones = imgui.checkbox("Bones", view.show_bones)
    if state.mesh is not None:
        imgui.same_line()
        _, view.xray_bones = imgui.checkbox("X-ray", view.xray_bones)
        _help("Draw bones and handles over the mesh instead of hidden inside it")


PANEL_WIDTH = 330


def main_panel(state):
    """The docked side panel; returns whether the pose needs a new solve."""
    menu_bar = imgui.get_frame_height()  # the main menu bar's height (its work area starts a frame late)
    imgui.set_next_window_pos(imgui.ImVec2(8, menu_bar + 8), imgui.Cond_.first_use_ever)
    # A fixed width: wrapped text in an auto-sized window would otherwise make its width depend
    # on the width it had before, so the same scene could lay the panel out two ways.
    imgui.set_next_window_size_constraints(imgui.ImVec2(PANEL_WIDTH, 0), imgui.ImVec2(PANEL_WIDTH, 1e6))
    imgui.begin("Posekit", None, imgui.WindowFlags_.always_auto_resize)
    dirty = False
    if imgui.collapsing_header("Solver", imgui.TreeNodeFlags_.default_open):
        dirty |= solver_panel(state)
    if imgui.collapsing_header("IK constraint", imgui.TreeNodeFlags_.default_open):
        dirty |= ik_constraint_panel(state)
    if imgui.collapsing_header("Stats", imgui.TreeNodeFlags_.default_open):
        stats_panel(state)
    if imgui.collapsing_header("View"):
        view_panel(state)
    if state.message:
        imgui.text_wrapped(state.message)
    imgui.end()
    return dirty
