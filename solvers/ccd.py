"""CCD (cyclic coordinate descent) IK for serial chains, with the reach change shared out.

One iteration sweeps the joints from the last bone up to the first. Classic CCD (three.js's
``CCDIKSolver``, Godot's ``CCDIK3D``) turns each joint by the shortest arc that points the line
from its head to the tip at the target. Only the root's turn is then left to place the tip, and
that turn can only aim, so what decides the error is the tip's distance from the root, which
classic CCD changes only as a side effect: the joints near the tip curl first and the chain
unfolds over dozens of sweeps (on a 10-bone chain from a straight start, two targets in three
within 1e-3 of reach after 30 sweeps).

Here joint i > 0 instead swings the tip, on its sphere about the joint's head, to the point
nearest the target among those whose distance from the root has moved 1/i of the way from the
tip's to the target's: the i joints left before the root share the distance change evenly, and
the root then aims as in classic CCD. Any pose with the tip on the target has that distance, so
the rule narrows the search without excluding a solution; without limits a target within reach
is usually met in one or two sweeps, by a bend spread over the chain rather than curled into its
tip, and a moving target moves the joints less from frame to frame. A straight chain with the
target on its line (where every shortest arc is zero) bends toward the bone's +Z, the way a knee
hinged about X does. Out of reach the sweep runs root to tip instead, each bone aiming its own
segment, which lays the chain straight toward the target.

Every turn is optionally clamped to ``max_step`` radians, then the joint's limits
(``solvers.limits``) are applied, so every iterate is a valid pose with exact bone lengths. A
joint whose only limit is a hinge turns about its axis by the angle between the two lines'
projections across it, the nearest its tip can come (a shortest arc clamped to the hinge would
fall short).

The shared rule relies on the root's final aim, so the root is the first joint that can turn:
locked hinges before it keep their place. A hinged root cannot aim; it can only swing the tip
round its axis. The joints past it then aim at the target's point on that orbit (the target
turned about the axis to the tip's side, as far as the hinge's range lets the root turn it
back), sharing the distance from the next joint, which aims, and the root's turn finishes the
move: from rest, one or two sweeps. Where other limits keep the root from aiming (a cone, swing-twist
limits, a hinge at the end of its range), the tip can end at the right distance but off to the
side, where moving it on that sphere crawls or stalls; sharing then ends, for classic sweeps
from there on, at the first sweep that does not bring the tip closer, or whose root could not
aim and that did not cut the error by a quarter. The loop itself is ``solvers.iterate.iterate``;
each sweep is one compiled kernel, ``solvers.ccd_step.ccd_sweep`` (``warm``, run by .ci/setup,
compiles it).
"""
import math
from typing import NamedTuple

import numpy as np

from solvers.ccd_step import SweepTables, ccd_sweep
from solvers.chain import Chain, SolveResult, chain_pose, straight_chain, stretch_to_reach
from solvers.fabrik_step import for_kernel
from solvers.iterate import iterate
from solvers.kinematics import bone_tree
from solvers.limits import Hinge, clamp_rotation, encode_limits, sole_hinge, validate_limits
from solvers.transforms import matrix3_to_quat, quat_angle, quat_conjugate, quat_mul, quat_normalize, quat_rotate



