"""Whole-body posing (``rig.whole_body``) measured against issue 21's targets (not a test).

(a) Pins: seeded hand targets (reachable and not) with both feet pinned, on the humanoid and on an
    imported BVH figure after the automatic IK set-up (skipped without ../shared/data): the feet's
    worst position and rotation error against 1e-5 m and 1e-4 rad.
(b) The body helps: hand targets beyond the arm's reach but within 1.3x of it: the median of the
    hand's error with the root free over the arm alone's (what the app did before), feet pinned.
(c) Speed: ``app.py solve`` on a goals file of whole-body cases (two pinned feet, one hand target,
    root free) beside the same hand targets solved on the arm alone, both in one process of their
    own (bench/measure_command.py), each case's seconds as the command reports them.
Ground: seeded drags with a plane ground: the deepest head or tail below it. On the skinned humanoid
    (assets/humanoid_skinned.glb), hand drags down through its soles' plane as the window solves
    them (``rig.evaluate``, root free): the deepest vertex of the feet's skin below it, skinned as
    the app skins it, and the median seconds of a solve with the skin's points and without them
    (bones alone), in turn on the same targets.
Prints a table and a JSON line. Usage: python bench/bench_whole_body.py [targets]
"""
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rig.autorig import auto_rig  # noqa: E402
from rig.constraints import IKConstraint  # noqa: E402
from rig.evaluate import active_ik, evaluation  # noqa: E402
from rig.formats.bvh import load_bvh  # noqa: E402
from rig.formats.reader import open_rig  # noqa: E402
from rig.formats.rigfile import load_rig  # noqa: E402
from rig.ground import PlaneGround  # noqa: E402
from rig.ik import IKGoal, goal_from_handles, solve_groups  # noqa: E402
from rig.pins import pin_where_it_is  # noqa: E402
from rig.pose import Pose, world_matrices  # noqa: E402
from rig.whole_body import solve_with_pins  # noqa: E402
from solvers.methods import warm_all  # noqa: E402
from solvers.transforms import matrix3_to_quat, quat_angle  # noqa: E402

RIG = ROOT / "assets" / "humanoid.json"
SKINNED = ROOT / "assets" / "humanoid_skinned.glb"
BVH = ROOT.parent / "shared" / "data" / "cmu_01_02_excerpt.bvh"
HUMANOID_LIMBS = {"arm": ("upper_arm.L", "forearm.L"), "feet": ("foot.L", "foot.R")}


def bvh_limbs(report):
    return {"arm": report.roles["arm.L"][:2], "feet": tuple(report.roles[f"leg.{s}"][2] for s in ("L", "R"))}


def drag(rig, limbs, target, root_free=True, ground=None):
    """One frame of a hand drag (Auto IK on the forearm's tail) with the feet pinned; (world, reports, pins)."""
    pose = Pose.rest(len(rig.skeleton))
    world = world_matrices(rig.skeleton, pose)
    pins = {name: pin_where_it_is(world, rig.skeleton.index[name]) for name in limbs["feet"]}
    dragged = IKConstraint(bone=limbs["arm"][1], chain_count=2)
    goal = IKGoal(dragged, np.asarray(target, dtype=float))
    reports, _ = solve_with_pins(rig, pose, world, [dragged] + active_ik(rig),
                                 lambda c, w: goal if c is dragged else goal_from_handles(rig, c, w), pins,
                                 dragged=dragged, root_free=root_free, ground=ground)
    return world, reports, pins


def arm(rig, limbs):
    skeleton = rig.skeleton
    bones = [skeleton.index[name] for name in limbs["arm"]]
    return skeleton.rest_heads[bones[0]], float(skeleton.lengths[bones].sum())


def targets(rng, count, shoulder, reach, low, high):
    directions = rng.normal(size=(count, 3))
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    return shoulder + directions * (reach * rng.uniform(low, high, size=count))[:, None]


def pin_errors(rig, limbs, count):
    """(a): the worst foot position and rotation error over ``count`` seeded drags (0.1-3x reach)."""
    shoulder, reach = arm(rig, limbs)
    worst = np.zeros(2)
    for target in targets(np.random.default_rng(21), count, shoulder, reach, 0.1, 3.0):
        world, _, pins = drag(rig, limbs, target)
        for name, pin in pins.items():
            bone = rig.skeleton.index[name]
            worst = np.maximum(worst, (np.linalg.norm(world[bone, :3, 3] - pin.position),
                                       quat_angle(matrix3_to_quat(world[bone, :3, :3]), np.array(pin.rotation))))
    return worst


def body_helps(rig, limbs, count):
    """(b): median over far targets of (hand error, root free) / (hand error, arm alone)."""
    shoulder, reach = arm(rig, limbs)
    ratios = []
    for target in targets(np.random.default_rng(22), count, shoulder, reach, 1.0, 1.3):
        _, reports, _ = drag(rig, limbs, target)
        constraint = IKConstraint(bone=limbs["arm"][1], chain_count=2)
        pose = Pose.rest(len(rig.skeleton))
        alone, _ = solve_groups(rig, pose, world_matrices(rig.skeleton, pose), [constraint],
                                lambda c, w: IKGoal(c, target))
        ratios.append(reports[0].error / max(alone[0].error, 1e-12))
    return float(np.median(ratios))


