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
other limits clamp the bone's best turn, trying spins of the line below about the effector's tail,
least first, for one they allow or else clamp least (the swivel of a limb), and each limited bone
also aims the effector's tail as the backward pass left it below. The heads below follow those
rotations, so every iterate is a valid pose with exact bone lengths.

That step is one compiled kernel for chains and trees (``solvers.fabrik_step``), run on the
plan as arrays; a chain without limits or target rotation takes a plain-float path instead
(``_solve_free_chain``), which only moves points.
"""
import itertools
import math
from math import sqrt
from dataclasses import dataclass

import numpy as np

from solvers import scalar as sc
from solvers.chain import Chain, SolveResult, stretch_to_reach
from solvers.iterate import iterate
from solvers.fabrik_step import StepTables, fabrik_step, for_kernel
from solvers.limits import Hinge, encode_limits, validate_limits
from solvers.transforms import EPS, matrix3_to_quat, quat_angle, quat_from_axis_angle, quat_to_matrix3
from solvers.tree import Tree, tree_pose


UNFOLD = 1e-3
REST = [0.0, 0.0, 0.0, 1.0]
EPS_SQUARED = sc.EPS * sc.EPS


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
    ``active`` bones (ascending), ``movable`` (n,) whether a bone's head moves, and ``tables``
    the rest as arrays for the compiled step (``solvers.fabrik_step.StepTables``): per active
    bone its links, (node, local vector, weight) for each child head or effector tail it carries
    (node ``n + e`` is effector e's tail); per effector the nodes from its fixed top head down to
    its tail with their distances from the top, when that path carries nothing else (then an
    out-of-reach target lays it straight at once), and the bones it moves; per bone the line
    of bones below it to one effector's tail, if any (``_strands``)."""
    tree: Tree
    effectors: tuple
    limits: tuple
    active: list
    movable: np.ndarray
    tables: StepTables


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
            paths.append(((), ()))
            continue
        nodes.reverse()
        steps = [np.linalg.norm(tree.offsets[c]) for c in nodes[1:-1]] + [tree.lengths[effector.bone]]
        paths.append((nodes, np.concatenate([[0.0], np.cumsum(steps)])))
    in_chain = np.zeros((len(effectors), n), dtype=bool)
    for e, chain in enumerate(chains):
        in_chain[e, list(chain)] = True
    return FabrikPlan(tree, effectors, limits, active, movable,
                      _tables(tree, effectors, limits, active, movable, links, paths, in_chain))


def _ragged(rows, width=None):
    """Rows of variable length as (starts (n + 1,), the rows concatenated)."""
    starts = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    flat = [item for r in rows for item in r]
    return starts, (np.array(flat, dtype=float).reshape(-1, width) if width else np.array(flat, dtype=np.int64))


def _tables(tree, effectors, limits, active, movable, links, paths, in_chain):
    """The plan as ``StepTables`` for the compiled step, every array C-ordered and writeable
    (``for_kernel``), so one compiled specialisation serves every plan."""
    n = len(tree)
    per_bone = [links.get(j, []) for j in range(n)]
    link_start, link_node = _ragged([[c for c, _, _ in row] for row in per_bone])
    _, link_vector = _ragged([[tuple(v) for _, v, _ in row] for row in per_bone], 3)
    link_weight = [w for row in per_bone for _, _, w in row]
    path_start, path_node = _ragged([nodes for nodes, _ in paths])
    path_reach = [d for _, reach in paths for d in reach]
    strands = _strands(n, active, links)
    strand_effector = [strands[j][1] if j in strands else -1 for j in range(n)]
    strand_start, strand_bone = _ragged([strands[j][0] if j in strands else () for j in range(n)])
    limit_start, limit_kind, limit_parameters = encode_limits(n, limits)
    return StepTables(*(for_kernel(a, d) for a, d in (
        (tree.parents, int), (tree.offsets, float), (tree.rest_matrices, float), (tree.base, float),
        (tree.lengths, float), (active, int), (movable, bool), (link_start, int), (link_node, int),
        (link_vector, float), (link_weight, float), ([e.bone for e in effectors], int),
        ([e.weight for e in effectors], float), (in_chain, bool), (path_start, int), (path_node, int),
        (path_reach, float), (strand_effector, int), (strand_start, int), (strand_bone, int), (limit_start, int),
        (limit_kind, int), (limit_parameters, float))))


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


def _step(plan, targets, goal_rotations):
    """One iteration for ``iterate``: the compiled step (``solvers.fabrik_step``) on the state
    (pose rotations, world rotations, heads, tails, held axes)."""
    targets = for_kernel(targets, float)
    goals = for_kernel([np.eye(3) if g is None else g for g in goal_rotations], float)
    has_goal = for_kernel([g is not None for g in goal_rotations], bool)

    def step(state):
        local, world, heads, _, _ = state
        return fabrik_step(plan.tables, targets, goals, has_goal, local, world, heads)

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
    pose = tree_pose(plan.tree, local)
    if _straight_toward_targets(plan, *pose[1:], bones, targets):
        local = local @ quat_to_matrix3(quat_from_axis_angle([1.0, 0.0, 0.0], np.where(plan.movable, UNFOLD, 0.0)))
        pose = tree_pose(plan.tree, local)
    start = tuple(for_kernel(a, float) for a in (local,) + pose) + (np.zeros((len(rotations), 3), dtype=bool),)
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


def _straight_toward_targets(plan, heads, tails, bones, targets):
    """True when the active bones, the effectors' tails (of ``bones``) and the targets all lie on
    one line: FABRIK's passes would then only slide joints along it and never bend the chain."""
    points = np.vstack([heads[plan.active], tails[bones], targets])
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


def warm():
    """Compile (or load from the cache) the FABRIK step for the argument types solves pass."""
    tree = Tree(np.eye(4), [-1, 0], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 0.0, 0.0, 1.0]] * 2, [1.0, 1.0])
    plan = fabrik_plan(tree, [Effector(1)], [None, Hinge((1.0, 0.0, 0.0), 0.0, 1.0)])
    solve_fabrik(plan, [[0.0, 0.0, 0.0, 1.0]] * 2, [[0.0, 1.5, 0.5]], max_iterations=1)
