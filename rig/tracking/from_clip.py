"""The tracker stream a clip's own joints give (``app.py tracks-from``): each tracker on its bone,
at the bone's head, its rotation the bone's world rotation relative to its rest orientation, for
checking a reconstruction against the truth. Each frame is evaluated as the window shows it (IK
and Copy Rotation baked in), so a rig driven by IK handles gives where its bones are drawn."""
import numpy as np

from rig.evaluate import evaluation
from rig.formats.tracks import Sample, TrackStream
from rig.tracking.body import find_body
from solvers.transforms import matrix3_to_quat, quat_conjugate, quat_mul, quat_normalize


def shown_world(rig, pose):
    """The world matrices (N, 4, 4) of ``pose`` as the window draws it."""
    return evaluation(rig, pose).world


def samples(body, world, roles):
    """{role: Sample} of the trackers ``roles`` sitting on their bones in ``world``."""
    out = {}
    for role in roles:
        bone = body.bones[role]
        basis = world[bone, :3, :3] / np.linalg.norm(world[bone, :3, :3], axis=0)
        rotation = quat_normalize(quat_mul(matrix3_to_quat(basis), quat_conjugate(body.rest_rotations[role])))
        out[role] = Sample(world[bone, :3, 3].copy(), rotation)
    return out


def stream_from_clip(rig, poses, fps, roles):
    """The TrackStream of ``poses`` (one per frame) played at ``fps``, trackers ``roles``;
    ValueError when the rig has no humanoid body."""
    body = find_body(rig)
    return TrackStream(fps, [samples(body, shown_world(rig, pose), roles) for pose in poses])
