"""One CCD sweep, compiled: the step ``solvers.ccd`` iterates (its module doc gives the rules).

Compiled with numba because a sweep is dozens of small vector and quaternion operations per
joint, where plain Python floats made a free 10-bone solve take 0.084 ms (compiled: 0.018) and
limited chains through the rig 0.21-0.66 ms (compiled: 0.08-0.11; bench/bench_solvers.py,
bench/bench_limits.py). The arithmetic is the
``register_jitable`` helpers of ``solvers.scalar``, the encoded limit clamp of ``solvers.limits``
and the solvers' forward kinematics (``kinematics.pose_bones``), compiled in; vectors and quaternions are tuples inside the kernel, the chain
and the pose arrays. ``cache=True`` keeps the machine code beside this file (``warm`` at set-up
compiles it; numba keys that cache on this file alone).
"""
import math
from collections import namedtuple

import numpy as np
from numba import njit

from solvers import scalar as sc
from solvers.kinematics import BoneTree, pose_bones
from solvers.limits import clamp_encoded
from solvers.rotation_fit import vector_row

# Turns smaller than this (radians) are skipped: they only stir rounding noise.
MIN_TURN = 1e-12
# A shared sweep whose root's limits kept it from aiming must leave at most this share of the
# error, or sharing ends (see ``solvers.ccd``).
UNAIMED_GAIN = 0.75


# One solve's constants as the kernel reads them: the chain first, as the fields of a
# ``kinematics.BoneTree`` (so ``pose_bones`` reads the tables as the tree; a nested record would
# cost every kernel call), then per bone its ``stiffness`` (n, 3, zeros for none) and the row of
# its sole Hinge in the encoded limits (``hinge_row``, -1: none); the limits as
# ``solvers.limits.encode_limits``; the ``target`` (3 floats), the chain's ``reach``, the sweeps'
# root (``pivot``) and ``max_step`` (inf for none).
SweepTables = namedtuple("SweepTables", BoneTree._fields + (
    "stiffness", "hinge_row", "limit_start", "limit_kind", "limit_parameters", "target", "reach", "pivot",
    "max_step"))


@njit(cache=True)
def _quat_row(rows, i):
    return (rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3])


@njit(cache=True)
def _put_quat(rows, i, q):
    rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3] = q


@njit(cache=True)
def _slerp(a, b, fraction):
    """``transforms.quat_slerp`` on floats, unnormalised: from ``a`` toward ``b`` along the shorter arc."""
    d = sc.qdot(a, b)
    if d < 0.0:
        b, d = (-b[0], -b[1], -b[2], -b[3]), -d
    angle = math.acos(min(d, 1.0))
    s = math.sin(angle)
    if s < 1e-6:
        wa, wb = 1.0 - fraction, fraction
    else:
        wa, wb = math.sin((1.0 - fraction) * angle) / s, math.sin(fraction * angle) / s
    return (wa * a[0] + wb * b[0], wa * a[1] + wb * b[1], wa * a[2] + wb * b[2], wa * a[3] + wb * b[3])


@njit(cache=True)
def _across(v, axis):
    """``v`` less its part along unit ``axis``."""
    return sc.sub(v, sc.scale(axis, sc.dot(v, axis)))


