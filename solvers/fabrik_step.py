"""FABRIK compiled: the one iteration ``solvers.fabrik`` runs on every tree and chain, free or
limited (``solvers.fabrik_loop`` iterates it, one call per solve).

Both passes carry each bone's frame (see ``solvers.fabrik``). Compiled with numba because a
limited step is hundreds of small vector, quaternion and limit operations per bone (twelve
trial spins of a limb, each clamped), where numpy's per-call cost made a solve take 4-150 ms
and plain Python floats still several (bench/bench_limits.py); a free chain's step is cheap
enough that calling a kernel once per iteration from Python cost more than the step itself,
hence a compiled loop too. The arithmetic is the ``register_jitable`` helpers of
``solvers.scalar`` and ``solvers.limits`` and the solvers' forward kinematics
(``kinematics.pose_bones``), compiled in.
Vectors are 3-tuples and matrices tuples of rows inside the kernel; the plan and the state are
arrays. ``cache=True`` keeps the machine code beside this file (``warm`` at set-up compiles it).
"""
import math
from collections import namedtuple

import numpy as np
from numba import njit

from solvers import scalar as sc
from solvers.kinematics import BoneTree, pose_bones, rotation_matrices
from solvers.limits import HINGE, SWING_TWIST, best_hinge_angle, best_within_limits, clamp_encoded, violation_of
from solvers.rotation_fit import arc, best_rotation, vector_row

# Spins of a limb about the line to its target a clamped turn tries, least first (every 30
# degrees, either way): the first its top joint's limits allow is taken, else the one they clamp
# least, so the limb's bend moves no further round than it must.
SWIVELS = np.array([sign * k * np.pi / 6.0 for k in range(1, 7) for sign in (1.0, -1.0)][:-1])
# A trial turn whose clamp moves it by less than this (radians) counts as allowed: rounding alone
# moves a clamped rotation by ~1e-8.
FITS = 1e-7
EPS = 1e-12


# A ``FabrikPlan`` as arrays for the kernel: the tree first, as the fields of a
# ``kinematics.BoneTree`` (so ``pose_bones`` reads the tables as the tree; a nested record would
# cost every kernel call), then each bone's rest rotation as a matrix (``rest``). Links of bone j
# are rows ``link_start[j]:link_start[j + 1]`` (node, local vector, weight; node ``n + e`` is
# effector e's tail); effector e's straight path (none: an empty range) rows
# ``path_start[e]:...`` (node, distance from its top head); ``strand_effector[j]`` the effector
# whose tail bone j's line of bones leads to (-1: none), those bones rows ``strand_start[j]:...``;
# ``in_chain[e, j]`` whether effector e moves bone j; limits as ``solvers.limits.encode_limits``.
StepTables = namedtuple("StepTables", BoneTree._fields + (
    "rest", "active", "movable", "link_start", "link_node", "link_vector", "link_weight", "effector_bone",
    "effector_weight", "in_chain", "path_start", "path_node", "path_reach", "strand_effector", "strand_start",
    "strand_bone", "limit_start", "limit_kind", "limit_parameters"))


# The parts of the tables the helpers run every iteration read: numba counts a reference to each
# array of a record it passes (two atomic operations an array), so a helper handed all the
# tables paid ~0.3 us a call, a third of a free chain's iteration; these records carry only what
# their helpers read. Effector e's straight path is rows ``start[e]:start[e + 1]`` of ``node``
# and ``reach``, as in the tables.
Paths = namedtuple("Paths", ("start", "node", "reach"))


@njit(cache=True)
def parts(t):
    """The tree (``kinematics.BoneTree``) and the straight paths (``Paths``) of tables ``t``."""
    return (BoneTree(t.parents, t.base_rotation, t.origin, t.rest_rotations, t.offsets, t.lengths),
            Paths(t.path_start, t.path_node, t.path_reach))


def for_kernel(values, dtype):
    """``values`` as an array of ``dtype`` the kernel takes without compiling again: C-ordered and
    writeable (numba compiles one specialisation per layout and flag)."""
    return np.require(np.asarray(values, dtype=dtype), requirements=("C", "W"))


@njit(cache=True)
def put_vector(rows, i, v):
    rows[i, 0], rows[i, 1], rows[i, 2] = v


@njit(cache=True)
def matrix_at(stack, i):
    m = stack[i]
    return ((m[0, 0], m[0, 1], m[0, 2]), (m[1, 0], m[1, 1], m[1, 2]), (m[2, 0], m[2, 1], m[2, 2]))


