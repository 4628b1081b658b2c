"""Struct-of-arrays ("lanes") versions of the branching helpers in ``scalar``, for batch solves.

A vector is a 3-tuple and a quaternion ``(x, y, z, w)`` a 4-tuple of 1-D float64 arrays, one
lane per limb (Python floats broadcast as constants). ``scalar``'s branch-free helpers (add, sub,
scale, dot, cross, qmul, qconj, qrotate) already work on such tuples unchanged; this module has
the rest of ``scalar``'s interface: the helpers whose float versions branch, with the same
formulas in the same order and every branch a lane mask, so a solver written against that
interface gives the same results on a batch as on one limb. A fallback branch is only computed
when some lane needs it: per-op numpy overhead, not arithmetic, dominates small batches.
"""
import numpy as np
from numpy import arccos as acos, arctan2 as atan2, cos, exp, maximum, minimum, sin, sqrt, where

from solvers import scalar as sc
from solvers.scalar import EPS

some = np.any


def clip(x, low, high):
    return minimum(high, maximum(low, x))


def select(mask, a, b):
    """Per lane ``a`` where ``mask`` else ``b`` (tuples of equal size)."""
    return tuple(np.where(mask, x, y) for x, y in zip(a, b))


def fallback(mask, value, make):
    """``make()`` where ``mask``, else ``value``; ``make`` runs only when some lane needs it."""
    return select(mask, make(), value) if mask.any() else value


def length(a):
    return np.sqrt(sc.dot(a, a))


def normalize(a, fallback=(0.0, 1.0, 0.0)):
    n = length(a)
    ok = n > EPS
    if ok.all():
        return (a[0] / n, a[1] / n, a[2] / n)
    n = np.where(ok, n, 1.0)
    return select(ok, (a[0] / n, a[1] / n, a[2] / n), fallback)


def any_perpendicular(v):
    use_x = np.abs(v[0]) < 0.9
    return normalize(sc.cross(v, (np.where(use_x, 1.0, 0.0), np.where(use_x, 0.0, 1.0), 0.0)), (0.0, 0.0, 1.0))


def qnormalize(q):
    n = np.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    ok = n > EPS
    whole = ok.all()
    s = np.where(q[3] >= 0.0, 1.0, -1.0) / (n if whole else np.where(ok, n, 1.0))
    q = (q[0] * s, q[1] * s, q[2] * s, q[3] * s)
    return q if whole else select(ok, q, (0.0, 0.0, 0.0, 1.0))


def qaxis_angle(axis, angle):
    s = np.sin(0.5 * angle)
    return (axis[0] * s, axis[1] * s, axis[2] * s, np.cos(0.5 * angle))


def qbetween(a, b):
    d = sc.dot(a, b)
    c = sc.cross(a, b)
    q = qnormalize((c[0], c[1], c[2], 1.0 + d))
    opposite = 1.0 + d < 1e-9
    if opposite.any():
        p = any_perpendicular(a)
        q = select(opposite, (p[0], p[1], p[2], 0.0), q)
    return q


def signed_angle(a, b, axis):
    return np.arctan2(sc.dot(sc.cross(a, b), axis), sc.dot(a, b))


def aim(pose, local_dir, target_dir, pole_dir=None, up_local=None):
    """``scalar.aim`` per lane; also returns the lanes where the pole set the roll."""
    current = normalize(sc.qrotate(pose, local_dir))
    pose = sc.qmul(qbetween(current, target_dir), pose)
    poled = np.zeros(len(target_dir[0]), dtype=bool)
    if pole_dir is not None:
        up_perp = sc.sub(up_local, sc.scale(local_dir, sc.dot(up_local, local_dir)))
        pole_perp = sc.sub(pole_dir, sc.scale(target_dir, sc.dot(pole_dir, target_dir)))
        poled = (length(up_perp) > 1e-9) & (length(pole_perp) > 1e-9 * np.maximum(length(pole_dir), EPS))
        roll = np.where(poled, signed_angle(sc.qrotate(pose, up_local), pole_perp, target_dir), 0.0)
        pose = sc.qmul(qaxis_angle(target_dir, roll), pose)
    return pose, poled
