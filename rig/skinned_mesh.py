"""A triangle mesh skinned to a rig's bones (rig-side data only; drawing lives in render/).

Positions and normals are in armature space at the rig's rest pose. Each vertex has four
influences: ``joints`` are indices into the skeleton's bones and ``weights`` sum to 1. A bone's
skinning matrix is ``world[j] @ bind_matrices[j]``, with ``world`` from ``rig.pose.world_matrices``;
at rest it is the identity, so the mesh sits where it was modelled.
"""
from dataclasses import dataclass

import numpy as np

from solvers.transforms import rigid_inverse

INFLUENCES = 4


@dataclass
class SkinnedMesh:
    """``positions``/``normals`` (V, 3) float32, ``indices`` (T*3,) uint32 triangle corners,
    ``joints`` (V, 4) uint16 bone indices, ``weights`` (V, 4) float32, ``bind_matrices`` (N, 4, 4)
    float64 (the inverse of each bone's rest frame)."""
    positions: np.ndarray
    normals: np.ndarray
    indices: np.ndarray
    joints: np.ndarray
    weights: np.ndarray
    bind_matrices: np.ndarray

    @classmethod
    def for_skeleton(cls, skeleton, positions, normals, indices, joints, weights):
        """A mesh modelled on ``skeleton``'s rest pose (bind matrices from its rest frames)."""
        return cls(np.asarray(positions, np.float32), np.asarray(normals, np.float32),
                   np.asarray(indices, np.uint32).ravel(), np.asarray(joints, np.uint16),
                   np.asarray(weights, np.float32), rigid_inverse(skeleton.rest_world))

    @property
    def vertex_count(self):
        return len(self.positions)

    def skinning_matrices(self, world):
        """(N, 4, 4) matrices taking rest-pose mesh points to where ``world`` puts them, for the N
        bones the mesh was bound to. Bones added since (automatic IK set-up appends handles and
        poles after them) weigh no vertex, so ``world`` may hold more."""
        world = np.asarray(world, dtype=float)
        if len(world) < len(self.bind_matrices):
            raise ValueError(f"the mesh is bound to {len(self.bind_matrices)} bones, the pose has {len(world)}")
        return world[:len(self.bind_matrices)] @ self.bind_matrices

    def skinned_positions(self, world):
        """Linear-blend skinning on the CPU: (V, 3) posed positions (the GPU does the same)."""
        skin = self.skinning_matrices(world)
        blended = np.einsum("vk,vkij->vij", self.weights.astype(float), skin[self.joints])
        return np.einsum("vij,vj->vi", blended[:, :3, :3], self.positions) + blended[:, :3, 3]


def vertex_normals(positions, indices):
    """Area-weighted unit vertex normals (V, 3) for triangles ``indices`` (T*3,); vertices on no
    face (or only degenerate ones) get +Y."""
    positions = np.asarray(positions, dtype=float)
    corners = positions[np.asarray(indices).reshape(-1, 3)]
    face = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normals = np.zeros_like(positions)
    for k in range(3):
        np.add.at(normals, np.asarray(indices).reshape(-1, 3)[:, k], face)
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    return np.where(length > 1e-12, normals / np.maximum(length, 1e-12), [0.0, 1.0, 0.0])


def normalise_weights(weights):
    """Weights (V, 4) scaled to sum to 1; rows summing to ~0 become (1, 0, 0, 0). Returns
    (weights, number of rows that were off by more than 1e-3)."""
    weights = np.clip(np.asarray(weights, dtype=float), 0.0, None)
    total = weights.sum(axis=1, keepdims=True)
    off = int(np.count_nonzero(np.abs(total[:, 0] - 1.0) > 1e-3))
    fixed = np.where(total > 1e-8, weights / np.maximum(total, 1e-8), [1.0, 0.0, 0.0, 0.0])
    return fixed.astype(np.float32), off
