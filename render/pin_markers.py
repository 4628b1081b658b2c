"""Pin markers: a push-pin glyph standing on each pinned bone's pin point, drawn flat in window
pixels over everything (``render.pixel_shapes``), so no bone or mesh hides it.

A pin that holds its bone's rotation too has a filled head; a position-only pin a hollow ring.
Which bones are pinned arrives as plain records (``PinMark``), decided by the UI.
"""
from dataclasses import dataclass

import numpy as np

from render import shapes
from render.pixel_shapes import MarkerRenderer
from render.style import DEFAULT_STYLE

HEAD_SEGMENTS = 20
SHADOW_PX = 1.5  # the dark border around the glyph, so it reads over light and dark alike


@dataclass(frozen=True)
class PinMark:
    """Bone ``bone`` is pinned at world ``position`` (3,); ``holds_rotation``: its rotation too."""
    bone: str
    position: tuple
    holds_rotation: bool


def pin_parts(holds_rotation, style=DEFAULT_STYLE):
    """(triangles (N, 2), RGBA) pairs, in drawing order, of a pin whose needle ends at window
    pixel (0, 0): a needle up from it, under a round head (a disc, or a ring when position-only)."""
    needle = np.array([(0.0, -style.pin_needle_px), (0.0, 0.0)])
    centre = (0.0, -style.pin_needle_px - style.pin_head_px)
    radius, width = style.pin_head_px, style.pin_line_px
    ring = shapes.circle_points(centre, radius - width / 2.0, (1.0, 0.0), (0.0, 1.0), HEAD_SEGMENTS)
    parts = [(shapes.polyline_quads(needle, width + 2.0 * SHADOW_PX), style.overlay_shadow),
             (shapes.disc_triangles(centre, radius + SHADOW_PX, HEAD_SEGMENTS), style.overlay_shadow),
             (shapes.polyline_quads(needle, width), style.pin)]
    if holds_rotation:
        parts.append((shapes.disc_triangles(centre, radius, HEAD_SEGMENTS), style.pin))
    else:
        parts.append((shapes.polyline_quads(ring, width), style.pin))
    return parts


def pin_marker_renderer(ctx, style=DEFAULT_STYLE):
    """A ``MarkerRenderer`` drawing ``PinMark``s."""
    return MarkerRenderer(ctx, lambda mark: mark.holds_rotation, pin_parts, style)
