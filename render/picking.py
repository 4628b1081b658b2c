"""Screen-space picking of bones (segments) and handles (points): pure numpy, no GL, no UI.

Pixels are window pixels with a top-left origin (``OrbitCamera.world_to_window``). A candidate
is hit when the pointer is within its pixel radius of the projected segment; among hits the one
nearest the camera wins, and items within ``depth_slack`` metres of the nearest compete by pixel
distance less their ``bias_px`` (a handle drawn over a bone wins near it, the bone further along).
"""
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PickItems:
    """What can be picked: ``starts``/``ends`` (N, 3) world segments (a point has start == end),
    ``radius_px`` (N,) how close the pointer must come, ``bias_px`` (N,) pixels taken off the
    distance when items at about the same depth compete."""
    starts: np.ndarray
    ends: np.ndarray
    radius_px: np.ndarray
    bias_px: np.ndarray


def _clip_w(camera, points, width, height):
    """Clip-space w of world points (N,): the view depth in perspective, 1 in orthographic."""
    clip = np.c_[points, np.ones(len(points))] @ camera.view_projection(width, height)[3]
    return clip


def segment_hits(camera, items, x, y, width, height):
    """Pixel distance (N,) from ``(x, y)`` to each projected segment and the view depth (N,) of
    the segment's point nearest the pointer (perspective-correct). Items behind the camera get
    an infinite distance."""
    a = camera.world_to_window(items.starts, width, height)
    b = camera.world_to_window(items.ends, width, height)
    ab = b - a
    length2 = np.einsum("ij,ij->i", ab, ab)
    pointer = np.array([x, y], dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(length2 > 1e-12, np.einsum("ij,ij->i", pointer - a, ab) / length2, 0.0)
    s = np.clip(np.nan_to_num(s), 0.0, 1.0)
    distance = np.linalg.norm(a + s[:, None] * ab - pointer, axis=1)
    distance = np.where(np.isfinite(distance), distance, np.inf)
    # Screen-space s to world t: 1/w interpolates linearly on screen.
    wa, wb = _clip_w(camera, items.starts, width, height), _clip_w(camera, items.ends, width, height)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(wa * wb > 0, (s / wb) / ((1.0 - s) / wa + s / wb), s)
    point = items.starts + np.nan_to_num(t)[:, None] * (items.ends - items.starts)
    back = camera.rotation()[:, 2]
    depth = (camera.eye() - point) @ back
    return distance, depth


def pick(camera, items, x, y, width, height, depth_slack):
    """Index of the item under ``(x, y)``, or None; see the module doc for the rule."""
    if len(items.starts) == 0:
        return None
    distance, depth = segment_hits(camera, items, x, y, width, height)
    hits = np.flatnonzero(distance <= items.radius_px)
    if not len(hits):
        return None
    near = hits[depth[hits] <= depth[hits].min() + depth_slack]
    return int(near[np.argmin(distance[near] - items.bias_px[near])])
