"""FABRIK (forward and backward reaching IK) for chains and for trees with several effectors.

Urho3D's model: each ``Effector`` sits at the tail of a bone and moves the ``chain_length`` bones
above it (0: all the way to the tree's root). Where chains meet (sub-bases) the backward pass
averages the positions each chain asks for, weighted by the effectors' weights. Every iteration
turns the reached positions back into rotations: one child direction turns a bone by the shortest
arc (minimal twist, so bone roll stays where it was), several give the weighted best-fit rotation;
an effector with ``use_rotation`` takes its target rotation. With joint limits
(``solvers.limits``) both passes carry each bone's frame, not just its head. The backward pass
turns a bone only as its limited child allows from the child's frame; a hinged child's line of
bones first spins about its effector's tail so the wanted bend lies on the side the hinge allows.
The forward pass works in rotations, root first: a hinge turns by its best angle about its axis,
other limits clamp the bone's best turn, trying spins of the line below about the effector's tail
for one they clamp least (the swivel of a limb), and each limited bone also aims the effector's
tail as the backward pass left it below. The heads below follow those rotations, so every
iterate is a valid pose with exact bone lengths.
"""
import itertools
import math
from math import sqrt
from dataclasses import dataclass

import numpy as np

from solvers import scalar as sc
from solvers.chain import Chain, SolveResult, stretch_to_reach
from solvers.iterate import iterate
from solvers.limits import clamp_rotation, limit_violation, sole_hinge, validate_limits
from solvers.transforms import EPS, matrix3_to_quat, normalize, quat_angle, quat_from_axis_angle, \
    quat_to_matrix3, signed_angle
from solvers.tree import Tree, tree_pose


UNFOLD = 1e-3
REST = [0.0, 0.0, 0.0, 1.0]
EPS_SQUARED = sc.EPS * sc.EPS
ONE = np.ones(1)
SWIVELS = np.linspace(-np.pi, np.pi, 12, endpoint=False)


@dataclass(frozen=True)
class Effector:
    """Pull the tail of ``bone`` toward a target, moving ``chain_length`` bones (0: to the root).
    ``weight`` > 0 weighs it against other effectors where chains meet; ``use_rotation`` makes the
    bone also take the target rotation given at solve time."""
    bone: int
    chain_length: int = 0
    weight: float = 1.0
    use_rotation: bool = False


@dataclass
class FabrikPlan:
    """A tree, its effectors and limits checked once, with the bookkeeping the passes need:
    ``active`` bones (ascending), ``movable`` (n,) whether a bone's head moves, and per active bone
    its ``links``: (node, local vector, weight) for each child head or effector tail it carries
    (node ``n + e`` is effector e's tail). ``paths[e]``: the nodes from effector e's fixed top
    head down to its tail with their distances from the top, when that path carries nothing else
    (then an out-of-reach target lays it straight at once), else None; ``chains[e]``: the bones
    effector e moves."""
    tree: Tree
    effectors: tuple
    limits: tuple
    active: list
    movable: np.ndarray
    links: dict
    paths: list
    chains: list
    strands: dict


