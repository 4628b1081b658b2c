"""Checks for a renderer that keeps GPU state between frames (cached uniforms, outlines)."""
import numpy as np

from render.rig_renderer import RigRenderer


def assert_kept_state_is_fresh(ctx, renderer, picture, scenes):
    """Each ``picture(renderer, *scene)`` drawn in turn by the kept ``renderer`` equals a fresh
    renderer's picture of the same scene, and each scene differs visibly from the one before (else
    a cache that ignored its inputs would pass)."""
    kept = [picture(renderer, *scene) for scene in scenes]
    for scene, image in zip(scenes, kept):
        fresh = RigRenderer(ctx)
        np.testing.assert_array_equal(image, picture(fresh, *scene))
        fresh.release()
    assert all(np.abs(a.astype(int) - b).max() > 40 for a, b in zip(kept, kept[1:]))
