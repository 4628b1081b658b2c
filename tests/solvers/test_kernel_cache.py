"""numba checks only a kernel's own file for changes; ``solvers.kernel_cache`` keys each module's
cached kernels to the code of the modules it compiles in, so an edited helper never runs stale
code, and an edited comment, or a module no kernel imports, never costs a compile. Checked on a
copy of the package, never on the real files."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from solvers.kernel_cache import drop_stale_kernels

SOLVERS = Path(__file__).resolve().parents[2] / "solvers"
# A cached kernel of each module that has some (named as numba names them).
KERNELS = ("two_bone.solve_limb-1.py311.nbi", "ccd_step.ccd_sweep-2.py311.1.nbc",
           "fabrik_loop.fabrik_solve-3.py311.nbi", "kinematics.update_world-4.py311.nbi")


@pytest.fixture
def package(tmp_path):
    """A copy of the package with its stamp made and a cached kernel for each kernel module."""
    copy = tmp_path / "solvers"
    shutil.copytree(SOLVERS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    drop_stale_kernels(copy)
    for name in KERNELS:
        (copy / "__pycache__" / name).write_bytes(b"cached")
    return copy


def cached(package):
    return {name for name in KERNELS if (package / "__pycache__" / name).exists()}


def edit(package, module, text):
    with open(package / f"{module}.py", "a") as source:
        source.write(text)
    drop_stale_kernels(package)


def test_kernels_survive_an_unchanged_package(package):
    drop_stale_kernels(package)
    assert cached(package) == set(KERNELS)


@pytest.mark.parametrize("module", ["methods", "problem", "scalar", "fabrik_step"])
def test_a_comment_or_a_docstring_drops_no_kernel(package, module):
    source = package / f"{module}.py"
    text = source.read_text()
    source.write_text(text.replace('"""', '"""An edited docstring. ', 1) + "\n# an edited comment\n")
    drop_stale_kernels(package)
    assert cached(package) == set(KERNELS)


def test_code_no_kernel_imports_drops_no_kernel(package):
    edit(package, "methods", "\nEDITED = 1\n")
    assert cached(package) == set(KERNELS)


def test_a_helper_drops_exactly_the_kernels_that_compile_it_in(package):
    edit(package, "rotation_fit", "\nEDITED = 1\n")  # FABRIK's and CCD's steps fit rotations; the limb does not
    assert cached(package) == {"two_bone.solve_limb-1.py311.nbi", "kinematics.update_world-4.py311.nbi"}
    edit(package, "scalar", "\nEDITED = 1\n")  # every kernel compiles scalar's helpers in
    assert cached(package) == set()


def test_kernels_of_unknown_age_go(package):
    (package / "__pycache__" / "kernels.stamp").unlink()
    drop_stale_kernels(package)
    assert cached(package) == set()


def test_importing_the_package_checks_its_kernels(package):
    edit(package, "methods", "\n# a comment\n")
    (package / "limits.py").write_text((package / "limits.py").read_text() + "\nEDITED = 1\n")
    subprocess.run([sys.executable, "-c", "import solvers"], cwd=package.parent, check=True, capture_output=True)
    assert cached(package) == {"kinematics.update_world-4.py311.nbi"}  # the one kernel module not compiling limits in
