"""Opening a ground: a scene file's triangles as a ``rig.ground_mesh.MeshGround``.

``GROUND_READERS`` is the one list of the formats a ground reads from (extension -> reader
returning (TriangleSoup, [warning])); the file browser's filter and the messages derive from it.
"""
import os
from dataclasses import dataclass, field

from rig.formats.gltf_scene import read_gltf_triangles
from rig.formats.jsonfields import FileFormatError
from rig.formats.obj import read_obj
from rig.ground_mesh import MeshGround

GROUND_READERS = {".glb": read_gltf_triangles, ".gltf": read_gltf_triangles, ".obj": lambda path: (read_obj(path), [])}


@dataclass
class GroundFile:
    """A ground read from ``path``: its ``ground`` and what reading it warned of."""
    path: str
    ground: MeshGround
    warnings: list = field(default_factory=list)


def read_ground(path):
    """The ground in the scene file at ``path`` (a ``GroundFile``); raises FileFormatError."""
    reader = GROUND_READERS.get(os.path.splitext(str(path))[1].lower())
    if reader is None:
        raise FileFormatError(path, None, f"a ground scene file ({', '.join(GROUND_READERS)})")
    soup, warnings = reader(str(path))
    return GroundFile(str(path), MeshGround(soup.corners()), list(warnings))
