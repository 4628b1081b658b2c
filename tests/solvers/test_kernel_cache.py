"""numba checks only a kernel's own file for changes; importing ``solvers`` drops every cached
kernel when any module of the package changed, so an edited helper never runs stale code."""
import shutil
import subprocess
import sys
from pathlib import Path

SOLVERS = Path(__file__).resolve().parents[2] / "solvers"


def import_solvers(root):
    subprocess.run([sys.executable, "-c", "import solvers"], cwd=root, check=True, capture_output=True)


def test_cached_kernels_survive_an_unchanged_package_and_go_when_a_helper_changes(tmp_path):
    package = tmp_path / "solvers"
    shutil.copytree(SOLVERS, package, ignore=shutil.ignore_patterns("__pycache__"))
    import_solvers(tmp_path)
    kernel = package / "__pycache__" / "two_bone._solve_limb-1.py311.nbi"
    kernel.write_bytes(b"cached")
    import_solvers(tmp_path)
    assert kernel.exists()  # nothing changed: the cache stays
    with open(package / "scalar.py", "a") as helper:
        helper.write("\n# an edit to a helper the kernels compile in\n")
    import_solvers(tmp_path)
    assert not kernel.exists()