@njit(cache=True)
def put_matrix(stack, i, m):
    for r in range(3):
        stack[i, r, 0], stack[i, r, 1], stack[i, r, 2] = m[r]


@njit(cache=True)
def base_rotation(t):
    return sc.qmatrix(t.base_rotation)


@njit(cache=True)
def axis_turn(axis, angle):
    return sc.qmatrix(sc.qaxis_angle(axis, angle))


@njit(cache=True)
def _sole_limit(t, bone, kind):
    """The row of ``bone``'s limit of ``kind`` (``solvers.limits.HINGE``...) when that is its
    only limit, else -1."""
    row = t.limit_start[bone]
    return row if t.limit_start[bone + 1] == row + 1 and t.limit_kind[row] == kind else -1


@njit(cache=True)
def _held_axis(axis):
    """The local axis (0, 1, 2) a hinge about ``axis`` holds: its largest component."""
    largest = max(abs(axis[0]), abs(axis[1]), abs(axis[2]))
    return 0 if abs(axis[0]) == largest else 1 if abs(axis[1]) == largest else 2


@njit(cache=True)
def _hinge_angle_at(axis, low, high, line, link, cosine):
    """The hinge angle within range that turns ``link`` (child's rest frame) to make ``cosine``
    with ``line`` (the child's frame), or as near as the range allows: the cosine is a sinusoid
    in the angle, met at two angles (the two sides of the bend)."""
    along = sc.dot(axis, line) * sc.dot(axis, link)
    across, turning = sc.dot(line, link) - along, sc.dot(sc.cross(axis, line), link)
    size, peak = math.hypot(across, turning), math.atan2(turning, across)
    spread = math.acos(sc.clip((cosine - along) / size, -1.0, 1.0)) if size > EPS else 0.0
    best, best_miss = low, abs(along + size * math.cos(low - peak) - cosine)
    miss = abs(along + size * math.cos(high - peak) - cosine)
    if miss < best_miss:
        best, best_miss = high, miss
    for side in (peak + spread, peak - spread):
        for k in (-1.0, 0.0, 1.0):
            angle = side + k * 2.0 * math.pi
            if low <= angle <= high:
                miss = abs(along + size * math.cos(angle - peak) - cosine)
                if miss < best_miss:
                    best, best_miss = angle, miss
    return best


@njit(cache=True)
def _spin_for_hinge(t, row, child, frames, back, toward):
    """Spin the line of bones from hinged ``child`` down to its effector's tail (frames and
    points, in place) about the line from the child's head to that tail, so that a hinge angle
    within range points the parent's link (child's rest frame) ``toward`` (world, unit) as near
    as it can: the hinge angle sets the link's angle to the spin axis, the spin its side. A
    one-sided hinge so bends the way it may, where keeping the child's roll would leave the
    wanted bend on its forbidden side."""
    n = len(t.parents)
    head = vector_row(back, child)
    line = sc.sub(vector_row(back, n + t.strand_effector[child]), head)
    if sc.length(line) < EPS:
        return
    line = sc.normalize(line)
    p = t.limit_parameters[row]
    axis = (p[0], p[1], p[2])
    frame = matrix_at(frames, child)
    link = sc.mvec(sc.transpose(matrix_at(t.rest, child)), sc.normalize(vector_row(t.offsets, child)))
    angle = _hinge_angle_at(axis, p[3], p[4], sc.mvec(sc.transpose(frame), line), link, sc.dot(line, toward))
    turned = sc.mvec(sc.mmul(frame, sc.transpose(axis_turn(axis, angle))), link)
    spin = axis_turn(line, sc.signed_angle(sc.sub(turned, sc.scale(line, sc.dot(line, turned))),
                                            sc.sub(toward, sc.scale(line, sc.dot(line, toward))), line))
    put_matrix(frames, child, sc.mmul(spin, frame))
    for s in range(t.strand_start[child], t.strand_start[child + 1]):
        bone = t.strand_bone[s]
        put_matrix(frames, bone, sc.mmul(spin, matrix_at(frames, bone)))
        put_vector(back, bone, sc.add(head, sc.mvec(spin, sc.sub(vector_row(back, bone), head))))


