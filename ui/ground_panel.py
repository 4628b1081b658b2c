"""The Ground section of the View tab: what the figure stands on, ground contact, and foot
planting (``ui.ground_state`` holds what it sets)."""
import os

from imgui_bundle import imgui

from ui import widgets
from ui.ground_state import plant_feet, use_grid_plane
from ui.panels import help_marker


def ground_panel(state):
    """The Ground section of the View tab: what the figure stands on, contact, planting."""
    imgui.separator_text("Ground")
    name = os.path.basename(state.ground_path) if state.ground_path else "the grid's plane"
    imgui.text(f"Standing on {name}")
    if state.ground_path:
        imgui.same_line()
        if widgets.small_button("Use grid plane"):
            use_grid_plane(state)
    changed, state.ground_contact = widgets.checkbox("Contact", state.ground_contact)
    if changed:
        state.mark_dirty()
    help_marker("With contact on, no bone (nor the skin of a skinned figure's feet) goes below the ground\n"
          "in any drag or solve.\n"
          "File > Open Ground stands the figure on a scene file's surface (.glb, .gltf, .obj).")
    imgui.same_line()
    changed, state.plant_feet = widgets.checkbox("Plant feet (live)", state.plant_feet)
    if changed:
        state.mark_dirty()
    help_marker("After every solve, each foot is set flush on the ground under its ankle, the knees bend\n"
          "through their poles and the hips go as high as the legs allow. Needs leg IK\n"
          "(Pose tab > Auto IK setup).")
    if widgets.button("Plant feet now") and state.drag is None:
        plant_feet(state)
