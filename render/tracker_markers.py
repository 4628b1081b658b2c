"""Tracker glyphs: where each tracker of a stream is in the frame shown, a small flat shape per
role (head a ring, hands diamonds, the pelvis a square, feet triangles; left and right told apart
by a dot inside the left's), drawn in window pixels over everything (``render.pixel_shapes``), as
pins are. The marks arrive as plain records (``TrackerMark``), decided by the UI."""
from dataclasses import dataclass

import numpy as np

from render import shapes
from render.pixel_shapes import MarkerRenderer
from render.style import DEFAULT_STYLE

SHADOW_PX = 1.5  # the dark border around a glyph, as the pins have
SEGMENTS = 20
# Each role's outline as (x, y) corners on the unit square (y down, as window pixels run).
OUTLINES = {"hand": ((0, -1), (1, 0), (0, 1), (-1, 0)), "pelvis": ((-1, -1), (1, -1), (1, 1), (-1, 1)),
            "foot": ((0, -1), (1, 0.8), (-1, 0.8))}


@dataclass(frozen=True)
class TrackerMark:
    """Tracker ``role`` ("head", "hand.L", ...) at world ``position`` (3,)."""
    role: str
    position: tuple


def tracker_parts(role, style=DEFAULT_STYLE):
    """(triangles (N, 2), RGBA) pairs, in drawing order, of ``role``'s glyph centred on window pixel (0, 0)."""
    size, width = style.tracker_px, style.overlay_line_px
    kind, _, side = role.partition(".")
    if kind == "head":
        outline = shapes.circle_points((0.0, 0.0), size, (1.0, 0.0), (0.0, 1.0), SEGMENTS)
    else:
        corners = size * np.array(OUTLINES[kind], dtype=float)
        outline = np.vstack([corners, corners[:1]])
    parts = [(shapes.polyline_quads(outline, width + 2.0 * SHADOW_PX), style.overlay_shadow),
             (shapes.polyline_quads(outline, width), style.tracker)]
    if side == "L":
        parts.append((shapes.disc_triangles((0.0, 0.0), 0.3 * size, SEGMENTS), style.tracker))
    return parts


def tracker_marker_renderer(ctx, style=DEFAULT_STYLE):
    """A ``MarkerRenderer`` drawing ``TrackerMark``s."""
    return MarkerRenderer(ctx, lambda mark: mark.role, tracker_parts, style)
