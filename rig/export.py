"""Exporting an opened rig (any format we read) to a format chosen by the output's extension.

``.glb`` carries the rig, the pose and the document's skinned mesh; ``.bvh`` the skeleton and the
pose as one frame; ``.json`` (posekit.rig) the rig only: a rig file holds no pose, so asking for
one there is refused rather than silently dropped.
"""
import os

from rig.bvh_write import save_bvh
from rig.gltf import write_glb
from rig.jsonfields import FileFormatError
from rig.pose import Pose
from rig.rigfile import save_rig


def _glb(document, pose, path):
    write_glb(path, document.rig, pose, document.mesh)
    return []


def _bvh(document, pose, path):
    return save_bvh(path, document.rig.skeleton, pose)


def _json(document, pose, path):
    save_rig(document.rig, path)
    return []


WRITERS = {".glb": _glb, ".bvh": _bvh, ".json": _json}
POSED = (".glb", ".bvh")


def export_rig(document, path, pose=None):
    """Write ``document`` (a RigDocument) to ``path`` in the format its extension names, posed by
    ``pose`` (default: the pose the document holds, else rest). Returns the writer's warnings.
    Raises FileFormatError for an extension we cannot write or a pose the format cannot hold,
    ValueError for a non-finite pose and OSError when the file cannot be written."""
    extension = os.path.splitext(str(path))[1].lower()
    writer = WRITERS.get(extension)
    if writer is None:
        known = ", ".join(sorted(WRITERS))
        raise FileFormatError(path, "", f"an output ending in one of {known}, not '{extension or 'nothing'}'")
    if pose is not None and extension not in POSED:
        raise FileFormatError(path, "", "a .glb or .bvh output to carry a pose (a .json rig file holds no pose; "
                              "save poses as posekit.pose files)")
    if pose is None:
        pose = document.pose if document.pose is not None else Pose.rest(len(document.rig.skeleton))
    if not pose.is_finite():
        raise ValueError("the pose has non-finite values")
    return writer(document, pose, path)