def fabrik_plan(tree, effectors, limits=None):
    """Check ``effectors`` (sequence of ``Effector``) and ``limits`` (see ``validate_limits``)
    against ``tree`` and return a ``FabrikPlan``. Raises ValueError with the reason."""
    n = len(tree)
    effectors = tuple(effectors)
    if not effectors:
        raise ValueError("FABRIK needs at least one effector")
    limits = validate_limits(n, limits)
    on_path = np.zeros(n, dtype=bool)
    below = np.zeros(n)
    chains = []
    for e, effector in enumerate(effectors):
        if not 0 <= effector.bone < n:
            raise ValueError(f"effector {e}: bone {effector.bone} is not in the tree of {n} bones")
        if effector.chain_length < 0 or not (np.isfinite(effector.weight) and effector.weight > 0):
            raise ValueError(f"effector {e}: chain_length must be >= 0 and weight > 0")
        bone, steps = effector.bone, 0
        chains.append(set())
        while bone >= 0 and (effector.chain_length == 0 or steps < effector.chain_length):
            chains[-1].add(int(bone))
            on_path[bone] = True
            below[bone] += effector.weight
            bone, steps = tree.parents[bone], steps + 1
    active = [int(j) for j in np.flatnonzero(on_path)]
    movable = np.array([p >= 0 and on_path[p] for p in tree.parents])
    links = {j: [] for j in active}
    for c in active:
        if movable[c]:
            links[int(tree.parents[c])].append((c, tree.offsets[c], below[c]))
    for e, effector in enumerate(effectors):
        links[effector.bone].append((n + e, np.array([0.0, tree.lengths[effector.bone], 0.0]), effector.weight))
    paths = []
    for e, effector in enumerate(effectors):
        nodes, bone = [n + e], effector.bone
        while len(plan_links := links[bone]) == 1 and plan_links[0][0] == nodes[-1]:
            nodes.append(bone)
            if not movable[bone]:
                break
            bone = int(tree.parents[bone])
        if movable[nodes[-1]] if nodes[-1] < n else True:
            paths.append(None)
            continue
        nodes.reverse()
        steps = [np.linalg.norm(tree.offsets[c]) for c in nodes[1:-1]] + [tree.lengths[effector.bone]]
        paths.append((np.array(nodes), np.concatenate([[0.0], np.cumsum(steps)])))
    return FabrikPlan(tree, effectors, limits, active, movable, links, paths, [frozenset(c) for c in chains],
                      _strands(n, active, links))


def _strands(n, active, links):
    """Per active bone whose links lead down a single line of bones to one effector's tail: the
    bones below it on that line and the effector's index (a line the backward pass may spin
    about the effector's tail without moving it)."""
    strands = {}
    for j in reversed(active):
        if len(links[j]) != 1:
            continue
        c = links[j][0][0]
        if c >= n:
            strands[j] = ((), c - n)
        elif c in strands:
            strands[j] = ((c,) + strands[c][0], strands[c][1])
    return strands


def _best_rotation(world, links, directions):
    """The world rotation (3, 3) of a bone currently at ``world`` that best turns its links'
    local vectors onto ``directions`` (unit, one per link)."""
    local = [normalize(vector) for _, vector, _ in links]
    if len(links) > 1:
        h = sum(w * np.outer(v, u) for (_, _, w), v, u in zip(links, local, directions))
        u_, s, vt = np.linalg.svd(h)
        if s[1] > 1e-9 * s[0]:
            fix = np.diag([1.0, 1.0, np.sign(np.linalg.det(vt.T @ u_.T))])
            return vt.T @ fix @ u_.T
    heaviest = int(np.argmax([w for _, _, w in links]))
    return _arc(world @ local[heaviest], directions[heaviest]) @ world


def _arc(a, b):
    """The shortest-arc rotation (3, 3) taking direction ``a`` (3,) onto ``b`` (3,), on plain
    floats: numpy's ``quat_between`` costs more than its arithmetic on one pair."""
    return np.array(sc.qmatrix(sc.qbetween(sc.normalize(a.tolist()), sc.normalize(b.tolist()))))


def _backward(plan, nodes, world, targets, goal_rotations):
    """FABRIK's backward pass, tips first, carrying each bone's frame: every effector's tail on
    its target, each bone turned by the shortest arc toward the point its links ask for and its
    head placed behind them. A bone carrying one limited child turns only as the child's limits
    allow from the child's frame, so the pass leaves a chain that its limits allow, rather than
    points no limited pose reaches. Returns the nodes' new points and the bones' frames."""
    n = len(plan.tree)
    back, frames = nodes.copy(), world.copy()
    back[n:] = targets
    for j in reversed(plan.active):
        links = plan.links[j]
        if len(links) == 1:
            (c, vector, _), = links
            if c >= n and goal_rotations[c - n] is not None:
                frames[j] = goal_rotations[c - n]
            else:
                aim = world[j] @ vector
                frames[j] = _arc(aim, back[c] - back[j]) @ world[j]
                if c < n and plan.limits and plan.limits[c]:
                    frames[j] = _parent_within_limits(plan, c, frames, back, back[c] - back[j], goal_rotations)
            if plan.movable[j]:
                back[j] = back[c] - frames[j] @ vector
            continue
        total, weight = np.zeros(3), 0.0
        for c, vector, w in links:
            if c >= n and goal_rotations[c - n] is not None:
                total += w * (targets[c - n] - goal_rotations[c - n] @ vector)
            else:
                total += w * (back[c] + normalize(back[j] - back[c]) * np.linalg.norm(vector))
            weight += w
        if plan.movable[j]:
            back[j] = total / weight
        frames[j] = _best_rotation(world[j], links, [normalize(back[c] - back[j]) for c, _, _ in links])
    return back, frames


