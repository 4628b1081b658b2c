"""Automatic IK set-up for humanoids: find arms, legs, spine and head, then add hand/foot IK
handles and elbow/knee poles the way assets/humanoid.json has them.

Recognition (which bones are the limbs, spine and head) is ``rig.limb_roles``'s, from names or
from the hierarchy and rest geometry; the set-up below is the same however the roles were found.

Set-up. Each limb gets an IK constraint on its lower bone (chain of 2) aimed at a handle bone
shaped like the hand/foot but sitting at the lower bone's tail, a copy-rotation from the handle
to the hand/foot, and a pole bone level with the knee / elbow, 0.6 limb lengths out from the
shoulder/hip-to-wrist/ankle line in the direction the limb bends (+Z for knees and -Z for elbows
when the limb is straight). Handles and poles hang from the root when the root is a non-deforming
master bone (not part of the body, as in the humanoid), else they have no parent, so moving the
hips does not drag planted feet. Pole angles are computed so the rest pose is already solved, and
``snap_handles`` moves the handles of a pose so that pose is (joint for joint) the IK solution,
e.g. a BVH frame.
"""
import copy

import numpy as np

from rig.constraints import CopyRotationConstraint, IKConstraint
from rig.limb_roles import LIMBS, SIDES, recognise
from rig.solver_views import chain_arrays
from rig.pose import Pose, location_for_head, world_matrices
from rig.rig import Rig
from rig.skeleton import Skeleton, bone_frame
from solvers.transforms import matrix3_to_quat, normalize
from solvers.two_bone import pole_facing

STRAIGHT_POLE = {"arm": np.array([0.0, 0.0, -1.0]), "leg": np.array([0.0, 0.0, 1.0])}
POLE_DISTANCE = 0.6  # limb lengths from the elbow / knee


def pole_angle(root_frame, tip, pole):
    """Blender pole angle that leaves a chain as it is: the angle a about the first bone's Y axis
    for which X cos a + Z sin a (of ``root_frame``, 4x4), made perpendicular to the line from the
    bone's head to ``tip``, faces ``pole`` (both (3,), armature space)."""
    head = root_frame[:3, 3]
    d = normalize(np.asarray(tip, dtype=float) - head)

    def perp(v):
        return v - d * np.dot(v, d)
    px, pz, toward = perp(root_frame[:3, 0]), perp(root_frame[:3, 2]), perp(np.asarray(pole, dtype=float) - head)
    (c, s), *_ = np.linalg.lstsq(np.column_stack([px, pz]), toward, rcond=None)
    return float(np.arctan2(s, c))


def pole_point(root, mid, tip, toward, fallback, distance):
    """A pole ``distance`` from the root-to-tip line, level with ``mid``, in the direction of
    ``toward`` made perpendicular to that line (``fallback`` where ``toward`` is along it)."""
    axis = normalize(tip - root)
    level = root + axis * np.dot(mid - root, axis)
    for v in (toward, fallback, np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0])):
        side = v - axis * np.dot(v, axis)
        if np.linalg.norm(side) > 1e-3 * np.linalg.norm(v):
            return level + distance * normalize(side)
    return level


def _handle_parent(skeleton, report):
    """The master root bone handles hang from, or -1 where the root is part of the body."""
    roots = np.flatnonzero(skeleton.parents < 0)
    body = {name for names in report.roles.values() for name in names}
    if len(roots) == 1 and skeleton.names[roots[0]] not in body:
        return int(roots[0])
    return -1


def _free_name(taken, base):
    name, k = base, 1
    while name in taken:
        name, k = f"{base}.{k:03d}", k + 1
    taken.add(name)
    return name


def limb_ending_at(skeleton, end):
    """The limb (upper, lower, hand/foot bone names) whose last bone is ``end``, or None when
    ``end`` has no parent and grandparent."""
    lower = int(skeleton.parents[skeleton.index[end]])
    upper = int(skeleton.parents[lower]) if lower >= 0 else -1
    return None if upper < 0 else [skeleton.names[upper], skeleton.names[lower], end]


