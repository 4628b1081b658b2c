"""Exporting an opened rig (any format we read) to a format chosen by the output's extension.

``.glb`` carries the rig, the pose and the document's skinned mesh, and several poses as an
animation clip (one frame each, the first also as the nodes' pose): glTF nodes inherit scale as
Posekit's bones do, so other tools show every bone where Posekit does. ``.bvh`` carries the
skeleton and the poses as frames, with warnings naming the bones whose tails or scale BVH cannot
carry. ``.json`` (posekit.rig) carries the rig only: a rig file holds no pose, so asking for one
there is refused rather than silently dropped.

What is written is what the window draws: each pose goes through ``rig.evaluate.evaluation`` (the
window's one evaluation path) and its ``shown`` channels are written, so IK at partial influence
and Copy Rotation are baked in (other programs do not run our constraints), from the window and
from the command line alike.
"""
import os

from rig.evaluate import evaluation
from rig.formats.bvh_write import save_bvh
from rig.formats.jsonfields import FileFormatError
from rig.pose import Pose
from rig.formats.rigfile import save_rig


def _glb(document, poses, path):
    from rig.formats.gltf import write_glb  # pygltflib loads only when a .glb is written
    write_glb(path, document.rig, poses[0], document.mesh, clip=poses if len(poses) > 1 else None)
    return []


def _bvh(document, poses, path):
    return save_bvh(path, document.rig.skeleton, poses)


def _json(document, poses, path):
    save_rig(document.rig, path)
    return []


WRITERS = {".glb": _glb, ".bvh": _bvh, ".json": _json}
POSED = (".glb", ".bvh")


def export_rig(document, path, pose=None):
    """Write ``document`` (a RigDocument) to ``path`` in the format its extension names, posed by
    ``pose``: a Pose, or a list of them as frames (default: the pose the document holds, else
    rest), each with the rig's constraints evaluated as the window shows it. Returns the writer's
    warnings. Raises FileFormatError for an extension we cannot write
    or a pose the format cannot hold, ValueError for a non-finite pose and OSError when the file
    cannot be written."""
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
    poses = [pose] if isinstance(pose, Pose) else list(pose)
    if not poses:
        raise ValueError("need at least one pose to export")
    if not all(p.is_finite() for p in poses):
        raise ValueError("the pose has non-finite values")
    if extension in POSED:
        poses = [evaluation(document.rig, p).shown for p in poses]
    return writer(document, poses, path)
