"""A bone tree as arrays, and its forward kinematics (the compiled kernel of ``solvers.kinematics``,
and ``tree_pose_rows`` on plain floats for DLS's iterations).

``Tree`` generalises ``Chain``: bone i hangs from bone ``parents[i]`` (-1: from the ``base``) with
the same meaning of ``offsets``, ``rest_rotations`` and ``lengths``; parents come before their
children (``parents[i] < i``). Stretch works as in ``Chain``: ``stretch[i]`` scales bone i along its
own Y (its length and its children's offsets), and is not inherited.
"""
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from solvers import kinematics, scalar as sc
from solvers.chain import Chain, bone_hierarchy
from solvers.transforms import matrix3_to_quat, quat_to_matrix3


@dataclass
class Tree:
    base: np.ndarray
    parents: np.ndarray
    offsets: np.ndarray
    rest_rotations: np.ndarray
    lengths: np.ndarray

    def __post_init__(self):
        self.parents = np.asarray(self.parents, dtype=int)
        as_chain = Chain(self.base, self.offsets, self.rest_rotations, self.lengths)
        self.base, self.offsets = as_chain.base, as_chain.offsets
        self.rest_rotations, self.lengths = as_chain.rest_rotations, as_chain.lengths
        if self.parents.shape != self.lengths.shape:
            raise ValueError("a tree needs one parent index per bone")
        if not all(-1 <= p < i for i, p in enumerate(self.parents.tolist())):
            raise ValueError("every bone's parent must be -1 (the base) or an earlier bone")

    @cached_property
    def rest_matrices(self):
        return quat_to_matrix3(self.rest_rotations)

    @cached_property
    def hierarchy(self):
        """The tree as ``solvers.kinematics`` takes bones (``chain.bone_hierarchy``)."""
        return bone_hierarchy(self.base, self.parents, self.offsets, self.rest_rotations)

    @classmethod
    def from_chain(cls, chain):
        return cls(chain.base, np.arange(len(chain)) - 1, chain.offsets, chain.rest_rotations, chain.lengths)

    def __len__(self):
        return len(self.lengths)

    @cached_property
    def rows(self):
        """The tree as plain floats for ``tree_pose_rows``: parents, offsets, lengths, rest
        matrices (rows), and per root bone (else None) its head and the base rotation times its
        rest rotation, which no pose changes."""
        base = self.base.tolist()
        base_rotation, origin = tuple(tuple(row[:3]) for row in base[:3]), tuple(row[3] for row in base[:3])
        parents, offsets = self.parents.tolist(), list(map(tuple, self.offsets.tolist()))
        rest = [sc.qmatrix(q) for q in self.rest_rotations.tolist()]
        roots = [None if p >= 0 else (sc.add(origin, sc.mvec(base_rotation, o)), sc.mmul(base_rotation, r))
                 for p, o, r in zip(parents, offsets, rest)]
        return parents, offsets, self.lengths.tolist(), rest, roots


def tree_pose(tree, local, stretch=None):
    """World rotations (n, 3, 3), heads (n, 3) and tails (n, 3) for pose rotation matrices
    ``local`` (n, 3, 3) (each bone's rotation relative to its rest orientation) and optional
    ``stretch`` (n,). Runs the one forward kinematics (``solvers.kinematics``)."""
    n = len(tree)
    scales = np.ones((n, 3))
    if stretch is not None:
        scales[:, 1] = stretch
    frames = np.empty((n, 4, 4))
    hierarchy = tree.hierarchy
    kinematics.update_world(hierarchy.rest_local, hierarchy.parents, hierarchy.bones, hierarchy.locations,
                            np.ascontiguousarray(matrix3_to_quat(local)), scales, frames)
    world = frames[:, :3, :3].copy()
    if stretch is not None:
        world[:, :, 1] /= np.where(np.abs(scales[:, 1]) < kinematics.TINY_SCALE, 1.0, scales[:, 1])[:, None]
    heads = frames[:, :3, 3].copy()
    return world, heads, heads + frames[:, :3, 1] * tree.lengths[:, None]


def tree_pose_rows(tree, quats, stretch):
    """``tree_pose`` on plain floats, for a solver that runs it every iteration on a small tree
    (where numpy calls cost more than the arithmetic): pose rotations ``quats`` (n quaternions,
    normalised on the way) and ``stretch`` (n floats). Returns per bone the frame it turns in
    (its parent's world rotation times its rest rotation), its world rotation (3x3 matrices as
    rows), head and tail (3-tuples)."""
    parents, offsets, lengths, rest, roots = tree.rows
    before, world, heads, tails = [], [], [], []
    for i, parent in enumerate(parents):
        if parent < 0:
            head, frame = roots[i]
        else:
            above = world[parent]
            ox, oy, oz = offsets[i]
            head = sc.add(heads[parent], sc.mvec(above, (ox, oy * stretch[parent], oz)))
            frame = sc.mmul(above, rest[i])
        rotation = sc.mmul(frame, sc.qmatrix(quats[i]))
        before.append(frame)
        world.append(rotation)
        heads.append(head)
        tails.append(sc.add(head, sc.scale(sc.column(rotation, 1), lengths[i] * stretch[i])))
    return before, world, heads, tails
