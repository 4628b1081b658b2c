"""Screen-space picking of bones (segments) and handles (points): pure numpy, no GL, no UI.

Pixels are window pixels with a top-left origin (``OrbitCamera.world_to_window``). A candidate
is hit when the pointer is within its pixel radius of the projected segment, or on its drawn
shape. As in Blender, among hits the one whose drawn shape lies nearest the pointer on screen
wins, less its ``bias_px`` (a handle drawn over a bone wins near it, the bone further along);
items within ``TIE_PX`` of that are a near-tie, which goes to the nearest in depth (within
``depth_slack`` metres) and then to the smallest. So a finger is picked where it shows beside
the hand's joint sphere, even though the hand is nearer the camera, and where both cover the
pointer the finger still wins over the larger hand.
"""
from dataclasses import dataclass

import numpy as np

TIE_PX = 1.0  # drawn shapes this much farther from the pointer than the nearest still tie with it


@dataclass(frozen=True)
class PickItems:
    """What can be picked: ``starts``/``ends`` (N, 3) world segments (a point has start == end),
    ``radius_px`` (N,) how close the pointer must come, ``bias_px`` (N,) pixels taken off the
    distance when items compete. The drawn shape is taken as the segment thickened by a half-width
    tapering from ``start_radius`` (N,) to ``end_radius`` (N,) metres (an octahedral bone's waist
    to its tail's joint sphere; a handle's half-size); ``size`` (N,) metres says how big it is
    (a bone's length), for near-ties."""
    starts: np.ndarray
    ends: np.ndarray
    radius_px: np.ndarray
    bias_px: np.ndarray
    start_radius: np.ndarray
    end_radius: np.ndarray
    size: np.ndarray


@dataclass(frozen=True)
class Hits:
    """Per item: ``distance`` (pixels) from the pointer to the projected segment, ``shape``
    (pixels) to its drawn shape (0 inside it), ``depth`` (metres) of its point nearest the pointer."""
    distance: np.ndarray
    shape: np.ndarray
    depth: np.ndarray


def _clip_w(camera, points, width, height):
    """Clip-space w of world points (N,): the view depth in perspective, 1 in orthographic."""
    clip = np.c_[points, np.ones(len(points))] @ camera.view_projection(width, height)[3]
    return clip


def segment_hits(camera, items, x, y, width, height):
    """Pixel distance (N,) from ``(x, y)`` to each projected segment, the view depth (N,) of
    the segment's point nearest the pointer and that point (N, 3) (perspective-correct). Items
    behind the camera get an infinite distance."""
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
    return distance, depth, point


def _pixels_per_metre(camera, points, width, height):
    """How many window pixels a metre across the view spans at world ``points`` (N, 3)."""
    scale = camera.projection_matrix(width / height)[1, 1] * height / 2.0
    return scale / np.maximum(np.abs(_clip_w(camera, points, width, height)), 1e-9)


def item_hits(camera, items, x, y, width, height):
    """``Hits`` of every item for the pointer at ``(x, y)``: behind the camera, infinitely far."""
    distance, depth, point = segment_hits(camera, items, x, y, width, height)
    # The half-width where the pointer is nearest the segment, in pixels at that point's depth.
    along = np.linalg.norm(point - items.starts, axis=1)
    length = np.linalg.norm(items.ends - items.starts, axis=1)
    fraction = np.divide(along, length, out=np.zeros_like(along), where=length > 1e-12)
    half_width = items.start_radius + fraction * (items.end_radius - items.start_radius)
    shape = np.maximum(distance - half_width * _pixels_per_metre(camera, point, width, height), 0.0)
    return Hits(distance, shape, depth)


def pick(camera, items, x, y, width, height, depth_slack):
    """Index of the item under ``(x, y)``, or None; see the module doc for the rule."""
    if len(items.starts) == 0:
        return None
    found = item_hits(camera, items, x, y, width, height)
    hits = np.flatnonzero((found.distance <= items.radius_px) | (found.shape == 0.0))
    if not len(hits):
        return None
    score = found.shape - items.bias_px
    tied = hits[score[hits] <= score[hits].min() + TIE_PX]
    near = tied[found.depth[tied] <= found.depth[tied].min() + depth_slack]
    return int(near[np.lexsort((score[near], items.size[near]))[0]])  # smallest, then nearest on screen
