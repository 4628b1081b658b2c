"""CCD (cyclic coordinate descent) IK for serial chains.

One iteration sweeps the joints from the last bone up to the first; each joint turns by the
shortest arc that points the line from its head to the chain's tip at the target (three.js's
``CCDIKSolver`` and Godot's ``CCDIK3D`` do the same). The turn is optionally clamped to
``max_step`` radians, then the joint's limits (``solvers.limits``) are applied, so every iterate is
a valid pose with exact bone lengths. The loop itself is ``solvers.iterate.iterate``.
"""
import numpy as np

from solvers.chain import Chain, SolveResult, chain_pose
from solvers.iterate import iterate
from solvers.limits import clamp_rotation, validate_limits
from solvers.transforms import EPS, any_perpendicular, quat_angle, quat_from_axis_angle, quat_mul, quat_normalize, \
    quat_slerp, quat_to_matrix3

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

    def measure(state):
        return np.array([np.linalg.norm(chain_pose(chain, state[0])[1][-1] - target)])

    return iterate((start, np.zeros((n, 3), dtype=bool)), _step(chain, target, limits, max_step, reach), measure,
                   lambda state: (state[0].copy(), None, state[1]),
                   max_iterations=max_iterations, tolerance=tolerance)


def _step(chain, target, limits, max_step, reach):
    """One CCD sweep for ``iterate``; the state is (rotations (n, 4), held (n, 3)) and ``reach``
    the chain's longest head-to-tail distance."""
    n = len(chain)
    rest = quat_to_matrix3(chain.rest_rotations)

    def step(state):
        rotations = state[0].copy()
        held = np.zeros((n, 3), dtype=bool)
        world, points = chain_pose(chain, rotations)
        # Out of reach the best pose lies straight toward the target: sweep root to tip aiming each
        # bone's own segment, which lays it straight in one sweep. Otherwise classic CCD.
        straighten = np.linalg.norm(target - points[0]) >= reach
        for i in range(n) if straighten else reversed(range(n)):
            head = points[i]
            aim = points[i + 1] if straighten else points[-1]
            a, b = aim - head, target - head
            if np.linalg.norm(a) < EPS or np.linalg.norm(b) < EPS:
                continue
            axis = np.cross(a, b)
            sine = np.linalg.norm(axis)
            angle = np.arctan2(sine, np.dot(a, b))
            if sine < 1e-12 * np.linalg.norm(a) * np.linalg.norm(b):
                if angle < np.pi / 2:
                    continue
                axis = any_perpendicular(a / np.linalg.norm(a))
            turn = quat_from_axis_angle(axis, angle if max_step is None else min(angle, max_step))
            # The bone's frame before its pose rotation (parent world rotation times rest rotation);
            # conjugating the world turn by it only rotates the quaternion's vector part.
            frame = (chain.base[:3, :3] if i == 0 else world[i - 1]) @ rest[i]
            old = rotations[i]
            new = quat_mul(np.concatenate([frame.T @ turn[:3], turn[3:]]), old)
            if limits is not None and limits[i]:
                new, held[i] = clamp_rotation(limits[i], new)
            moved = quat_angle(old, new)
            if moved < MIN_TURN:
                continue
            if max_step is not None and moved > max_step:
                new = quat_slerp(old, new, max_step / moved)
            new = quat_normalize(new)
            rotations[i] = new
            delta = frame @ quat_to_matrix3(new) @ world[i].T
            world[i:] = delta @ world[i:]
            points[i + 1:] = head + (points[i + 1:] - head) @ delta.T
        return rotations, held

    return step


def _straight_toward(points, target):
    """True when the chain's points (n + 1, 3) and ``target`` (3,) lie on one line."""
    centred = np.vstack([points, target]) - points[0]
    scale = max(np.abs(centred).max(), EPS)
    return np.linalg.svd(centred / scale, compute_uv=False)[1] < 1e-9