@njit(cache=True)
def _parent_within_limits(t, child, frames, back, toward, has_goal):
    """The frame nearest the child's parent's frame that the parent may take under the child's
    frame as the child's limits allow: the child's pose rotation the two frames make, clamped.
    A hinged child leaves the parent one turn, about the hinge, that best points the parent's
    link ``toward`` (world) the child's head; when the child heads a line of bones to a free
    tail, that line may first spin about its tail (``_spin_for_hinge``), which may change the
    frames and points below."""
    rest_t = sc.transpose(matrix_at(t.rest, child))
    row = _sole_limit(t, child, HINGE)
    if row < 0:
        frame = matrix_at(frames, child)
        pose = sc.mmul(sc.mmul(rest_t, sc.transpose(matrix_at(frames, t.parents[child]))), frame)
        q, _ = clamp_encoded(t.limit_kind, t.limit_parameters, t.limit_start[child], t.limit_start[child + 1],
                             sc.quat_from_matrix3(pose))
        return sc.mmul(sc.mmul(frame, sc.transpose(sc.qmatrix(q))), rest_t)
    toward = sc.normalize(toward)
    effector = t.strand_effector[child]
    if effector >= 0 and not has_goal[effector]:
        _spin_for_hinge(t, row, child, frames, back, toward)
    frame = matrix_at(frames, child)
    p = t.limit_parameters[row]
    axis = (p[0], p[1], p[2])
    seen = np.empty((1, 3))
    link = np.empty((1, 3))
    put_vector(seen, 0, sc.mvec(sc.transpose(frame), toward))
    put_vector(link, 0, sc.mvec(rest_t, sc.normalize(vector_row(t.offsets, child))))
    angle, _ = best_hinge_angle(axis, p[3], p[4], seen, link, np.ones(1))
    return sc.mmul(sc.mmul(frame, sc.transpose(axis_turn(axis, angle))), rest_t)


@njit(cache=True)
def _backward(t, heads, world, targets, goals, has_goal):
    """FABRIK's backward pass, tips first, carrying each bone's frame: every effector's tail on
    its target, each bone turned by the shortest arc toward the point its links ask for and its
    head placed behind them. A bone carrying one limited child turns only as the child's limits
    allow from the child's frame, so the pass leaves a chain that its limits allow, rather than
    points no limited pose reaches. Returns the nodes' new points and the bones' frames."""
    n, k = len(t.parents), len(t.effector_bone)
    back = np.empty((n + k, 3))
    back[:n] = heads
    back[n:] = targets
    frames = world.copy()
    for a in range(len(t.active) - 1, -1, -1):
        j = t.active[a]
        first, stop = t.link_start[j], t.link_start[j + 1]
        if stop - first == 1:
            c, vector = t.link_node[first], vector_row(t.link_vector, first)
            if c >= n and has_goal[c - n]:
                frame = matrix_at(goals, c - n)
            else:
                here = matrix_at(world, j)
                toward = sc.sub(vector_row(back, c), vector_row(back, j))
                frame = sc.mmul(arc(sc.mvec(here, vector), toward), here)
                if c < n and t.limit_start[c] < t.limit_start[c + 1]:
                    put_matrix(frames, j, frame)
                    frame = _parent_within_limits(t, c, frames, back, toward, has_goal)
            put_matrix(frames, j, frame)
            if t.movable[j]:
                put_vector(back, j, sc.sub(vector_row(back, c), sc.mvec(frame, vector)))
            continue
        total, weight = (0.0, 0.0, 0.0), 0.0
        for link in range(first, stop):
            c, vector, w = t.link_node[link], vector_row(t.link_vector, link), t.link_weight[link]
            if c >= n and has_goal[c - n]:
                point = sc.sub(vector_row(targets, c - n), sc.mvec(matrix_at(goals, c - n), vector))
            else:
                reach = sc.normalize(sc.sub(vector_row(back, j), vector_row(back, c)))
                point = sc.add(vector_row(back, c), sc.scale(reach, sc.length(vector)))
            total = sc.add(total, sc.scale(point, w))
            weight += w
        if t.movable[j]:
            put_vector(back, j, (total[0] / weight, total[1] / weight, total[2] / weight))
        directions = np.empty((stop - first, 3))
        for link in range(first, stop):
            put_vector(directions, link - first,
                        sc.normalize(sc.sub(vector_row(back, t.link_node[link]), vector_row(back, j))))
        put_matrix(frames, j, best_rotation(matrix_at(world, j), t.link_vector[first:stop], directions,
                                              t.link_weight[first:stop]))
    return back, frames


@njit(cache=True)
def beyond_reach(paths, heads, targets, has_goal, e):
    """Whether effector ``e`` has a straight path (``Paths``; and no rotation goal) whose reach
    its target lies beyond."""
    first, stop = paths.start[e], paths.start[e + 1]
    if first == stop or has_goal[e]:
        return False
    return sc.length(sc.sub(vector_row(targets, e), vector_row(heads, paths.node[first]))) >= paths.reach[stop - 1]


