"""Do limited chains reach? (not a test). Tips of seeded random poses inside each chain's limits
(reachable by construction) are solved from rest through the rig, as ``app.py solve`` does (200
iterations, original-pose mode), for each method; a solve succeeds when its tip ends within 1e-3
of the chain's reach. Also counts results that break a lock or limit by more than 1e-6 rad, and
silent misses: tips short of that whose report says the goal was met. Poses inside the limits are
drawn as Blender's IK angles (``solvers.limits.swing_twist_angles``: X, Z swing, Y twist).

Chains: the robot arm (to the gripper's head, 3 bones; and with its gripper hinged too, 4
hinges); six one-sided hinges; six bones with swing and twist limits; six swing joints (Y locked,
swing limited); the humanoid with human limits (elbows and knees one-sided hinges; shoulders,
hips, wrists and spine limited per axis; the right side's mirrored from the left's) on each limb
(2 and 3 bones) and the head-to-pelvis spine (5 bones); the humanoid's arm with only its forearm
limited (a one-sided hinge, the upper arm free), and with swing-twist limits on both bones (the
forearm not a hinge). "two_bone" runs on the two-bone chains only.
Usage: python bench/bench_limits.py [poses per chain] [methods, comma-separated]
"""
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rig.constraints import BoneIKSettings, IKConstraint  # noqa: E402
from rig.formats.rigfile import load_rig, rig_from_dict  # noqa: E402
from rig.ik import IKGoal  # noqa: E402
from rig.ik_plan import bone_limits  # noqa: E402
from rig.pose import Pose, heads_tails, world_matrices  # noqa: E402
from rig.scripted_solve import solve_case  # noqa: E402
from solvers.limits import limit_violation, rotation_within  # noqa: E402

ASSETS = Path(__file__).resolve().parents[1] / "assets"
METHODS = tuple(sys.argv[2].split(",")) if len(sys.argv) > 2 else ("auto", "two_bone", "fabrik", "ccd", "dls")
PI = np.pi


def hinge(low, high):
    """A one-sided hinge about X."""
    return BoneIKSettings(lock=(False, True, True), use_limit=(True, False, False),
                          limit_min=(low, -PI, -PI), limit_max=(high, PI, PI))


def per_axis(low, high):
    return BoneIKSettings(use_limit=(True, True, True), limit_min=low, limit_max=high)


HUMAN_LIMITS = {
    "upper_arm": per_axis((-1.2, -1.4, -1.5), (1.6, 1.4, 1.0)),
    "forearm": hinge(0.0, 2.6),
    "hand": per_axis((-1.2, -0.3, -0.5), (1.2, 0.3, 0.5)),
    "thigh": per_axis((-1.6, -0.7, -0.8), (0.5, 0.7, 0.6)),
    "shin": hinge(-2.5, 0.0),
    "spine.01": per_axis((-0.5, -0.4, -0.3), (0.5, 0.4, 0.3)),
    "spine.02": per_axis((-0.5, -0.4, -0.3), (0.5, 0.4, 0.3)),
    "spine.03": per_axis((-0.5, -0.4, -0.3), (0.5, 0.4, 0.3)),
    "neck": per_axis((-0.6, -0.7, -0.4), (0.6, 0.7, 0.4)),
    "head": per_axis((-0.5, -0.6, -0.3), (0.5, 0.6, 0.3)),
}


def mirrored(settings):
    """``settings`` for the other side: the rig mirrors across X, which maps a bone's IK angles
    (x, y, z) to (x, -y, -z), so the Y and Z ranges flip."""
    low, high = settings.limit_min, settings.limit_max
    return replace(settings, limit_min=(low[0], -high[1], -high[2]), limit_max=(high[0], -low[1], -low[2]))


