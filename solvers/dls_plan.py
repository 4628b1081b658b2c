"""The DLS solver's plan: a tree, its goals and bone settings checked once, and the arrays
(DOF columns, goal rows, bounds) every iteration of ``solvers.dls`` reads.

Which DOFs a bone gets, and why, is described in ``solvers.dls``.
"""
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from solvers import scalar as sc
from solvers.chain import grown_factors
from solvers.goals import BoneDofs, DistanceGoal, JointRotationGoal, PositionGoal, RotationGoal
from solvers.limits import SwingTwistLimit
from solvers.tree import Tree

# Longest a stretchy bone may grow, as a multiple of its rest length.
MAX_STRETCH = 10.0
# Bend (radians) given once to every moving bone when the goals pull exactly along a straight
# chain, where the Jacobian has nothing to offer (``solvers.dls._unfold`` picks axis and side).
UNFOLD = 1e-2

# Goal kinds.
POSITION, DISTANCE, ROTATION, JOINT = range(4)
# How a rotation column turns its bone (``solvers.dls._jacobian``, ``_turn_kind``): about the
# bone's own axis (a free bone's, and a held bone's twist), along a swing coordinate of a held
# bone, or about its frame's axis (a swing coordinate whose fellow is locked).
TURN_OWN_AXIS, TURN_SWING, TURN_FRAME_AXIS = range(3)


class GoalRow(NamedTuple):
    """One goal as the iterations read it: its ``kind``, ``bone``, ``use_tail``, ``target`` point,
    ``matrix`` (its fixed rotation as rows, or None: ``_goal_matrix``), the rotation-vector axes it
    ``kept`` and its ``first_row`` in the Jacobian."""
    kind: int
    bone: int
    use_tail: bool
    target: tuple
    matrix: tuple
    kept: tuple
    first_row: int


class ColumnAxis(NamedTuple):
    """A rotation column: the ``bone`` and ``axis`` it turns, how (``turn``: TURN_OWN_AXIS,
    TURN_SWING, TURN_FRAME_AXIS) and the goals it ``moves``."""
    bone: int
    axis: int
    turn: int
    moves: tuple


class StretchColumn(NamedTuple):
    """A stretch column: its ``bone`` and, per goal it moves, (goal, the offset in the bone's frame
    that the goal's point moves by per unit stretch)."""
    bone: int
    reaches: tuple


class BoneRow(NamedTuple):
    """A moving bone: whether it is ``held`` (moves in swing-twist coordinates), its column per
    axis (-1: locked), its ``clamp_row`` (``_clamp_row``) and ``box`` (``_box``)."""
    bone: int
    held: bool
    columns: tuple
    clamp_row: tuple
    box: tuple


class UnfoldColumns(NamedTuple):
    """A moving bone's columns an unfold may turn: ``bend`` (X, Z: they bend a chain laid along Y)
    and ``twist`` (Y, tried only where no bend column has room)."""
    bend: tuple
    twist: tuple


class PlanRows(NamedTuple):
    """The plan on plain floats, for the solver's per-bone and per-goal loops: ``goals`` (a
    ``GoalRow`` each), ``column_axes`` (a ``ColumnAxis`` per rotation column), ``stretch_columns``
    (a ``StretchColumn`` each), ``bones`` (a ``BoneRow`` per moving bone) and ``goal_scale``: per
    goal sqrt(weight), times the plan's scale for rotations."""
    goals: tuple
    column_axes: tuple
    stretch_columns: tuple
    bones: tuple
    goal_scale: tuple


@dataclass
class DlsPlan:
    """A tree, its goals and bone settings checked once, and the bookkeeping the solver needs.

    Columns are the rotation DOFs (``columns``: (bone, axis) pairs, (c, 2) ints) then the stretch
    DOFs (``rows.stretch_columns``). ``scale`` (metres) is the longest path from a fixed head to a goal's point.
    ``weights`` (rows, columns) is row_scale times column_scale; ``blocks`` (goals, rows) sums
    each goal's rows. ``unfold`` holds an ``UnfoldColumns`` per moving bone: the columns an
    unfold may turn, with room between ``column_low`` and ``column_high`` (columns,: each axis's
    limits, [1, ``MAX_STRETCH``] for stretch). ``rows`` holds what the iterations read on plain floats. ``start_stretch``
    (n floats) is the stretch every solve starts from and keeps where it is fixed, ``aims`` the
    chains every solve starts laid straight (``_laid_straight``); stretch columns serve the other
    goals beyond reach.
    """
    tree: Tree
    goals: tuple
    scale: float
    columns: np.ndarray
    column_scale: np.ndarray
    row_scale: np.ndarray
    weights: np.ndarray
    blocks: np.ndarray
    free_bones: np.ndarray
    held_bones: np.ndarray
    bounded: bool
    column_low: np.ndarray
    column_high: np.ndarray
    unfold: tuple
    rows: "PlanRows"
    start_stretch: tuple
    aims: tuple