def _parent_within_limits(plan, child, frames, back, toward, goal_rotations):
    """The frame nearest ``frames[child's parent]`` that the parent may take under the child's
    frame as the child's limits allow: the child's pose rotation the two frames make, clamped.
    A hinged child leaves the parent one turn, about the hinge, that best points the parent's
    link ``toward`` (world) the child's head; when the child heads a line of bones to a free
    tail, that line may first spin about its tail (``_spin_for_hinge``), which may change the
    frames and points below."""
    rest = plan.tree.rest_matrices[child]
    hinge = sole_hinge(plan.limits[child])
    if hinge is None:
        pose = rest.T @ frames[plan.tree.parents[child]].T @ frames[child]
        return frames[child] @ quat_to_matrix3(clamp_rotation(plan.limits[child], matrix3_to_quat(pose))[0]).T @ rest.T
    link = rest.T @ normalize(plan.tree.offsets[child])
    strand = plan.strands.get(child)
    if strand is not None and goal_rotations[strand[1]] is None:
        _spin_for_hinge(plan, hinge, child, strand, link, frames, back, normalize(toward))
    seen = frames[child].T @ normalize(toward)
    angle, _ = hinge.best_angle(seen[None], link[None], ONE)
    return frames[child] @ quat_to_matrix3(quat_from_axis_angle(hinge.axis, angle)).T @ rest.T


def _spin_for_hinge(plan, hinge, child, strand, link, frames, back, toward):
    """Spin the line of bones from hinged ``child`` down to its effector's tail (frames and
    points, in place) about the line from the child's head to that tail, so that a hinge angle
    within range points the parent's ``link`` (unit, child's rest frame) ``toward`` (world, unit)
    as near as it can: the hinge angle sets the link's angle to the spin axis, the spin its
    side. A one-sided hinge so bends the way it may, where keeping the child's roll would leave
    the wanted bend on its forbidden side."""
    n = len(plan.tree)
    tail = n + strand[1]
    axis = back[tail] - back[child]
    if np.linalg.norm(axis) < EPS:
        return
    axis = normalize(axis)
    angle = _hinge_angle_at(hinge, frames[child].T @ axis, link, float(axis @ toward))
    rotation = frames[child] @ quat_to_matrix3(quat_from_axis_angle(hinge.axis, angle)).T
    spin = quat_to_matrix3(quat_from_axis_angle(axis, signed_angle(rotation @ link - axis * (axis @ rotation @ link),
                                                                  toward - axis * (axis @ toward), axis)))
    for bone in (child,) + strand[0]:
        frames[bone] = spin @ frames[bone]
    moved = list(strand[0])
    back[moved] = back[child] + (back[moved] - back[child]) @ spin.T


def _hinge_angle_at(hinge, axis, link, cosine):
    """The hinge angle within range that turns ``link`` (child's rest frame) to make ``cosine``
    with ``axis`` (the child's frame), or as near as the range allows: the cosine is a sinusoid
    in the angle, met at two angles (the two sides of the bend)."""
    a = np.asarray(hinge.axis)
    along = (a @ axis) * (a @ link)
    across, turning = axis @ link - along, np.cross(a, axis) @ link
    size, peak = math.hypot(across, turning), math.atan2(turning, across)
    spread = math.acos(min(max((cosine - along) / size, -1.0), 1.0)) if size > EPS else 0.0
    low, high = hinge.min_angle, hinge.max_angle
    candidates = [low, high] + [c + k * 2.0 * math.pi for c in (peak + spread, peak - spread) for k in (-1, 0, 1)
                                if low <= c + k * 2.0 * math.pi <= high]
    return min(candidates, key=lambda t: abs(along + size * math.cos(t - peak) - cosine))


