"""What the priority solver (``solvers.priority``) takes, as arrays its compiled kernel reads: a
bone tree, the bones that move and how (their columns), and tasks in priority levels.

A ``Task`` asks one thing of one bone at a ``level`` (0 first; each lower level is solved only in
the freedom the levels above it leave): POSITION brings its head (or tail) to a point, ROTATION
turns it to a world rotation (xyzw), GROUND keeps its head (or tail) on the outer side of the
plane through ``target`` with unit ``normal`` (one-sided: only a point below pulls). A POSITION or
GROUND task may ask it of a point at an ``offset`` from the head (or tail) instead: in the bone's
own axes, turning with it (a point of a skin carried by the bone), or in world axes, carried along
by the head without turning (a bone turned after the solve to a rotation known before it). Below every task the solve pulls gently toward the start
pose, so joints no task needs stay put.

Ground contact asks the same of many points at once: ``GroundTasks`` holds them as arrays.

Columns (the DOFs): a free bone turns about its own X, Y and Z axes; a bone with a lock or a
limit moves its swing-twist coordinates (``solvers.limits.swing_turn``), one column per unlocked
axis, held by Blender's limits (``solvers.limits.SwingTwistLimit``); with the root free, the
tree's top bone also shifts along its base frame's axes (metres). A column's weight is 1 minus its
stiffness.
"""
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from solvers.kinematics import BoneTree
from solvers.limits import encode_limits
from solvers.problem import swing_twist_limit

POSITION, ROTATION, GROUND = range(3)
OWN, SWING, TWIST, SHIFT = range(4)  # column kinds: own axis turn, swing coordinate, twist, root shift


@dataclass(frozen=True)
class Task:
    """One goal of a priority solve: ``kind`` (POSITION, ROTATION, GROUND) of ``bone`` at
    ``level``; ``target`` a point (3,) or a rotation (4,, xyzw); ``use_tail``: the bone's tail
    rather than its head (POSITION, GROUND); ``offset`` (metres) from there to the point asked for,
    in the bone's axes when ``offset_turns``, else in world axes (POSITION, GROUND); ``normal``
    the ground's (GROUND); ``weight`` > 0 among the tasks of its level."""
    kind: int
    bone: int
    level: int
    target: tuple
    use_tail: bool = False
    normal: tuple = (0.0, 1.0, 0.0)
    weight: float = 1.0
    offset: tuple = (0.0, 0.0, 0.0)
    offset_turns: bool = True


class PriorityPlan(NamedTuple):
    """The arrays the kernel reads (``priority_plan`` builds them; numba types a record of arrays
    once per call). Per column: ``column_kind``, ``column_bone``, ``column_axis`` (0-2),
    ``column_weight``; ``above[j, b]``: bone j is b or one of its ancestors; limits as
    ``solvers.limits.encode_limits`` lays them out, ``held[j]``: bone j moves by swing-twist
    coordinates; per task its fields (targets padded to 4); ``levels`` ascending; ``scale`` the
    tree's longest path (metres: angles count at this length, steps are bounded by it)."""
    bones: BoneTree
    column_kind: np.ndarray
    column_bone: np.ndarray
    column_axis: np.ndarray
    column_weight: np.ndarray
    above: np.ndarray
    limit_starts: np.ndarray
    limit_kinds: np.ndarray
    limit_parameters: np.ndarray
    held: np.ndarray
    task_kind: np.ndarray
    task_bone: np.ndarray
    task_tail: np.ndarray
    task_level: np.ndarray
    task_target: np.ndarray
    task_normal: np.ndarray
    task_weight: np.ndarray
    task_offset: np.ndarray
    task_offset_turns: np.ndarray
    levels: np.ndarray
    scale: float


def _columns(moving, dofs, root_free):
    """(kind, bone, axis, weight) per column of the ``moving`` bones (ascending)."""
    columns = []
    for j in moving:
        bone_dofs = dofs[j]
        stiffness = bone_dofs.stiffness if bone_dofs is not None else (0.0, 0.0, 0.0)
        held = bone_dofs is not None and bone_dofs.held
        for axis in range(3):
            if held and bone_dofs.lock[axis]:
                continue  # a locked axis has no column: it stays where its clamp put it
            kind = OWN if not held else TWIST if axis == 1 else SWING
            columns.append((kind, j, axis, 1.0 - stiffness[axis]))
    if root_free:
        columns += [(SHIFT, 0, axis, 1.0) for axis in range(3)]
    return columns


def _above(parents):
    n = len(parents)
    above = np.eye(n, dtype=np.bool_)
    for b in range(n):
        p = parents[b]
        if p >= 0:
            above[:, b] |= above[:, p]
    return above


def _scale(bones):
    """The longest path from the top bones' heads to a tail (metres, their own offsets left out so
    a shifted root keeps its scale), at least a millimetre."""
    reach = np.zeros(len(bones.lengths))
    for i, p in enumerate(bones.parents.tolist()):
        reach[i] = reach[p] + float(np.linalg.norm(bones.offsets[i])) if p >= 0 else 0.0
    return max(float((reach + bones.lengths).max(initial=0.0)), 1e-3)


