"""Benchmark the IK solvers on seeded random reachable targets (not a test).

Prints a table and a JSON line: median and p95 seconds per solve, bare solvers and (marked
"rig") the same chains through the rig as ``app.py solve`` reports them (solves timed one by one, back
to back; their checks run afterwards so their numpy work does not cool the caches between
solves), mean iterations, and the share of solves whose tip ends within 1e-3 and 1e-2 of the
chain's length; the default humanoid with hand, foot and head goals at once (through the rig
evaluation, as ``app.py solve`` runs it); then the two-bone batch entry point's solves per
second. Beside each rig row, three.js's CCDIKSolver (bench/threejs_baseline.py, under node) on the
same chain and targets with the same iteration budget, measured in the same run: its median, its
successes and the ratio ours / three.js ("three_js" and "ratio_to_three_js" in the JSON); the
ratios are left out, with the reason printed, when node or three.js is missing.
Usage: python bench/bench_solvers.py [targets]
"""
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rig.ik import IKGoal  # noqa: E402
from rig.constraints import IKConstraint  # noqa: E402
from rig.pose import heads_tails  # noqa: E402
from rig.formats.rigfile import load_rig, rig_from_dict  # noqa: E402
from rig.scripted_solve import solve_case  # noqa: E402
from threejs_baseline import three_ccd  # noqa: E402
from solvers.ccd import solve_ccd_chain  # noqa: E402
from solvers.chain import chain_points, straight_chain  # noqa: E402
from solvers.dls import dls_plan, solve_dls  # noqa: E402
from solvers.fabrik import solve_fabrik_chain  # noqa: E402
from solvers.goals import PositionGoal  # noqa: E402
from solvers.tree import Tree  # noqa: E402
from solvers.two_bone import TwoBoneLimbs, solve_two_bone, solve_two_bone_batch  # noqa: E402