def _path(tree, bone):
    """Bone and its ancestors, bone first."""
    parents = tree.rows.parents
    path = [bone]
    while parents[path[-1]] >= 0:
        path.append(parents[path[-1]])
    return path


def _reach_along(tree, path, use_tail):
    """Per bone on ``path`` (bone first), the offset (in its frame) that its stretch scales on the
    way to the goal's point: its tail, or the head of the next bone down the path."""
    offsets, lengths = tree.rows.offsets, tree.rows.lengths
    reach = {path[0]: (0.0, lengths[path[0]], 0.0)} if use_tail else {}
    reach.update((j, tuple(offsets[below])) for below, j in zip(path, path[1:]))
    return reach


def _span(tree, path, use_tail):
    """How far the point of a goal on ``path`` (bone first) can be from the path's fixed top head,
    unstretched: the sum of its segments."""
    offsets, lengths = tree.rows.offsets, tree.rows.lengths
    return sum(sc.length(offsets[c]) for c in path[:-1]) + (lengths[path[0]] if use_tail else 0.0)


def _beyond_reach(tree, path, kind, goal):
    """Whether a position or distance goal lies farther from its path's fixed top head than the
    path reaches unstretched."""
    top = tree.rows.root_heads[path[-1]]
    away = sc.length(sc.sub(goal.target, top))
    if kind == DISTANCE:
        away = {"inside": away - goal.distance, "on": abs(away - goal.distance),
                "outside": goal.distance - away}[goal.mode]
    return away > _span(tree, path, goal.use_tail) * (1.0 + 1e-12)


def _goal_dofs(tree, kind, goal):
    """The bones whose rotation moves a goal; per bone whose stretch moves it, the Y offset it
    scales; and whether the goal lies beyond reach (only such goals get bones to stretch, so a
    reachable target never stretches anything)."""
    path = _path(tree, int(goal.bone))
    if kind in (POSITION, DISTANCE):
        return ((path if goal.use_tail else path[1:]), _reach_along(tree, path, goal.use_tail),
                _beyond_reach(tree, path, kind, goal))
    return (path if kind == ROTATION else [path[0]]), {}, False


class StraightAim(NamedTuple):
    """A chain to lay straight at ``target`` before the iterations: per bone, parents first, the
    offset (its frame) from its head toward the goal's point."""
    target: tuple
    segments: tuple


class LaidStraight(NamedTuple):
    """What ``_laid_straight`` fixes before the iterations: per bone its ``stretch`` (1 where
    none), the ``fixed`` bones, and the ``aims``."""
    stretch: tuple
    fixed: frozenset
    aims: tuple


def _laid_straight(tree, kinds, goals, dofs, moved, reaches):
    """A ``LaidStraight``: the stretch fixed before the iterations and the ``StraightAim``s.

    A position goal beyond reach whose bones no other goal moves is met as the geometric methods
    meet it: the chain laid straight at the target with the stretch that covers the distance
    (``chain.grown_factors``). Left as DOFs, stretch and bend trade off along a whole family of
    least-squares answers (a chain left bent and over-stretched), and a chain nearly straight
    converges slowly, so free bones start aimed (held bones keep their locks and limits and are
    left to the iterations). ``moved``: per goal the set of bones that move it; ``reaches``: per
    goal ``_reach_along``."""
    stretch, fixed, aims = [1.0] * len(tree), set(), []
    for g, (kind, goal, reach) in enumerate(zip(kinds, goals, reaches)):
        if kind != POSITION or any(goal.lock_axes) or not any(dofs[j].stretch > 0 for j in reach):
            continue
        if any(moved[g] & moved[h] for h in range(len(goals)) if h != g):
            continue
        bones = sorted(reach)
        rates = [sc.stretch_share(dofs[j].stretch) / max(tree.lengths[j], sc.EPS) for j in bones]
        top = tree.rows.root_heads[_path(tree, int(goal.bone))[-1]]
        factors = grown_factors([sc.length(reach[j]) for j in bones], rates, sc.length(sc.sub(goal.target, top)))
        if factors is None:
            continue
        for j, factor in zip(bones, factors.tolist()):
            stretch[j] = min(factor, MAX_STRETCH)
        fixed.update(bones)
        if not any(dofs[j].held for j in bones):
            aims.append(StraightAim(tuple(goal.target), tuple((j, reach[j]) for j in bones)))
    return LaidStraight(tuple(stretch), frozenset(fixed), tuple(aims))