@njit(cache=True)
def _turn(t, i, frame, old, head, aim, target, held):
    """Whether joint i turns, and its new pose rotation, turning the line ``head`` -> ``aim``
    toward ``target`` by the shortest arc; ``frame`` is its world frame before the pose rotation
    ``old``. Its part about each of the bone's axes is scaled by ``1 - stiffness`` of that axis,
    then the turn is clamped to ``max_step``, then to the bone's limits (axes they hold go to
    ``held[i]``), and the whole move again to ``max_step``. A sole hinge turns about its axis by
    the angle between the two lines' projections across it, the nearest its tip can come."""
    a, b = sc.sub(aim, head), sc.sub(target, head)
    row = t.hinge_row[i]
    if row >= 0:
        p = t.limit_parameters[row]
        axis = sc.qrotate(frame, (p[0], p[1], p[2]))
        a, b = _across(a, axis), _across(b, axis)
    la, lb = sc.length(a), sc.length(b)
    if la < sc.EPS or lb < sc.EPS:
        return False, old
    axis = sc.cross(a, b)
    sine = sc.length(axis)
    angle = math.atan2(sine, sc.dot(a, b))
    if sine < 1e-12 * la * lb:
        if angle < math.pi / 2:
            return False, old
        axis = sc.any_perpendicular(sc.scale(a, 1.0 / la))
    else:
        axis = sc.scale(axis, 1.0 / sine)
    # The world turn seen from the bone's frame before its pose rotation, less what stiffness holds back.
    local = sc.scale(sc.qrotate(sc.qconj(frame), axis), angle)
    s = t.stiffness[i]
    local = (local[0] * (1.0 - s[0]), local[1] * (1.0 - s[1]), local[2] * (1.0 - s[2]))
    angle = sc.length(local)
    if angle < MIN_TURN:
        return False, old
    new = sc.qmul(sc.qaxis_angle(sc.scale(local, 1.0 / angle), min(angle, t.max_step)), old)
    start, stop = t.limit_start[i], t.limit_start[i + 1]
    if stop > start:
        new, bone_held = clamp_encoded(t.limit_kind, t.limit_parameters, start, stop, new)
        held[i, 0], held[i, 1], held[i, 2] = bone_held
    moved = 2.0 * math.acos(min(abs(sc.qdot(old, new)), 1.0))
    if moved < MIN_TURN:
        return False, old
    if moved > t.max_step:
        new = _slerp(old, new, t.max_step / moved)
    return True, sc.qnormalize(new)


@njit(cache=True)
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
    current = sc.length(sc.sub(tip, root))
    distance = sc.clip(current + (wanted - current) / i, abs(lever - radius), lever + radius)
    along = (lever * lever + distance * distance - radius * radius) / (2.0 * lever)
    centre = sc.add(root, sc.scale(axis, along))
    ring = math.sqrt(max(distance * distance - along * along, 0.0))
    for toward in (target, tip, sc.add(centre, sc.qrotate(world, (0.0, 0.0, 1.0)))):
        side = _across(sc.sub(toward, centre), axis)
        size = sc.length(side)
        if size > 1e-9 * max(lever, radius):
            return sc.add(centre, sc.scale(side, ring / size))
    return sc.add(centre, sc.scale(sc.any_perpendicular(axis), ring))


@njit(cache=True)
def _hinge_room(p, rotation):
    """How far (radians, low <= 0 <= high) a joint at pose ``rotation`` may still turn on the
    hinge whose encoded parameters are ``p``."""
    angle = 2.0 * math.atan2(sc.dot((rotation[0], rotation[1], rotation[2]), (p[0], p[1], p[2])), rotation[3])
    angle = (angle + math.pi) % (2.0 * math.pi) - math.pi
    return min(p[3] - angle, 0.0), max(p[4] - angle, 0.0)


@njit(cache=True)
def _orbit_goal(head, axis, tip, target, room):
    """Where the joints past a hinged root send the tip: ``target`` turned about the hinge line
    (``head``, world ``axis``) to the tip's side of it, as far as the hinge's ``room`` lets the
    root turn it back. The root's own turn then finishes the move, which a point off the orbit
    could never allow."""
    t, k = sc.sub(target, head), sc.sub(tip, head)
    t_across, k_across = _across(t, axis), _across(k, axis)
    if sc.length(t_across) < 1e-9 or sc.length(k_across) < 1e-9:
        return target
    needed = math.atan2(sc.dot(sc.cross(k_across, t_across), axis), sc.dot(k_across, t_across))
    turn = sc.clip(needed, room[0], room[1])
    return sc.add(head, sc.qrotate(sc.qaxis_angle(axis, -turn), t))


@njit(cache=True)
def _off_aim(root, tip, target):
    """The angle (radians) between the lines from ``root`` to ``tip`` and to ``target``."""
    a, b = sc.sub(tip, root), sc.sub(target, root)
    return math.atan2(sc.length(sc.cross(a, b)), sc.dot(a, b))


