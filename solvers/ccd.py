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
move: from rest, one or two sweeps. Where other limits keep the root from aiming (a cone, Euler
limits, a hinge at the end of its range), the tip can end at the right distance but off to the
side, where moving it on that sphere crawls or stalls; sharing then ends, for classic sweeps
from there on, at the first sweep that does not bring the tip closer, or whose root could not
aim and that did not cut the error by a quarter. The loop itself is ``solvers.iterate.iterate``.
"""
import math

import numpy as np

from solvers import scalar as sc
from solvers.chain import Chain, SolveResult, chain_pose, stretch_to_reach
from solvers.iterate import iterate
from solvers.limits import clamp_rotation, sole_hinge, validate_limits
from solvers.transforms import matrix3_to_quat, quat_angle, quat_conjugate, quat_mul, quat_normalize, quat_rotate, \
    quat_slerp

# Turns smaller than this (radians) are skipped: they only stir rounding noise.
MIN_TURN = 1e-12
# A shared sweep whose root's limits kept it from aiming must leave at most this share of the
# error, or sharing ends (see the module docstring).
UNAIMED_GAIN = 0.75


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
    reach = chain.reach
    start = tuple(map(tuple, rotations.tolist()))
    target = tuple(target.tolist())
    tip = _pose_floats(chain, start)[2][-1]
    return iterate((start, tip, None, True), _step(chain, target, limits, max_step, reach, stiffness),
                   lambda state: (math.dist(state[1], target),), lambda state: (np.array(state[0]), None, state[2]),
                   max_iterations=max_iterations, tolerance=tolerance)


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
    frames = _pose_floats(chain, tuple(map(tuple, np.vstack([reached.rotations, rotations[-1:]]).tolist())))[0]
    last, held = quat_mul(quat_conjugate(frames[-1]), q_goal), np.zeros(3, dtype=bool)
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


def _step(chain, target, limits, max_step, reach, stiffness):
    """One CCD sweep for ``iterate`` on plain floats (a numpy call per joint would cost more
    than its arithmetic); the state is (rotations, tip, held (n, 3) or None without limits,
    whether sweeps still share the reach change) and ``reach`` the chain's longest head-to-tail
    distance."""
    n = len(chain)
    pivot = _pivot(limits, n)

    def step(state):
        rotations = list(state[0])
        held = None if limits is None else np.zeros((n, 3), dtype=bool)
        frames, worlds, points = _pose_floats(chain, rotations)
        # Out of reach the best pose lies straight toward the target: sweep root to tip aiming each
        # bone's own segment, which lays it straight in one sweep. Otherwise tip to root.
        if math.dist(target, points[0]) >= reach:
            return _straighten(chain, rotations, target, limits, max_step, held, stiffness) + (state[3],)
        root, tip, shared = points[pivot], points[-1], state[3]
        hinge = sole_hinge(limits[pivot]) if limits else None
        # Past a hinged root the joints aim at the target's point on its orbit about the hinge, from the next joint.
        orbit = hinge is not None and pivot + 1 < n
        goal = target
        if orbit:
            goal = _orbit_goal(root, sc.qrotate(frames[pivot], hinge.axis), tip, target,
                               _hinge_room(hinge, rotations[pivot]))
        aimer = pivot + 1 if orbit else pivot
        wanted = math.dist(goal, points[aimer])
        for i in reversed(range(n)):
            if i == pivot:
                miss = _off_aim(root, tip, target)
            bone_goal = goal if i > pivot else target
            if shared and i > aimer:
                bone_goal = _shared_reach_goal(points[aimer], points[i], tip, goal, wanted, i - aimer, worlds[i])
            new = _turn(frames[i], rotations[i], points[i], tip, bone_goal, limits and limits[i], max_step, held, i,
                        stiffness and stiffness[i])
            if new is not None:
                rotations[i] = new
                delta = sc.qmul(sc.qmul(frames[i], new), sc.qconj(worlds[i]))
                tip = sc.add(points[i], sc.qrotate(delta, sc.sub(tip, points[i])))
        if shared:
            aimed = _off_aim(root, tip, target) <= (0.0 if max_step is None else max(miss - max_step, 0.0)) + 1e-6
            shared = math.dist(tip, target) < math.dist(state[1], target) * (1.0 if aimed else UNAIMED_GAIN)
        return tuple(rotations), tip, held, shared

    return step


def _straighten(chain, rotations, target, limits, max_step, held, stiffness):
    """The sweep for an out-of-reach target: root to tip, each bone aims its own segment."""
    base_q, origin, offsets, rest, _ = chain.floats
    parent, head = base_q, sc.add(origin, sc.qrotate(base_q, offsets[0]))
    for i, segment in enumerate(chain.float_segments):
        frame = sc.qmul(parent, rest[i])
        aim = sc.add(head, sc.qrotate(sc.qmul(frame, rotations[i]), segment))
        new = _turn(frame, rotations[i], head, aim, target, limits and limits[i], max_step, held, i,
                    stiffness and stiffness[i])
        if new is not None:
            rotations[i] = new
        parent = sc.qmul(frame, rotations[i])
        head = sc.add(head, sc.qrotate(parent, segment))
    return tuple(rotations), head, held


def _turn(frame, old, head, aim, target, bone_limits, max_step, held, i, stiffness=None):
    """Joint i's new pose rotation (None: it stays) turning the line ``head`` -> ``aim`` toward
    ``target`` by the shortest arc; ``frame`` is its world frame before the pose rotation ``old``.
    Its part about each of the bone's axes is scaled by ``1 - stiffness`` of that axis, then the
    turn is clamped to ``max_step``, then to ``bone_limits`` (axes they hold go to
    ``held[i]``), and the whole move again to ``max_step``."""
    a, b = sc.sub(aim, head), sc.sub(target, head)
    hinge = sole_hinge(bone_limits)
    if hinge is not None:  # the best turn about the axis lines up the two lines' projections across it
        axis = sc.qrotate(frame, hinge.axis)
        a, b = sc.sub(a, sc.scale(axis, sc.dot(a, axis))), sc.sub(b, sc.scale(axis, sc.dot(b, axis)))
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
    # The world turn seen from the bone's frame before its pose rotation.
    local = sc.scale(sc.qrotate(sc.qconj(frame), axis), angle)
    if stiffness:
        local = tuple(v * (1.0 - s) for v, s in zip(local, stiffness))
    angle = sc.length(local)
    if angle < MIN_TURN:
        return None
    turn = sc.qaxis_angle(sc.scale(local, 1.0 / angle), angle if max_step is None else min(angle, max_step))
    new = sc.qmul(turn, old)
    if bone_limits:
        clamped, held[i] = clamp_rotation(bone_limits, np.array(new))
        new = tuple(clamped.tolist())
    moved = 2.0 * math.acos(min(abs(sc.qdot(old, new)), 1.0))
    if moved < MIN_TURN:
        return None
    if max_step is not None and moved > max_step:
        new = tuple(quat_slerp(old, new, max_step / moved).tolist())
    return sc.qnormalize(new)


def _shared_reach_goal(root, head, tip, target, wanted, i, world):
    """Where joint i (> 0) swings the tip in a sweep: onto the point of the tip's sphere about
    ``head`` whose distance from ``root`` has moved 1/i of the way from the tip's to ``wanted``
    (the target's; i joints, this one included, share what is left before the root aims), the
    point of that circle nearest ``target``. A target on the line root-head leaves the circle's
    side to the tip's bend, or for a straight chain to the bone's world +Z (``world`` its
    rotation), the way a knee hinged about X bends."""
    span, offset = sc.sub(tip, head), sc.sub(head, root)
    radius, lever = sc.length(span), sc.length(offset)
    if lever < sc.EPS:  # the joint sits on the root: it cannot change the tip's distance
        return target
    axis = sc.scale(offset, 1.0 / lever)
    current = math.dist(tip, root)
    distance = sc.clip(current + (wanted - current) / i, abs(lever - radius), lever + radius)
    along = (lever * lever + distance * distance - radius * radius) / (2.0 * lever)
    centre = sc.add(root, sc.scale(axis, along))
    ring = math.sqrt(max(distance * distance - along * along, 0.0))
    for toward in (target, tip, sc.add(centre, sc.qrotate(world, (0.0, 0.0, 1.0)))):
        side = sc.sub(toward, centre)
        side = sc.sub(side, sc.scale(axis, sc.dot(side, axis)))
        size = sc.length(side)
        if size > 1e-9 * max(lever, radius):
            return sc.add(centre, sc.scale(side, ring / size))
    return sc.add(centre, sc.scale(sc.any_perpendicular(axis), ring))


def _pivot(limits, n):
    """The first joint from the root that can turn at all (locked hinges before it keep the
    chain's start fixed): the sweeps' root."""
    for i in range(n):
        hinge = sole_hinge(limits[i]) if limits else None
        if hinge is None or hinge.max_angle > hinge.min_angle:
            return i
    return 0


def _hinge_room(hinge, rotation):
    """How far (radians, low <= 0 <= high) a hinged joint at pose ``rotation`` may still turn."""
    angle = 2.0 * math.atan2(sc.dot(rotation[:3], hinge.axis), rotation[3])
    angle = (angle + math.pi) % (2.0 * math.pi) - math.pi
    return min(hinge.min_angle - angle, 0.0), max(hinge.max_angle - angle, 0.0)


def _orbit_goal(head, axis, tip, target, room):
    """Where the joints past a hinged root send the tip: ``target`` turned about the hinge line
    (``head``, world ``axis``) to the tip's side of it, as far as the hinge's ``room`` lets the
    root turn it back. The root's own turn then finishes the move, which a point off the orbit
    could never allow."""
    t, k = sc.sub(target, head), sc.sub(tip, head)
    t_across, k_across = sc.sub(t, sc.scale(axis, sc.dot(t, axis))), sc.sub(k, sc.scale(axis, sc.dot(k, axis)))
    if sc.length(t_across) < 1e-9 or sc.length(k_across) < 1e-9:
        return target
    needed = math.atan2(sc.dot(sc.cross(k_across, t_across), axis), sc.dot(k_across, t_across))
    turn = sc.clip(needed, *room)
    return sc.add(head, sc.qrotate(sc.qaxis_angle(axis, -turn), t))


def _off_aim(root, tip, target):
    """The angle (radians) between the lines from ``root`` to ``tip`` and to ``target``."""
    a, b = sc.sub(tip, root), sc.sub(target, root)
    return math.atan2(sc.length(sc.cross(a, b)), sc.dot(a, b))


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

