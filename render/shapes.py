"""Unit meshes and line sets for the viewport, as numpy arrays ready for GL buffers. No GL here.

A ``Mesh`` has ``triangles`` (3T, 6) float32 rows ``x, y, z, nx, ny, nz`` (three rows per
triangle, counter-clockwise seen from outside, outward normals) and ``edges`` (2E, 3) float32
endpoint pairs of the outline drawn over it (empty for smooth shapes).
"""
import functools
from typing import NamedTuple

import numpy as np


class Mesh(NamedTuple):
    triangles: np.ndarray
    edges: np.ndarray


def flat_mesh(vertices, faces):
    """Flat-shaded mesh of a convex solid from vertices (V, 3) and convex polygon faces (lists of
    vertex indices, any winding). Each face is fanned into triangles and given its outward normal;
    each polygon border edge is outlined once."""
    vertices = np.asarray(vertices, dtype=float)
    centre = vertices.mean(axis=0)
    rows, edges = [], set()
    for face in faces:
        pts = vertices[face]
        normal = np.cross(pts[1] - pts[0], pts[2] - pts[0])
        normal /= np.linalg.norm(normal)
        if np.dot(normal, pts.mean(axis=0) - centre) < 0:
            face, normal = face[::-1], -normal
        for k in range(1, len(face) - 1):
            rows += [np.r_[vertices[i], normal] for i in (face[0], face[k], face[k + 1])]
        edges.update(tuple(sorted((a, b))) for a, b in zip(face, face[1:] + face[:1]))
    edge_points = vertices[np.array(sorted(edges)).reshape(-1)]
    return Mesh(np.array(rows, dtype="f4"), edge_points.astype("f4"))


def octahedral_bone(waist=0.1):
    """Blender's octahedral bone for a bone of length 1: head at the origin, tail at (0, 1, 0),
    a square waist of half-width ``waist`` at height ``waist``. Scale by the bone's length."""
    w = waist
    vertices = [(0, 0, 0), (w, w, 0), (0, w, -w), (-w, w, 0), (0, w, w), (0, 1, 0)]
    faces = [[0, 1 + k, 1 + (k + 1) % 4] for k in range(4)] + [[5, 1 + k, 1 + (k + 1) % 4] for k in range(4)]
    return flat_mesh(vertices, faces)


