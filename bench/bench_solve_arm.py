"""``app.py solve`` on the humanoid's left arm beside three.js's CCDIKSolver (not a test).

Writes a goals file of seeded reachable targets for the left arm (forearm.L, two bones: as
bench_solvers.humanoid_case draws them), runs ``app.py solve`` on it in a process of its own
(bench/measure_command.py) and reads each case's seconds from OUT.json: what the command reports
for its solve, from the goal to the posed world matrices. Without ``--pole`` the cases ask what
three.js's CCD is given, run in the same run on the same chain (its rest geometry) and targets
(bench/threejs_baseline.py); with it each case also has the rig's elbow pole and pole angle.
Prints a table and a JSON line: medians, p95s, successes (tip within 1e-3 of the arm's length)
and ours / three.js.
Usage: python bench/bench_solve_arm.py [cases] [--pole]
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_solvers import RIG_ITERATIONS, reachable_targets  # noqa: E402
from rig.formats.rigfile import load_rig  # noqa: E402
from rig.pose import Pose  # noqa: E402
from rig.solver_views import chain_arrays  # noqa: E402
from threejs_baseline import three_ccd  # noqa: E402

RIG = ROOT / "assets" / "humanoid.json"
BONE, POLE = "forearm.L", "elbow_pole.L"


def arm_cases(rig, count, pole):
    """The arm's bones, ``count`` seeded targets within its reach and the goals file's cases for them."""
    skel = rig.skeleton
    bones = skel.chain(skel.index[BONE], 2)
    targets = skel.rest_heads[bones[0]] + reachable_targets(np.random.default_rng(2), count, skel.lengths[bones].sum())
    extra = {"pole": skel.rest_heads[skel.index[POLE]].tolist(),
             "pole_angle": next(c.pole_angle for c in rig.ik if c.bone == BONE)} if pole else {}
    cases = [{"goals": [{"bone": BONE, "chain_length": 2, "target": t.tolist(), **extra}]} for t in targets]
    return bones, targets, cases


def run_solve(cases):
    """Per-case seconds and worst residuals of ``app.py solve`` on the humanoid with ``cases``."""
    with tempfile.TemporaryDirectory() as folder:
        goals, out = Path(folder) / "goals.json", Path(folder) / "out.json"
        goals.write_text(json.dumps({"iterations": RIG_ITERATIONS, "cases": cases}))
        done = subprocess.run([sys.executable, str(ROOT / "bench" / "measure_command.py"), "solve", str(RIG),
                               str(goals), "-o", str(out)], capture_output=True, text=True, cwd=ROOT)
        if done.returncode != 0:
            raise SystemExit(f"app.py solve failed: {done.stderr.strip()}")
        solved = json.loads(out.read_text())["cases"]
    return np.array([c["seconds"] for c in solved]), np.array([c["error"] for c in solved])


def main():
    count = int(next((a for a in sys.argv[1:] if a.isdigit()), 1000))
    pole = "--pole" in sys.argv
    rig = load_rig(str(RIG))
    bones, targets, cases = arm_cases(rig, count, pole)
    reach = rig.skeleton.lengths[bones].sum()
    seconds, errors = run_solve(cases)
    row = {"case": f"app.py solve, humanoid left arm{' with its pole' if pole else ''}",
           "median_s": float(np.median(seconds)), "p95_s": float(np.percentile(seconds, 95)),
           "success_1e-3": float(np.mean(errors <= 1e-3 * reach)), "targets": count}
    skel = rig.skeleton
    chain = chain_arrays(skel, Pose.rest(len(skel)), skel.rest_world, bones)
    baseline = three_ccd({"arm": (chain, targets)}, RIG_ITERATIONS)
    print(f"{'case':44s} {'median us':>10s} {'p95 us':>8s} {'ok@1e-3':>8s} {'three.js us':>11s} {'its ok':>7s} "
          f"{'/ three.js':>10s}")
    versus = ""
    if baseline.rows is None:
        print(f"three.js baseline skipped: {baseline.reason}")
    else:
        three = baseline.rows["arm"]
        row["three_js"] = {k: three[k] for k in ("median_s", "p95_s", "success_1e-3", "three", "node")}
        row["ratio_to_three_js"] = row["median_s"] / three["median_s"]
        versus = f" {three['median_s'] * 1e6:11.2f} {three['success_1e-3']:7.3f} {row['ratio_to_three_js']:10.2f}"
    print(f"{row['case']:44s} {row['median_s'] * 1e6:10.2f} {row['p95_s'] * 1e6:8.2f} "
          f"{row['success_1e-3']:8.3f}{versus}")
    print(json.dumps(row))


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
