"""A walk of our humanoid, keyed by a script: the second skeleton the tracking bench and tests
rebuild from its own trackers (``bench/bench_tracking.py``, ``tests/rig/test_tracking_*.py``).

A proper gait, so the truth never skates: the pelvis moves forward (+Z) at ``SPEED``; each foot
stands still in the world for ``STANCE`` of its cycle (landing ``STANCE / 2`` of a stride ahead of
its hip, leaving as far behind) and swings along an arc to its next landing, the feet half a cycle
apart. The legs reach their feet by two-bone IK in the sagittal plane (knees forward), the pelvis
as high as its standing legs allow (so it bobs as a walker's does), the feet flat; the arms swing
against the legs. Sagittal swings turn about the world's X axis, so each bone's pose rotation is
that turn, relative to its parent's, seen in its rest frame. The IK handles are snapped onto the
limbs so the rig's IK keeps the keyed limbs (``rig.autorig.snap_handles``).

    python tests/tools/humanoid_walk.py OUT.glb [seconds]
"""
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rig.formats.document import RigDocument  # noqa: E402
from rig.formats.export import Timing, export_rig  # noqa: E402
from rig.formats.rigfile import load_rig  # noqa: E402
from rig.pose import Pose  # noqa: E402
from rig.tracking.body import find_body  # noqa: E402
from rig.tracking.files import snapped  # noqa: E402
from solvers.transforms import matrix3_to_quat, quat_conjugate, quat_from_axis_angle, quat_mul  # noqa: E402

FPS = 30.0
SPEED = 1.0  # metres a second
STRIDE_HZ = 0.9  # full gait cycles a second
STANCE = 0.6  # of a cycle each foot stands
LIFT = 0.06  # metres a swinging foot rises midway
REACH = 0.97  # of the leg's length: the most a standing leg stretches
X = np.array([1.0, 0.0, 0.0])
SIDES = {"L": 0.0, "R": 0.5}  # each foot's phase offset, in cycles


def _local(skeleton, bone, world_turn):
    rest = matrix3_to_quat(skeleton.rest_world[skeleton.index[bone], :3, :3])
    return quat_mul(quat_conjugate(rest), quat_mul(world_turn, rest))


def _sagittal(vector):
    """(length, forward angle from straight down) of ``vector``'s y-z part."""
    return math.hypot(vector[1], vector[2]), math.atan2(vector[2], -vector[1])


def foot_z(t, offset):
    """Where (z) and how high above its rest a foot is at ``t`` seconds, and whether it stands."""
    cycle = t * STRIDE_HZ + offset
    n, phase = math.floor(cycle), cycle % 1.0
    stride = SPEED / STRIDE_HZ
    landed = stride * (n - offset + STANCE / 2.0)
    if phase < STANCE:
        return landed, 0.0, True
    s = (phase - STANCE) / (1.0 - STANCE)
    s = s * s * (3.0 - 2.0 * s)
    return landed + stride * s, LIFT * math.sin(math.pi * s), False


def _leg_angles(thigh, shin, reach):
    """Forward angles of thigh and shin (from straight down) putting the ankle ``reach`` (dz, drop)
    from the hip, knee forward; lengths ``thigh``, ``shin``."""
    dz, drop = reach
    span = min(math.hypot(dz, drop), thigh + shin - 1e-9)
    line = math.atan2(dz, drop)
    at_hip = math.acos(np.clip((thigh * thigh + span * span - shin * shin) / (2.0 * thigh * span), -1.0, 1.0))
    at_ankle = math.acos(np.clip((shin * shin + span * span - thigh * thigh) / (2.0 * shin * span), -1.0, 1.0))
    return line + at_hip, line - at_ankle


def walk_poses(rig, seconds=2.0):
    """The walk's Poses, one a frame at ``FPS``."""
    skeleton = rig.skeleton
    heads, index = skeleton.rest_heads, skeleton.index
    legs = {side: (_sagittal(heads[index[f"shin.{side}"]] - heads[index[f"thigh.{side}"]]),
                   _sagittal(heads[index[f"foot.{side}"]] - heads[index[f"shin.{side}"]])) for side in SIDES}
    pelvis = index["pelvis"]
    poses = []
    for k in range(int(round(seconds * FPS))):
        t = k / FPS
        feet = {side: foot_z(t, offset) for side, offset in SIDES.items()}
        drop = 0.0  # the pelvis as high as the standing legs reach (never above rest)
        for side, (z, _, standing) in feet.items():
            hip, ankle = heads[index[f"thigh.{side}"]], heads[index[f"foot.{side}"]]
            (thigh, _), (shin, _) = legs[side]
            ahead = z - (SPEED * t + hip[2])
            if standing:
                height = math.sqrt(max((REACH * (thigh + shin)) ** 2 - ahead * ahead, 0.0))
                drop = max(drop, (hip[1] - ankle[1]) - height)
        pose = Pose.rest(len(skeleton))
        turns = {}
        for side, (z, lift, _) in feet.items():
            hip, ankle = heads[index[f"thigh.{side}"]], heads[index[f"foot.{side}"]]
            (thigh, thigh_rest), (shin, shin_rest) = legs[side]
            reach = (z - (SPEED * t + hip[2]), (hip[1] - drop) - (ankle[1] + lift))
            upper, lower = _leg_angles(thigh, shin, reach)
            turns[f"thigh.{side}"] = quat_from_axis_angle(X, -(upper - thigh_rest))
            turns[f"shin.{side}"] = quat_from_axis_angle(X, -(lower - shin_rest) + (upper - thigh_rest))
            turns[f"foot.{side}"] = quat_from_axis_angle(X, lower - shin_rest)  # flat on the floor
            swing = math.sin(2.0 * math.pi * (t * STRIDE_HZ + SIDES[side]))  # the arm against its leg
            turns[f"upper_arm.{side}"] = quat_from_axis_angle(X, 0.4 * swing)
            turns[f"forearm.{side}"] = quat_from_axis_angle(X, -0.3 - 0.2 * max(0.0, swing))
        for bone, turn in turns.items():
            pose.rotations[index[bone]] = _local(skeleton, bone, turn)
        shift = np.array([0.0, -drop, SPEED * t])
        pose.locations[pelvis] = skeleton.rest_world[pelvis, :3, :3].T @ shift  # its parent, the root, is not posed
        poses.append(pose)
    return snapped(rig, find_body(rig), poses)


def main(argv):
    out, seconds = argv[0], float(argv[1]) if len(argv) > 1 else 2.0
    rig = load_rig(ROOT / "assets" / "humanoid.json")
    export_rig(RigDocument(rig, "humanoid"), out, walk_poses(rig, seconds), Timing(FPS, "walk"))


if __name__ == "__main__":
    main(sys.argv[1:])
