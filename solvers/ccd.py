"""CCD (cyclic coordinate descent) IK for serial chains.

One iteration sweeps the joints from the last bone up to the first; each joint turns by the
shortest arc that points the line from its head to the chain's tip at the target (three.js's
``CCDIKSolver`` and Godot's ``CCDIK3D`` do the same). The turn is optionally clamped to
``max_step`` radians, then the joint's limits (``solvers.limits``) are applied, so every iterate is
a valid pose with exact bone lengths. The loop itself is ``solvers.iterate.iterate``.
"""
import math

import numpy as np

from solvers import scalar as sc
from solvers.chain import Chain, SolveResult, chain_pose
from solvers.iterate import iterate
from solvers.limits import clamp_rotation, validate_limits
from solvers.transforms import EPS, quat_from_axis_angle, quat_mul, quat_slerp

# Turns smaller than this (radians) are skipped: they only stir rounding noise.
MIN_TURN = 1e-12
# Bend (radians) given to each bone of a chain lying straight along the line to a target within
# reach, where every shortest arc is zero and CCD could never bend it.
UNFOLD = 1e-2


def solve_ccd_chain(chain: Chain, rotations, target, limits=None, max_step=None, max_iterations=50,
                    tolerance=1e-3):
    """CCD on a serial chain whose last bone's tail reaches for ``target`` (3,, world).

    ``rotations`` (n, 4) is the start pose (rest or current); ``limits`` per bone as in
    ``validate_limits``; ``max_step`` (radians, > 0, or None for unclamped) bounds how far any
    joint turns in one iteration, including a turn that brings an out-of-limit start pose back
    inside its limits. ``result.errors`` (1,) is the tail-to-target distance and
    ``result.at_limit`` (n, 3) the axes the limits held in the sweep that made the returned pose
    (all False when no sweep improved on the start pose). A
    non-finite target leaves the pose unchanged (errors inf, not converged). Deterministic.
    Raises ValueError for bad ``rotations``, ``limits`` or ``max_step``.
    """
    n = len(chain)
    limits = validate_limits(n, limits)
    if max_step is not None and not (np.isfinite(max_step) and max_step > 0):
        raise ValueError(f"max_step must be a finite angle > 0 radians or None, got {max_step}")
    rotations = np.asarray(rotations, dtype=float)
    if rotations.shape != (n, 4):
        raise ValueError(f"rotations must be ({n}, 4), one per bone, got {rotations.shape}")
    target = np.asarray(target, dtype=float)
    if target.shape != (3,):
        raise ValueError(f"target must be (3,), got {target.shape}")
    if not np.isfinite(target).all() or not np.isfinite(rotations).all():
        return SolveResult(rotations.copy(), 0, np.full(1, np.inf), False)

    start = rotations.copy()
    points = chain_pose(chain, start)[1]
    reach = np.linalg.norm(chain.segments, axis=1).sum()
    if np.linalg.norm(target - points[0]) < reach and _straight_toward(points, target):
        start = quat_mul(start, quat_from_axis_angle([1.0, 0.0, 0.0], np.full(n, UNFOLD)))
        if limits is not None:
            start = np.array([clamp_rotation(limits[i], start[i])[0] for i in range(n)])

    start = tuple(map(tuple, start.tolist()))
    target = tuple(target.tolist())
    tip = _pose_floats(chain, start)[2][-1]
    return iterate((start, tip, None), _step(chain, target, limits, max_step, reach),
                   lambda state: (math.dist(state[1], target),), lambda state: (np.array(state[0]), None, state[2]),
                   max_iterations=max_iterations, tolerance=tolerance)