def _checked_dofs(n, dofs):
    dofs = (None,) * n if dofs is None else tuple(dofs)
    if len(dofs) != n:
        raise ValueError(f"dofs must give one entry per bone ({n}), got {len(dofs)}")
    for i, entry in enumerate(dofs):
        if entry is not None and not isinstance(entry, BoneDofs):
            raise ValueError(f"bone {i}: {entry!r} is not BoneDofs")
    return tuple(BoneDofs() if d is None else d for d in dofs)


def _clamp_row(bone):
    """The encoded ``SwingTwistLimit`` row of a bone whose swing only the clamp holds (X and Z
    both free, one limited: the swing's coordinates have no bounds of their own), else None."""
    limited = [use and not lock for use, lock in zip(bone.use_limit, bone.lock)]
    if not (limited[0] or limited[2]) or bone.lock[0] or bone.lock[2]:
        return None
    return tuple(SwingTwistLimit(bone.limit_min, bone.limit_max, bone.lock, bone.use_limit).encoded()[1])


def _turn_kind(bone, axis):
    """How a rotation column turns its bone (``solvers.dls._jacobian``): TURN_OWN_AXIS for free
    bones and a held bone's twist, TURN_SWING along a swing coordinate, TURN_FRAME_AXIS about the
    frame's axis (a swing coordinate whose fellow is locked: the swing is a turn about that axis alone)."""
    if not bone.held or axis == 1:
        return TURN_OWN_AXIS
    return TURN_FRAME_AXIS if bone.lock[2 - axis] else TURN_SWING


def _box(bone):
    """The bounds (low, high: 3-tuples) a limited bone's swing-twist coordinates (u, t, w) keep
    exactly, or None when it limits nothing: the twist's always, a swing angle's when the other
    swing axis is locked (then u, or w, is the angle); a swing ``_clamp_row`` holds is unbounded."""
    limited = [use and not lock for use, lock in zip(bone.use_limit, bone.lock)]
    if not any(limited):
        return None
    exact = [limited[0] and bone.lock[2], limited[1], limited[2] and bone.lock[0]]
    return (tuple(lo if on else -np.inf for lo, on in zip(bone.limit_min, exact)),
            tuple(hi if on else np.inf for hi, on in zip(bone.limit_max, exact)))


def _axis_bound(bone, axis, side):
    """A bone's lower (``side`` -1) or upper (+1) limit on one axis's angle, infinite when none
    limits it: where an unfold has room (the swing coordinate is that angle when it turns alone)."""
    if bone.use_limit[axis] and not bone.lock[axis]:
        return bone.limit_min[axis] if side < 0 else bone.limit_max[axis]
    return side * np.inf


def _goal_kind(g, goal, n):
    kind = {PositionGoal: POSITION, DistanceGoal: DISTANCE, RotationGoal: ROTATION,
            JointRotationGoal: JOINT}.get(type(goal))
    if kind is None:
        raise ValueError(f"goal {g}: {goal!r} is not a DLS goal")
    if goal.bone >= n:
        raise ValueError(f"goal {g}: bone {goal.bone} is not in the tree of {n} bones")
    return kind


def _goal_matrix(kind, goal):
    """A goal's fixed rotation as matrix rows: a rotation goal's target, a position goal's locking
    frame (None: the bone's own, which turns as it solves)."""
    if kind == POSITION:
        return None if goal.frame is None else sc.qmatrix(goal.frame)
    return sc.qmatrix(getattr(goal, "rotation", (0.0, 0.0, 0.0, 1.0)))


