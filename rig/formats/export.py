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
from dataclasses import dataclass

from rig.evaluate import evaluation
from rig.formats.bvh_write import save_bvh
from rig.formats.jsonfields import FileFormatError
from rig.pose import Pose
from rig.formats.rigfile import save_rig


def _glb(document, poses, path, timing):
    from rig.formats.gltf import write_glb  # pygltflib loads only when a .glb is written
    write_glb(path, document.rig, poses[0], document.mesh, clip=poses if len(poses) > 1 else None, fps=timing.fps,
              clip_name=timing.clip_name)
    return []


def _bvh(document, poses, path, timing):
    return save_bvh(path, document.rig.skeleton, poses, frame_time=1.0 / timing.fps)


def _json(document, poses, path, timing):
    save_rig(document.rig, path)
    return []


WRITERS = {".glb": _glb, ".bvh": _bvh, ".json": _json}
POSED = (".glb", ".bvh")


@dataclass(frozen=True)
class Timing:
    """How frames play: ``fps`` frames a second (a .glb clip's key times, a BVH Frame Time) and
    the clip's name in a .glb."""
    fps: float = 30.0
    clip_name: str = "posekit"


def clip_frames(document, name, fps=None):
    """(poses, Timing) of the document's clip ``name`` as keys, a frame each at ``fps`` (default:
    the clip's own rate; another rate samples the keys between frames, so the clip lasts as
    long); ValueError naming the clips there are when it has no such clip."""
    from rig.keys import action_from_poses, frame_range  # the keys load only when a clip is exported
    if name not in document.clips or not document.clips[name]:
        have = ", ".join(repr(c) for c, frames in document.clips.items() if frames) or "none"
        raise ValueError(f"{document.path} has no animation clip '{name}' (its clips: {have})")
    skeleton = document.rig.skeleton
    action = action_from_poses(name, document.clips[name], 1.0 / document.frame_times[name], skeleton)
    fps = action.fps if fps is None else fps
    return [action.pose_at(frame, skeleton) for frame in frame_range(action, fps)], Timing(fps, name)


def export_rig(document, path, pose=None, timing=Timing(), pins=None, root_free=True, shown=False):
    """Write ``document`` (a RigDocument) to ``path`` in the format its extension names, posed by
    ``pose``: a Pose, or a list of them as frames played with ``timing`` (default: the pose the
    document holds, else rest), each with the rig's constraints evaluated as the window shows it:
    holding ``pins`` ({bone name: ``rig.pins.Pin``} for every pose, or a list of them, one per
    pose), the whole body following them unless ``root_free`` is False, as the window solves.
    Returns the writer's warnings. Raises FileFormatError for an extension we cannot write
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
    if extension in POSED and not shown:
        held = pins if isinstance(pins, list) else [pins] * len(poses)
        poses = [evaluation(document.rig, p, pins=h, root_free=root_free).shown for p, h in zip(poses, held)]
    return writer(document, poses, path, timing)
