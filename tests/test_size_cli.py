"""Rigs of 10,000 bones, as a chain (depth 10,000) and flat: every per-bone structure is linear in
bones, so each command stays far under the 100,000-bone aims of bench/bench_size.py (10 s, 1 GB)."""
import json
import subprocess
import sys

import numpy as np
import pytest

from bench.size_rigs import write_big_rig
from tests.golden import load_png

BONES = 10_000
# Measured on the 2-core CI machine: at most about 2 s and 330 MB for each; a structure growing with
# depth squared took 827 MB to export this chain.
SECONDS, PEAK_MB = 6.0, 450.0


def measure(*argv):
    done = subprocess.run([sys.executable, "bench/measure_command.py", *argv], capture_output=True, text=True,
                          timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("shape", ["chain", "flat"])
def test_a_rig_of_ten_thousand_bones_exports_and_renders(tmp_path, shape):
    rig = str(write_big_rig(tmp_path / f"{shape}.json", BONES, shape))
    for out in ("o.json", "o.bvh", "o.glb"):
        figures = measure("export", rig, "-o", str(tmp_path / out))
        assert figures["status"] == 0 and figures["seconds"] < SECONDS and figures["peak_mb"] < PEAK_MB, (out, figures)
    figures = measure("--headless", "--screenshot", str(tmp_path / "o.png"), "--size", "640x360", rig)
    assert figures["status"] == 0 and figures["seconds"] < SECONDS and figures["peak_mb"] < PEAK_MB, figures
    assert len(np.unique(load_png(tmp_path / "o.png").reshape(-1, 3), axis=0)) > 20  # panels and scene drawn
    for written in ("o.json", "o.glb", "o.bvh"):  # each read back
        figures = measure("export", str(tmp_path / written), "-o", str(tmp_path / "again.json"))
        assert figures["status"] == 0 and figures["seconds"] < SECONDS and figures["peak_mb"] < PEAK_MB, (written, figures)
