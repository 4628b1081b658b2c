"""A walk of our humanoid, keyed by a script: the second skeleton the tracking bench and tests
rebuild from its own trackers (``bench/bench_tracking.py``, ``tests/rig/test_tracking_*.py``).

The figure walks forward (+Z) at ``SPEED``, hips swinging the thighs, knees bending in the swing,
arms swinging against the legs, the pelvis bobbing and turning a little. Sagittal swings turn about
the world's X axis, so each bone's pose rotation is that turn seen in its rest frame. The IK handles
are snapped onto the limbs so the rig's IK keeps the keyed limbs (``rig.autorig.snap_handles``).

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
X = np.array([1.0, 0.0, 0.0])
Y = np.array([0.0, 1.0, 0.0])


def _local(skeleton, bone, world_turn):
    rest = matrix3_to_quat(skeleton.rest_world[skeleton.index[bone], :3, :3])
    return quat_mul(quat_conjugate(rest), quat_mul(world_turn, rest))


def walk_poses(rig, seconds=2.0):
    """The walk's Poses, one a frame at ``FPS``."""
    skeleton = rig.skeleton
    poses = []
    for k in range(int(round(seconds * FPS))):
        t = k / FPS
        phase = 2.0 * math.pi * STRIDE_HZ * t
        pose = Pose.rest(len(skeleton))
        turns = {"pelvis": quat_from_axis_angle(Y, 0.08 * math.sin(phase))}
        for side, sign in (("L", 1.0), ("R", -1.0)):
            swing = sign * math.sin(phase)
            knee = max(0.0, -sign * math.cos(phase)) * 0.9  # the knee bends while its leg swings forward
            turns[f"thigh.{side}"] = quat_from_axis_angle(X, -0.45 * swing)
            turns[f"shin.{side}"] = quat_from_axis_angle(X, 0.45 * swing + knee)
            turns[f"foot.{side}"] = quat_from_axis_angle(X, -knee * 0.5)
            turns[f"upper_arm.{side}"] = quat_from_axis_angle(X, 0.4 * swing)
            turns[f"forearm.{side}"] = quat_from_axis_angle(X, -0.3 - 0.2 * max(0.0, swing))
        for bone, turn in turns.items():
            pose.rotations[skeleton.index[bone]] = _local(skeleton, bone, turn)
        pelvis = skeleton.index["pelvis"]
        lift = 0.03 * math.cos(2.0 * phase) - 0.04
        shift = np.array([0.0, lift, SPEED * t])
        pose.locations[pelvis] = skeleton.rest_world[pelvis, :3, :3].T @ shift  # its parent, the root, is not posed
        poses.append(pose)
    return snapped(rig, find_body(rig), poses)


def main(argv):
    out, seconds = argv[0], float(argv[1]) if len(argv) > 1 else 2.0
    rig = load_rig(ROOT / "assets" / "humanoid.json")
    export_rig(RigDocument(rig, "humanoid"), out, walk_poses(rig, seconds), Timing(FPS, "walk"))


if __name__ == "__main__":
    main(sys.argv[1:])
