"""Size benchmark (not a test): rigs of 100,000 bones, as a chain and flat, loaded, exported to every
format (and the .glb read back) and rendered in a headless frame through ``app.py``, each command in its own process. Prints a
table and a JSON line; the aim is at most 10 s and 1 GB for each.

    .venv/bin/python bench/bench_size.py [--bones 100000]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from bench.size_rigs import write_big_rig  # noqa: E402


def measure(*argv):
    """status, seconds and peak memory of one app command, run in a fresh process."""
    done = subprocess.run([sys.executable, os.path.join(HERE, "measure_command.py"), *argv], capture_output=True,
                          text=True, cwd=os.path.dirname(HERE), timeout=600)
    return json.loads(done.stdout.strip().splitlines()[-1])


def commands(rig, out):
    return {"export .json": ["export", rig, "-o", os.path.join(out, "o.json")],
            "export .bvh": ["export", rig, "-o", os.path.join(out, "o.bvh")],
            "export .glb": ["export", rig, "-o", os.path.join(out, "o.glb")],
            "read .glb": ["export", os.path.join(out, "o.glb"), "-o", os.path.join(out, "from_glb.json")],
            "headless frame": ["--headless", "--screenshot", os.path.join(out, "o.png"), rig]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bones", type=int, default=100_000)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as out:
        for shape in ("chain", "flat"):
            rig = write_big_rig(os.path.join(out, f"{shape}.json"), args.bones, shape)
            for name, argv in commands(rig, out).items():
                rows.append({"rig": f"{shape} {args.bones}", "command": name, **measure(*argv)})
    print(f"{'rig':<14}{'command':<16}{'status':>7}{'seconds':>9}{'peak MB':>9}")
    for row in rows:
        print(f"{row['rig']:<14}{row['command']:<16}{row['status']:>7}{row['seconds']:>9.2f}{row['peak_mb']:>9.0f}")
    print(json.dumps({"bench": "size", "bones": args.bones, "rows": rows}))


if __name__ == "__main__":
    main()
