"""Tracker glyphs: where each tracker of a stream is in the frame shown, a small flat shape per
role (head a ring, hands diamonds, the pelvis a square, feet triangles; left and right told apart
by a dot inside the left's), drawn in window pixels over everything (``render.pixel_shapes``), as
pins are. The marks arrive as plain records (``TrackerMark``), decided by the UI."""
from dataclasses import dataclass

import numpy as np

from render import shapes
from render.pixel_shapes import PixelShapes
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


def tracker_parts(role, point, style=DEFAULT_STYLE):
    """(triangles (N, 2), RGBA) pairs, in drawing order, of ``role``'s glyph centred on window pixel ``point``."""
    size, width = style.tracker_px, style.overlay_line_px
    kind, _, side = role.partition(".")
    if kind == "head":
        outline = shapes.circle_points(point, size, (1.0, 0.0), (0.0, 1.0), SEGMENTS)
    else:
        corners = np.asarray(point) + size * np.array(OUTLINES[kind], dtype=float)
        outline = np.vstack([corners, corners[:1]])
    parts = [(shapes.polyline_quads(outline, width + 2.0 * SHADOW_PX), style.overlay_shadow),
             (shapes.polyline_quads(outline, width), style.tracker)]
    if side == "L":
        parts.append((shapes.disc_triangles(point, 0.3 * size, SEGMENTS), style.tracker))
    return parts


class TrackerMarkerRenderer:
    """GPU objects drawing ``TrackerMark``s on one moderngl context; ``release()`` frees them."""

    def __init__(self, ctx, style=DEFAULT_STYLE):
        self.style = style
        self.shapes = PixelShapes(ctx, reserve=256)

    def draw(self, marks, camera, width, height):
        """Draw ``marks`` over the framebuffer in use; a tracker behind the eye has no glyph."""
        if not marks:
            return
        points = camera.world_to_window(np.array([mark.position for mark in marks], dtype=float), width, height)
        parts = []
        for mark, point in zip(marks, points):
            if np.isfinite(point).all():
                parts += tracker_parts(mark.role, point, self.style)
        self.shapes.draw(parts, width, height)

    def release(self):
        self.shapes.release()
