"""The docked windows around the viewport (``ui.layout`` places them): the outliner, the
properties with one tab per panel, the timeline strip with the pose tools, and the error toast
over the viewport. The status bar is ``ui.status``'s."""
from imgui_bundle import imgui

from ui import widgets
from ui.auto_setup import should_offer, show_auto_setup
from ui.ground_panel import ground_panel
from ui.ik_fk import limb_switch
from ui.layout import OUTLINER, PROPERTIES, TIMELINE
from ui.outliner import outliner_panel
from ui.simulation_panel import itasc_section
from ui.panels import auto_setup_panel, bone_ik_panel, copy_rotation_panel, help_marker, \
    ik_constraint_panel, solver_panel, transform_panel, view_panel, wrapped
from ui.pin_widgets import active_bone_pin, pins_row
from ui.state import GIZMO_MODES
from ui.stats_panel import stats_panel
from ui.status import error_toast
from ui.timeline_panel import timeline_panel

LABEL_ROOM = 150.0  # pixels right of a property's slider or field: its label and help marker
GIZMO_LABELS = dict(zip(GIZMO_MODES, ("Select", "Move", "Rotate")))


def pose_panel(state):
    """The selection, the active bone's pose channels and pin, and automatic IK set-up for the
    limbs of rigs it recognises; returns whether a channel changed."""
    view = state.view
    if view.active is None:
        wrapped("No active bone: click one in the viewport or the outliner.")
    else:
        imgui.text(f"Active bone: {view.active}   ({len(view.selected)} selected)")
    if view.hidden:
        imgui.text_disabled(f"{len(view.hidden)} hidden (Alt+H reveals)")
    dirty = transform_panel(state)
    active_bone_pin(state)
    if show_auto_setup(state):
        offer = imgui.TreeNodeFlags_.default_open if should_offer(state) else 0
        if widgets.collapsing_header("Auto IK setup", offer):
            auto_setup_panel(state)  # the set-up asks for its own solve
    return dirty


def ik_tab(state):
    """The IK constraint's settings (with its limb's IK/FK switch), or the limb's switch alone."""
    limb_switch(state)  # a switch asks for its own solve
    return ik_constraint_panel(state)


def solver_tab(state):
    """The solver's settings and what its last solve did."""
    dirty = solver_panel(state)
    dirty |= itasc_section(state)
    imgui.separator_text("Stats")
    stats_panel(state)
    return dirty


def view_tab(state):
    """What the viewport shows, and the ground the figure stands on (contact, foot planting)."""
    view_panel(state)
    ground_panel(state)  # its changes ask for their own solve


PROPERTY_TABS = (("Pose", pose_panel), ("IK constraint", ik_tab), ("Bone IK", bone_ik_panel),
                 ("Copy rotation", copy_rotation_panel), ("Solver", solver_tab), ("View", view_tab))


def _begin_panel(name, layout):
    """imgui.begin for one of the docked panels' windows; ``layout`` notes it if it floats."""
    shown = imgui.begin(name)[0]
    if shown:
        layout.note_window()
    return shown


def properties_window(state, layout):
    """Blender's properties editor: one tab per panel; returns whether the pose needs a solve."""
    dirty = False
    if _begin_panel(PROPERTIES, layout) and imgui.begin_tab_bar("properties_tabs"):
        for label, panel in PROPERTY_TABS:
            if widgets.tab_item(label):
                # The tab's body scrolls on its own, under tabs that stay put (and keep their width).
                imgui.begin_child(f"{label}##tab_body")
                imgui.push_item_width(-LABEL_ROOM)
                dirty |= bool(panel(state))
                imgui.pop_item_width()
                imgui.end_child()
                imgui.end_tab_item()
        imgui.end_tab_bar()
    imgui.end()
    return dirty


def outliner_window(state, layout):
    if _begin_panel(OUTLINER, layout):
        outliner_panel(state)
    imgui.end()


def _gizmo_choice(state):
    """Blender's tool choice as a gizmo: none, move the selected handle, rotate the active bone."""
    for mode, label in GIZMO_LABELS.items():
        if widgets.radio_button(label, state.gizmo.mode == mode) and state.drag is None:
            state.gizmo.mode = mode
        imgui.same_line()
    help_marker("Move: a gizmo on the selected IK handle or pole target.\nRotate: a gizmo on the active bone.\n"
                "Escape or a right click during a gizmo drag puts the pose back.")


def tools_row(state):
    """The pose tools' options, as Blender's tool settings: Auto IK and its chain length, the
    gizmo; under them the pins' row."""
    _, state.auto_ik = widgets.checkbox("Auto IK", state.auto_ik)
    help_marker("Drag a bone: its tip follows the pointer and its connected parents follow it.\n"
                "During the drag Ctrl+wheel down / PageUp lengthens the chain, Ctrl+wheel up / "
                "PageDown shortens it (with or without Ctrl); 0 = the whole connected chain.")
    imgui.same_line()
    imgui.text_disabled(f"chain length {state.auto_ik_length}  |")
    imgui.same_line()
    _gizmo_choice(state)  # its help marker ends the row
    pins_row(state)


def timeline_window(state, layout):
    """The strip under the viewport: the tools, then the timeline with the keys."""
    if _begin_panel(TIMELINE, layout):
        tools_row(state)
        timeline_panel(state)
    imgui.end()


def docked_panels(state, layout):
    """The dock space and its windows, then the error toast over the viewport; returns (whether
    the pose needs a solve, the viewport's free (left, top, right, bottom) window pixels). The
    windows the user undocked are then in ``layout.floating``."""
    free = layout.begin()
    outliner_window(state, layout)
    dirty = properties_window(state, layout)
    timeline_window(state, layout)
    error_toast(state, free)
    return dirty, free
