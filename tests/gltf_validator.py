"""The Khronos glTF validator, run through node (tests/tools/validate_gltf.js).

``validate(path)`` returns the report dict (``errors``, ``warnings``, ``messages``). Without node
the validator tests skip; with node but without the package they fail and say how to install it.
"""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "tools" / "validate_gltf.js"
PACKAGE = ROOT / ".ci" / "node_modules" / "gltf-validator"


def validate(path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed, so the Khronos glTF validator cannot run")
    if not PACKAGE.is_dir():
        pytest.fail(f"the glTF validator is missing from {PACKAGE}; run `bash .ci/setup --dev`")
    result = subprocess.run([node, str(SCRIPT), str(path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def assert_valid(path):
    """No validator errors (warnings and hints are allowed but shown on failure)."""
    report = validate(path)
    errors = [m for m in report["messages"] if m["severity"] == 0]
    assert report["errors"] == 0, f"{path}: {report['errors']} validator errors: {errors[:5]}"
    return report
