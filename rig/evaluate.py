"""Evaluate a rig's constraints on a pose: IK chains, then copy-rotation constraints.

IK results at full influence are written into the returned pose's rotations (the app solves
continuously from what the user sees, and a saved pose is what was on screen). A chain at partial
influence blends its FK channels with the IK result in the world matrices only and keeps its FK
channels in the pose, so the blend stays a blend frame after frame (IK/FK blending). Copy Rotation
likewise turns its bone in the world matrices only, as Blender's constraints never write pose
channels: written back, an influence of 0.5 would creep to a full copy over continuous solves.
Constraints on a bone run after its parents are final, so a hand that copies its IK handle's
rotation sits on the solved forearm.
"""
from dataclasses import dataclass

import numpy as np

from rig.copy_rotation import active_copy_rotation, copied_rotation, rigid
from rig.ik import IKGoal, goal_from_handles, solve_groups
from rig.pose import Pose, update_world, world_matrices
from rig.whole_body import solve_with_pins
from solvers.transforms import matrix3_to_quat, quat_slerp, quat_to_matrix3


@dataclass
class Evaluation:
    """A pose with the rig's constraints evaluated.

    ``pose``: the channels to keep and solve on from (IK results at full influence in them;
    partial-influence IK chains and copy-rotation bones keep the channels they came with).
    ``shown``: channels whose plain forward kinematics is ``world``, every constraint's result
    in them, for formats that carry no constraints. ``world``: what is drawn, (N, 4, 4).
    ``reports``: one ChainReport per IK constraint solved.
    """
    pose: Pose
    shown: Pose
    world: np.ndarray
    reports: list


def active_ik(rig):
    """The IK constraints that pull this frame: enabled, with a target, with some influence.
    Targetless IK is left to interactive tools such as Auto IK."""
    return [c for c in rig.ik if c.enabled and c.target is not None and c.influence > 0.0]


def _copy_rotations(rig, shown, world):
    """Every active Copy Rotation in turn (``_copy_rotation``). The rotations of a run of them
    that no earlier one of the run moves (a hand's and a foot's) come from one stacked SVD: a
    small SVD costs mostly numpy's call, and each matrix's result is the same as alone."""
    skel = rig.skeleton
    runs, moved = [], set()
    for constraint in active_copy_rotation(rig):
        i, target = skel.index[constraint.bone], skel.index[constraint.target]
        parent = skel.parents[i]
        # The parent's scale dropped as the owner's was, so a parent scaled to nothing still gives a rotation.
        frames = (i, target, parent if parent >= 0 else i)  # a root's third is unused: it hangs from the armature
        if not runs or moved.intersection(frames):
            runs.append([])
            moved = set()
        runs[-1].append((constraint, frames))
        moved.update(skel.subtree(i).tolist())
    for run in runs:
        # A non-finite bone has no rotation to mix: leave it, as IK leaves such chains.
        run = [(c, frames) for c, frames in run if np.isfinite(world[list(frames[:2]), :3, :3]).all()]
        if run:
            bases = rigid(world[[f for _, frames in run for f in frames], :3, :3]).reshape(-1, 3, 3, 3)
            for (constraint, frames), (owner, target_basis, parent_basis) in zip(run, bases):
                _copy_rotation(rig, constraint, frames[0], owner, target_basis, parent_basis, shown, world)


def _copy_rotation(rig, constraint, i, owner, target_basis, parent_basis, shown, world):
    """Turn the constraint's bone ``i`` in ``shown`` and ``world`` (its children follow): the world
    rotation it had (``owner``, rigid), mixed with the target's (``target_basis``) on the
    constraint's axes, blended by influence; ``parent_basis``: its parent's rigid rotation.
    Its head and scale stay, as Blender keeps the owner's location and size."""
    skel = rig.skeleton
    wanted = copied_rotation(owner, target_basis, constraint.use_axes)
    if constraint.influence < 1.0:
        wanted = quat_to_matrix3(quat_slerp(matrix3_to_quat(owner), matrix3_to_quat(wanted), constraint.influence))
    if skel.parents[i] < 0:
        parent_basis = np.eye(3)
    shown.rotations[i] = matrix3_to_quat((parent_basis @ skel.rest_local[i, :3, :3]).T @ wanted)
    update_world(skel, shown, world, [i])


def _solve_ik(rig, pose, world, goals, pins=None, dragged=None, root_free=False, ground=None):
    """Solve ``goals`` then the rig's IK into ``pose`` and ``world`` in place; returns
    ([ChainReport], bones blended with FK at partial influence). With ``pins`` every goal is one
    priority solve under them (``rig.whole_body``), ``dragged`` first; so is every goal when
    ``ground`` (contact with it) is given."""
    temporary = {id(c): IKGoal(c, np.asarray(point, dtype=float)) for c, point in goals}
    if pins or ground is not None:
        constraints = [c for c, _ in goals] + active_ik(rig)
        goal_for = lambda c, w: temporary[id(c)] if id(c) in temporary else goal_from_handles(rig, c, w)
        return solve_with_pins(rig, pose, world, constraints, goal_for, pins or {}, dragged, root_free, ground,
                               copies_follow=True)  # evaluation runs them next
    reports, blended = solve_groups(rig, pose, world, [c for c, _ in goals], lambda c, _: temporary[id(c)])
    more_reports, more_blended = solve_groups(rig, pose, world, active_ik(rig),
                                              lambda c, w: goal_from_handles(rig, c, w))
    return reports + more_reports, blended + more_blended


def evaluation(rig, pose, goals=(), pins=None, dragged=None, root_free=False, ground=None):
    """Evaluate the rig's constraints on ``pose`` (not changed) into an ``Evaluation``.

    ``goals`` are temporary IK constraints with explicit world target points, ``(IKConstraint,
    point (3,))`` pairs, solved before the rig's own (Auto IK's dragged bone: the chains that the
    rig constrains then follow it). Constraints sharing bones solve together; each group reads its
    targets after the groups above it have moved, so a handle riding on a solved chain is where
    the user sees it.

    ``pins`` ({bone name: ``rig.pins.Pin``}) are held above every goal; then ``dragged`` (one of
    the goals' constraints or the rig's, or None) comes before the rest, and ``root_free`` lets
    the body's top bone move (``rig.whole_body.solve_with_pins``); with ``ground`` (a
    ``rig.ground`` kind) no solved bone goes below it.
    """
    shown = pose.copy()
    world = world_matrices(rig.skeleton, shown)
    reports, blended = _solve_ik(rig, shown, world, goals, pins, dragged, root_free, ground)
    channels = shown.copy()  # before Copy Rotation: its bones keep their channels
    channels.rotations[blended] = pose.rotations[blended]
    channels.scales[blended] = pose.scales[blended]
    _copy_rotations(rig, shown, world)
    return Evaluation(channels, shown, world, reports)


def evaluate(rig, pose, goals=(), pins=None, dragged=None, root_free=False, ground=None):
    """Return (pose to keep, world matrices, [ChainReport]) for ``pose``: ``evaluation``'s
    ``pose``, ``world`` and ``reports``."""
    result = evaluation(rig, pose, goals, pins, dragged, root_free, ground)
    return result.pose, result.world, result.reports
