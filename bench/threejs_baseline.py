"""three.js's CCDIKSolver as a same-run baseline for the benchmarks (not a test).

``three_ccd`` installs the npm package ``three`` (``THREE_VERSION``) into bench/.node (gitignored)
the first time, runs bench/three_ccd.mjs under node on the chains and targets given and returns its
rows by chain name; when node, npm or the package is missing it returns None with the reason, and
the benchmark leaves its ratios out.
"""
import json
import os
import shutil
import subprocess
from typing import NamedTuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PREFIX = os.path.join(HERE, ".node")
THREE_VERSION = "0.187.0"  # r187, the release the figures came from


class Baseline(NamedTuple):
    """three.js's rows by chain name (None when it could not run), and why not."""
    rows: dict = None
    reason: str = ""


def _installed():
    """Why three.js cannot run here, or "" once it is installed in ``PREFIX``."""
    if shutil.which("node") is None:
        return "node is not installed"
    if os.path.isdir(os.path.join(PREFIX, "node_modules", "three")):
        return ""
    if shutil.which("npm") is None:
        return "npm is not installed (needed once to install three.js)"
    done = subprocess.run(["npm", "install", "--prefix", PREFIX, "--no-save", "--no-audit", "--no-fund",
                           f"three@{THREE_VERSION}"], capture_output=True, text=True)
    if done.returncode != 0:
        return f"npm install three@{THREE_VERSION} failed: {done.stderr.strip().splitlines()[-1:]}"
    return ""


def three_ccd(chains, iterations):
    """three.js CCD on ``chains``, {name: (``solvers.chain.Chain``, targets (K, 3))}, every target
    from the rest pose with at most ``iterations`` sweeps; a ``Baseline`` whose rows hold median_s,
    p95_s, success_1e-3 and success_1e-2."""
    reason = _installed()
    if reason:
        return Baseline(reason=reason)
    payload = {"three": PREFIX, "chains": [
        {"name": name, "base": chain.base.tolist(), "offsets": chain.offsets.tolist(),
         "rest_rotations": chain.rest_rotations.tolist(), "lengths": chain.lengths.tolist(),
         "targets": np.asarray(targets, dtype=float).tolist(), "iterations": iterations}
        for name, (chain, targets) in chains.items()]}
    done = subprocess.run(["node", os.path.join(HERE, "three_ccd.mjs")], input=json.dumps(payload),
                          capture_output=True, text=True)
    if done.returncode != 0:
        return Baseline(reason=f"node bench/three_ccd.mjs failed: {done.stderr.strip().splitlines()[-1:]}")
    out = json.loads(done.stdout)
    return Baseline({row["name"]: {**row, "three": out["three"], "node": out["node"]} for row in out["chains"]})
