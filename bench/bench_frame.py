"""Frame-time benchmark (not a test): a rig (default: the humanoid; any file the app opens, such
as the skinned assets/humanoid_skinned.glb) at 1280x720 in the headless renderer.

Measures a full frame (input events with the drag's solve + ImGui panels + draw + ImGui draw +
GL finish) while the left hand's IK handle is dragged around a circle, then the same drag with
both feet pinned and Whole body on (where the rig has foot.L and foot.R), against idle frames of
the same scene measured in the same run. Prints a table and a JSON line.

    .venv/bin/python bench/bench_frame.py [--frames 200] [--size 1280x720] [--rig RIG]
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import app  # noqa: E402

app.use_headless_gl()

import numpy as np  # noqa: E402
from pyglet.window import mouse  # noqa: E402

from rig.formats.reader import open_rig  # noqa: E402
from ui.replay import InputSender  # noqa: E402
from ui.state import AppState  # noqa: E402
from ui.window import PosekitWindow  # noqa: E402


FEET = ("foot.L", "foot.R")


def percentile(values, q):
    return float(np.percentile(values, q))


def timed(posekit, frames, before_frame):
    times = []
    for i in range(frames):
        start = time.perf_counter()
        before_frame(i)  # the frame's input events, the drag's solve included
        posekit.frame()
        times.append((time.perf_counter() - start) * 1e3)
    return times


def timed_drag(posekit, window, state, frames):
    """Frames while the left hand's IK handle is dragged around a circle from where it is, then released."""
    width, height = window.width, window.height
    handle = state.world[state.rig.skeleton.index["hand_ik.L"], :3, 3]
    start = state.camera.world_to_window(handle[None], width, height)[0]  # top-left origin
    window.dispatch_event("on_mouse_press", start[0], height - start[1], mouse.LEFT, 0)
    window.dispatch_events()

    def move(i):
        angle = 2 * np.pi * i / 60
        x, y = start + 80 * np.array([np.cos(angle) - 1, np.sin(angle)])
        window.dispatch_event("on_mouse_drag", x, height - y, 0, 0, mouse.LEFT, 0)
        window.dispatch_events()
    times = timed(posekit, frames, move)
    assert state.drag is not None, "the drag did not start on the hand handle"
    window.dispatch_event("on_mouse_release", 0, 0, mouse.LEFT, 0)
    window.dispatch_events()
    posekit.frame()
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--size", type=app.parse_size, default=(1280, 720))
    parser.add_argument("--rig", default=app.DEFAULT_RIG, help="rig file with a hand_ik.L handle")
    args = parser.parse_args()
    width, height = args.size
    window = app.open_window(width, height, headless=True)
    state = AppState.for_document(open_rig(args.rig), size=(width, height))  # its skinned mesh too
    posekit = PosekitWindow(window, state)
    for _ in range(5):  # shader compilation and ImGui's first layouts
        posekit.frame()
    idle = timed(posekit, args.frames, lambda i: None)

    skel = state.rig.skeleton
    dragging = timed_drag(posekit, window, state, args.frames)
    pinned = {}
    if all(name in skel.index for name in FEET):  # the same drag with both feet pinned, Whole body on
        state.view.selected, state.view.active = set(FEET), FEET[0]
        InputSender(posekit).key("P")
        assert set(state.pins) == set(FEET) and state.body_follows
        pinned = {"frame while dragging, feet pinned": timed_drag(posekit, window, state, args.frames)}

    rows = [("idle frame", idle), ("frame while dragging", dragging), *pinned.items()]
    print(f"{'case':<36}{'median ms':>12}{'p95 ms':>10}{'vs idle':>10}")
    for name, times in rows:
        print(f"{name:<36}{statistics.median(times):>12.2f}{percentile(times, 95):>10.2f}"
              f"{statistics.median(times) / statistics.median(idle):>10.2f}")
    print(json.dumps({"rig": os.path.basename(args.rig), "size": [width, height], "frames": args.frames, "renderer": posekit.ctx.info["GL_RENDERER"],
                      **{name.replace(" ", "_") + "_median_ms": round(statistics.median(t), 3) for name, t in rows},
                      **{name.replace(" ", "_") + "_p95_ms": round(percentile(t, 95), 3) for name, t in rows}}))
    posekit.release()
    window.close()


if __name__ == "__main__":
    main()
