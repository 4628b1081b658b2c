"""Colours and sizes of the viewport, kept apart from the rig (a bone never knows its colour).

Colours are linear-ish RGB floats in [0, 1] (written to an 8-bit framebuffer as they are);
sizes are fractions, so they follow the size of the rig on screen.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Style:
    """Palette and proportions of the viewport (Blender's default theme as the model)."""
    background_top: tuple = (0.25, 0.25, 0.26)
    background_bottom: tuple = (0.15, 0.15, 0.16)
    grid_minor: tuple = (0.30, 0.30, 0.31, 0.55)
    grid_major: tuple = (0.36, 0.36, 0.37, 0.85)
    axis_x: tuple = (0.85, 0.25, 0.30, 1.0)
    axis_y: tuple = (0.45, 0.80, 0.20, 1.0)
    axis_z: tuple = (0.20, 0.45, 0.90, 1.0)
    bone: tuple = (0.70, 0.70, 0.70)
    bone_selected: tuple = (0.38, 0.62, 0.95)
    bone_chain: tuple = (0.90, 0.80, 0.40)
    wire: tuple = (0.04, 0.04, 0.04)
    wire_selected: tuple = (0.65, 0.88, 1.0)
    handle: tuple = (1.0, 0.55, 0.12)
    handle_selected: tuple = (1.0, 0.82, 0.45)
    pole: tuple = (0.80, 0.40, 0.95)
    pole_selected: tuple = (0.93, 0.74, 1.0)
    pole_line: tuple = (0.85, 0.60, 1.0, 0.9)
    residual_line: tuple = (1.0, 0.35, 0.2, 1.0)
    """A chain's tip to the target it fell short of."""
    limit_ring: tuple = (1.0, 0.6, 0.1, 1.0)
    """Around a joint a limit holds."""
    reach_shell: tuple = (0.55, 0.8, 1.0, 0.45)
    """The sphere a dragged chain can reach (its equator at half this alpha)."""
    pin: tuple = (0.95, 0.22, 0.30, 1.0)
    pin_head_px: float = 6.0
    pin_needle_px: float = 10.0
    pin_line_px: float = 2.0
    """A pin marker: its colour, head radius, needle length and line width (pixels)."""
    tracker: tuple = (0.25, 0.95, 0.55, 1.0)
    tracker_px: float = 7.0
    """A tracker glyph: its colour and half size (pixels); each role has its own shape."""
    overlay_shadow: tuple = (0.0, 0.0, 0.0, 0.55)
    overlay_line_px: float = 2.0
    limit_ring_min_px: float = 6.0
    """Width of residual lines and limit rings, smallest limit ring radius (pixels)."""
    mesh: tuple = (0.62, 0.58, 0.54)
    """Skinned mesh base colour (lit in the shader)."""
    ground_mesh: tuple = (0.42, 0.45, 0.40)
    """A ground scene's surface (lit in the shader), and its checker's cell (m)."""
    ground_cell: float = 0.25
    hover_mix: float = 0.3
    """How far a hovered item's fill moves toward white."""
    bone_waist: float = 0.1
    """Octahedron waist position and half-width, as fractions of the bone's length."""
    joint_radius: float = 0.07
    """Joint sphere radius as a fraction of its bone's length."""
    handle_size: float = 0.022
    pole_size: float = 0.018
    """Handle cube / pole diamond half-size as fractions of the rig's rest bounding-box diagonal."""
    constraint_line_length: float = 100.0
    """How far (m) a transform's axis-lock line reaches either side of its point."""
    dash_length: float = 0.03
    """Dash period of pole lines in metres (half drawn, half gap)."""
    grid_spacing: float = 0.25
    grid_major_every: int = 4
    grid_half_extent: float = 5.0
    axis_y_length: float = 0.25
    """Grid spacing, how many minor cells per major line, half size (m), Y axis stub length (m)."""


DEFAULT_STYLE = Style()