def _tip_links(plan, j, frame, back):
    """Links from limited bone ``j`` to the tails of the effectors below it, as the backward pass
    left them (its frame there): aligning only its child's head leaves a limited bone's roll where
    it was, and a base that may only turn about its own axis, or a hinge rolled off the bend the
    target needs, would never turn toward the target."""
    links = []
    for e, effector in enumerate(plan.effectors):
        if effector.bone != j and j in plan.chains[e]:
            node = len(plan.tree) + e
            links.append((node, frame.T @ (back[node] - back[j]), effector.weight))
    return links


def _turn_within_limits(plan, j, frame, parent_world, links, directions, swivel=None):
    """Bone ``j``'s pose rotation (3, 3) that best turns its ``links`` onto ``directions``
    (world, unit), starting from ``frame`` (its world frame), within its limits, the axes they
    held and the spin (3, 3, world) it took: a hinge turns by the best angle about its axis,
    other limits clamp the best turn. With ``swivel`` (a unit world axis from the bone's head
    through the one effector tail it carries), a turn the limits would clamp first spins about
    that axis (which leaves the tail where it is) to the angle, of ``SWIVELS``, the limits clamp
    least: the roll of the bones below is free, and a limb reaches with its bend in a plane its
    top joint allows."""
    before = parent_world @ plan.tree.rest_matrices[j]
    bone_limits = plan.limits[j] if plan.limits else ()
    hinge = sole_hinge(bone_limits)
    held = np.zeros(3, dtype=bool)
    if hinge is not None:
        vectors = np.array([normalize(vector) for _, vector, _ in links])
        weights = np.array([w for _, _, w in links])
        angle, clamped = hinge.best_angle(vectors, np.asarray(directions) @ before, weights)
        held[int(np.argmax(np.abs(hinge.axis)))] = clamped
        return quat_to_matrix3(quat_from_axis_angle(hinge.axis, angle)), held, None
    wanted = _best_rotation(frame, links, directions)
    rotation = before.T @ wanted
    if not bone_limits:
        return rotation, held, None
    q, held = clamp_rotation(bone_limits, matrix3_to_quat(rotation))
    spin = None
    if held.any() and swivel is not None:
        spins = quat_to_matrix3(quat_from_axis_angle(swivel, SWIVELS))
        turned = matrix3_to_quat(before.T @ spins @ wanted)
        misses = [limit_violation(bone_limits, t) for t in turned]
        best = int(np.argmin(misses))
        if misses[best] < limit_violation(bone_limits, matrix3_to_quat(rotation)):
            spin = spins[best]
            q, held = clamp_rotation(bone_limits, turned[best])
    return quat_to_matrix3(q), held, spin


