"""Opening rig files of every format we read, chosen by file extension.

Each reader turns a file into a ``RigDocument``: the rig plus whatever else the file carried
(a skinned mesh, animation clips) and warnings about what it had to guess or drop. Readers raise
``FileFormatError`` with a one-line message when a file cannot be read.
"""
import os

from rig.formats.bvh import load_bvh
from rig.formats.document import ImportOptions, RigDocument
from rig.formats.jsonfields import FileFormatError
from rig.formats.rigfile import load_rig


def _read_posekit_json(path, options):
    return RigDocument(load_rig(path), str(path))


def _read_bvh(path, options):
    return load_bvh(path, options.bvh_scale, up=options.bvh_up)


def _read_gltf(path, options):
    from rig.formats.gltf import read_gltf  # pygltflib loads only when a glTF file is opened
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
