"""The DLS solver's plan: a tree, its goals and bone settings checked once, and the arrays
(DOF columns, goal rows, bounds) every iteration of ``solvers.dls`` reads.

Which DOFs a bone gets, and why, is described in ``solvers.dls``.
"""
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from solvers import scalar as sc
from solvers.goals import BoneDofs, DistanceGoal, JointRotationGoal, PositionGoal, RotationGoal
from solvers.tree import Tree

# Longest a stretchy bone may grow, as a multiple of its rest length.
MAX_STRETCH = 10.0
# Euler bones keep their Y angle within this (radians): at +-pi/2 X and Z would mix.
EULER_Y_BOUND = np.pi / 2 - 1e-3
# Bend (radians) given once to every moving bone when the goals pull exactly along a straight
# chain, where the Jacobian has nothing to offer.
UNFOLD = 1e-2

# Goal kinds.
POSITION, DISTANCE, ROTATION, JOINT = range(4)


class PlanRows(NamedTuple):
    """The plan on plain floats, for the solver's per-bone and per-goal loops.

    - ``goals``: per goal (kind, bone, use_tail, target point, target rotation matrix as rows,
      kept rotation-vector axes, first row);
    - ``column_axes``: per rotation column (bone, axis, turn) with turn 0 about the bone's own
      axis, 1 Euler Y, 2 Euler Z (see ``solvers.dls._jacobian``), and the goals it moves;
    - ``stretch_columns``: per stretch column its bone and (goal, how far the goal's point moves
      along the bone's Y per unit stretch) for the goals it moves;
    - ``bones``: per moving bone (bone, whether Euler, its column per axis or -1, low, high);
    - ``goal_scale``: ``DlsPlan.goal_scale`` as floats.
    """
    goals: tuple
    column_axes: tuple
    stretch_columns: tuple
    bones: tuple
    goal_scale: tuple


@dataclass
class DlsPlan:
    """A tree, its goals and bone settings checked once, and the bookkeeping the solver needs.

    Columns are the rotation DOFs (``columns``: (bone, axis) pairs, (c, 2) ints) then the stretch
    DOFs (``stretch_bones``). ``scale`` (metres) is the longest path from a fixed head to a goal's point.
    ``weights`` (rows, columns) is row_scale times column_scale; ``blocks`` (goals, rows) sums
    each goal's rows. ``rows`` holds what the iterations read on plain floats.
    """
    tree: Tree
    goals: tuple
    dofs: tuple
    scale: float
    kinds: np.ndarray
    columns: np.ndarray
    stretch_bones: np.ndarray
    column_scale: np.ndarray
    row_slices: tuple
    row_scale: np.ndarray
    weights: np.ndarray
    blocks: np.ndarray
    goal_scale: np.ndarray
    free_bones: np.ndarray
    euler_bones: np.ndarray
    bounded: bool
    column_low: np.ndarray
    column_high: np.ndarray
    low: np.ndarray
    high: np.ndarray
    limited: np.ndarray
    unfold: np.ndarray
    rows: "PlanRows"

def _path(tree, bone):
    """Bone and its ancestors, bone first."""
    path = [bone]
    while tree.parents[path[-1]] >= 0:
        path.append(int(tree.parents[path[-1]]))
    return path


def _reach_along(tree, path, use_tail):
    """Per bone on ``path`` (bone first), the Y offset that its stretch scales on the way to the
    goal's point (its tail, or the head of the next bone down the path)."""
    reach = {}
    for depth, j in enumerate(path):
        if depth == 0:
            if use_tail:
                reach[j] = tree.lengths[j]
        else:
            reach[j] = tree.offsets[path[depth - 1]][1]
    return reach


def _span(tree, path, use_tail):
    """How far the point of a goal on ``path`` (bone first) can be from the path's fixed top head,
    unstretched: the sum of its segments."""
    return sum(np.linalg.norm(tree.offsets[c]) for c in path[:-1]) + (tree.lengths[path[0]] if use_tail else 0.0)


