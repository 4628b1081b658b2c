"""The IK solver's state drawn over the scene: a line from each short chain's tip to its target,
a ring on each joint a limit holds, and the reach shell of the chain being dragged.

What to show arrives as plain records (a ``SolverOverlay``), decided by the UI. They are drawn
flat in window pixels after everything else, so no bone or mesh hides them and lines keep their
width at any zoom. Labels are text, which the UI draws.
"""
from dataclasses import dataclass

import numpy as np

from render import shapes
from render.pixel_shapes import PixelShapes
from render.style import DEFAULT_STYLE
from solvers.scalar import cross  # one 3-vector: np.cross costs ~20x the arithmetic

SHADOW_PX = 2.0  # a dark border this much wider, so the helpers read over light and dark alike


@dataclass(frozen=True)
class ResidualLine:
    """Constraint on ``bone`` fell ``error`` metres short: from the chain's ``tip`` (3,) to its
    ``target`` (3,), world; ``label`` is the text the UI writes beside it."""
    bone: str
    tip: np.ndarray
    target: np.ndarray
    error: float
    label: str


@dataclass(frozen=True)
class LimitMark:
    """Bone ``bone`` held by a limit: a ring around its head ``position`` (3,), world, at least as
    large as its joint sphere of ``radius`` metres."""
    bone: str
    position: np.ndarray
    radius: float


@dataclass(frozen=True)
class ReachShell:
    """Where the chain of the constraint on ``bone`` can reach: a sphere of ``radius`` metres (the
    chain's length) around its root's head ``centre`` (3,)."""
    bone: str
    centre: np.ndarray
    radius: float


@dataclass(frozen=True)
class SolverOverlay:
    """Everything the viewport shows of the solver this frame (tuples of the records above)."""
    residuals: tuple = ()
    limits: tuple = ()
    reach: tuple = ()


def sphere_outline(camera, centre, radius, segments=64):
    """World points (segments + 1, 3) of the circle a sphere's outline makes as ``camera`` sees
    it, or None when the eye is inside. In perspective the outline is the circle where the view
    cone touches the sphere: nearer the eye than the centre, and smaller."""
    centre = np.asarray(centre, dtype=float)
    if camera.orthographic:
        normal, middle, size = -camera.rotation()[:, 2], centre, radius
    else:
        offset = centre - camera.eye()
        distance = float(np.linalg.norm(offset))
        if distance <= radius:
            return None
        normal = offset / distance
        middle = centre - normal * radius ** 2 / distance
        size = radius * np.sqrt(1.0 - (radius / distance) ** 2)
    u = np.array(cross(normal, camera.rotation()[:, 1]))
    u = u / np.linalg.norm(u) if np.linalg.norm(u) > 1e-9 else camera.rotation()[:, 0]
    return shapes.circle_points(middle, size, u, cross(u, normal), segments)


def _pixel_radius(camera, point, radius, width, height):
    """Pixels that ``radius`` metres across the view at world ``point`` span on screen."""
    ends = np.array([point, point + camera.rotation()[:, 0] * radius])
    a, b = camera.world_to_window(ends, width, height)
    return float(np.linalg.norm(b - a))


def _finite_quads(points_px, width):
    """Quads of a polyline through ``points_px`` (N, 2), dropping segments with an end behind the eye."""
    finite = np.isfinite(points_px).all(axis=1)
    keep = finite[:-1] & finite[1:]
    return shapes.segment_quads(points_px[:-1][keep], points_px[1:][keep], width)


class SolverOverlayRenderer:
    """GPU objects drawing ``SolverOverlay``s on one moderngl context; ``release()`` frees them."""

    def __init__(self, ctx, style=DEFAULT_STYLE):
        self.style = style
        self.shapes = PixelShapes(ctx)
        self.reach_parts = None  # (what they were drawn from, the reach shells' parts)

    def draw(self, overlay, camera, width, height):
        """Draw ``overlay`` over the framebuffer in use (blended, no depth test)."""
        parts = self._reach(overlay.reach, camera, width, height) + self._residuals(overlay.residuals, camera, width, height) \
            + self._limits(overlay.limits, camera, width, height)
        self.shapes.draw(parts, width, height)

    def _outlined(self, quads_of, width, colour):
        """(triangles, colour) pairs: the shape ``quads_of(width)`` over its wider dark shadow."""
        return [(quads_of(width + SHADOW_PX), self.style.overlay_shadow), (quads_of(width), colour)]

    def _residuals(self, residuals, camera, width, height):
        parts = []
        for line in residuals:
            ends = camera.world_to_window(np.array([line.tip, line.target]), width, height)
            parts += self._outlined(lambda w: _finite_quads(ends, w), self.style.overlay_line_px, self.style.residual_line)
        return parts

    def _limits(self, limits, camera, width, height):
        parts = []
        for mark in limits:
            centre = camera.world_to_window(np.asarray(mark.position)[None], width, height)[0]
            if not np.isfinite(centre).all():
                continue
            radius = max(_pixel_radius(camera, mark.position, mark.radius, width, height) + 3.0,
                         self.style.limit_ring_min_px)
            ring = shapes.circle_points(centre, radius, (1.0, 0.0), (0.0, 1.0), 24)
            parts += self._outlined(lambda w: shapes.polyline_quads(ring, w), self.style.overlay_line_px,
                                    self.style.limit_ring)
        return parts

    def _reach(self, shells, camera, width, height):
        """The shells' outlines and equators; kept while the shells and the camera hold still, as
        the dragged chain's root does through a drag unless the body follows."""
        key = (tuple((np.asarray(s.centre, float).tobytes(), s.radius) for s in shells), width, height,
               camera.view_matrix().tobytes(), camera.projection_matrix(width / height).tobytes())
        if self.reach_parts is None or self.reach_parts[0] != key:
            self.reach_parts = key, self._reach_shells(shells, camera, width, height)
        return list(self.reach_parts[1])

    def _reach_shells(self, shells, camera, width, height):
        parts = []
        for shell in shells:
            outline = sphere_outline(camera, shell.centre, shell.radius)
            equator = shapes.circle_points(shell.centre, shell.radius, (1.0, 0.0, 0.0), (0.0, 0.0, 1.0), 64)
            curves = [(points, alpha) for points, alpha in ((outline, 1.0), (equator, 0.5)) if points is not None]
            window = camera.world_to_window(np.concatenate([points for points, _ in curves]), width, height)
            for (points, alpha), pixels in zip(curves, np.split(window, np.cumsum([len(p) for p, _ in curves])[:-1])):
                colour = np.array(self.style.reach_shell) * (1.0, 1.0, 1.0, alpha)
                parts.append((_finite_quads(pixels, 1.0), colour))
        return parts

    def release(self):
        self.shapes.release()
