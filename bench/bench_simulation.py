"""iTaSC's Simulation mode measured through ``app.py solve``'s path (``rig.scripted_solve.run_job``)
on the humanoid: the velocity bound on 1,000 seeded target jumps, convergence to the Animation
mode's answer for still targets within 2 s of simulated time, a target jumping across the body,
and what a simulated frame costs beside an Animation-mode solve of the same goals.

Convergence is measured apart for targets the chain reaches (the tip: a redundant chain meets
them in many poses) and for targets beyond its reach, seeded 1.02 to 2 times its reach from its
root, where the Animation mode's answer is the chain stretched straight at the target: the tip
and every joint (each bone's head, then the tip; not a bone's twist about the line) are
compared. "Seconds to 1e-4 m" is when the gap comes within ``CLOSE`` to stay, to 2 s.

    .venv/bin/python bench/bench_simulation.py [--json OUT.json]
"""
import argparse
import json
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rig.formats.rigfile import load_rig  # noqa: E402
from rig.motion import case_rotations, motion  # noqa: E402
from rig.scripted_solve import read_goals, run_job  # noqa: E402
from solvers.tolerances import VELOCITY_BOUND  # noqa: E402

RIG = "assets/humanoid.json"
SEED = 20260522
CHAINS = {"arm (2 bones)": ("forearm.L", 2), "clavicle to hand (4 bones)": ("hand.L", 4)}
SHOULDER = np.array([0.19, 1.42, -0.04])  # upper_arm.L's head at rest
JUMPS, STILL, DT, MAX_VELOCITY = 1000, 20, 1.0 / 30.0, 5.0
ACROSS = (SHOULDER + (0.3, -0.25, 0.25), SHOULDER + (-0.3, -0.2, 0.3))  # left of the shoulder, across the midline
CLOSE = 1e-4  # metres: the "converged to the animation-mode answer"


def solve(rig, document, tmp="/tmp/posekit_bench_simulation.json"):
    """``app.py solve``'s output for ``document`` on ``rig``."""
    with open(tmp, "w") as f:
        json.dump(document, f)
    return run_job(rig, read_goals(tmp, rig))


def cases(chain, targets):
    bone, length = CHAINS[chain]
    return [{"goals": [{"bone": bone, "chain_length": length, "target": list(map(float, t))}]} for t in targets]


def tips(out, bone):
    return np.array([case["bones"][bone]["tail"] for case in out["cases"]])


def seeded_targets(count, seed=SEED, spread=0.75):
    """Targets about the left shoulder, within ``spread`` metres on each axis (some beyond reach)."""
    rng = np.random.default_rng(seed)
    return SHOULDER + rng.uniform(-spread, spread, (count, 3))


def velocity_bound(rig, chain):
    """A new target every frame: the fastest bone turn as a fraction of max velocity."""
    sim = {"dt": DT, "max_velocity": MAX_VELOCITY, "reiteration": "never"}
    out = solve(rig, {"simulation": sim, "cases": cases(chain, seeded_targets(JUMPS))})
    speed = motion(case_rotations(out), DT).speed
    return {"jumps": JUMPS, "worst speed / max velocity": float(speed.max() / MAX_VELOCITY),
            "bound holds": bool((speed * DT <= MAX_VELOCITY * DT + VELOCITY_BOUND).all()),
            "frame ms (median)": 1e3 * statistics.median(c["seconds"] for c in out["cases"])}


def chain_bones(rig, chain):
    """The chain's bone indices, root first."""
    bone, length = CHAINS[chain]
    bones = [rig.skeleton.names.index(bone)]
    for _ in range(length - 1):
        bones.insert(0, int(rig.skeleton.parents[bones[0]]))
    return bones


def joints(case, names):
    """The joints of the chain ``names`` (root first) in an output case: heads, then the tip."""
    return np.array([case["bones"][n]["head"] for n in names] + [case["bones"][names[-1]]["tail"]])


def beyond_targets(rig, chain, count=STILL, seed=SEED + 2):
    """Seeded targets out of the chain's reach: directions from its root, 1.02 to 2 reaches away."""
    bones = chain_bones(rig, chain)
    points = np.vstack([rig.skeleton.rest_heads[bones], rig.skeleton.rest_tails[bones[-1:]]])
    reach = np.linalg.norm(np.diff(points, axis=0), axis=1).sum()
    rng = np.random.default_rng(seed)
    toward = rng.normal(size=(count, 3))
    return points[0] + toward / np.linalg.norm(toward, axis=1)[:, None] * reach * rng.uniform(1.02, 2.0, (count, 1))