def _beyond_reach(tree, path, kind, goal):
    """Whether a position or distance goal lies farther from its path's fixed top head than the
    path reaches unstretched."""
    top = tree.base[:3, :3] @ tree.offsets[path[-1]] + tree.base[:3, 3]
    away = np.linalg.norm(np.asarray(goal.target) - top)
    if kind == DISTANCE:
        away = {"inside": away - goal.distance, "on": abs(away - goal.distance),
                "outside": goal.distance - away}[goal.mode]
    return away > _span(tree, path, goal.use_tail) * (1.0 + 1e-12)


def _goal_dofs(tree, kind, goal):
    """The bones whose rotation moves a goal; per bone whose stretch moves it, the Y offset it
    scales; and whether the goal lies beyond reach (only such goals get bones to stretch, so a
    reachable target never stretches anything)."""
    path = _path(tree, goal.bone)
    if kind in (POSITION, DISTANCE):
        return ((path if goal.use_tail else path[1:]), _reach_along(tree, path, goal.use_tail),
                _beyond_reach(tree, path, kind, goal))
    return (path if kind == ROTATION else [goal.bone]), {}, False


def _checked_dofs(n, dofs):
    dofs = (None,) * n if dofs is None else tuple(dofs)
    if len(dofs) != n:
        raise ValueError(f"dofs must give one entry per bone ({n}), got {len(dofs)}")
    for i, entry in enumerate(dofs):
        if entry is not None and not isinstance(entry, BoneDofs):
            raise ValueError(f"bone {i}: {entry!r} is not BoneDofs")
    return tuple(BoneDofs() if d is None else d for d in dofs)


def _angle_bounds(dofs):
    """Per bone and Euler axis (n, 3): the lower and upper bound, and whether a limit is in use."""
    locked = np.array([d.lock for d in dofs])
    limited = np.array([d.use_limit for d in dofs]) & ~locked
    low = np.where(limited, [d.limit_min for d in dofs], -np.inf)
    high = np.where(limited, [d.limit_max for d in dofs], np.inf)
    # Euler bones turn Y only inside (-pi/2, pi/2), where their angles are those euler_xyz_from_quat
    # (and EulerLimit) reads back from the rotation, short of the gimbal lock at the ends.
    turning_y = np.array([d.euler for d in dofs]) & ~locked[:, 1]
    low[:, 1] = np.where(turning_y, np.maximum(low[:, 1], -EULER_Y_BOUND), low[:, 1])
    high[:, 1] = np.where(turning_y, np.minimum(high[:, 1], EULER_Y_BOUND), high[:, 1])
    return low, high, limited


def _unfold_step(columns, size):
    """The DOF change (size,) that bends every moving bone by ``UNFOLD`` about its first free axis
    of X, Z, Y."""
    unfold = np.zeros(size)
    for j in np.unique(columns[:, 0]):
        for axis in (0, 2, 1):
            hit = np.flatnonzero((columns[:, 0] == j) & (columns[:, 1] == axis))
            if len(hit):
                unfold[hit[0]] = UNFOLD
                break
    return unfold


