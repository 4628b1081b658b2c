"""A ground made of triangles (a scene read from a glTF or OBJ file): ``rig.ground``'s one question
answered by casting rays straight down.

The triangles are binned once into a uniform grid over the XZ plane (each triangle into every cell
its XZ bounding box covers), so a query tests only the triangles of the cells its points fall in:
a few dozen points on a 10,000-triangle scene take well under a millisecond, cheap enough for
every frame of a drag. A downward ray meets a triangle where the point's XZ lies inside the
triangle's XZ projection; the hit is then the surface's height there. Triangles standing
vertical (walls, stair risers) have no XZ area and are never met by a vertical ray: their
neighbours above and below answer for them. Of several surfaces below the ray's start, the
highest is the ground (the first a falling point meets).
"""
from dataclasses import dataclass

import numpy as np

from rig.ground import PROBE_HEIGHT, GroundHits

TARGET_PER_CELL = 4.0  # triangles per grid cell the grid is sized for, on average
MAX_CELLS_PER_AXIS = 1024  # bounds the grid's memory on scenes of long thin triangles
EDGE_SLACK = 1e-9  # barycentric slack: a point on an edge two triangles share hits at least one
FLAT_AREA = 1e-14  # m²: twice the XZ area under which a triangle counts as vertical


@dataclass(frozen=True)
class TriangleGrid:
    """Triangle indices binned by XZ cell, compressed: the triangles of cell ``c`` (row-major,
    ``c = ix * shape[1] + iz``) are ``items[starts[c]:starts[c + 1]]``. ``origin`` (x, z) is the
    grid's low corner, ``cell`` the side of a square cell in metres, ``shape`` (nx, nz)."""
    origin: np.ndarray
    cell: float
    shape: tuple
    starts: np.ndarray
    items: np.ndarray

    def cells_of(self, xz):
        """Cell index (N,) of points ``xz`` (N, 2), or -1 outside the grid."""
        ij = np.floor((xz - self.origin) / self.cell).astype(np.int64)
        inside = (ij >= 0).all(axis=1) & (ij[:, 0] < self.shape[0]) & (ij[:, 1] < self.shape[1])
        return np.where(inside, ij[:, 0] * self.shape[1] + ij[:, 1], -1)


def build_grid(low, high):
    """A TriangleGrid over triangles whose XZ bounding boxes are ``low`` / ``high`` (T, 2)."""
    origin, extent = low.min(axis=0), high.max(axis=0) - low.min(axis=0)
    area = max(float(extent[0] * extent[1]), 1e-12)
    cell = max(np.sqrt(area * TARGET_PER_CELL / len(low)), float(extent.max()) / MAX_CELLS_PER_AXIS, 1e-6)
    shape = tuple(int(v) for v in np.maximum(np.floor(extent / cell).astype(np.int64) + 1, 1))
    first = np.clip(np.floor((low - origin) / cell).astype(np.int64), 0, np.array(shape) - 1)
    last = np.clip(np.floor((high - origin) / cell).astype(np.int64), 0, np.array(shape) - 1)
    span = last - first + 1
    counts = span[:, 0] * span[:, 1]
    triangle = np.repeat(np.arange(len(low)), counts)
    k = np.arange(len(triangle)) - np.repeat(np.cumsum(counts) - counts, counts)  # rank within its triangle
    ix = first[triangle, 0] + k // span[triangle, 1]
    iz = first[triangle, 1] + k % span[triangle, 1]
    cells = ix * shape[1] + iz
    order = np.argsort(cells, kind="stable")
    starts = np.searchsorted(cells[order], np.arange(shape[0] * shape[1] + 1))
    return TriangleGrid(origin, cell, shape, starts, triangle[order])


class MeshGround:
    """The surface of triangles ``corners`` (T, 3, 3) metres, +Y up (world space: transforms
    applied). Which way a triangle winds does not matter: normals are turned to point up."""

    def __init__(self, corners):
        corners = np.asarray(corners, dtype=float).reshape(-1, 3, 3)
        a, b, c = corners[:, 0], corners[:, 1], corners[:, 2]
        # XZ projection: p = a + u (b - a) + v (c - a); its determinant is twice the signed XZ area.
        self.corners = corners
        self.origin, self.edge_u, self.edge_v = a, b - a, c - a
        self.det = self.edge_u[:, 0] * self.edge_v[:, 2] - self.edge_u[:, 2] * self.edge_v[:, 0]
        normal = np.cross(b - a, c - a)
        normal *= np.where(normal[:, 1] < 0.0, -1.0, 1.0)[:, None]
        self.normals = normal / np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-300)
        flat = np.abs(self.det) > FLAT_AREA
        xz = corners[:, :, [0, 2]]
        self.kept = np.flatnonzero(flat)  # vertical triangles are never hit: left out of the grid
        self.grid = build_grid(xz[self.kept].min(axis=1), xz[self.kept].max(axis=1)) if len(self.kept) else None
        self.low, self.high = corners.reshape(-1, 3).min(axis=0), corners.reshape(-1, 3).max(axis=0)

    def __len__(self):
        return len(self.corners)

    def surface_under(self, points):
        points = np.asarray(points, dtype=float).reshape(-1, 3)
        count = len(points)
        surface, normal = points.copy(), np.zeros((count, 3))
        normal[:, 1] = 1.0
        hit = np.zeros(count, dtype=bool)
        if self.grid is None or count == 0:
            return GroundHits(surface, normal, hit)
        which, triangle = self._candidates(points)
        u, v, height = self._heights(points[which], triangle)
        inside = (u >= -EDGE_SLACK) & (v >= -EDGE_SLACK) & (u + v <= 1.0 + EDGE_SLACK)
        below = height <= points[which, 1] + PROBE_HEIGHT
        which, triangle, height = which[inside & below], triangle[inside & below], height[inside & below]
        order = np.lexsort((height, which))  # per point, highest last
        last = order[np.r_[which[order][1:] != which[order][:-1], True]] if len(order) else order
        rows = which[last]
        surface[rows, 1] = height[last]
        normal[rows] = self.normals[triangle[last]]
        hit[rows] = True
        return GroundHits(surface, normal, hit)

    def _candidates(self, points):
        """(point row, triangle) pairs (M,) each: every triangle binned in each point's cell."""
        grid = self.grid
        cells = grid.cells_of(points[:, [0, 2]])
        rows = np.flatnonzero(cells >= 0)
        begin, end = grid.starts[cells[rows]], grid.starts[cells[rows] + 1]
        counts = end - begin
        which = np.repeat(rows, counts)
        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        return which, self.kept[grid.items[np.repeat(begin, counts) + offsets]]

    def _heights(self, points, triangle):
        """Barycentric (u, v) of each point's XZ in its triangle's XZ projection, and the
        triangle's height there."""
        d = points - self.origin[triangle]
        eu, ev, det = self.edge_u[triangle], self.edge_v[triangle], self.det[triangle]
        u = (d[:, 0] * ev[:, 2] - d[:, 2] * ev[:, 0]) / det
        v = (eu[:, 0] * d[:, 2] - eu[:, 2] * d[:, 0]) / det
        return u, v, self.origin[triangle, 1] + u * eu[:, 1] + v * ev[:, 1]