def cube():
    """Axis-aligned cube with half-size 1, centred on the origin."""
    vertices = [(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    faces = [[0, 1, 3, 2], [4, 5, 7, 6], [0, 1, 5, 4], [2, 3, 7, 6], [0, 2, 6, 4], [1, 3, 7, 5]]
    return flat_mesh(vertices, faces)


def diamond():
    """Regular octahedron with its six corners on the axes at distance 1."""
    vertices = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
    faces = [[x, y, z] for x in (0, 1) for y in (2, 3) for z in (4, 5)]
    return flat_mesh(vertices, faces)


def uv_sphere(rings=8, segments=16):
    """Smooth unit sphere (normals equal positions), no outline. The quads of the rings at the
    poles are single triangles: their other halves have two corners on the pole and cover no
    pixel, but a software renderer would still set each one up for every joint drawn."""
    theta = np.linspace(0.0, np.pi, rings + 1)[:, None]
    phi = np.linspace(0.0, 2.0 * np.pi, segments + 1)[None, :]
    grid = np.stack([np.sin(theta) * np.sin(phi), np.cos(theta) * np.ones_like(phi),
                     np.sin(theta) * np.cos(phi)], axis=-1)
    a, b = grid[:-1, :-1], grid[:-1, 1:]
    c, d = grid[1:, :-1], grid[1:, 1:]
    lower, upper = np.stack([a, c, d], axis=-2), np.stack([a, d, b], axis=-2)
    tris = np.concatenate([lower[:-1], upper[1:]]).reshape(-1, 3)  # not the last ring's lower, the first's upper
    return Mesh(np.c_[tris, tris].astype("f4"), np.zeros((0, 3), dtype="f4"))


def grid_lines(half_extent, spacing, major_every):
    """Lines of the XZ ground grid through the origin, without the two lines on the axes.

    Returns ``(points (2L, 3), is_major (2L,) bool)``: endpoint pairs and whether each line is a
    major one (every ``major_every``-th from the origin)."""
    count = int(round(half_extent / spacing))
    steps = np.array([k for k in range(-count, count + 1) if k != 0])
    offsets = steps * spacing
    ends = np.full_like(offsets, half_extent)
    zero = np.zeros_like(offsets)
    along_x = np.stack([np.c_[-ends, zero, offsets], np.c_[ends, zero, offsets]], axis=1)
    along_z = np.stack([np.c_[offsets, zero, -ends], np.c_[offsets, zero, ends]], axis=1)
    points = np.concatenate([along_x, along_z]).reshape(-1, 3)
    major = np.tile(np.repeat(steps % major_every == 0, 2), 2)
    return points.astype("f4"), major


def dashed_segments(starts, ends):
    """Line endpoints (2N, 3) for segments from ``starts`` (N, 3) to ``ends`` (N, 3), with the
    distance (2N,) from each segment's start, for a dash pattern measured in metres."""
    starts = np.asarray(starts, dtype=float).reshape(-1, 3)
    ends = np.asarray(ends, dtype=float).reshape(-1, 3)
    points = np.stack([starts, ends], axis=1).reshape(-1, 3)
    distance = np.stack([np.zeros(len(starts)), np.linalg.norm(ends - starts, axis=1)], axis=1).reshape(-1)
    return points.astype("f4"), distance.astype("f4")


def segment_quads(starts, ends, width):
    """Triangles (6N, 2) of window-pixel quads ``width`` pixels wide along the segments from
    ``starts`` (N, 2) to ``ends`` (N, 2): lines of any width, which core GL does not draw."""
    starts = np.asarray(starts, dtype=float).reshape(-1, 2)
    ends = np.asarray(ends, dtype=float).reshape(-1, 2)
    along = ends - starts
    length = np.maximum(np.linalg.norm(along, axis=1, keepdims=True), 1e-9)
    side = along[:, ::-1] * (-1.0, 1.0) / length * (width / 2.0)  # along turned a quarter
    quads = np.empty((len(starts), 6, 2))  # filled in place: a frame draws hundreds of these
    quads[:, 0] = quads[:, 3] = starts - side
    quads[:, 1] = starts + side
    quads[:, 2] = quads[:, 4] = ends + side
    quads[:, 5] = ends - side
    return quads.reshape(-1, 2)


def polyline_quads(points, width):
    """Triangles of a ``width``-pixel line through ``points`` (N, 2), one quad per segment."""
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    return segment_quads(points[:-1], points[1:], width)


def circle_points(centre, radius, u, v, segments=48):
    """Closed circle (segments + 1, D) around ``centre`` (D,) in the plane of the orthonormal
    ``u``, ``v`` (D,): world circles (D = 3) or window-pixel ones (D = 2)."""
    cos, sin = _unit_circle(segments)
    return np.asarray(centre, float) + radius * (cos * np.asarray(u, float) + sin * np.asarray(v, float))


@functools.lru_cache(maxsize=8)
def _unit_circle(segments):
    """Cosines and sines (segments + 1, 1) of a closed turn: the overlays draw a few circles a frame."""
    angle = np.linspace(0.0, 2.0 * np.pi, segments + 1)[:, None]
    cos, sin = np.cos(angle), np.sin(angle)
    cos.flags.writeable = sin.flags.writeable = False
    return cos, sin


def disc_triangles(centre, radius, segments=24):
    """Triangles (3 * segments, 2) of a filled window-pixel disc: a fan around ``centre``."""
    rim = circle_points(centre, radius, (1.0, 0.0), (0.0, 1.0), segments)
    middle = np.tile(np.asarray(centre, float), (segments, 1))
    return np.stack([middle, rim[:-1], rim[1:]], axis=1).reshape(-1, 2)
