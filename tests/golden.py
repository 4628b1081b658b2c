"""Golden-image comparison for screenshot tests.

Goldens live in ``tests/golden/NAME.png``. A picture matches when at most ``budget`` pixels have
a channel differing by more than ``threshold`` (0-255). On a mismatch, ``tests/output/`` gets
``NAME.actual.png``, ``NAME.expected.png`` and ``NAME.diff.png`` (differences in red over a dimmed
copy of the golden). Goldens are written only when pytest runs with ``--update-goldens`` or with
``POSEKIT_UPDATE_GOLDENS=1``; a missing golden fails with instructions.
"""
import os
from pathlib import Path

import numpy as np

from render.capture import load_png, save_png

GOLDEN_DIR = Path(__file__).parent / "golden"
OUTPUT_DIR = Path(__file__).parent / "output"


def updating():
    return os.environ.get("POSEKIT_UPDATE_GOLDENS") == "1"


def diff_image(actual, expected, threshold):
    """Dimmed greyscale ``expected`` with pixels beyond ``threshold`` in red, brighter the larger
    the difference. Both (H, W, 3) uint8 of the same shape."""
    delta = np.abs(actual.astype(np.int16) - expected.astype(np.int16)).max(axis=2)
    grey = (expected.mean(axis=2) * 0.35).astype(np.uint8)
    out = np.repeat(grey[:, :, None], 3, axis=2)
    bad = delta > threshold
    out[bad] = 0
    out[bad, 0] = np.clip(128 + delta[bad], 0, 255)
    return out


def assert_matches_golden(image, name, threshold=16, budget=200):
    """Compare an (H, W, 3) uint8 picture with ``tests/golden/NAME.png``; see the module doc."""
    image = np.asarray(image, dtype=np.uint8)
    golden = GOLDEN_DIR / f"{name}.png"
    if updating():
        if not golden.exists() or not np.array_equal(load_png(golden), image):
            GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
            save_png(image, golden)
        return
    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
    actual_path = OUTPUT_DIR / f"{name}.actual.png"
    if not golden.exists():
        save_png(image, actual_path)
        raise AssertionError(f"no golden image {golden}; this run's picture is {actual_path}. Look at it, "
                             f"then create the golden with `python -m pytest --update-goldens` "
                             f"(or POSEKIT_UPDATE_GOLDENS=1) and commit it")
    expected = load_png(golden)
    if expected.shape != image.shape:
        save_png(image, actual_path)
        raise AssertionError(f"{name}: picture is {image.shape[1]}x{image.shape[0]}, golden {golden} is "
                             f"{expected.shape[1]}x{expected.shape[0]}; actual written to {actual_path}")
    delta = np.abs(image.astype(np.int16) - expected.astype(np.int16)).max(axis=2)
    differing = int((delta > threshold).sum())
    if differing > budget:
        expected_path, diff_path = OUTPUT_DIR / f"{name}.expected.png", OUTPUT_DIR / f"{name}.diff.png"
        save_png(image, actual_path)
        save_png(expected, expected_path)
        save_png(diff_image(image, expected, threshold), diff_path)
        raise AssertionError(f"{name}: {differing} pixels differ by more than {threshold} (budget {budget}, "
                             f"largest difference {int(delta.max())}); see {actual_path}, {expected_path}, "
                             f"{diff_path}. If the change is intended, rerun with --update-goldens")
