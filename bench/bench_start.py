"""Start-up benchmark (not a test): wall time from launching ``app.py`` to its first frame on
disk, as a user starting Posekit waits for it. Headless (EGL, Mesa's software renderer):
``--headless --screenshot`` exits once the first settled frame is written, so the time covers
Python's start, the imports, the GL context, loading the rig, the settling frames and the PNG.
Prints a table and a JSON line.

    .venv/bin/python bench/bench_start.py [--runs 5]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RIGS = {"humanoid (default)": [], "skinned humanoid (glTF)": [str(ROOT / "assets" / "humanoid_skinned.glb")]}


def start_seconds(rig_args, out):
    env = dict(os.environ, PYOPENGL_PLATFORM="egl")
    start = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "app.py"), *rig_args, "--headless", "--no-recover", "--size",
                    "1280x720", "--screenshot", out], check=True, env=env, capture_output=True)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "first.png")
        for name, args in RIGS.items():
            times = [start_seconds(args, out) for _ in range(runs)]
            rows.append({"rig": name, "median_s": statistics.median(times), "max_s": max(times), "runs": runs})
    print(f"{'rig':28s} {'median s':>9s} {'max s':>7s}")
    for row in rows:
        print(f"{row['rig']:28s} {row['median_s']:9.2f} {row['max_s']:7.2f}")
    print(json.dumps({"bench": "start", "rows": rows}))


if __name__ == "__main__":
    main()
