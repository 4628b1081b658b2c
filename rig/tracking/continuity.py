"""Lost and found trackers, without pops.

A lost head stays where it was last seen; a lost hand stays where it was last seen relative to the
head's frame (the body carries it along, as an arm at rest does). A pelvis or foot tracker lost
hands over to the estimate or the stepping feet. Whatever tracker comes back, its bone's target
eases from where the bone was (the previous frame's solved pose) to the tracker over ``BLEND_TIME``
(smoothstep), so nothing jumps when a tracker is found.
"""
from dataclasses import dataclass

import numpy as np

from rig.tracking.calibration import BoneTarget
from rig.tracking.estimate import ease
from solvers.transforms import matrix3_to_quat, quat_conjugate, quat_mul, quat_rotate, quat_slerp

BLEND_TIME = 0.3  # seconds a found tracker's bone takes to ease onto it
HELD = ("head", "hand.L", "hand.R")  # roles the solve always needs a target for


@dataclass
class _Blend:
    start: BoneTarget
    clock: float = 0.0


def bone_placement(world, bone):
    """The BoneTarget where ``bone`` is in ``world`` (N, 4, 4; scale taken out)."""
    basis = world[bone, :3, :3]
    return BoneTarget(world[bone, :3, 3].copy(), matrix3_to_quat(basis / np.linalg.norm(basis, axis=0)))


class Continuity:
    """Call each frame with {role: BoneTarget} of the trackers seen, the frame time and the previous
    frame's world matrices (None on the first frame) with the body's bones: {role: BoneTarget} for
    every role seen plus the held ones lost (module doc)."""

    def __init__(self, body):
        self.body, self.seen, self.shown, self.relative, self.blends = body, set(), {}, {}, {}

    def _held(self, role, head):
        if role == "head" or role not in self.relative:
            return self.shown[role]
        position, rotation = self.relative[role]
        return BoneTarget(head.position + quat_rotate(head.rotation, position), quat_mul(head.rotation, rotation))

    def __call__(self, seen, dt, world):
        out = {}
        for role, target in seen.items():
            if role not in self.seen and world is not None:  # found (or first seen after frame 0): ease in
                self.blends[role] = _Blend(bone_placement(world, self.body.bones[role]))
            blend = self.blends.get(role)
            if blend is not None:
                blend.clock += dt
                s = ease(blend.clock / BLEND_TIME)
                target = BoneTarget(blend.start.position + (target.position - blend.start.position) * s,
                                    quat_slerp(blend.start.rotation, target.rotation, s))
                if blend.clock >= BLEND_TIME:
                    del self.blends[role]
            out[role] = target
        head = out.get("head") or self._held("head", None)
        for role in HELD:
            if role not in out:
                out[role] = self._held(role, head)
        for role in self.seen.difference(seen):
            self.blends.pop(role, None)
        self.seen, self.shown = set(seen), out
        inverse = quat_conjugate(head.rotation)
        self.relative = {role: (quat_rotate(inverse, t.position - head.position), quat_mul(inverse, t.rotation))
                         for role, t in out.items() if role != "head"}
        return out