def dls_plan(tree: Tree, goals, dofs=None):
    """Check ``goals`` (a sequence of ``PositionGoal``, ``RotationGoal``, ``DistanceGoal``,
    ``JointRotationGoal``) and ``dofs`` (None, or one ``BoneDofs`` or None per bone) against
    ``tree`` and return a ``DlsPlan``. Raises ValueError with the reason."""
    n = len(tree)
    goals = tuple(goals)
    if not goals:
        raise ValueError("DLS needs at least one goal")
    dofs = _checked_dofs(n, dofs)
    kinds = [_goal_kind(g, goal, n) for g, goal in enumerate(goals)]
    rotating, stretching, wanted_stretch = [], [], set()
    for kind, goal in zip(kinds, goals):
        turning, stretch_reach, beyond = _goal_dofs(tree, kind, goal)
        rotating.append(set(turning))
        stretching.append(stretch_reach)
        wanted_stretch.update(stretch_reach if beyond else ())
    straight = _laid_straight(tree, kinds, goals, dofs, [r | set(s) for r, s in zip(rotating, stretching)],
                              stretching)
    longest = max(_span(tree, _path(tree, int(goal.bone)), True) for goal in goals)
    scale = float(longest) if longest > 1e-9 else 1.0

    columns = [(j, axis) for j in sorted(set().union(*rotating)) for axis in range(3) if not dofs[j].lock[axis]]
    moving = sorted({j for j, _ in columns})
    stretch_bones = sorted(j for j in wanted_stretch if dofs[j].stretch > 0 and j not in straight.fixed)
    # A stretch column moves its bone's tail by the bone's length per unit; weighted so that the
    # bones share the extra length as Blender does (``scalar.stretch_share``), whatever their lengths.
    column_scale = np.sqrt([1.0 - dofs[j].stiffness[axis] for j, axis in columns]
                           + [sc.stretch_share(dofs[j].stretch) * (scale / max(tree.lengths[j], sc.EPS)) ** 2
                              for j in stretch_bones])
    counts = [3 if k == JOINT else 1 if k == DISTANCE else 3 - sum(goal.lock_axes) for k, goal in zip(kinds, goals)]
    starts = [sum(counts[:g]) for g in range(len(goals))]
    goal_scale = [math.sqrt(goal.weight) * (scale if k in (ROTATION, JOINT) else 1.0) for k, goal in zip(kinds, goals)]
    row_scale = np.array([w for w, count in zip(goal_scale, counts) for _ in range(count)])
    blocks = np.array([[1.0 if start <= row < start + count else 0.0 for row in range(len(row_scale))]
                       for start, count in zip(starts, counts)])

    index = {column: c for c, column in enumerate(columns)}
    column_low = np.array([_axis_bound(dofs[j], axis, -1) for j, axis in columns] + [1.0] * len(stretch_bones))
    column_high = np.array([_axis_bound(dofs[j], axis, 1) for j, axis in columns] + [MAX_STRETCH] * len(stretch_bones))
    unfold = tuple(UnfoldColumns(tuple(index[j, axis] for axis in (0, 2) if (j, axis) in index),
                                 (index[j, 1],) if (j, 1) in index else ()) for j in moving)
    held = [j for j in moving if dofs[j].held]
    goal_rows = tuple(
        GoalRow(kind, int(goal.bone), getattr(goal, "use_tail", False), getattr(goal, "target", None),
                _goal_matrix(kind, goal),
                tuple(i for i in range(3) if kind not in (ROTATION, POSITION) or not goal.lock_axes[i]), start)
        for kind, goal, start in zip(kinds, goals, starts))
    rows = PlanRows(
        goals=goal_rows,
        column_axes=tuple(ColumnAxis(j, axis, _turn_kind(dofs[j], axis),
                                     tuple(g for g, r in enumerate(rotating) if j in r)) for j, axis in columns),
        stretch_columns=tuple(StretchColumn(j, tuple((g, r[j]) for g, r in enumerate(stretching)
                                                     if any(r.get(j, ())))) for j in stretch_bones),
        bones=tuple(BoneRow(j, dofs[j].held, tuple(index.get((j, axis), -1) for axis in range(3)),
                            _clamp_row(dofs[j]), _box(dofs[j])) for j in moving),
        goal_scale=tuple(goal_scale))
    return DlsPlan(
        tree=tree, goals=goals, scale=scale, columns=np.array(columns, dtype=int).reshape(-1, 2),
        column_scale=column_scale, row_scale=row_scale,
        weights=row_scale[:, None] * column_scale[None, :], blocks=blocks,
        free_bones=np.array([j for j in moving if not dofs[j].held], dtype=int), held_bones=np.array(held, dtype=int),
        bounded=bool(stretch_bones) or any(row.box is not None for row in rows.bones), column_low=column_low,
        column_high=column_high, unfold=unfold, rows=rows, start_stretch=straight.stretch, aims=straight.aims)