def deepest_below_ground(rig, limbs, count):
    """The deepest head or tail below a ground level with the figure's lowest rest point."""
    shoulder, reach = arm(rig, limbs)
    skeleton = rig.skeleton
    height = min(skeleton.rest_heads[:, 1].min(), skeleton.rest_tails[:, 1].min())
    deepest = 0.0
    for target in targets(np.random.default_rng(23), count, shoulder, reach, 0.3, 2.0):
        world, _, _ = drag(rig, limbs, target, ground=PlaneGround(float(height)))
        heads = world[:, :3, 3]
        tails = heads + world[:, :3, 1] * skeleton.lengths[:, None]
        deepest = max(deepest, height - min(heads[:, 1].min(), tails[:, 1].min()))
    return deepest


def skinned_ground(count):
    """The skinned humanoid's hand dragged down through the plane its soles stand on: (deepest
    skin vertex of the feet below it, median seconds a solve with the skin's points, without)."""
    document = open_rig(SKINNED)
    rig, skin = document.rig, document.rig.skin_contacts
    ground = PlaneGround(float(document.mesh.positions[skin.vertices, 1].min()))
    shoulder, reach = arm(rig, HUMANOID_LIMBS)
    pose = Pose.rest(len(rig.skeleton))
    dragged = IKConstraint(bone="forearm.L", chain_count=0)
    deepest, seconds = 0.0, {True: [], False: []}
    for target in targets(np.random.default_rng(25), count, shoulder - [0.0, 0.9, 0.0], reach, 0.3, 1.2):
        for with_skin in (True, False):
            rig.skin_contacts = skin if with_skin else None
            start = time.perf_counter()
            world = evaluation(rig, pose, [(dragged, target)], dragged=dragged, root_free=True, ground=ground).world
            seconds[with_skin].append(time.perf_counter() - start)
            if with_skin:
                points = document.mesh.skinned_positions(world)[skin.vertices]
                deepest = max(deepest, ground.height - float(points[:, 1].min()))
    rig.skin_contacts = skin
    return deepest, float(np.median(seconds[True])), float(np.median(seconds[False]))


def solve_seconds(rig, count):
    """(c): median seconds per case of ``app.py solve``, whole-body cases and the arm alone."""
    shoulder, reach = arm(rig, HUMANOID_LIMBS)
    hands = targets(np.random.default_rng(24), count, shoulder, reach, 0.3, 1.2)
    medians = {}
    for kind in ("whole_body", "arm_alone"):
        pins = [{"bone": name, "pin": True} for name in HUMANOID_LIMBS["feet"]] if kind == "whole_body" else []
        cases = [{"goals": pins + [{"bone": "forearm.L", "chain_length": 2, "target": t.tolist()}],
                  **({"root": "free"} if kind == "whole_body" else {})} for t in hands]
        with tempfile.TemporaryDirectory() as folder:
            goals, out = Path(folder) / "goals.json", Path(folder) / "out.json"
            goals.write_text(json.dumps({"cases": cases}))
            subprocess.run([sys.executable, str(ROOT / "bench" / "measure_command.py"), "solve", str(RIG), str(goals),
                            "-o", str(out)], check=True, capture_output=True)
            medians[kind] = float(np.median([c["seconds"] for c in json.loads(out.read_text())["cases"]]))
    return medians


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    warm_all()
    figures = {"targets": count, "load_average": os.getloadavg()[0]}
    rigs = {"humanoid": (load_rig(RIG), HUMANOID_LIMBS)}
    if BVH.exists():
        bvh_rig, report, _ = auto_rig(load_bvh(str(BVH)).rig)
        rigs["bvh"] = (bvh_rig, bvh_limbs(report))
    else:
        print(f"skipping the BVH figure: {BVH} is absent")
    for name, (rig, limbs) in rigs.items():
        position, rotation = pin_errors(rig, limbs, count)
        figures[name] = {"pin_position_max_m": float(position), "pin_rotation_max_rad": float(rotation),
                         "body_helps_median_ratio": body_helps(rig, limbs, max(count // 5, 20)),
                         "deepest_below_ground_m": deepest_below_ground(rig, limbs, max(count // 5, 20))}
    figures["solve_median_s"] = solve_seconds(rigs["humanoid"][0], max(count // 5, 50))
    deepest, with_skin, bones_only = skinned_ground(max(count // 5, 20))
    figures["skinned"] = {"deepest_skin_below_ground_m": deepest, "ground_solve_median_s": with_skin,
                          "ground_solve_bones_only_median_s": bones_only}
    print(f"{'rig':10} {'pins max m':>12} {'pins max rad':>12} {'helps ratio':>12} {'below ground m':>15}")
    for name in rigs:
        f = figures[name]
        print(f"{name:10} {f['pin_position_max_m']:12.2e} {f['pin_rotation_max_rad']:12.2e} "
              f"{f['body_helps_median_ratio']:12.3f} {f['deepest_below_ground_m']:15.2e}")
    seconds = figures["solve_median_s"]
    print(f"app.py solve median per case: whole body {seconds['whole_body'] * 1e3:.3f} ms, "
          f"arm alone {seconds['arm_alone'] * 1e3:.3f} ms (load average {figures['load_average']:.2f})")
    skinned = figures["skinned"]
    print(f"skinned humanoid, hand through its soles' plane: deepest foot skin vertex "
          f"{skinned['deepest_skin_below_ground_m']:.2e} m below; a solve {skinned['ground_solve_median_s'] * 1e3:.3f} ms "
          f"with the skin's points, {skinned['ground_solve_bones_only_median_s'] * 1e3:.3f} ms with the bones alone")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