def _step(plan, targets, goal_rotations):
    tree, n = plan.tree, len(plan.tree)
    parents = tree.parents

    def step(state):
        local, world, heads, tails, _ = state
        nodes = np.vstack([heads, tails[[e.bone for e in plan.effectors]]])
        back, frames = _backward(plan, nodes, world, targets, goal_rotations)
        for e, path in enumerate(plan.paths):
            if path is not None and goal_rotations[e] is None:
                path_nodes, reach = path
                top = nodes[path_nodes[0]]
                if np.linalg.norm(targets[e] - top) >= reach[-1]:
                    back[path_nodes] = top + normalize(targets[e] - top) * reach[:, None]
        # The forward pass, root first, as rotations: each bone turns from where its (limited)
        # parent put its head toward the points the backward pass left for what it carries, and
        # its limits hold that turn, so the heads below follow the pose the limits allow.
        new_local = local.copy()
        held = np.zeros((n, 3), dtype=bool)
        new_world = world.copy()
        new_heads = heads.copy()
        effector_of = {e.bone: i for i, e in enumerate(plan.effectors) if goal_rotations[i] is not None}
        for j in plan.active:
            parent_world = tree.base[:3, :3] if parents[j] < 0 else new_world[parents[j]]
            if plan.movable[j]:
                new_heads[j] = new_heads[parents[j]] + parent_world @ tree.offsets[j]
            if j in effector_of:
                rotation = tree.rest_matrices[j].T @ parent_world.T @ goal_rotations[effector_of[j]]
                if plan.limits and plan.limits[j]:
                    q, held[j] = clamp_rotation(plan.limits[j], matrix3_to_quat(rotation))
                    rotation = quat_to_matrix3(q)
            else:
                links = plan.links[j] + (_tip_links(plan, j, frames[j], back) if plan.limits and plan.limits[j]
                                         else [])
                directions = [normalize(back[c] - new_heads[j]) for c, _, _ in links]
                strand = plan.strands.get(j)
                swivel = None
                if strand is not None and goal_rotations[strand[1]] is None:
                    swivel = normalize(back[n + strand[1]] - new_heads[j])
                rotation, held[j], spin = _turn_within_limits(plan, j, frames[j], parent_world, links, directions,
                                                              swivel)
                if spin is not None:
                    below = list(strand[0])
                    back[below] = new_heads[j] + (back[below] - new_heads[j]) @ spin.T
                    frames[below] = spin @ frames[below]
            new_local[j] = rotation
            new_world[j] = parent_world @ tree.rest_matrices[j] @ rotation
        # Re-orthonormalise through quaternions so rounding cannot compound across iterations.
        new_local = quat_to_matrix3(matrix3_to_quat(new_local))
        return (new_local,) + tree_pose(tree, new_local) + (held,)

    return step


def solve_fabrik(plan: FabrikPlan, rotations, targets, target_rotations=None, max_iterations=20, tolerance=1e-3):
    """Move every effector's tail toward its target.

    ``rotations`` (n, 4) is the start pose (rest or current), ``targets`` (k, 3) world positions,
    one per effector, ``target_rotations`` (k, 4) world rotations for effectors with
    ``use_rotation`` (others ignore their row). ``result.errors`` are the k tail-to-target
    distances, then the angle (radians) left to each rotation goal. Non-finite targets leave the pose unchanged (errors inf, not converged).
    """
    rotations = np.asarray(rotations, dtype=float)
    targets = np.asarray(targets, dtype=float)
    k = len(plan.effectors)
    if targets.shape != (k, 3):
        raise ValueError(f"targets must be ({k}, 3), one per effector, got {targets.shape}")
    goal_rotations = [None] * k
    if target_rotations is not None:
        target_rotations = np.asarray(target_rotations, dtype=float)
        goal_rotations = [quat_to_matrix3(target_rotations[e]) if plan.effectors[e].use_rotation else None
                          for e in range(k)]
    finite_goals = all(g is None or np.isfinite(g).all() for g in goal_rotations)
    if not np.isfinite(targets).all() or not finite_goals:
        return _unchanged(rotations, k)
    bones = [e.bone for e in plan.effectors]
    local = quat_to_matrix3(rotations)
    start = (local,) + tree_pose(plan.tree, local) + (np.zeros((len(rotations), 3), dtype=bool),)
    if _straight_toward_targets(plan, start[2], start[3][bones], targets):
        local = local @ quat_to_matrix3(quat_from_axis_angle([1.0, 0.0, 0.0], np.where(plan.movable, UNFOLD, 0.0)))
        start = (local,) + tree_pose(plan.tree, local) + (start[4],)
    turned = [(e, goal) for e, goal in enumerate(goal_rotations) if goal is not None]

    def errors(state):
        """Each effector's tail-to-target distance, then each rotation goal's angle (radians)."""
        distances = np.linalg.norm(state[3][bones] - targets, axis=1)
        if not turned:
            return distances
        angles = [quat_angle(matrix3_to_quat(state[1][bones[e]]), matrix3_to_quat(goal)) for e, goal in turned]
        return np.concatenate([distances, angles])

    return iterate(start, _step(plan, targets, goal_rotations), errors,
                   lambda state: (matrix3_to_quat(state[0]), None, state[4]),
                   max_iterations=max_iterations, tolerance=tolerance)


