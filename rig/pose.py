"""Pose: per-bone local transforms on top of the rest pose, and forward kinematics."""
from dataclasses import dataclass

import numpy as np

from solvers import kinematics
from solvers.transforms import matrix3_to_quat


def identity_rotations(count):
    """(count, 4) identity quaternions, xyzw."""
    rotations = np.zeros((count, 4))
    rotations[:, 3] = 1.0
    return rotations


@dataclass
class Pose:
    """Pose-space channels per bone, relative to the bone's rest frame (Blender's pose bone).

    ``rotations`` (N, 4) unit quaternions (x, y, z, w); ``locations`` (N, 3) metres in the bone's
    rest frame; ``scales`` (N, 3) along the bone's own axes, inherited by its children as in
    Blender (Inherit Scale "Full", the default) and glTF: a bone's world matrix is
    ``world[parent] @ rest_local[i] @ T(location) @ R(rotation) @ S(scale)``, so any standard
    forward kinematics of these channels puts every head and tail where Posekit does. IK stretch
    is written as Blender writes it: uniform, a bone's whole stretch divided by its parent's, so
    a stretched forearm under a stretched upper arm has its own length, and a hand below it grows
    with it unless its own scale says otherwise.
    """
    rotations: np.ndarray
    locations: np.ndarray
    scales: np.ndarray

    @classmethod
    def rest(cls, bone_count):
        scales = np.empty((bone_count, 3))
        scales.fill(1.0)  # a third of np.ones' cost: a scripted solve makes a rest pose per case
        return cls(identity_rotations(bone_count), np.zeros((bone_count, 3)), scales)

    def copy(self):
        return Pose(self.rotations.copy(), self.locations.copy(), self.scales.copy())

    def __eq__(self, other):
        return (isinstance(other, Pose) and np.array_equal(self.rotations, other.rotations)
                and np.array_equal(self.locations, other.locations) and np.array_equal(self.scales, other.scales))

    def is_finite(self):
        return bool(np.isfinite(self.rotations).all() and np.isfinite(self.locations).all()
                    and np.isfinite(self.scales).all())


def bone_rows(bones):
    """An index into per-bone arrays for ``bones`` (ascending): a slice when they are consecutive,
    as most chains' are, since a slice reads without a copy and writes in a third of a list's time."""
    first, count = bones[0], len(bones)
    return slice(first, first + count) if bones[-1] - first + 1 == count else np.asarray(bones)


def world_matrices(skeleton, pose):
    """Forward kinematics: every bone's armature-space matrix (N, 4, 4)."""
    world = np.empty((len(skeleton), 4, 4))
    update_world(skeleton, pose, world, np.flatnonzero(skeleton.parents < 0))
    return world


def update_world(skeleton, pose, world, changed):
    """Recompute ``world`` (N, 4, 4) in place for the bones ``changed`` and all bones below
    them, the rest as they are; for solvers that move a few chains of a large rig."""
    changed = list(changed)
    if not changed:
        return
    bones = skeleton.subtree(changed[0]) if len(changed) == 1 else \
        np.unique(np.concatenate([skeleton.subtree(i) for i in changed]))
    kinematics.update_world(skeleton.rest_local, skeleton.parents, bones, pose.locations, pose.rotations,
                            pose.scales, world)


def heads_tails(skeleton, world):
    """Head and tail positions (N, 3) each, from world matrices (tails include bone scale)."""
    heads = world[:, :3, 3]
    tails = heads + world[:, :3, 1] * skeleton.lengths[:, None]
    return heads, tails


def location_for_head(skeleton, pose, world, bone, point):
    """The pose location that puts ``bone``'s head at world ``point`` (3,), its parent as in
    ``world``; the inverse of FK for one translation channel."""
    parent = skeleton.parents[bone]
    parent_world = world[parent] if parent >= 0 else np.eye(4)
    in_parent = np.linalg.solve(parent_world, np.append(np.asarray(point, dtype=float), 1.0))[:3]
    rest = skeleton.rest_local[bone]
    return rest[:3, :3].T @ (in_parent - rest[:3, 3])


def channels_for_world(skeleton, world):
    """Pose channels whose forward kinematics is ``world`` (N, 4, 4), bone by bone: for writing
    what is drawn, constraints and all, without solving again. Scales are taken positive; a bone
    sheared by a parent scaled unevenly keeps its nearest rotation."""
    pose = Pose.rest(len(skeleton))
    for bone, parent in enumerate(skeleton.parents):
        local = world[bone] if parent < 0 else np.linalg.solve(world[parent], world[bone])
        rest = skeleton.rest_local[bone]
        turned = rest[:3, :3].T @ local[:3, :3]  # the pose's rotation times its scale
        scale = np.linalg.norm(turned, axis=0)
        pose.rotations[bone] = matrix3_to_quat(turned / np.where(scale > 0.0, scale, 1.0))
        pose.scales[bone] = scale
        pose.locations[bone] = rest[:3, :3].T @ (local[:3, 3] - rest[:3, 3])
    return pose


def rest_basis(skeleton, world, bone):
    """World rotation (3, 3) of ``bone`` with an identity pose rotation, its parent as in
    ``world`` (parent scale removed): pose rotations act in this frame."""
    parent = skeleton.parents[bone]
    parent_world = world[parent, :3, :3] if parent >= 0 else np.eye(3)
    return parent_world / np.linalg.norm(parent_world, axis=0) @ skeleton.rest_local[bone, :3, :3]


def rotation_for_world(skeleton, world, bone, rotation):
    """The pose rotation (x, y, z, w) that turns ``bone`` to the world orientation ``rotation``
    (3, 3; column scale is ignored), its parent as in ``world``; the inverse of FK for one
    rotation channel (what a rotate gizmo sets)."""
    rotation = np.asarray(rotation, dtype=float)
    return matrix3_to_quat(rest_basis(skeleton, world, bone).T @ (rotation / np.linalg.norm(rotation, axis=0)))
