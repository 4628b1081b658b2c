"""Opening rig files of every format we read, chosen by file extension.

Each reader turns a file into a ``RigDocument``: the rig plus whatever else the file carried
(a skinned mesh, animation clips) and warnings about what it had to guess or drop. Readers raise
``FileFormatError`` with a one-line message when a file cannot be read.
"""
import math
import os
from dataclasses import dataclass, field

from rig.jsonfields import FileFormatError
from rig.rig import Rig
from rig.rigfile import load_rig


@dataclass
class RigDocument:
    """A rig as opened from a file. ``clips`` maps clip name -> list of Poses (one per frame),
    ``frame_times`` clip name -> seconds per frame; ``pose`` is the Pose the file itself holds, to
    show first (None: rest); ``mesh`` is the format's skinned-mesh data when the file had one, else
    None; ``source`` is format-specific data a reader keeps (for glTF: the map between poses and
    node transforms); ``skins`` names every rig the file holds when it holds several (glTF
    skins), ``skin`` is the index of the one read."""
    rig: Rig
    path: str
    warnings: list = field(default_factory=list)
    clips: dict = field(default_factory=dict)
    mesh: object = None
    pose: object = None
    frame_times: dict = field(default_factory=dict)
    source: object = None
    skins: tuple = ()
    skin: int = 0


BVH_UP_AXES = ("y", "z")


@dataclass(frozen=True)
class ImportOptions:
    """What a file may not say about itself, chosen by the user: ``bvh_scale`` metres per BVH file
    unit (None: guessed from the figure's size), ``bvh_up`` the BVH file's up axis, "y" or "z"
    (see ``rig.bvh``); ``gltf_skin`` which of a glTF file's skins to read (from 0). Other formats
    say their units and axes (glTF: metres, +Y up)."""
    bvh_scale: float | None = None
    bvh_up: str = "y"
    gltf_skin: int = 0

    def __post_init__(self):
        if self.bvh_scale is not None and not (math.isfinite(self.bvh_scale) and self.bvh_scale > 0):
            raise ValueError(f"the BVH scale must be a positive number of metres per file unit, got {self.bvh_scale}")
        if self.bvh_up not in BVH_UP_AXES:
            raise ValueError(f"the BVH up axis must be one of {', '.join(BVH_UP_AXES)}, got {self.bvh_up!r}")
        if not isinstance(self.gltf_skin, int) or self.gltf_skin < 0:
            raise ValueError(f"the glTF skin must be an index from 0, got {self.gltf_skin!r}")


def _read_posekit_json(path, options):
    return RigDocument(load_rig(path), str(path))


def _read_bvh(path, options):
    from rig.bvh import load_bvh  # imports this module: load it when a BVH is opened
    return load_bvh(path, options.bvh_scale, up=options.bvh_up)


def _read_gltf(path, options):
    from rig.gltf import read_gltf  # pygltflib loads only when a glTF file is opened
    return read_gltf(path, skin=options.gltf_skin)


READERS = {".json": _read_posekit_json, ".bvh": _read_bvh, ".gltf": _read_gltf, ".glb": _read_gltf}


def open_rig(path, options=None):
    """Read a rig file of any supported format with ``options`` (an ImportOptions, default: the
    defaults); raises FileFormatError on failure."""
    extension = os.path.splitext(str(path))[1].lower()
    reader = READERS.get(extension)
    if reader is None:
        known = ", ".join(sorted(READERS))
        raise FileFormatError(path, "", f"a rig file ending in one of {known}, not '{extension}'")
    return reader(path, options or ImportOptions())
