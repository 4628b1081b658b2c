"""The ground a figure stands on: what the solver keeps bones above and what feet are planted on.

Every ground answers one question, ``surface_under(points)``: for each point, the ground straight
below it along -Y (up is +Y), found by a ray cast down from ``PROBE_HEIGHT`` above the point so a
point already under the surface finds the surface it sank through. The answer is a ``GroundHits``
record; a point over no ground (off a mesh's edge) has ``hit`` False and its row's other values
are meaningless. ``PlaneGround`` is the grid's plane (the default ground); meshes read from
scene files add their own kind with the same method.
"""
from dataclasses import dataclass

import numpy as np

PROBE_HEIGHT = 1.0  # metres above a point a downward ray starts from: deeper than any step a foot sinks


@dataclass(frozen=True)
class GroundHits:
    """Per point: ``point`` (N, 3) where the ray met the ground, ``normal`` (N, 3) the unit
    surface normal there (pointing up, out of the ground), ``hit`` (N,) whether it met any."""
    point: np.ndarray
    normal: np.ndarray
    hit: np.ndarray


@dataclass(frozen=True)
class PlaneGround:
    """The horizontal plane y = ``height``."""
    height: float = 0.0

    def surface_under(self, points):
        points = np.asarray(points, dtype=float).reshape(-1, 3)
        surface = points.copy()
        surface[:, 1] = self.height
        normal = np.zeros_like(points)
        normal[:, 1] = 1.0
        return GroundHits(surface, normal, np.ones(len(points), dtype=bool))