def limited_humanoid():
    """The humanoid with ``HUMAN_LIMITS`` on its left side and centre, mirrored on its right."""
    rig = load_rig(str(ASSETS / "humanoid.json"))
    for name in rig.skeleton.names:
        settings = HUMAN_LIMITS.get(name.split(".L")[0].split(".R")[0]) if name not in HUMAN_LIMITS else \
            HUMAN_LIMITS[name]
        if settings is not None:
            rig.bone_ik[name] = mirrored(settings) if name.endswith(".R") else settings
    return rig


def hinged_forearm():
    """The humanoid with only its left forearm limited: the one-sided elbow hinge of ``HUMAN_LIMITS``."""
    rig = load_rig(str(ASSETS / "humanoid.json"))
    rig.bone_ik["forearm.L"] = HUMAN_LIMITS["forearm"]
    return rig


def limited_arm():
    """The humanoid with swing-twist limits on its left upper arm (``HUMAN_LIMITS``') and forearm (a
    bend about X with a little give about Y and Z: not a hinge)."""
    rig = load_rig(str(ASSETS / "humanoid.json"))
    rig.bone_ik["upper_arm.L"] = HUMAN_LIMITS["upper_arm"]
    rig.bone_ik["forearm.L"] = per_axis((0.0, -0.3, -0.2), (2.6, 0.3, 0.2))
    return rig


def hinged_robot_arm():
    """The robot arm with its gripper a hinge too (about X, +-2 rad): four hinged bones."""
    rig = load_rig(str(ASSETS / "robot_arm.json"))
    rig.bone_ik["gripper"] = hinge(-2.0, 2.0)
    return rig


def hinge_chain(count=6, length=0.2):
    bones = [{"name": f"b{i}", "parent": f"b{i - 1}" if i else None, "head": [0.0, i * length, 0.0],
              "tail": [0.0, (i + 1) * length, 0.0], "connected": i > 0,
              "ik": {"lock": [False, True, True], "use_limit": [True, False, False],
                     "limit_min": [0.0, -PI, -PI], "limit_max": [1.2, PI, PI]}} for i in range(count)]
    return rig_from_dict({"format": "posekit.rig", "version": 1, "name": "hinges", "bones": bones})


def swing_twist_chain(count=6, length=0.2, swing=0.3, twist=0.5):
    """Bones whose swing about X and Z is held within ``swing`` rad and twist about Y within
    ``twist``: the bone IK panel's per-axis limits standing in for a 0.3 rad cone with a twist
    limit (Blender's panel has no cone)."""
    bones = [{"name": f"b{i}", "parent": f"b{i - 1}" if i else None, "head": [0.0, i * length, 0.0],
              "tail": [0.0, (i + 1) * length, 0.0], "connected": i > 0,
              "ik": {"use_limit": [True, True, True], "limit_min": [-swing, -twist, -swing],
                     "limit_max": [swing, twist, swing]}} for i in range(count)]
    return rig_from_dict({"format": "posekit.rig", "version": 1, "name": "swing_twist", "bones": bones})


def swing_chain(count=6, length=0.2, swing=0.6):
    """Swing joints: Y locked (no twist about the bone), X and Z held within ``swing`` rad."""
    bones = [{"name": f"b{i}", "parent": f"b{i - 1}" if i else None, "head": [0.0, i * length, 0.0],
              "tail": [0.0, (i + 1) * length, 0.0], "connected": i > 0,
              "ik": {"lock": [False, True, False], "use_limit": [True, False, True], "limit_min": [-swing, -PI, -swing],
                     "limit_max": [swing, PI, swing]}} for i in range(count)]
    return rig_from_dict({"format": "posekit.rig", "version": 1, "name": "swing", "bones": bones})


