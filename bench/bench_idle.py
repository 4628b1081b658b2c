"""Idle CPU benchmark (not a test): the app in a real window on Xvfb, left alone after start-up;
prints the share of one core it uses over the measured seconds, as a table and JSON. The aim is at
most 3 %.

    .venv/bin/python bench/bench_idle.py [--settle 4] [--seconds 10]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_seconds(pid):
    """User plus system CPU seconds of process ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settle", type=float, default=4.0, help="seconds to wait after start-up")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds to measure")
    args = parser.parse_args()
    display = f":{os.getpid() % 500 + 300}"
    server = subprocess.Popen(["Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                              stderr=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory() as state:
        env = dict(os.environ, DISPLAY=display, POSEKIT_STATE_DIR=state)
        try:
            time.sleep(1.0)
            app = subprocess.Popen([sys.executable, "app.py", "--no-recover"], cwd=ROOT, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(args.settle)
            before, start = cpu_seconds(app.pid), time.monotonic()
            time.sleep(args.seconds)
            share = (cpu_seconds(app.pid) - before) / (time.monotonic() - start)
            app.terminate()
            app.wait(timeout=10)
        finally:
            server.terminate()
    print(f"{'case':<24}{'CPU (% of a core)':>18}")
    print(f"{'idle window':<24}{100 * share:>18.1f}")
    print(json.dumps({"bench": "idle", "seconds": args.seconds, "cpu_share": share}))


if __name__ == "__main__":
    main()