@njit(cache=True)
def _lay_paths_straight(paths, heads, targets, has_goal, back):
    """Effectors whose target lies beyond their straight path's reach (``Paths``): the path laid
    straight toward it at once (in ``back``)."""
    for e in range(len(has_goal)):
        if beyond_reach(paths, heads, targets, has_goal, e):
            first, stop = paths.start[e], paths.start[e + 1]
            top = vector_row(heads, paths.node[first])
            unit = sc.normalize(sc.sub(vector_row(targets, e), top))
            for s in range(first, stop):
                put_vector(back, paths.node[s], sc.add(top, sc.scale(unit, paths.reach[s])))


@njit(cache=True)
def _links_of(t, j, frame, back, limited):
    """Bone ``j``'s links (nodes, local vectors, weights); a limited bone's also reach the
    tails of the effectors below it, as the backward pass left them (its ``frame`` there):
    aligning only its child's head leaves a limited bone's roll where it was, and a base that
    may only turn about its own axis, or a hinge rolled off the bend the target needs, would
    never turn toward the target."""
    n, k = len(t.parents), len(t.effector_bone)
    first, stop = t.link_start[j], t.link_start[j + 1]
    tips = 0
    if limited:
        for e in range(k):
            if t.effector_bone[e] != j and t.in_chain[e, j]:
                tips += 1
    count = stop - first + tips
    nodes, vectors, weights = np.empty(count, np.int64), np.empty((count, 3)), np.empty(count)
    nodes[:stop - first] = t.link_node[first:stop]
    vectors[:stop - first] = t.link_vector[first:stop]
    weights[:stop - first] = t.link_weight[first:stop]
    i = stop - first
    if limited:
        frame_t = sc.transpose(frame)
        for e in range(k):
            if t.effector_bone[e] != j and t.in_chain[e, j]:
                nodes[i], weights[i] = n + e, t.effector_weight[e]
                put_vector(vectors, i, sc.mvec(frame_t, sc.sub(vector_row(back, n + e), vector_row(back, j))))
                i += 1
    return nodes, vectors, weights


@njit(cache=True)
def _clamped(t, j, rotation):
    return clamp_encoded(t.limit_kind, t.limit_parameters, t.limit_start[j], t.limit_start[j + 1],
                         sc.quat_from_matrix3(rotation))


@njit(cache=True)
def _turn_within_limits(t, j, frame, before, vectors, directions, weights, swivel, swivels):
    """Bone ``j``'s pose rotation that best turns its links' ``vectors`` onto ``directions``
    (world, unit), starting from ``frame`` (its world frame; ``before`` the frame it turns in),
    within its limits, the axes they held and the spin (world) it took, or None: a hinge turns
    by the best angle about its axis, other limits clamp the best turn. With ``swivels`` (about
    ``swivel``, a unit world axis from the bone's head through the one effector tail it
    carries), a turn the limits would clamp first spins about that axis (which leaves the tail
    where it is) to the first angle of ``SWIVELS`` the limits allow, else the one they clamp
    least: the roll of the bones below is free, and a limb reaches with its bend in a plane its
    top joint allows. A turn a SwingTwistLimit still holds then becomes the best it allows
    (``_best_within_swing_twist``)."""
    no_spin = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    row = _sole_limit(t, j, HINGE)
    if row >= 0:
        p = t.limit_parameters[row]
        axis = (p[0], p[1], p[2])
        local = np.empty(vectors.shape)
        seen = np.empty(directions.shape)
        before_t = sc.transpose(before)
        for i in range(len(weights)):
            put_vector(local, i, sc.normalize(vector_row(vectors, i)))
            put_vector(seen, i, sc.mvec(before_t, vector_row(directions, i)))
        angle, clamped = best_hinge_angle(axis, p[3], p[4], local, seen, weights)
        axis_held = _held_axis(axis)
        held = (clamped and axis_held == 0, clamped and axis_held == 1, clamped and axis_held == 2)
        return axis_turn(axis, angle), held, False, no_spin
    wanted = best_rotation(frame, vectors, directions, weights)
    before_t = sc.transpose(before)
    rotation = sc.mmul(before_t, wanted)
    if t.limit_start[j] == t.limit_start[j + 1]:
        return rotation, (False, False, False), False, no_spin
    q, held = _clamped(t, j, rotation)
    angle = 0.0
    if (held[0] or held[1] or held[2]) and swivels:
        q, held, angle = _swivelled(t, j, before, wanted, swivel, q, held, sc.quat_from_matrix3(rotation))
    spin = axis_turn(swivel, angle)
    if (held[0] or held[1] or held[2]) and _sole_limit(t, j, SWING_TWIST) >= 0:
        q, held = _best_within_swing_twist(t, j, q, held, before, vectors, directions, weights, spin)
    return sc.qmatrix(q), held, angle != 0.0, spin


