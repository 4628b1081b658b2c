"""Evaluate a rig's constraints on a pose: IK chains, then copy-rotation constraints.

IK results at full influence are written into the returned pose's rotations (the app solves
continuously from what the user sees, and a saved pose is what was on screen). A chain at partial
influence blends its FK channels with the IK result in the world matrices only and keeps its FK
channels in the pose, so the blend stays a blend frame after frame (IK/FK blending). Constraints
on a bone run after its parents are final, so a hand that copies its IK handle's rotation sits on
the solved forearm.
"""
import numpy as np

from rig.ik import IKGoal, goal_from_handles, solve_groups
from rig.pose import update_world, world_matrices
from solvers.transforms import matrix3_to_quat, quat_slerp


def active_ik(rig):
    """The IK constraints that pull this frame: enabled, with a target, with some influence.
    Targetless IK is left to interactive tools such as Auto IK."""
    return [c for c in rig.ik if c.enabled and c.target is not None and c.influence > 0.0]


def _copy_rotation(rig, constraint, pose, world):
    skel = rig.skeleton
    i, target = skel.index[constraint.bone], skel.index[constraint.target]
    parent = skel.parents[i]
    parent_basis = world[parent, :3, :3] if parent >= 0 else np.eye(3)
    rest_basis = parent_basis @ skel.rest_local[i, :3, :3]
    wanted = matrix3_to_quat(rest_basis.T @ world[target, :3, :3])
    return i, quat_slerp(pose.rotations[i], wanted, constraint.influence)


def evaluate(rig, pose, goals=()):
    """Return (solved pose, world matrices, [ChainReport]) for ``pose``; ``pose`` is not changed.

    ``goals`` are temporary IK constraints with explicit world target points, ``(IKConstraint,
    point (3,))`` pairs, solved before the rig's own (Auto IK's dragged bone: the chains that the
    rig constrains then follow it). Constraints sharing bones solve together; each group reads its
    targets after the groups above it have moved, so a handle riding on a solved chain is where
    the user sees it.
    """
    solved = pose.copy()
    world = world_matrices(rig.skeleton, solved)
    temporary = {id(c): IKGoal(c, np.asarray(point, dtype=float)) for c, point in goals}
    reports, blended = solve_groups(rig, solved, world, [c for c, _ in goals], lambda c, _: temporary[id(c)])
    more_reports, more_blended = solve_groups(rig, solved, world, active_ik(rig),
                                              lambda c, w: goal_from_handles(rig, c, w))
    reports += more_reports
    blended += more_blended
    order = sorted((c for c in rig.copy_rotation if c.enabled), key=lambda c: rig.skeleton.index[c.bone])
    for constraint in order:
        i, rotation = _copy_rotation(rig, constraint, solved, world)
        solved.rotations[i] = rotation
        update_world(rig.skeleton, solved, world, [i])
    if not blended:
        return solved, world, reports
    channels = solved.copy()
    channels.rotations[blended] = pose.rotations[blended]
    channels.scales[blended] = pose.scales[blended]
    return channels, world, reports