def solve_ccd_chain(chain: Chain, rotations, target, limits=None, max_step=None, max_iterations=50,
                    tolerance=1e-3, stretch=None, target_rotation=None, stiffness=None):
    """CCD on a serial chain whose last bone's tail reaches for ``target`` (3,, world).

    ``rotations`` (n, 4) is the start pose (rest or current); ``limits`` per bone as in
    ``validate_limits``; ``max_step`` (radians, > 0, or None for unclamped) bounds how far any
    joint turns in one iteration, including a turn that brings an out-of-limit start pose back
    inside its limits; ``stretch`` (n,) per-bone IK stretch amounts grow the bones for a target
    out of reach (``stretch_to_reach``), reported in ``result.stretch``; ``target_rotation`` (4,)
    orients the last bone (``_solve_with_end_rotation``), and ``result.errors`` then gains its
    angle to it; ``stiffness`` (n, 3) in [0, 1) per bone and local axis scales each turn's part
    about that axis by ``1 - stiffness`` (Blender's IK stiffness: a stiff joint turns less and
    the others take up the move). ``result.errors`` (1,) is the tail-to-target distance and
    ``result.at_limit`` (n, 3) the axes the limits held in the sweep that made the returned pose
    (when no sweep improved on the start pose, the axes its clamp holds the start at). A
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

    stiffness = _stiffness_rows(stiffness, n)
    if target_rotation is not None:
        return _solve_with_end_rotation(chain, rotations, target, limits, max_step, max_iterations, tolerance,
                                        stretch, np.asarray(target_rotation, dtype=float), stiffness)
    grown = stretch_to_reach(chain, target, stretch)
    if grown is not None:
        result = solve_ccd_chain(grown.chain, rotations, target, limits, max_step, max_iterations, tolerance,
                                 stiffness=stiffness)
        result.stretch = grown.factors
        return result
    tables = _tables(chain, target, limits, max_step, stiffness)
    start = np.array(rotations, dtype=float, order="C")  # a copy, C-ordered and writable: one specialisation
    target = tables.target
    tip = tuple(chain_pose(chain, start)[1][-1].tolist())
    return iterate(_Sweep(start, tip, None if limits is None else _held_at(limits, start), True),
                   lambda state: _Sweep(*ccd_sweep(tables, state.rotations, state.tip, state.shared)),
                   lambda state: (math.dist(state.tip, target),),
                   lambda state: (state.rotations, None, None if limits is None else state.held),
                   max_iterations=max_iterations, tolerance=tolerance)


def _held_at(limits, rotations):
    """The axes (n, 3) the bones' ``limits`` hold ``rotations`` (n, 4) at, as their clamp judges."""
    held = np.zeros((len(rotations), 3), dtype=bool)
    for i, entry in enumerate(limits):
        if entry:
            held[i] = clamp_rotation(entry, rotations[i])[1]
    return held


class _Sweep(NamedTuple):
    """The state ``iterate`` carries between sweeps: the pose rotations (n, 4), the tip (3 floats),
    the axes the limits held in the sweep that made it (n, 3; before the first, those the start's
    clamp holds) and whether sweeps still share the reach change."""
    rotations: np.ndarray
    tip: tuple
    held: np.ndarray
    shared: bool


def _tables(chain, target, limits, max_step, stiffness):
    """The kernel's ``SweepTables`` for one solve: a free chain's are built once per chain, then
    take this solve's limits, stiffness, target and ``max_step``."""
    tables = chain.cached_for_base("ccd tables", lambda: _free_tables(chain))
    if limits is not None:
        tables = tables._replace(**_limit_fields(len(chain), limits))
    if stiffness is not None:
        tables = tables._replace(stiffness=for_kernel(stiffness, float))
    return tables._replace(target=tuple(target.tolist()), max_step=math.inf if max_step is None else float(max_step))


def _free_tables(chain):
    """``SweepTables`` for ``chain`` without limits or stiffness, toward the origin."""
    n = len(chain)
    bones = bone_tree(chain.base, np.arange(n) - 1, chain.offsets, chain.rest_rotations, chain.lengths)
    return SweepTables(*bones, stiffness=for_kernel(np.zeros((n, 3)), float), target=(0.0, 0.0, 0.0),
                       reach=chain.reach, max_step=math.inf, **_limit_fields(n, None))


def _limit_fields(n, limits):
    """The ``SweepTables`` fields of validated ``limits`` (None: no bone limited)."""
    start, kind, parameters = encode_limits(n, limits)
    hinge_row = [start[i] if sole_hinge(limits[i]) else -1 for i in range(n)] if limits else [-1] * n
    return {"hinge_row": for_kernel(hinge_row, np.int64), "limit_start": for_kernel(start, np.int64),
            "limit_kind": for_kernel(kind, np.int64), "limit_parameters": for_kernel(parameters, float),
            "pivot": _pivot(limits, n)}