def _step(chain, target, limits, max_step, reach):
    """One CCD sweep for ``iterate`` on plain floats (a numpy call per joint would cost more
    than its arithmetic); the state is (rotations, tip, held (n, 3) or None without limits) and
    ``reach`` the chain's longest head-to-tail distance."""
    n = len(chain)

    def step(state):
        rotations = list(state[0])
        held = None if limits is None else np.zeros((n, 3), dtype=bool)
        frames, worlds, points = _pose_floats(chain, rotations)
        # Out of reach the best pose lies straight toward the target: sweep root to tip aiming each
        # bone's own segment, which lays it straight in one sweep. Otherwise classic CCD.
        if math.dist(target, points[0]) >= reach:
            return _straighten(chain, rotations, target, limits, max_step, held)
        tip = points[-1]
        for i in reversed(range(n)):
            new = _turn(frames[i], rotations[i], points[i], tip, target, limits and limits[i], max_step, held, i)
            if new is not None:
                rotations[i] = new
                delta = sc.qmul(sc.qmul(frames[i], new), sc.qconj(worlds[i]))
                tip = sc.add(points[i], sc.qrotate(delta, sc.sub(tip, points[i])))
        return tuple(rotations), tip, held

    return step


def _straighten(chain, rotations, target, limits, max_step, held):
    """The sweep for an out-of-reach target: root to tip, each bone aims its own segment."""
    base_q, origin, offsets, rest, _ = chain.floats
    parent, head = base_q, sc.add(origin, sc.qrotate(base_q, offsets[0]))
    for i, segment in enumerate(chain.float_segments):
        frame = sc.qmul(parent, rest[i])
        aim = sc.add(head, sc.qrotate(sc.qmul(frame, rotations[i]), segment))
        new = _turn(frame, rotations[i], head, aim, target, limits and limits[i], max_step, held, i)
        if new is not None:
            rotations[i] = new
        parent = sc.qmul(frame, rotations[i])
        head = sc.add(head, sc.qrotate(parent, segment))
    return tuple(rotations), head, held


def _turn(frame, old, head, aim, target, bone_limits, max_step, held, i):
    """Joint i's new pose rotation (None: it stays) turning the line ``head`` -> ``aim`` toward
    ``target`` by the shortest arc; ``frame`` is its world frame before the pose rotation ``old``.
    The turn is clamped to ``max_step``, then to ``bone_limits`` (axes they hold go to
    ``held[i]``), and the whole move again to ``max_step``."""
    a, b = sc.sub(aim, head), sc.sub(target, head)
    la, lb = sc.length(a), sc.length(b)
    if la < sc.EPS or lb < sc.EPS:
        return None
    axis = sc.cross(a, b)
    sine = sc.length(axis)
    angle = math.atan2(sine, sc.dot(a, b))
    if sine < 1e-12 * la * lb:
        if angle < math.pi / 2:
            return None
        axis = sc.any_perpendicular(sc.scale(a, 1.0 / la))
    else:
        axis = sc.scale(axis, 1.0 / sine)
    tx, ty, tz, tw = sc.qaxis_angle(axis, angle if max_step is None else min(angle, max_step))
    # The world turn seen from the bone's frame before its pose rotation.
    new = sc.qmul(sc.qrotate(sc.qconj(frame), (tx, ty, tz)) + (tw,), old)
    if bone_limits:
        clamped, held[i] = clamp_rotation(bone_limits, np.array(new))
        new = tuple(clamped.tolist())
    moved = 2.0 * math.acos(min(abs(sc.qdot(old, new)), 1.0))
    if moved < MIN_TURN:
        return None
    if max_step is not None and moved > max_step:
        new = tuple(quat_slerp(old, new, max_step / moved).tolist())
    return sc.qnormalize(new)


def _pose_floats(chain, rotations):
    """Per bone its frame before the pose rotation and its world rotation (quats), and the
    chain's points (n + 1), on plain floats."""
    base_q, origin, offsets, rest, _ = chain.floats
    frames, worlds, points = [], [], [sc.add(origin, sc.qrotate(base_q, offsets[0]))]
    parent = base_q
    for rest_q, q, segment in zip(rest, rotations, chain.float_segments):
        frames.append(sc.qmul(parent, rest_q))
        parent = sc.qmul(frames[-1], q)
        worlds.append(parent)
        points.append(sc.add(points[-1], sc.qrotate(parent, segment)))
    return frames, worlds, points


def _straight_toward(points, target):
    """True when the chain's points (n + 1, 3) and ``target`` (3,) lie on one line."""
    centred = np.vstack([points, target]) - points[0]
    scale = max(np.abs(centred).max(), EPS)
    return np.linalg.svd(centred / scale, compute_uv=False)[1] < 1e-9