def settled(gaps):
    """Seconds until ``gaps`` (one per frame) come within ``CLOSE`` and stay there; inf if never."""
    over = np.flatnonzero(np.asarray(gaps) > CLOSE)
    if not len(over):
        return DT
    return float("inf") if over[-1] == len(gaps) - 1 else float((over[-1] + 2) * DT)


def still(rig, chain, targets, names):
    """Per still target: its Animation-mode answer and the simulated frames' gaps to it over 2 s,
    of the tip and of the worst joint of the chain ``names``."""
    animation = solve(rig, {"cases": cases(chain, targets)})
    sim = {"dt": DT, "max_velocity": MAX_VELOCITY, "reiteration": "never"}
    found = []
    for target, answer in zip(targets, animation["cases"]):
        out = solve(rig, {"simulation": sim, "cases": cases(chain, [target] * round(2.0 / DT))})
        gaps = np.array([np.linalg.norm(joints(case, names) - joints(answer, names), axis=1) for case in out["cases"]])
        found.append((answer, gaps[:, -1], gaps.max(axis=1)))
    return animation, found


def convergence(rig, chain):
    """Still targets: the tip's gap to the Animation-mode answer's for targets within reach, and
    the tip's and the joints' for targets beyond it."""
    names = [rig.skeleton.names[b] for b in chain_bones(rig, chain)]
    animation, near = still(rig, chain, seeded_targets(STILL, SEED + 1, 0.4), names)
    _, far = still(rig, chain, beyond_targets(rig, chain), names)
    reached = [tip for answer, tip, _ in near if answer["error"] <= CLOSE]
    beyond = [(tip, joint) for answer, tip, joint in far if answer["error"] > CLOSE]
    tip_seconds, joint_seconds = [settled(t) for t, _ in beyond], [settled(j) for _, j in beyond]
    return {"animation ms (median)": 1e3 * statistics.median(c["seconds"] for c in animation["cases"]),
            "reached: targets": len(reached), "reached: worst tip gap after 2 s (m)": max(t[-1] for t in reached),
            "reached: worst seconds to 1e-4 m": max(map(settled, reached)),
            "reached: median seconds to 1e-4 m": statistics.median(map(settled, reached)),
            "beyond reach: targets": len(beyond),
            "beyond reach: worst tip gap after 2 s (m)": max(t[-1] for t, _ in beyond),
            "beyond reach: worst joint gap after 2 s (m)": max(j[-1] for _, j in beyond),
            "beyond reach: worst seconds to 1e-4 m, tip": max(tip_seconds),
            "beyond reach: worst seconds to 1e-4 m, joints": max(joint_seconds),
            "beyond reach: median seconds, joints": statistics.median(joint_seconds)}


def across_the_body(rig, chain):
    """The target jumps from the left of the body to the right (both within the arm's reach):
    peak speed and acceleration."""
    left, right = ACROSS
    out = solve(rig, {"simulation": {"dt": DT, "max_velocity": MAX_VELOCITY, "reiteration": "initial"},
                      "cases": cases(chain, [left] * 30 + [right] * 60)})
    moving = motion(case_rotations(out), DT)
    path = np.linalg.norm(np.diff(tips(out, CHAINS[chain][0]), axis=0), axis=1)
    return {"peak speed / max velocity": float(moving.speed.max() / MAX_VELOCITY),
            "peak acceleration (rad/s^2)": float(moving.acceleration.max()),
            "acceleration / (max velocity / dt)": float(moving.acceleration.max() / (MAX_VELOCITY / DT)),
            "largest tip step (m)": float(path.max()), "final residual (m)": out["cases"][-1]["error"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args()
    rig = load_rig(RIG)
    results = {chain: {"velocity bound": velocity_bound(rig, chain), "convergence": convergence(rig, chain),
                       "across the body": across_the_body(rig, chain)} for chain in CHAINS}
    print(f"iTaSC Simulation mode, humanoid, dt {DT:.4f} s, max velocity {MAX_VELOCITY} rad/s, feedback 20")
    for chain, parts in results.items():
        print(f"\n{chain}")
        for part, figures in parts.items():
            print(f"  {part}")
            for name, value in figures.items():
                print(f"    {name:<46} {value:.6g}" if isinstance(value, float) else f"    {name:<46} {value}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