def dls_plan(tree: Tree, goals, dofs=None):
    """Check ``goals`` (a sequence of ``PositionGoal``, ``RotationGoal``, ``DistanceGoal``,
    ``JointRotationGoal``) and ``dofs`` (None, or one ``BoneDofs`` or None per bone) against
    ``tree`` and return a ``DlsPlan``. Raises ValueError with the reason."""
    n = len(tree)
    goals = tuple(goals)
    if not goals:
        raise ValueError("DLS needs at least one goal")
    dofs = _checked_dofs(n, dofs)
    kinds, rotating, stretching, spans = [], [], [], []
    wanted_stretch = set()
    for g, goal in enumerate(goals):
        kind = {PositionGoal: POSITION, DistanceGoal: DISTANCE, RotationGoal: ROTATION,
                JointRotationGoal: JOINT}.get(type(goal))
        if kind is None:
            raise ValueError(f"goal {g}: {goal!r} is not a DLS goal")
        if goal.bone >= n:
            raise ValueError(f"goal {g}: bone {goal.bone} is not in the tree of {n} bones")
        kinds.append(kind)
        turning, stretch_reach, beyond = _goal_dofs(tree, kind, goal)
        rotating.append(turning)
        stretching.append(stretch_reach)
        wanted_stretch.update(stretch_reach if beyond else ())
        spans.append(_span(tree, _path(tree, goal.bone), True))
    scale = float(max(spans)) if max(spans) > 1e-9 else 1.0

    euler = np.array([d.euler for d in dofs])
    columns = np.array([(j, axis) for j in sorted(set().union(*rotating)) for axis in range(3)
                        if not dofs[j].lock[axis]], dtype=int).reshape(-1, 2)
    stretch_bones = np.array(sorted(j for j in wanted_stretch if dofs[j].stretch > 0), dtype=int)
    stiffness = np.array([d.stiffness for d in dofs])
    column_scale = np.sqrt(np.concatenate([1.0 - stiffness[columns[:, 0], columns[:, 1]],
                                           [dofs[j].stretch for j in stretch_bones]]))

    counts = [3 if k in (POSITION, JOINT) else 1 if k == DISTANCE else 3 - sum(goal.lock_axes)
              for k, goal in zip(kinds, goals)]
    starts = np.concatenate([[0], np.cumsum(counts)])
    row_slices = tuple(slice(int(a), int(b)) for a, b in zip(starts[:-1], starts[1:]))
    goal_scale = np.array([np.sqrt(goal.weight) * (scale if k in (ROTATION, JOINT) else 1.0)
                           for k, goal in zip(kinds, goals)])

    low, high, limited = _angle_bounds(dofs)
    moving = np.unique(columns[:, 0])
    euler_moving = euler[moving]
    stretchy = np.ones(len(stretch_bones))
    column_low = np.concatenate([low[columns[:, 0], columns[:, 1]], stretchy])
    column_high = np.concatenate([high[columns[:, 0], columns[:, 1]], stretchy * MAX_STRETCH])
    row_scale = np.repeat(goal_scale, counts)
    blocks = np.zeros((len(goals), len(row_scale)))
    for g, rows in enumerate(row_slices):
        blocks[g, rows] = 1.0
    return DlsPlan(
        tree=tree, goals=goals, dofs=dofs, scale=scale, kinds=np.array(kinds), columns=columns,
        stretch_bones=stretch_bones, column_scale=column_scale, row_slices=row_slices, row_scale=row_scale,
        weights=row_scale[:, None] * column_scale[None, :], blocks=blocks, goal_scale=goal_scale,
        free_bones=moving[~euler_moving], euler_bones=moving[euler_moving],
        bounded=bool(np.isfinite(column_low).any() or np.isfinite(column_high).any()), column_low=column_low,
        column_high=column_high, low=low, high=high, limited=limited, unfold=_unfold_step(columns, len(column_scale)),
        rows=_plan_rows(kinds, goals, starts, columns, euler, rotating, stretch_bones, stretching, low, high, goal_scale))


def _plan_rows(kinds, goals, starts, columns, euler, rotating, stretch_bones, stretching, low, high, goal_scale):
    """The ``PlanRows`` of a plan (see ``dls_plan`` for the arguments)."""
    identity = (0.0, 0.0, 0.0, 1.0)
    goal_rows = tuple(
        (kind, int(goal.bone), getattr(goal, "use_tail", False), getattr(goal, "target", None),
         sc.qmatrix(getattr(goal, "rotation", identity)),
         tuple(i for i in range(3) if kind != ROTATION or not goal.lock_axes[i]), int(starts[g]))
        for g, (kind, goal) in enumerate(zip(kinds, goals)))
    turning = [set(r) for r in rotating]
    column_axes = tuple(
        (j, axis, axis if euler[j] and axis else 0, tuple(g for g, r in enumerate(turning) if j in r))
        for j, axis in columns.tolist())
    stretch_columns = tuple((j, tuple((g, r[j]) for g, r in enumerate(stretching) if r.get(j, 0.0) != 0.0))
                            for j in stretch_bones.tolist())
    index = {(j, axis): c for c, (j, axis) in enumerate(columns.tolist())}
    bones = tuple((j, bool(euler[j]), tuple(index.get((j, axis), -1) for axis in range(3)),
                   tuple(low[j].tolist()), tuple(high[j].tolist()))
                  for j in sorted({j for j, _ in index}))
    return PlanRows(goal_rows, column_axes, stretch_columns, bones, tuple(goal_scale.tolist()))
