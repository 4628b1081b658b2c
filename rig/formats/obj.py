"""Wavefront OBJ surfaces (a ground's triangles), read strictly.

Read: ``v x y z [w]`` vertices (``w`` is dropped: it weights rational curves, not positions) and
``f`` faces of three or more corners ``i``, ``i/t``, ``i//n`` or ``i/t/n``, each polygon
fan-triangulated from its first corner; a negative index counts back from the last vertex read.
Statements that do not shape a surface (texture coordinates, normals, groups, objects, smoothing,
materials) are passed over by name; anything else (lines, points, curves, an unknown word) is an
error, as are indices to vertices not read yet, coordinates that are not finite or beyond
``rig.ranges.MAX_COORDINATE``, and files of more than ``MAX_TRIANGLES`` triangles. Every error
is a ``FileFormatError`` naming the file, the line and the field.
"""
from dataclasses import dataclass

import numpy as np

from rig.formats.jsonfields import FileFormatError
from rig.ranges import MAX_COORDINATE

MAX_TRIANGLES = 4_000_000  # what a ground grid holds in well under a GiB
PASSED_OVER = frozenset({"vt", "vn", "vp", "g", "o", "s", "mtllib", "usemtl"})


@dataclass(frozen=True)
class TriangleSoup:
    """``positions`` (V, 3) metres and ``triangles`` (T, 3) indices into them."""
    positions: np.ndarray
    triangles: np.ndarray

    def corners(self):
        """(T, 3, 3): each triangle's corner positions."""
        return self.positions[self.triangles]


def read_obj(path):
    """The triangles of the OBJ file at ``path`` (a ``TriangleSoup``); raises FileFormatError."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        raise FileFormatError(path, None, "a readable file") from error
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise FileFormatError(path, f"byte {error.start}", "UTF-8 text") from None
    positions, triangles = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        keyword, values = words[0], words[1:]
        where = f"line {number}"
        if keyword == "v":
            positions.append(_vertex(path, where, values))
        elif keyword == "f":
            corners = [_corner(path, f"{where}, f corner {k + 1}", word, len(positions))
                       for k, word in enumerate(values)]
            if len(corners) < 3:
                raise FileFormatError(path, f"{where}, f", "a face of at least 3 corners", len(corners))
            triangles += [(corners[0], corners[k], corners[k + 1]) for k in range(1, len(corners) - 1)]
            if len(triangles) > MAX_TRIANGLES:
                raise FileFormatError(path, where, f"at most {MAX_TRIANGLES} triangles in the file")
        elif keyword not in PASSED_OVER:
            raise FileFormatError(path, where, "a statement a surface is made of (v, f, or one of "
                                  f"{', '.join(sorted(PASSED_OVER))})", keyword[:40])
    if not triangles:
        raise FileFormatError(path, "f", "at least one face")
    return TriangleSoup(np.array(positions, dtype=float), np.array(triangles, dtype=np.int64))


def _vertex(path, where, values):
    if len(values) not in (3, 4):
        raise FileFormatError(path, f"{where}, v", "3 coordinates (and an optional weight)", " ".join(values)[:40])
    xyz = []
    for axis, word in zip("xyz", values):
        try:
            value = float(word)
        except ValueError:
            value = None
        if value is None or not abs(value) <= MAX_COORDINATE:  # NaN fails the comparison too
            raise FileFormatError(path, f"{where}, v {axis}",
                                  f"a finite coordinate of magnitude at most {MAX_COORDINATE:g} m", word[:40])
        xyz.append(value)
    return xyz


def _corner(path, where, word, vertex_count):
    """The 0-based vertex index of face corner ``word`` ("i", "i/t", "i//n" or "i/t/n")."""
    parts = word.split("/")
    try:
        index = int(parts[0])
        if len(parts) > 3 or any(p and int(p) == 0 for p in parts[1:]):
            raise ValueError
    except ValueError:
        raise FileFormatError(path, where, "a vertex index (i, i/t, i//n or i/t/n)", word[:40]) from None
    resolved = index - 1 if index > 0 else vertex_count + index
    if index == 0 or not 0 <= resolved < vertex_count:
        raise FileFormatError(path, where, f"a vertex read before the face (1..{vertex_count}, or -1..-{vertex_count})",
                              index)
    return resolved
