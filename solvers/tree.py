"""A bone tree as arrays, and its forward kinematics (the compiled bodies of ``solvers.kinematics``:
``tree_pose`` the rig's, ``tree_pose_rows`` the solvers', for DLS's iterations).

``Tree`` generalises ``Chain``: bone i hangs from bone ``parents[i]`` (-1: from the ``base``) with
the same meaning of ``offsets``, ``rest_rotations`` and ``lengths``; parents come before their
children (``parents[i] < i``). Stretch works as in ``Chain``: ``stretch[i]`` is bone i's whole
uniform stretch (its length and its children's offsets); frames stay rigid.
"""
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

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
    def bone_tree(self):
        """The tree as ``kinematics.pose_bones`` takes it (``kinematics.BoneTree``)."""
        return kinematics.bone_tree(self.base, self.parents, self.offsets, self.rest_rotations, self.lengths)

    @cached_property
    def rows(self):
        """The tree as plain floats (``TreeRows``), for planning on a small tree."""
        origin = tuple(self.base[:3, 3].tolist())
        base_rotation = tuple(map(tuple, self.base[:3, :3].tolist()))
        parents, offsets = self.parents.tolist(), list(map(tuple, self.offsets.tolist()))
        root_heads = [None if p >= 0 else sc.add(origin, sc.mvec(base_rotation, o)) for p, o in zip(parents, offsets)]
        return TreeRows(parents, offsets, self.lengths.tolist(), root_heads)


class TreeRows(NamedTuple):
    """A ``Tree`` as plain floats: parents, offsets (3-tuples), lengths, and per bone the world
    head of a root bone (else None), which no pose moves."""
    parents: list
    offsets: list
    lengths: list
    root_heads: list


def tree_pose(tree, local, stretch=None):
    """World rotations (n, 3, 3), heads (n, 3) and tails (n, 3) for pose rotation matrices
    ``local`` (n, 3, 3) (each bone's rotation relative to its rest orientation) and optional
    ``stretch`` (n,). Runs the one forward kinematics (``solvers.kinematics``)."""
    frames, world = kinematics.stretched_world(tree.hierarchy, matrix3_to_quat(local), stretch)
    heads = frames[:, :3, 3].copy()
    return world, heads, heads + frames[:, :3, 1] * tree.lengths[:, None]


class PoseRows(NamedTuple):
    """A tree's pose on plain floats, per bone: the frame it turns in (its parent's world rotation
    times its rest rotation) and its world rotation (3x3 matrices as rows), head and tail."""
    before: list
    world: list
    heads: list
    tails: list


def tree_pose_rows(tree, quats, stretch):
    """``tree_pose`` for a solver that works on plain floats (``PoseRows``), from pose rotations
    ``quats`` (n quaternions, normalised on the way) and ``stretch`` (n floats): the solvers'
    compiled forward kinematics (``kinematics.pose_bones``), its arrays turned to lists once,
    which on a 10-bone chain costs less than the float arithmetic it replaced."""
    rows = kinematics.pose_matrices(*tree.bone_tree, np.array(stretch, dtype=float),
                                    np.array(quats, dtype=float)).tolist()
    return PoseRows([bone[:3] for bone in rows], [bone[3:6] for bone in rows], [bone[6] for bone in rows],
                    [bone[7] for bone in rows])