class Layout(NamedTuple):
    """What a plan takes from its bones and freedoms alone (``column_layout``), kept while they
    stay: the plan's column, ancestry, limit and scale fields."""
    column_kind: np.ndarray
    column_bone: np.ndarray
    column_axis: np.ndarray
    column_weight: np.ndarray
    above: np.ndarray
    limit_starts: np.ndarray
    limit_kinds: np.ndarray
    limit_parameters: np.ndarray
    held: np.ndarray
    scale: float


def _ints(values):
    return np.array(values, dtype=np.int64).reshape(-1)


def column_layout(bones, dofs, moving, root_free=False):
    """The ``Layout`` of ``bones`` (a ``solvers.kinematics.BoneTree``) with ``dofs`` (n,) ``BoneDofs``
    or None per bone, ``moving`` the bones that turn (indices), ``root_free``: the top bone shifts
    too. Raises ValueError for a free root on a tree with several top bones."""
    n = len(bones.parents)
    if root_free and int((bones.parents < 0).sum()) != 1:
        raise ValueError("a free root needs a tree with one top bone")
    moving = sorted(set(int(j) for j in moving))
    columns = _columns(moving, dofs, root_free)
    held = np.zeros(n, dtype=np.bool_)  # bones that do not move keep their rotations, limits or not
    held[moving] = [dofs[j] is not None and dofs[j].held for j in moving]
    limits = tuple((swing_twist_limit(d),) if h else () for d, h in zip(dofs, held.tolist()))
    starts, kinds, parameters = encode_limits(n, limits if held.any() else None)
    return Layout(_ints([c[0] for c in columns]), _ints([c[1] for c in columns]), _ints([c[2] for c in columns]),
                  np.array([c[3] for c in columns], dtype=float).reshape(-1), _above(bones.parents.tolist()),
                  starts, kinds, parameters, held, _scale(bones))


class GroundTasks(NamedTuple):
    """GROUND tasks in bulk, at one ``level`` (weight 1): per point (P,) its ``bone``, ``use_tail``,
    ``target`` (P, 3) a point of its ground plane, the plane's ``normal`` (P, 3), ``offset`` (P, 3)
    and ``offset_turns``, as ``Task`` says of one; for the many points ground contact holds, at
    no cost of a record each."""
    level: int
    bone: np.ndarray
    use_tail: np.ndarray
    target: np.ndarray
    normal: np.ndarray
    offset: np.ndarray
    offset_turns: np.ndarray


def _task_columns(tasks):
    """The plan's per-task arrays of ``tasks`` (Task), in ``PriorityPlan``'s order (targets padded to 4)."""
    targets = np.zeros((len(tasks), 4))
    for k, task in enumerate(tasks):
        targets[k, :len(task.target)] = task.target
    return (_ints([t.kind for t in tasks]), _ints([t.bone for t in tasks]),
            np.array([t.use_tail for t in tasks], dtype=np.bool_), _ints([t.level for t in tasks]), targets,
            np.array([t.normal for t in tasks], dtype=float).reshape(-1, 3), np.array([t.weight for t in tasks], dtype=float),
            np.array([t.offset for t in tasks], dtype=float).reshape(-1, 3),
            np.array([t.offset_turns for t in tasks], dtype=np.bool_))


def _block_columns(block):
    """The plan's per-task arrays of a ``GroundTasks`` block, as ``_task_columns``'."""
    count = len(block.bone)
    return (np.full(count, GROUND, dtype=np.int64), _ints(block.bone), np.asarray(block.use_tail, dtype=np.bool_),
            np.full(count, block.level, dtype=np.int64), np.c_[np.reshape(block.target, (-1, 3)), np.zeros(count)],
            np.reshape(block.normal, (-1, 3)).astype(float), np.ones(count),
            np.reshape(block.offset, (-1, 3)).astype(float), np.asarray(block.offset_turns, dtype=np.bool_))


def priority_plan(bones, tasks, layout, ground=()):
    """The ``PriorityPlan`` of ``tasks`` (Task) and the ``GroundTasks`` blocks ``ground`` (after
    them) on ``bones`` (a ``solvers.kinematics.BoneTree``) moving as ``layout`` (``column_layout``)
    says. Raises ValueError for a task on a bone not in the tree."""
    n = len(bones.parents)
    columns = _task_columns(tasks)
    if ground:
        columns = [np.concatenate(parts) for parts in zip(columns, *(_block_columns(b) for b in ground))]
    task_bones = columns[1]
    if len(task_bones) and not (task_bones.min() >= 0 and task_bones.max() < n):
        wrong = task_bones[(task_bones < 0) | (task_bones >= n)][0]
        raise ValueError(f"a task's bone must be one of the tree's {n}, got {wrong}")
    return PriorityPlan(bones, *layout[:-1], *columns, np.unique(columns[3]), layout.scale)