@njit(cache=True)
def _swivelled(t, j, before, wanted, swivel, q, held, unclamped):
    """Bone ``j``'s pose rotation ``unclamped`` (world ``wanted``; clamped, ``q`` holding
    ``held``) spun about ``swivel`` to the first angle of ``SWIVELS`` its limits allow, else the
    one they clamp least, then clamped: the rotation, the axes held and the angle (0: no spin
    helped)."""
    # A spin by angle a is the quaternion (swivel sin(a/2), cos(a/2)), so each trial turn
    # before^T spin wanted is a sum of two products computed once.
    to_rest = sc.qconj(sc.quat_from_matrix3(before))
    wanted_q = sc.quat_from_matrix3(wanted)
    straight = sc.qmul(to_rest, wanted_q)
    across = sc.qmul(to_rest, sc.qmul((swivel[0], swivel[1], swivel[2], 0.0), wanted_q))
    best_miss, best_angle, best_q = violation_of(q, unclamped), 0.0, unclamped
    for angle in SWIVELS:
        c, s = math.cos(0.5 * angle), math.sin(0.5 * angle)
        turned = sc.qnormalize((straight[0] * c + across[0] * s, straight[1] * c + across[1] * s,
                                straight[2] * c + across[2] * s, straight[3] * c + across[3] * s))
        clamped, _ = clamp_encoded(t.limit_kind, t.limit_parameters, t.limit_start[j], t.limit_start[j + 1], turned)
        miss = violation_of(clamped, turned)
        if miss < best_miss:
            best_miss, best_angle, best_q = miss, angle, turned
        if miss <= FITS:
            break
    if best_angle == 0.0:
        return q, held, 0.0
    q, held = clamp_encoded(t.limit_kind, t.limit_parameters, t.limit_start[j], t.limit_start[j + 1], best_q)
    return q, held, best_angle


@njit(cache=True)
def _best_within_swing_twist(t, j, q, held, before, vectors, directions, weights, spin):
    """Bone ``j``'s pose rotation within its SwingTwistLimit that best turns its links onto
    ``directions`` spun by ``spin`` (world), from ``q``, the clamp of its best free turn, which
    held ``held`` (``limits.best_within_limits``); the axes still held are those left on a bound."""
    m = len(weights)
    unit = np.empty((m, 3))
    spun = np.empty((m, 3))
    for i in range(m):
        put_vector(unit, i, sc.normalize(vector_row(vectors, i)))
        put_vector(spun, i, sc.mvec(spin, vector_row(directions, i)))
    start, stop = t.limit_start[j], t.limit_start[j + 1]
    q = best_within_limits(t.limit_kind, t.limit_parameters, start, stop, q, before, unit, spun, weights)
    _, bound = clamp_encoded(t.limit_kind, t.limit_parameters, start, stop, q)  # an allowed q: its axes on a bound
    return q, (held[0] and bound[0], held[1] and bound[1], held[2] and bound[2])


@njit(cache=True)
def _free_turn(link_vector, link_node, link, frame, back, head):
    """The world frame of an unlimited bone with one link (row ``link``), now at ``frame`` with
    its head at ``head``: turned by the shortest arc from its link toward where the backward pass
    left that node, as ``best_rotation`` turns one link, without the arrays it builds (most bones
    of a chain take this turn, every iteration)."""
    toward = sc.sub(vector_row(back, link_node[link]), head)
    return sc.mmul(arc(sc.mvec(frame, vector_row(link_vector, link)), toward), frame)