def solve_fabrik_chain(chain: Chain, rotations, target, limits=None, target_rotation=None, max_iterations=20,
                       tolerance=1e-3, stretch=None):
    """FABRIK on a serial chain whose last bone's tail reaches for ``target`` (3,); ``limits`` per
    bone as in ``validate_limits``; ``target_rotation`` (4,) optionally orients the last bone;
    ``stretch`` (n,) per-bone IK stretch amounts grow the bones for a target out of reach
    (``stretch_to_reach``), reported in ``result.stretch``.

    A chain without limits or target rotation runs on plain floats (``_solve_free_chain``): the
    joints move as points and turn into rotations once, at the end.
    """
    grown = stretch_to_reach(chain, target, stretch)
    if grown is not None:
        result = solve_fabrik_chain(grown.chain, rotations, target, limits, target_rotation, max_iterations, tolerance)
        result.stretch = grown.factors
        return result
    if limits is None and target_rotation is None:
        result = _solve_free_chain(chain, np.asarray(rotations, dtype=float), np.asarray(target, dtype=float),
                                   max_iterations, tolerance)
        if result is not None:
            return result
    plan = fabrik_plan(Tree.from_chain(chain), [Effector(len(chain) - 1, use_rotation=target_rotation is not None)],
                       limits)
    return solve_fabrik(plan, rotations, np.asarray(target, dtype=float)[None],
                        None if target_rotation is None else np.asarray(target_rotation, dtype=float)[None],
                        max_iterations, tolerance)


def _straight_toward_targets(plan, heads, tails, targets):
    """True when the active bones and the targets all lie on one line: FABRIK's passes would then
    only slide joints along it and never bend the chain."""
    points = np.vstack([heads[plan.active], tails, targets])
    centred = points - points[0]
    scale = max(np.abs(centred).max(), EPS)
    return np.linalg.svd(centred / scale, compute_uv=False)[1] < 1e-9


def _unchanged(rotations, count):
    return SolveResult(rotations.copy(), 0, np.full(count, np.inf), False)


def _free_chain_points(chain, rotations):
    """Joint points (n + 1) of ``chain`` in pose ``rotations`` (lists of floats) as (x, y, z)
    tuples; the rest pose's come from the chain."""
    if all(q == REST for q in rotations):
        return chain.float_rest_points
    base_q, origin, offsets, rest, _ = chain.floats
    points = [sc.add(origin, sc.qrotate(base_q, offsets[0]))]
    current = base_q
    for rest_q, q, segment in zip(rest, rotations, chain.float_segments):
        current = sc.qmul(current, sc.qmul(rest_q, q))
        points.append(sc.add(points[-1], sc.qrotate(current, segment)))
    return points


def _sweep(points, target, spans):
    """One FABRIK iteration on ``points`` ((x, y, z) tuples): the backward pass pins the tip at
    ``target``, the forward pass pins the root where it was; each pulls the next joint back onto
    its span (a joint on its neighbour stays put). The backward pass skips the root, which the
    forward pass pins anyway. Returns a new list."""
    x, y, z = target
    back = [target]
    for i in range(len(spans) - 1, 0, -1):
        px, py, pz = points[i]
        dx, dy, dz = px - x, py - y, pz - z
        squared = dx * dx + dy * dy + dz * dz
        if squared > EPS_SQUARED:
            s = spans[i] / sqrt(squared)
            x, y, z = x + dx * s, y + dy * s, z + dz * s
        else:
            x, y, z = px, py, pz
        back.append((x, y, z))
    back.reverse()
    root = points[0]
    x, y, z = root
    forward = [root]
    for (px, py, pz), span in zip(back, spans):
        dx, dy, dz = px - x, py - y, pz - z
        squared = dx * dx + dy * dy + dz * dz
        if squared > EPS_SQUARED:
            s = span / sqrt(squared)
            x, y, z = x + dx * s, y + dy * s, z + dz * s
        else:
            x, y, z = px, py, pz
        forward.append((x, y, z))
    return forward