def _stiffness_rows(stiffness, n):
    """``stiffness`` as one (x, y, z) tuple per bone, or None when no axis is stiff; ValueError
    for a shape or value it cannot take."""
    if stiffness is None:
        return None
    stiffness = np.asarray(stiffness, dtype=float)
    if stiffness.shape != (n, 3) or not ((stiffness >= 0.0) & (stiffness < 1.0)).all():
        raise ValueError(f"stiffness must be ({n}, 3) values in [0, 1), got {stiffness!r}")
    return tuple(map(tuple, stiffness.tolist())) if stiffness.any() else None


def _solve_with_end_rotation(chain, rotations, target, limits, max_step, max_iterations, tolerance, stretch,
                             target_rotation, stiffness):
    """CCD with the last bone turned to ``target_rotation`` (world), as game engines place a hand:
    the bones before it reach for the wrist, the point the last bone's head must take for its
    tail to sit on the target in that orientation, then the last bone turns to the rotation (its
    limits holding). A lone bone, or a last bone whose head is off its parent's Y axis, cannot
    do both: it reaches for the target and the angle it is left at is reported."""
    n = len(chain)
    q_goal = quat_normalize(target_rotation)
    wrist_offset = chain.offsets[-1] if n > 1 else None
    if n == 1 or not np.isfinite(q_goal).all() or abs(wrist_offset[0]) + abs(wrist_offset[2]) > 1e-9:
        result = solve_ccd_chain(chain, rotations, target, limits, max_step, max_iterations, tolerance, stretch,
                                 stiffness=stiffness)
        return _with_end_angle(chain, result, target, q_goal, tolerance)
    arm = Chain(chain.base, chain.offsets[:-1], chain.rest_rotations[:-1],
                np.append(chain.lengths[:-2], wrist_offset[1]))
    wrist = target - quat_rotate(q_goal, chain.segments[-1])
    arm_limits = None if limits is None or not any(limits[:-1]) else limits[:-1]
    reached = solve_ccd_chain(arm, rotations[:-1], wrist, arm_limits, max_step, max_iterations, tolerance,
                              None if stretch is None else stretch[:-1], stiffness=stiffness and stiffness[:-1])
    # The last bone's frame before its pose rotation: its parent's world rotation, then its rest rotation.
    parent = chain_pose(chain, np.vstack([reached.rotations, rotations[-1:]]))[0][-2]
    frame = quat_mul(matrix3_to_quat(parent), chain.rest_rotations[-1])
    last, held = quat_mul(quat_conjugate(frame), q_goal), np.zeros(3, dtype=bool)
    if limits is not None and limits[-1]:
        last, held = clamp_rotation(limits[-1], last)
    stretch_factors = np.append(reached.stretch, 1.0)
    result = SolveResult(np.vstack([reached.rotations, last]), reached.iterations, np.zeros(1), False,
                         stretch_factors, np.vstack([reached.at_limit, held]))
    return _with_end_angle(chain, result, target, q_goal, tolerance)


def _with_end_angle(chain, result, target, q_goal, tolerance):
    """``result`` with its errors measured again: (tip distance, last bone's angle to ``q_goal``)."""
    frames, points = chain_pose(chain, result.rotations, result.stretch)
    distance = float(np.linalg.norm(points[-1] - target))
    angle = quat_angle(matrix3_to_quat(frames[-1]), q_goal)
    result.errors = np.array([distance, angle])
    result.converged = distance <= tolerance and angle <= tolerance
    return result


def warm():
    """Compile (or load from the cache) the CCD sweep for the argument types solves pass."""
    chain = straight_chain([1.0, 1.0])
    solve_ccd_chain(chain, [[0.0, 0.0, 0.0, 1.0]] * 2, [0.0, 1.5, 0.5], [None, Hinge((1.0, 0.0, 0.0), 0.0, 1.0)],
                    max_iterations=1)


def _pivot(limits, n):
    """The first joint from the root that can turn at all (locked hinges before it keep the
    chain's start fixed): the sweeps' root."""
    for i in range(n):
        hinge = sole_hinge(limits[i]) if limits else None
        if hinge is None or hinge.max_angle > hinge.min_angle:
            return i
    return 0
