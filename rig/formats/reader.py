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
from rig.pose import Pose
from rig.ranges import MAX_COORDINATE, MAX_SCALE, first_outside
from rig.skin_contacts import skin_contacts


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
    defaults), the feet's contact points of its skinned mesh on the rig (``rig.skin_contacts``);
    raises FileFormatError on failure."""
    extension = os.path.splitext(str(path))[1].lower()
    reader = READERS.get(extension)
    if reader is None:
        known = ", ".join(sorted(READERS))
        raise FileFormatError(path, "", f"a rig file ending in one of {known}, not '{extension}'")
    document = reader(path, options or ImportOptions())
    _check_ranges(document)
    if document.mesh is not None:
        document.rig.skin_contacts = skin_contacts(document.rig.skeleton, document.mesh)
    return document


def _check_ranges(document):
    """Every format's rig and poses inside ``rig.ranges`` (a BVH scaled by 1e300, a glTF node at
    1e308): refused here, once for all readers, so nothing later turns them into inf or NaN."""
    skeleton, path = document.rig.skeleton, document.path
    for what, points in (("head", skeleton.rest_heads), ("tail", skeleton.rest_tails)):
        bone = first_outside(points, MAX_COORDINATE)
        if bone is not None:
            raise FileFormatError(path, f"bone '{skeleton.names[bone]}' {what}",
                                  f"coordinates within ±{MAX_COORDINATE:g} m", list(points[bone]))
    poses = [("pose", document.pose)] + [(f"clip '{name}' frame {k}", pose)
                                         for name, frames in document.clips.items() for k, pose in enumerate(frames)]
    for where, pose in poses:
        if pose is not None:
            check_pose_ranges(path, where, skeleton, pose)


def check_pose_ranges(path, where, skeleton, pose: Pose):
    """``pose`` inside ``rig.ranges``: finite unit rotations, locations and scales in range."""
    for what, values, bound in (("location", pose.locations, MAX_COORDINATE), ("scale", pose.scales, MAX_SCALE),
                                ("rotation", pose.rotations, 1.0 + 1e-6)):
        bone = first_outside(values, bound)
        if bone is not None:
            raise FileFormatError(path, f"{where}: bone '{skeleton.names[bone]}' {what}",
                                  f"values of magnitude at most {bound:g}", list(values[bone]))