@njit(cache=True)
def pose(bones, local):
    """World rotations (n, 3, 3), heads and tails (n, 3) of the tree ``bones`` (a
    ``kinematics.BoneTree``, or tables with its fields) at pose rotations ``local`` (n, 3, 3):
    the solvers' forward kinematics (``kinematics.pose_bones``), each rotation first made
    orthonormal through its quaternion so rounding cannot compound across iterations (``local``
    is changed in place)."""
    n = len(bones.parents)
    rotations, world, heads, tails = np.empty((n, 4)), np.empty((n, 4)), np.empty((n, 3)), np.empty((n, 3))
    for i in range(n):
        q = sc.quat_from_matrix3(matrix_at(local, i))
        put_matrix(local, i, sc.qmatrix(q))
        rotations[i, 0], rotations[i, 1], rotations[i, 2], rotations[i, 3] = q
    pose_bones(bones, None, rotations, None, world, heads, tails)
    return rotation_matrices(world), heads, tails


@njit(cache=True)
def fabrik_step(t, bones, paths, targets, goals, has_goal, local, world, heads):
    """One FABRIK iteration on tables ``t`` (with their ``parts``: ``bones`` and ``paths``) from
    pose rotations ``local`` (n, 3, 3) with their ``world`` rotations and ``heads``: ``targets``
    (k, 3) one per effector, ``goals`` (k, 3, 3) the world
    rotation of those whose ``has_goal``. The forward pass runs root first, as rotations: each
    bone turns from where its (limited) parent put its head toward the points the backward pass
    left for what it carries, and its limits hold that turn, so the heads below follow the pose
    the limits allow. Returns the new pose rotations, world rotations, heads, tails (n, 3) and
    the axes the limits held (n, 3)."""
    n = len(t.parents)
    back, frames = _backward(t, heads, world, targets, goals, has_goal)
    _lay_paths_straight(paths, heads, targets, has_goal, back)
    new_local, new_world, new_heads = local.copy(), world.copy(), heads.copy()
    held = np.zeros((n, 3), dtype=np.bool_)
    goal_of = np.full(n, -1)
    for e in range(len(t.effector_bone)):
        if has_goal[e]:
            goal_of[t.effector_bone[e]] = e
    base = base_rotation(t)
    for j in t.active:
        p = t.parents[j]
        above = base if p < 0 else matrix_at(new_world, p)
        if t.movable[j]:
            put_vector(new_heads, j, sc.add(vector_row(new_heads, p), sc.mvec(above, vector_row(t.offsets, j))))
        rest = matrix_at(t.rest, j)
        limited = t.limit_start[j] < t.limit_start[j + 1]
        if goal_of[j] >= 0:
            rotation = sc.mmul(sc.mmul(sc.transpose(rest), sc.transpose(above)), matrix_at(goals, goal_of[j]))
            if limited:
                q, bone_held = _clamped(t, j, rotation)
                rotation = sc.qmatrix(q)
                held[j, 0], held[j, 1], held[j, 2] = bone_held
        elif not limited and t.link_start[j + 1] - t.link_start[j] == 1:
            # The world frame kept as turned: recomposed as above @ rest @ rotation, its rounding
            # grows down a long chain enough to stall it (50 bones: 78% reached, not 83%).
            frame = _free_turn(t.link_vector, t.link_node, t.link_start[j], matrix_at(frames, j), back,
                               vector_row(new_heads, j))
            put_matrix(new_local, j, sc.mmul(sc.transpose(sc.mmul(above, rest)), frame))
            put_matrix(new_world, j, frame)
            continue
        else:
            head = vector_row(new_heads, j)
            nodes, vectors, weights = _links_of(t, j, matrix_at(frames, j), back, limited)
            directions = np.empty(vectors.shape)
            for i in range(len(nodes)):
                put_vector(directions, i, sc.normalize(sc.sub(vector_row(back, nodes[i]), head)))
            effector = t.strand_effector[j]
            swivels = effector >= 0 and not has_goal[effector]
            swivel = sc.normalize(sc.sub(vector_row(back, n + effector), head)) if swivels else (0.0, 1.0, 0.0)
            rotation, bone_held, spun, spin = _turn_within_limits(t, j, matrix_at(frames, j), sc.mmul(above, rest),
                                                                  vectors, directions, weights, swivel, swivels)
            held[j, 0], held[j, 1], held[j, 2] = bone_held
            if spun:
                for s in range(t.strand_start[j], t.strand_start[j + 1]):
                    bone = t.strand_bone[s]
                    put_vector(back, bone, sc.add(head, sc.mvec(spin, sc.sub(vector_row(back, bone), head))))
                    put_matrix(frames, bone, sc.mmul(spin, matrix_at(frames, bone)))
        put_matrix(new_local, j, rotation)
        put_matrix(new_world, j, sc.mmul(sc.mmul(above, rest), rotation))
    new_world, new_heads, tails = pose(bones, new_local)
    return new_local, new_world, new_heads, tails, held