def chains():
    """(name, rig, IKConstraint) for every chain the bench solves."""
    arm = load_rig(str(ASSETS / "robot_arm.json"))
    human = limited_humanoid()
    cases = [("robot arm", arm, IKConstraint("gripper", chain_count=3, use_tail=False)),
             ("robot arm (4 hinges)", hinged_robot_arm(), IKConstraint("gripper", chain_count=4)),
             ("hinged forearm (2)", hinged_forearm(), IKConstraint("forearm.L", chain_count=2)),
             ("limited arm (2)", limited_arm(), IKConstraint("forearm.L", chain_count=2)),
             ("6 one-sided hinges", hinge_chain(), IKConstraint("b5", chain_count=6)),
             ("6 swing 0.3 twist 0.5", swing_twist_chain(), IKConstraint("b5", chain_count=6)),
             ("6 lock Y swing 0.6", swing_chain(), IKConstraint("b5", chain_count=6))]
    for side in ("L", "R"):
        cases += [(f"human arm.{side} (2)", human, IKConstraint(f"forearm.{side}", chain_count=2)),
                  (f"human arm.{side} (3)", human, IKConstraint(f"hand.{side}", chain_count=3)),
                  (f"human leg.{side} (2)", human, IKConstraint(f"shin.{side}", chain_count=2))]
    cases.append(("human spine (5)", human, IKConstraint("head", chain_count=5)))
    return cases


def random_pose_inside(rig, bones, rng):
    pose = Pose.rest(len(rig.skeleton))
    for bone, limit in zip(bones, bone_limits(rig, bones) or [None] * len(bones)):
        settings = rig.ik_settings(rig.skeleton.names[bone])
        low = np.where(settings.use_limit, settings.limit_min, -PI)
        high = np.where(settings.use_limit, settings.limit_max, PI)
        pose.rotations[bone] = rotation_within(limit, np.where(settings.lock, 0.0, rng.uniform(low, high)))
    return pose


def limits_broken(rig, pose, bones, tolerance=1e-6):
    limits = bone_limits(rig, bones) or [None] * len(bones)
    return any(limit is not None and limit_violation((limit,), pose.rotations[bone]) > tolerance
               for bone, limit in zip(bones, limits))


def run(name, rig, constraint, method, count, seed=5):
    rng = np.random.default_rng(seed)
    rig.solver.iterations, rig.solver.mode, rig.solver.type = 200, "original_pose", method
    constraint.solver, constraint.iterations = method, 200
    bones = rig.ik_chain(constraint)
    tip_bone = constraint.bone if constraint.use_tail else rig.skeleton.names[rig.skeleton.parents[
        rig.skeleton.index[constraint.bone]]]
    tip_index = rig.skeleton.index[tip_bone]
    reach = rig.skeleton.lengths[bones].sum()
    hits, broken, silent, times, used = 0, 0, 0, [], set()
    for _ in range(count):
        target = heads_tails(rig.skeleton, world_matrices(rig.skeleton, random_pose_inside(rig, bones, rng)))[1][
            tip_index]
        pose, world, reports, seconds = solve_case(rig, [IKGoal(constraint, target)])
        times.append(seconds)
        used.add(reports[0].solver)
        hit = np.linalg.norm(heads_tails(rig.skeleton, world)[1][tip_index] - target) <= 1e-3 * reach
        hits += hit
        silent += not hit and reports[0].converged  # a miss its report calls reached
        broken += limits_broken(rig, pose, bones)
    return {"chain": name, "method": method, "ran": "/".join(sorted(used)), "success_1e-3": hits / count,
            "limits_broken": broken, "silent_misses": silent, "median_us": float(np.median(times) * 1e6),
            "poses": count}


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    rows = []
    print(f"{'chain':22} {'method':7} {'ran':9} {'success':>8} {'broken':>7} {'silent':>7} {'median us':>10}")
    for name, rig, constraint in chains():
        for method in METHODS:
            if method == "two_bone" and len(rig.ik_chain(constraint)) != 2:
                continue
            row = run(name, rig, constraint, method, count)
            rows.append(row)
            print(f"{name:22} {method:7} {row['ran']:9} {row['success_1e-3']:8.1%} {row['limits_broken']:7d} "
                  f"{row['silent_misses']:7d} {row['median_us']:10.1f}", flush=True)
    print(json.dumps({"bench": "limits", "rows": rows}))


if __name__ == "__main__":
    main()
