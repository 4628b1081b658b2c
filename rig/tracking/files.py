"""The tracking commands' file work (``app.py track`` and ``tracks-from``), without argument parsing.

A tracked clip is baked forward kinematics: the rig's IK handles are snapped onto the tracked limbs
(``rig.autorig.snap_handles``) so the rig's own IK, evaluated on export or in the window, keeps every
tracked joint where the reconstruction put it.
"""
import os
from dataclasses import replace

from rig.autorig import snap_handles
from rig.formats.export import Timing, export_rig
from rig.formats.jsonfields import save_json_atomic
from rig.formats.tracks import read_tracks, write_tracks
from rig.limb_roles import AutoRigReport
from rig.pose import heads_tails
from rig.tracking.body import LIMB_OF
from rig.tracking.from_clip import shown_world, stream_from_clip
from rig.tracking.reconstruct import reconstruct

CLIP_NAME = "tracked"
OUTPUTS = (".glb", ".bvh", ".json")


def limb_handles(rig, body):
    """An AutoRigReport naming, per limb role ("arm.L"...), its bones and the IK handle and pole
    that drive it where the rig has a two-bone IK constraint with a pole on the limb."""
    names, report = rig.skeleton.names, AutoRigReport()
    for role, limb in body.limbs.items():
        for constraint in rig.ik:
            if constraint.bone == names[limb[1]] and constraint.chain_count == 2 and constraint.target \
                    and constraint.pole_target:
                report.roles[LIMB_OF[role]] = [names[b] for b in limb]
                report.handles[LIMB_OF[role]] = (constraint.target, constraint.pole_target)
    return report


def snapped(rig, body, poses):
    """``poses`` with the rig's limb IK handles on the tracked limbs (module doc)."""
    report = limb_handles(rig, body)
    return [snap_handles(rig, report, pose) for pose in poses] if report.handles else poses


def bones_data(rig, poses, fps):
    """The OUT.json object: every frame's bone heads and tails as the window draws them."""
    frames = []
    for pose in poses:
        heads, tails = heads_tails(rig.skeleton, shown_world(rig, pose))
        frames.append({"bones": {name: {"head": heads[i].tolist(), "tail": tails[i].tolist()}
                                 for i, name in enumerate(rig.skeleton.names)}})
    return {"fps": fps, "frames": frames}


def track_file(document, tracks_path, output, calibrate_frame=None):
    """Reconstruct ``document``'s rig from the stream at ``tracks_path`` and write ``output``
    (.glb/.bvh: the clip; .json: bone heads and tails per frame). Returns (Tracked, warnings).
    FileFormatError / ValueError for bad input, OSError when the output cannot be written."""
    extension = os.path.splitext(str(output))[1].lower()
    if extension not in OUTPUTS:
        raise ValueError(f"{output}: expected an output ending in one of {', '.join(OUTPUTS)}")
    stream = read_tracks(tracks_path)
    rig = document.rig
    tracked = reconstruct(rig, stream, calibrate_frame)
    poses = snapped(rig, tracked.body, tracked.poses)
    if extension == ".json":
        save_json_atomic(output, bones_data(rig, poses, stream.fps))
        return tracked, []
    return tracked, export_rig(replace(document, pose=None), output, poses, Timing(stream.fps, CLIP_NAME))


def tracks_from_file(document, output, roles, clip=None):
    """Write the stream of ``document``'s clip ``clip`` (default: its first) with trackers
    ``roles``; ValueError when it has no such clip or no humanoid body."""
    clips = {name: frames for name, frames in document.clips.items() if frames}
    if not clips:
        raise ValueError(f"{document.path} has no motion to take trackers from (no animation clip)")
    name = clip if clip is not None else next(iter(clips))
    if name not in clips:
        raise ValueError(f"{document.path} has no animation clip '{name}' (its clips: "
                         f"{', '.join(repr(c) for c in clips)})")
    write_tracks(output, stream_from_clip(document.rig, clips[name], 1.0 / document.frame_times[name], roles))
