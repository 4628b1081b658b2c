"""Where each tracker sits on its bone: an ``Offset`` per role, the bone's frame seen from the
tracker's, so the bone's world placement is the tracker's times the offset.

By default a tracker sits on its bone: at the bone's head, its rotation the bone's world rotation
relative to the bone's rest orientation (what ``tracks-from`` writes), so the offset is the rest
rotation and no shift. ``calibrate`` instead reads each tracker at a frame where the user stands in
the rig's rest pose, as VR apps calibrate from a T-pose: the rest rig is stood on the floor (y = 0)
under the head tracker, facing the way it faces at rest, and each offset is its bone's rest frame
seen from its tracker.
"""
from dataclasses import dataclass

import numpy as np

from solvers.transforms import quat_conjugate, quat_mul, quat_normalize, quat_rotate


@dataclass(frozen=True)
class Offset:
    """The bone's frame in its tracker's: ``rotation`` (4,, xyzw) and ``position`` (3,)."""
    rotation: np.ndarray
    position: np.ndarray


@dataclass(frozen=True)
class BoneTarget:
    """Where a tracker puts its bone: head ``position`` (3,) and world ``rotation`` (4,, xyzw)."""
    position: np.ndarray
    rotation: np.ndarray


def default_offsets(body):
    """{role: Offset} with every tracker on its bone (module doc)."""
    return {role: Offset(rotation, np.zeros(3)) for role, rotation in body.rest_rotations.items()}


def bone_target(sample, offset):
    """The BoneTarget a ``rig.formats.tracks.Sample`` gives through ``offset``."""
    return BoneTarget(sample.position + quat_rotate(sample.rotation, offset.position),
                      quat_normalize(quat_mul(sample.rotation, offset.rotation)))


def calibrate(skeleton, body, frame):
    """{role: Offset} from ``frame`` ({role: Sample}) with the user standing in the rest pose
    (module doc); roles missing there keep the default."""
    lowest = min(skeleton.rest_heads[:, 1].min(), skeleton.rest_tails[:, 1].min())
    head = skeleton.rest_heads[body.bones["head"]]
    seen = frame["head"].position
    shift = np.array([seen[0] - head[0], -lowest, seen[2] - head[2]])
    offsets = default_offsets(body)
    for role, sample in frame.items():
        bone = body.bones[role]
        inverse = quat_conjugate(sample.rotation)
        offsets[role] = Offset(quat_normalize(quat_mul(inverse, body.rest_rotations[role])),
                               quat_rotate(inverse, skeleton.rest_heads[bone] + shift - sample.position))
    return offsets