def _solve_free_chain(chain, rotations, target, max_iterations, tolerance):
    """Positional FABRIK for a chain without limits; None when the chain and target lie on one
    line (the passes could not bend it: the general solver unfolds it first)."""
    tx, ty, tz = target = tuple(target.tolist())
    if not all(map(math.isfinite, target)):
        return SolveResult(rotations.copy(), 0, np.array([np.inf]), False)
    pose = rotations.tolist()
    start = _free_chain_points(chain, pose)
    spans = chain.float_spans
    reach = sum(spans)
    rx, ry, rz = start[0]
    ax, ay, az = tx - rx, ty - ry, tz - rz
    # Colinear when every point's cross product with the root-to-target line vanishes.
    flat = 1e-9 * max(reach, sc.EPS) ** 2
    if all(sc.length(sc.cross((x - rx, y - ry, z - rz), (ax, ay, az))) <= flat for x, y, z in start):
        return None

    def rotations_for(points):
        return _rotations_from_points(chain, pose, points), None, None

    distance = math.sqrt(ax * ax + ay * ay + az * az)
    if distance >= reach:
        # Out of reach: the chain lies straight toward the target, as one forward pass puts it.
        straight = [(rx + ax * d / distance, ry + ay * d / distance, rz + az * d / distance)
                    for d in itertools.accumulate(spans, initial=0.0)]
        error = math.dist(straight[-1], target)
        return SolveResult(rotations_for(straight)[0], 1, np.array([error]), error <= tolerance)
    return iterate(start, lambda points: _sweep(points, target, spans),
                   lambda points: (math.dist(points[-1], target),), rotations_for,
                   max_iterations=max_iterations, tolerance=tolerance)


def _rotations_from_points(chain, rotations, points):
    """Pose rotations (n, 4) that lay the chain along ``points`` ((x, y, z) tuples): each bone
    turns by the shortest arc from where it points once its parent has turned, so bone roll stays
    put. Quaternion products written out: this runs once per solve on every bone."""
    base_q, _, _, rest, _ = chain.floats
    px, py, pz, pw = base_q  # the parent's world rotation, once it has turned
    solved = []
    for i, ((rx, ry, rz, rw), q, segment) in enumerate(zip(rest, rotations, chain.float_segments)):
        # The bone's frame before its pose rotation: parent * rest.
        fx = pw * rx + px * rw + py * rz - pz * ry
        fy = pw * ry - px * rz + py * rw + pz * rx
        fz = pw * rz + px * ry - py * rx + pz * rw
        fw = pw * rw - px * rx - py * ry - pz * rz
        at_rest = q == REST
        # Where the bone points (a) and where it should (b), both in that frame.
        ax, ay, az = a = segment if at_rest else sc.qrotate(q, segment)
        (x0, y0, z0), (x1, y1, z1) = points[i], points[i + 1]
        vx, vy, vz = x1 - x0, y1 - y0, z1 - z0
        tx, ty, tz = 2.0 * (fz * vy - fy * vz), 2.0 * (fx * vz - fz * vx), 2.0 * (fy * vx - fx * vy)
        bx, by, bz = b = (vx + fw * tx - fy * tz + fz * ty, vy + fw * ty - fz * tx + fx * tz,
                          vz + fw * tz - fx * ty + fy * tx)
        # The shortest arc from a to b is (a x b, |a||b| + a.b), normalised.
        norms = sqrt((ax * ax + ay * ay + az * az) * (bx * bx + by * by + bz * bz))
        w = norms + ax * bx + ay * by + az * bz
        if w > 1e-9 * norms:
            turn = (ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx, w)
        elif norms > sc.EPS:
            turn = sc.qbetween(sc.normalize(a), sc.normalize(b))
        else:
            turn = REST
        qx, qy, qz, qw = q = sc.qnormalize(turn if at_rest else sc.qmul(turn, q))
        solved.append(q)
        # The bone's world rotation: frame * q, the next bone's parent.
        px = fw * qx + fx * qw + fy * qz - fz * qy
        py = fw * qy - fx * qz + fy * qw + fz * qx
        pz = fw * qz + fx * qy - fy * qx + fz * qw
        pw = fw * qw - fx * qx - fy * qy - fz * qz
    return np.array(solved)
