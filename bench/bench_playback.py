"""Playback evaluation of a long clip, as the timeline plays it: the keys at each frame, then the
rig's IK on top (the automatic set-up's leg IK, handles on the keyed feet), then skinning where the
rig has a mesh; headless, frames a second over every frame of the clip.

    .venv/bin/python bench/bench_playback.py [BVH] [--json OUT.json]

Default: ../shared/data/cmu_01_03.bvh (4,511 frames). Measured twice in one run: the leg IK alone,
then with both feet pinned on top where the keys put them each frame (as keyed pins would hold
them), which makes every frame one whole-body priority solve (``rig.whole_body``).
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import app  # noqa: E402

app.use_headless_gl()  # ui.state's imports reach pyglet's window module, which wants a display otherwise

from rig.formats.reader import open_rig  # noqa: E402
from rig.pins import pin_where_it_is  # noqa: E402
from rig.pose import world_matrices  # noqa: E402
from ui.auto_setup import apply_auto_setup  # noqa: E402
from ui.state import AppState  # noqa: E402
from ui.timeline import keyed_pose  # noqa: E402

DEFAULT = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "cmu_01_03.bvh")
TARGET_FPS = 60.0


def play(state, frames, feet=()):
    """Seconds per frame for each of ``frames``: keys, IK and skinning, as a playing frame runs them;
    the bones ``feet`` (indices) pinned where the keys put them."""
    times = []
    names = state.rig.skeleton.names
    for frame in frames:
        start = time.perf_counter()
        state.pose = keyed_pose(state, frame)
        if feet:
            keyed = world_matrices(state.rig.skeleton, state.pose)
            state.pins = {names[f]: pin_where_it_is(keyed, f) for f in feet}
        state.resolve()
        if state.mesh is not None:
            state.mesh.skinned_positions(state.world)
        times.append(time.perf_counter() - start)
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clip", nargs="?", default=DEFAULT)
    parser.add_argument("--json", metavar="OUT.json")
    args = parser.parse_args(argv)
    state = AppState.for_document(open_rig(args.clip))
    action = state.timeline.action
    assert apply_auto_setup(state), "the automatic set-up found no limbs"
    legs = sum(1 for c in state.rig.ik if c.bone in {n for r, names in state.auto_setup.report.roles.items()
                                                       if r.startswith("leg") for n in names})
    roles = state.auto_setup.report.roles
    feet = tuple(state.rig.skeleton.index[names[-1]] for role, names in sorted(roles.items()) if role.startswith("leg"))
    frames = range(action.start, action.end + 1)
    rows = []
    print(f"{'clip':<22}{'pins':<12}{'frames':>8}{'bones':>7}{'IK':>4}{'median ms':>11}{'p95 ms':>8}{'frames/s':>10}  target")
    for pinned in ((), feet):
        play(state, frames[:50], pinned)  # warm the solvers' compiled kernels
        times = play(state, frames, pinned)
        median = statistics.median(times)
        row = {"clip": os.path.basename(args.clip), "pins": [state.rig.skeleton.names[f] for f in pinned],
               "frames": len(times), "bones": len(state.rig.skeleton), "keyed_channels": len(action.channels),
               "ik_constraints": len(state.rig.ik), "leg_ik": legs, "mesh": state.mesh is not None,
               "median_ms": median * 1e3, "p95_ms": sorted(times)[int(0.95 * len(times))] * 1e3,
               "whole_clip_fps": len(times) / sum(times), "median_fps": 1.0 / median, "target_fps": TARGET_FPS}
        rows.append(row)
        print(f"{row['clip']:<22}{'feet' if pinned else 'none':<12}{row['frames']:>8}{row['bones']:>7}"
              f"{row['ik_constraints']:>4}{row['median_ms']:>11.2f}{row['p95_ms']:>8.2f}{row['whole_clip_fps']:>10.0f}"
              f"  >= {TARGET_FPS:g}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
