"""Data files from public repositories, kept in ../shared/data/ beside the project (its README gives
their origins and licences), not in the project. A clone without that folder skips the tests that
read them, each for the one reason ``NEEDS_SHARED`` gives."""
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CMU_EXCERPT = str(SHARED_DATA / "cmu_01_02_excerpt.bvh")
BLENDER_CYLINDER = SHARED_DATA / "blender_io" / "03_skinned_cylinder.gltf"
CMU_LONG = str(SHARED_DATA / "cmu_01_03.bvh")

# Mark a test (or a pytest.param, or a module's ``pytestmark``) that reads the files above.
NEEDS_SHARED = pytest.mark.skipif(
    not SHARED_DATA.is_dir(),
    reason=f"needs the public test data in {SHARED_DATA} (../shared/data beside the clone; see tests/data/README.md)")