@njit(cache=True)
def _straighten(t, rotations, held):
    """The sweep for an out-of-reach target (``rotations`` in place): root to tip, each bone aims
    its own segment, which lays the chain straight toward the target. Returns the tip."""
    parent = t.base_rotation
    head = sc.add(t.origin, sc.qrotate(parent, vector_row(t.offsets, 0)))
    for i in range(len(rotations)):
        frame = sc.qmul(parent, _quat_row(t.rest_rotations, i))
        rotation = _quat_row(rotations, i)
        # Its vector to the next point of the chain (``Chain.segments``): the next head, or its tail.
        segment = vector_row(t.offsets, i + 1) if i + 1 < len(rotations) else (0.0, t.lengths[i], 0.0)
        aim = sc.add(head, sc.qrotate(sc.qmul(frame, rotation), segment))
        turned, new = _turn(t, i, frame, rotation, head, aim, t.target, held)
        if turned:
            rotation = new
            _put_quat(rotations, i, rotation)
        parent = sc.qmul(frame, rotation)
        head = sc.add(head, sc.qrotate(parent, segment))
    return head


@njit(cache=True)
def ccd_sweep(t, rotations, last_tip, shared):
    """One CCD sweep from pose ``rotations`` (n, 4, left as it is), whose tip the previous sweep
    left at ``last_tip``, while sweeps still share the reach change (``shared``). Returns the
    new pose rotations, tip, the axes the limits held (n, 3) and whether sharing goes on."""
    n = len(rotations)
    rotations = rotations.copy()
    held = np.zeros((n, 3), dtype=np.bool_)
    frames, worlds, heads, tails = np.empty((n, 4)), np.empty((n, 4)), np.empty((n, 3)), np.empty((n, 3))
    pose_bones(t, None, rotations, frames, worlds, heads, tails)
    target = t.target
    # Out of reach the best pose lies straight toward the target. Otherwise tip to root.
    if sc.length(sc.sub(target, vector_row(heads, 0))) >= t.reach:
        return rotations, _straighten(t, rotations, held), held, shared
    pivot = t.pivot
    root, tip = vector_row(heads, pivot), vector_row(tails, n - 1)
    row = t.hinge_row[pivot]
    # Past a hinged root the joints aim at the target's point on its orbit about the hinge, from the next joint.
    orbit = row >= 0 and pivot + 1 < n
    goal = target
    if orbit:
        p = t.limit_parameters[row]
        goal = _orbit_goal(root, sc.qrotate(_quat_row(frames, pivot), (p[0], p[1], p[2])), tip, target,
                           _hinge_room(p, _quat_row(rotations, pivot)))
    aimer = pivot + 1 if orbit else pivot
    wanted = sc.length(sc.sub(goal, vector_row(heads, aimer)))
    miss = 0.0
    for i in range(n - 1, -1, -1):
        if i == pivot:
            miss = _off_aim(root, tip, target)
        bone_goal = goal if i > pivot else target
        head = vector_row(heads, i)
        if shared and i > aimer:
            bone_goal = _shared_reach_goal(vector_row(heads, aimer), head, tip, goal, wanted, i - aimer,
                                           _quat_row(worlds, i))
        frame = _quat_row(frames, i)
        turned, new = _turn(t, i, frame, _quat_row(rotations, i), head, tip, bone_goal, held)
        if turned:
            _put_quat(rotations, i, new)
            delta = sc.qmul(sc.qmul(frame, new), sc.qconj(_quat_row(worlds, i)))
            tip = sc.add(head, sc.qrotate(delta, sc.sub(tip, head)))
    if shared:
        slack = 0.0 if t.max_step == np.inf else max(miss - t.max_step, 0.0)
        aimed = _off_aim(root, tip, target) <= slack + 1e-6
        error, last_error = sc.length(sc.sub(tip, target)), sc.length(sc.sub(last_tip, target))
        shared = error < last_error * (1.0 if aimed else UNAIMED_GAIN)
    return rotations, tip, held, shared
