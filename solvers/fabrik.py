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
least first, for one they allow or else clamp least (the swivel of a limb); a turn that
swing-twist limits still hold becomes the best they allow (the clamp alone kept the twist of the
free turn), and each limited bone also aims the effector's tail as the backward pass left it below. The heads below follow those
rotations, so every iterate is a valid pose with exact bone lengths. A free chain (no limits, no
rotation goal) ends with each bone turned by one shortest arc from its start rotation, however
many the iterations took, and an out-of-reach target lays it straight in one step.

That step is one compiled kernel for every chain and tree, free or limited
(``solvers.fabrik_step``), run on the plan as arrays, and so is the loop that iterates it
(``solvers.fabrik_loop``): one call per solve.
"""
from dataclasses import dataclass

import numpy as np

from solvers.chain import Chain, SolveResult, stretch_to_reach
from solvers.fabrik_loop import fabrik_solve
from solvers.fabrik_step import StepTables, for_kernel
from solvers.limits import Hinge, encode_limits, validate_limits
from solvers.progress import PATIENCE, min_gain
from solvers.transforms import quat_to_matrix3
from solvers.tree import Tree


# The turn (radians) about X that unfolds bones lying on one line with their targets.
UNFOLD = 1e-3


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
    vectors = _node_vectors(tree, effectors)
    links = {j: [] for j in active}
    for c in active:
        if movable[c]:
            links[int(tree.parents[c])].append((c, vectors[c], below[c]))
    for e, effector in enumerate(effectors):
        links[effector.bone].append((n + e, vectors[n + e], effector.weight))
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
        paths.append((nodes, _reach(vectors, nodes)))
    in_chain = np.zeros((len(effectors), n), dtype=bool)
    for e, chain in enumerate(chains):
        in_chain[e, list(chain)] = True
    return FabrikPlan(tree, effectors, limits, active, movable,
                      _tables(tree, effectors, limits, active, movable, links, paths, in_chain))


def _node_vectors(tree, effectors):
    """Each node's point in its bone's frame (n + k, 3): a bone's head from its parent's head,
    then effector e's tail (node n + e) from its bone's head."""
    tails = np.zeros((len(effectors), 3))
    tails[:, 1] = tree.lengths[[e.bone for e in effectors]]
    return np.vstack([tree.offsets, tails])


def _reach(vectors, nodes):
    """Distances from the top of a path of ``nodes`` (top first) to each of them, laid straight."""
    return np.concatenate([[0.0], np.cumsum(np.linalg.norm(vectors[list(nodes[1:])], axis=1))])


def _resized(plan, tree):
    """``plan`` for ``tree``: the same bones, base and rest rotations with other offsets and
    lengths (a chain grown by IK stretch), so the same links and paths with other vectors and
    reaches, without planning again."""
    t = plan.tables
    vectors = _node_vectors(tree, plan.effectors)
    reach = [_reach(vectors, t.path_node[start:stop]) for start, stop in zip(t.path_start[:-1], t.path_start[1:])
             if stop > start]
    return FabrikPlan(tree, plan.effectors, plan.limits, plan.active, plan.movable, t._replace(
        **tree.bone_tree._asdict(), link_vector=for_kernel(vectors[t.link_node], float),
        path_reach=for_kernel(np.concatenate([[]] + reach), float)))


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
    return StepTables(*tree.bone_tree, *(for_kernel(a, d) for a, d in (
        (tree.rest_matrices, float), (active, int), (movable, bool), (link_start, int),
        (link_node, int), (link_vector, float), (link_weight, float), ([e.bone for e in effectors], int),
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
    if max_iterations < 0 or tolerance < 0:
        raise ValueError("max_iterations and tolerance must be >= 0")
    goals = for_kernel([np.eye(3) if g is None else g for g in goal_rotations], float)
    has_goal = for_kernel([g is not None for g in goal_rotations], bool)
    solved, iterations, errors, held = fabrik_solve(plan.tables, for_kernel(targets, float), goals, has_goal,
                                                    for_kernel(rotations, float), UNFOLD, int(max_iterations),
                                                    float(tolerance), PATIENCE, min_gain(float(tolerance)))
    return SolveResult(solved, iterations, errors, bool((errors <= tolerance).all()), None, held)


def solve_fabrik_chain(chain: Chain, rotations, target, limits=None, target_rotation=None, max_iterations=20,
                       tolerance=1e-3, stretch=None):
    """FABRIK on a serial chain whose last bone's tail reaches for ``target`` (3,); ``limits`` per
    bone as in ``validate_limits``; ``target_rotation`` (4,) optionally orients the last bone;
    ``stretch`` (n,) per-bone IK stretch amounts grow the bones for a target out of reach
    (``stretch_to_reach``), reported in ``result.stretch``.
    """
    use_rotation = target_rotation is not None
    plan = free_chain_plan(chain, use_rotation) if limits is None else _chain_plan(chain, use_rotation, limits)
    grown = stretch_to_reach(chain, target, stretch)
    if grown is not None:
        plan = _resized(plan, Tree.from_chain(grown.chain))
    result = solve_fabrik(plan, rotations, np.asarray(target, dtype=float)[None],
                          None if target_rotation is None else np.asarray(target_rotation, dtype=float)[None],
                          max_iterations, tolerance)
    if grown is not None:
        result.stretch = grown.factors
    return result


def free_chain_plan(chain, use_rotation=False):
    """The plan of ``chain`` without limits, its last bone's tail the one effector (taking a
    target rotation when ``use_rotation``): it depends on the chain alone, so it is built once
    per chain (and base)."""
    return chain.cached_for_base(("fabrik plan", use_rotation), lambda: _chain_plan(chain, use_rotation, None))


def _chain_plan(chain, use_rotation, limits):
    return fabrik_plan(Tree.from_chain(chain), [Effector(len(chain) - 1, use_rotation=use_rotation)], limits)


def _unchanged(rotations, count):
    return SolveResult(rotations.copy(), 0, np.full(count, np.inf), False)


def warm():
    """Compile (or load from the cache) the FABRIK step for the argument types solves pass."""
    tree = Tree(np.eye(4), [-1, 0], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 0.0, 0.0, 1.0]] * 2, [1.0, 1.0])
    plan = fabrik_plan(tree, [Effector(1)], [None, Hinge((1.0, 0.0, 0.0), 0.0, 1.0)])
    solve_fabrik(plan, [[0.0, 0.0, 0.0, 1.0]] * 2, [[0.0, 1.5, 0.5]], max_iterations=1)
