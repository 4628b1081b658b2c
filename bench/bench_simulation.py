"""iTaSC's Simulation mode measured through ``app.py solve``'s path (``rig.scripted_solve.run_job``)
on the humanoid: the velocity bound on 1,000 seeded target jumps, convergence to the Animation
mode's answer for still targets within 2 s of simulated time, a target jumping across the body,
and what a simulated frame costs beside an Animation-mode solve of the same goals.

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


def convergence(rig, chain):
    """Still targets: seconds until the tip is within ``CLOSE`` of the Animation-mode answer's,
    for the targets that answer reaches and, apart, those beyond the chain's reach."""
    bone = CHAINS[chain][0]
    targets = seeded_targets(STILL, SEED + 1, 0.4)
    animation = solve(rig, {"cases": cases(chain, targets)})
    frames, found = round(2.0 / DT), {"reached": ([], []), "beyond reach": ([], [])}
    for k, target in enumerate(targets):
        out = solve(rig, {"simulation": {"dt": DT, "max_velocity": MAX_VELOCITY, "reiteration": "never"},
                          "cases": cases(chain, [target] * frames)})
        answer = animation["cases"][k]
        gap = np.linalg.norm(tips(out, bone) - answer["bones"][bone]["tail"], axis=1)
        times, gaps = found["reached" if answer["error"] <= CLOSE else "beyond reach"]
        gaps.append(float(gap[-1]))
        within = np.flatnonzero(gap <= CLOSE)
        times.append(float((within[0] + 1) * DT) if len(within) else float("inf"))
    figures = {"animation ms (median)": 1e3 * statistics.median(c["seconds"] for c in animation["cases"])}
    for kind, (times, gaps) in found.items():
        if times:
            figures |= {f"{kind}: targets": len(times), f"{kind}: worst gap after 2 s (m)": max(gaps),
                        f"{kind}: worst seconds to 1e-4 m": max(times),
                        f"{kind}: median seconds to 1e-4 m": statistics.median(times)}
    return figures


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
                print(f"    {name:<38} {value:.6g}" if isinstance(value, float) else f"    {name:<38} {value}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