def auto_rig(rig, pose=None, recognised=None):
    """Recognise ``rig``'s limbs (or take ``recognised``, an AutoRigReport the user corrected) and
    add IK handles, poles and constraints (module doc). Returns (new Rig, AutoRigReport, pose):
    ``pose`` (for ``rig``) extended to the new bones with the handles snapped so it is the IK
    solution (None when no pose was given). ``rig`` is unchanged; limbs whose lower bone already
    has an IK constraint are left alone."""
    skel = rig.skeleton
    report = recognise(skel) if recognised is None else copy.deepcopy(recognised)
    anchor = _handle_parent(skel, report)
    taken, constrained = set(skel.names), {c.bone for c in rig.ik}
    names, parents, frames, lengths = list(skel.names), list(skel.parents), list(skel.rest_world), list(skel.lengths)
    ik, copy_rotation = list(rig.ik), list(rig.copy_rotation)
    heads, tails = skel.rest_heads, skel.rest_tails
    for kind, _, handle_base, pole_base in LIMBS:
        for side in SIDES:
            role = f"{kind}.{side}"
            if role not in report.roles:
                continue
            upper, lower, end = (skel.index[n] for n in report.roles[role])
            if names[lower] in constrained:
                report.warnings.append(f"{role}: '{names[lower]}' already has an IK constraint; left as it is")
                continue
            reach = lengths[upper] + lengths[lower]
            handle, pole = _free_name(taken, f"{handle_base}.{side}"), _free_name(taken, f"{pole_base}.{side}")
            handle_frame = skel.rest_world[end].copy()
            handle_frame[:3, 3] = tails[lower]
            # Out along the limb's bend (straight limbs: knees forward, elbows back).
            pole_head = pole_point(heads[upper], heads[lower], tails[lower], heads[lower] - heads[upper],
                                    STRAIGHT_POLE[kind], POLE_DISTANCE * reach)
            pole_frame = bone_frame(pole_head, pole_head + [0.0, 0.1 * lengths[upper], 0.0], 0.0)
            names += [handle, pole]
            parents += [anchor, anchor]
            frames += [handle_frame, pole_frame]
            lengths += [lengths[end], 0.1 * lengths[upper]]
            ik.append(IKConstraint(bone=names[lower], target=handle, pole_target=pole, chain_count=2,
                                   pole_angle=pole_angle(skel.rest_world[upper], tails[lower], pole_head)))
            copy_rotation.append(CopyRotationConstraint(bone=names[end], target=handle))
            report.created += [handle, pole]
            report.handles[role] = (handle, pole)
    skeleton = Skeleton(names, parents, np.array(frames), np.array(lengths),
                        np.concatenate([skel.connected, np.zeros(len(names) - len(skel), dtype=bool)]))
    new_rig = Rig(rig.name, skeleton, ik, copy_rotation, dict(rig.bone_ik), rig.solver,
                  skin_contacts=rig.skin_contacts)  # the new bones come after the skin's: its points stay
    return new_rig, report, None if pose is None else snap_handles(new_rig, report, extend_pose(pose, len(skeleton)))


def extend_pose(pose, bone_count):
    """``pose`` with rest channels appended for bones added after its last one."""
    extra = Pose.rest(bone_count - len(pose.rotations))
    return Pose(np.concatenate([pose.rotations, extra.rotations]), np.concatenate([pose.locations, extra.locations]),
                np.concatenate([pose.scales, extra.scales]))


def snap_handles(rig, report, pose):
    """A copy of ``pose`` whose IK handles sit on their hands/feet (same rotation) and whose poles
    lie in the limbs' bend planes, so evaluating the rig keeps the limbs' joints where they are."""
    skel, pose = rig.skeleton, pose.copy()
    world = world_matrices(skel, pose)
    for role, (handle, pole) in report.handles.items():
        upper, lower, end = (skel.index[n] for n in report.roles[role])
        h, p = skel.index[handle], skel.index[pole]
        root, mid = world[upper, :3, 3], world[lower, :3, 3]
        tip = mid + world[lower, :3, 1] * skel.lengths[lower]
        parent = world[skel.parents[h]] if skel.parents[h] >= 0 else np.eye(4)
        wanted = np.eye(4)
        wanted[:3, :3] = world[end, :3, :3] / np.linalg.norm(world[end, :3, :3], axis=0)
        wanted[:3, 3] = tip
        local = np.linalg.solve(parent @ skel.rest_local[h], wanted)
        pose.rotations[h] = matrix3_to_quat(local[:3, :3])
        pose.locations[h] = local[:3, 3]
        angle = next(c.pole_angle for c in rig.ik if c.pole_target == pole)
        faces = pole_facing(chain_arrays(skel, pose, world, [upper, lower]), pose.rotations[[upper, lower]], angle)
        reach = skel.lengths[upper] + skel.lengths[lower]
        # Where the solver's pole rule already holds for the pose, the solve leaves it as it is.
        point = pole_point(root, mid, tip, faces, faces, POLE_DISTANCE * reach)
        pose.locations[p] = location_for_head(skel, pose, world, p, point)
    return pose