def reachable_targets(rng, count, reach):
    directions = rng.normal(size=(count, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    return directions * rng.uniform(0.2, 0.95, size=(count, 1)) * reach


def run_case(name, chain, solve, targets):
    rest = np.tile([0.0, 0.0, 0.0, 1.0], (len(chain), 1))
    reach = chain.lengths.sum()
    times, results = [], []
    for target in targets:
        start = time.perf_counter()
        results.append(solve(chain, rest, target))
        times.append(time.perf_counter() - start)
    iterations = [result.iterations for result in results]
    misses = np.array([np.linalg.norm(chain_points(chain, result.rotations, result.stretch)[-1] - target) / reach
                       for result, target in zip(results, targets)])
    return {"case": name, "median_s": float(np.median(times)), "p95_s": float(np.percentile(times, 95)),
            "mean_iterations": float(np.mean(iterations)), "success_1e-3": float(np.mean(misses <= 1e-3)),
            "success_1e-2": float(np.mean(misses <= 1e-2)), "targets": len(targets)}


HUMANOID_GOALS = [("forearm.L", 2, "elbow_pole.L"), ("forearm.R", 2, "elbow_pole.R"),
                  ("shin.L", 2, "knee_pole.L"), ("shin.R", 2, "knee_pole.R"), ("head", 1, None)]


def humanoid_case(rng, count):
    """Seeded reachable goals for both hands, both feet and the head at once, each within its
    chain's reach of the chain's root (the head's at its length: it aims); poles and pole angles
    as the rig's own constraints."""
    rig = load_rig(str(Path(__file__).resolve().parents[1] / "assets" / "humanoid.json"))
    skel = rig.skeleton
    pole_angles = {c.bone: c.pole_angle for c in rig.ik}
    heads, tails = skel.rest_heads, skel.rest_tails
    cases = []
    for _ in range(count):
        goals = []
        for bone, length, pole in HUMANOID_GOALS:
            chain = rig.ik_chain(IKConstraint(bone, chain_count=length))
            reach = skel.lengths[chain].sum()
            offset = reachable_targets(rng, 1, reach)[0]
            if length == 1:  # one bone only aims: its tail reaches points at its own length
                offset *= reach / np.linalg.norm(offset)
            target = heads[chain[0]] + offset
            constraint = IKConstraint(bone, chain_count=length, pole_angle=pole_angles.get(bone, 0.0))
            goals.append(IKGoal(constraint, target, None, None if pole is None else heads[skel.index[pole]]))
        cases.append(goals)
    return rig, cases


def run_humanoid(rng, count):
    rig, cases = humanoid_case(rng, count)
    times, iterations, misses = [], [], []
    for goals in cases:
        _, world, reports, seconds = solve_case(rig, goals)
        tails = heads_tails(rig.skeleton, world)[1]
        times.append(seconds)
        iterations.append(sum(r.iterations for r in reports))
        worst = 0.0
        for goal in goals:
            chain = rig.ik_chain(goal.constraint)
            reach = rig.skeleton.lengths[chain].sum()
            worst = max(worst, np.linalg.norm(tails[chain[-1]] - goal.target) / reach)
        misses.append(worst)
    misses = np.array(misses)
    return {"case": "humanoid: 2 hands, 2 feet, head", "median_s": float(np.median(times)),
            "p95_s": float(np.percentile(times, 95)), "mean_iterations": float(np.mean(iterations)),
            "success_1e-3": float(np.mean(misses <= 1e-3)), "success_1e-2": float(np.mean(misses <= 1e-2)),
            "targets": count}


def straight_rig(lengths):
    """A rig of bones laid end to end up +Y from the origin, as ``straight_chain`` lays a chain."""
    heads = np.concatenate([[0.0], np.cumsum(lengths)])
    bones = [{"name": f"b{i}", "parent": f"b{i - 1}" if i else None, "head": [0.0, heads[i], 0.0],
              "tail": [0.0, heads[i + 1], 0.0], "connected": i > 0} for i in range(len(lengths))]
    return rig_from_dict({"format": "posekit.rig", "version": 1, "name": "chain", "bones": bones})


RIG_ITERATIONS = 100  # the rig rows' budget, three.js's CCD given the same


def run_rig_case(name, lengths, targets, iterations):
    """One chain solved through the rig as ``app.py solve`` runs each case (auto, from rest), its
    seconds as the command reports them."""
    rig = straight_rig(lengths)
    rig.solver.iterations, rig.solver.tolerance = iterations, 1e-3 * sum(lengths) * 0.5
    constraint = IKConstraint(f"b{len(lengths) - 1}", chain_count=len(lengths), iterations=iterations)
    times, misses, ran = [], [], set()
    for target in targets:
        _, world, reports, seconds = solve_case(rig, [IKGoal(constraint, target)])
        times.append(seconds)
        ran.add(reports[0].solver)
        misses.append(np.linalg.norm(heads_tails(rig.skeleton, world)[1][-1] - target) / sum(lengths))
    misses = np.array(misses)
    return {"case": f"{name} (rig, auto: {'/'.join(sorted(ran))})", "median_s": float(np.median(times)),
            "p95_s": float(np.percentile(times, 95)), "mean_iterations": float("nan"),
            "success_1e-3": float(np.mean(misses <= 1e-3)), "success_1e-2": float(np.mean(misses <= 1e-2)),
            "targets": len(targets)}


def jacobian_solver(selective):
    """A chain solve through DLS / SDLS, the plan built per target as a moving handle needs."""
    def solve(chain, rest, target):
        plan = dls_plan(Tree.from_chain(chain), [PositionGoal(len(chain) - 1, target)])
        return solve_dls(plan, rest, max_iterations=30, tolerance=1e-3 * chain.lengths.sum(), selective=selective)
    return solve


def batch_rate(limbs_count, repeats=20):
    rng = np.random.default_rng(1)
    limbs = TwoBoneLimbs.from_chains([straight_chain([1.0, 0.8])] * limbs_count)
    rotations = np.tile([0.0, 0.0, 0.0, 1.0], (limbs_count, 2, 1))
    targets = reachable_targets(rng, limbs_count, 1.8)
    solve_two_bone_batch(limbs, rotations, targets)
    start = time.perf_counter()
    for _ in range(repeats):
        solve_two_bone_batch(limbs, rotations, targets)
    return limbs_count * repeats / (time.perf_counter() - start)


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = np.random.default_rng(0)
    fabrik = lambda chain, rest, target: solve_fabrik_chain(chain, rest, target, max_iterations=30,
                                                            tolerance=1e-3 * chain.lengths.sum())
    ccd = lambda chain, rest, target: solve_ccd_chain(chain, rest, target, max_iterations=30,
                                                      tolerance=1e-3 * chain.lengths.sum())
    chains = {"arm": straight_chain([1.0, 0.8]), "10": straight_chain([0.3] * 10), "50": straight_chain([0.1] * 50)}
    # One seeded target set per chain, so solvers on the same chain face the same targets.
    targets = {key: reachable_targets(rng, count, chain.lengths.sum()) for key, chain in chains.items()}
    cases = [("two-bone arm (analytic)", "arm", solve_two_bone),
             ("10-bone chain (FABRIK)", "10", fabrik),
             ("10-bone chain (CCD)", "10", ccd),
             ("10-bone chain (DLS)", "10", jacobian_solver(False)),
             ("10-bone chain (SDLS)", "10", jacobian_solver(True)),
             ("50-bone chain (FABRIK)", "50", fabrik)]
    rows = [run_case(name, chains[key], solve, targets[key]) for name, key, solve in cases]
    rig_cases = [("two-bone arm", "arm"), ("10-bone chain", "10"), ("50-bone chain", "50")]
    rig_rows = [run_rig_case(name, chains[key].lengths, targets[key], RIG_ITERATIONS) for name, key in rig_cases]
    baseline = three_ccd({key: (chains[key], targets[key]) for _, key in rig_cases}, RIG_ITERATIONS)
    if baseline.rows is None:
        print(f"three.js baseline skipped: {baseline.reason}")
    else:
        for row, (_, key) in zip(rig_rows, rig_cases):
            three = baseline.rows[key]
            row["three_js"] = {k: three[k] for k in ("median_s", "p95_s", "success_1e-3", "success_1e-2", "three",
                                                     "node")}
            row["ratio_to_three_js"] = row["median_s"] / three["median_s"]
    rows += rig_rows
    rows.append(run_humanoid(rng, count))
    print(f"{'case':48s} {'median ms':>10s} {'p95 ms':>8s} {'iters':>6s} {'ok@1e-3':>8s} {'ok@1e-2':>8s} "
          f"{'three.js ms':>11s} {'its ok@1e-3':>11s} {'/ three.js':>10s}")
    for row in rows:
        three = row.get("three_js")
        versus = f" {three['median_s'] * 1e3:11.4f} {three['success_1e-3']:11.3f} {row['ratio_to_three_js']:10.2f}" \
            if three else ""
        print(f"{row['case']:48s} {row['median_s'] * 1e3:10.4f} {row['p95_s'] * 1e3:8.3f} "
              f"{row['mean_iterations']:6.2f} {row['success_1e-3']:8.3f} {row['success_1e-2']:8.3f}{versus}")
    rates = {n: batch_rate(n) for n in (1000, 100000)}
    for n, rate in rates.items():
        print(f"two-bone batch, {n} limbs: {rate:,.0f} solves/s")
    print(json.dumps({"cases": rows, "batch_solves_per_second": rates}))


if __name__ == "__main__":
    main()
