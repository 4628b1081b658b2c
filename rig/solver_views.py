"""The solvers' view of a rig's bones: a chain or a tree of them hanging from the rigid frame of
the first bone's parent, with their head offsets, rest rotations and lengths (``solvers.chain``,
``solvers.tree``). A chain is built and checked once per set of pose locations and rebased on
its parent's frame as the parent moves."""
from dataclasses import dataclass

import numpy as np

from rig.pose import bone_rows
from solvers.chain import Chain, rotation_error
from solvers.transforms import matrix3_to_quat, quat_to_matrix3
from solvers.kinematics import bone_tree
from solvers.tree import Tree


def _rigid(matrix):
    """``matrix`` with the scale taken out of its rotation: solvers hang chains from rigid frames
    (the scale the chain inherits goes into its offsets and lengths instead)."""
    rigid = matrix.copy()
    if rotation_error(matrix) <= 1e-12:  # rigid already
        return rigid
    basis = matrix[:3, :3] / np.sqrt(np.einsum("ij,ij->j", matrix[:3, :3], matrix[:3, :3]))
    if rotation_error(basis) > 1e-9:  # sheared by an inherited stretch
        basis = quat_to_matrix3(matrix3_to_quat(basis))
    rigid[:3, :3] = basis
    return rigid


def _base(skeleton, world, bone):
    """The rigid frame ``bone`` hangs from: its parent's in ``world``, or the armature's."""
    parent = skeleton.parents[bone]
    return _rigid(world[parent]) if parent >= 0 else np.eye(4)


def _inherited_scale(skeleton, world, bone):
    """The scale ``bone`` inherits from its parent in ``world`` (1 for a root): the mean length of
    the parent's axes, exact for the uniform scales IK stretch writes (a parent scaled unevenly
    shears its children, which no rigid chain can follow)."""
    parent = skeleton.parents[bone]
    if parent < 0 or rotation_error(world[parent]) <= 1e-12:
        return 1.0
    return float(np.sqrt(np.einsum("ij,ij->j", world[parent, :3, :3], world[parent, :3, :3])).mean())


class HangingBones:
    """``bones`` (ascending indices) as the solvers see them, hanging from the rigid frame of the
    first one's parent: what the skeleton alone fixes (``parents``, within ``bones``, -1 for the
    top; rest frames, rotations and lengths) read once, so a solve each frame (tracking) reads
    only the pose's locations and the base anew (``arrays``)."""

    def __init__(self, skeleton, bones):
        self.skeleton, self.bones = skeleton, bones
        position = {bone: i for i, bone in enumerate(bones)}
        self.parents = np.array([position.get(int(skeleton.parents[b]), -1) for b in bones], dtype=np.int64)
        self.rest = skeleton.rest_local[bones]
        self.rest_rotations = skeleton.rest_local_rotations[bones]
        self.lengths = skeleton.lengths[bones]

    def arrays(self, pose, world, scale=1.0):
        """Base frame (the first bone's parent, rigid), head offsets, rest rotations and lengths,
        grown by ``scale``, what they inherit from above (``_inherited_scale``), so the bones
        solved are the bones drawn."""
        rest = self.rest
        offsets = rest[:, :3, 3] + np.einsum("nij,nj->ni", rest[:, :3, :3], pose.locations[self.bones])
        return (_base(self.skeleton, world, self.bones[0]), offsets * scale, self.rest_rotations,
                self.lengths * scale)

    def tree_parts(self, pose, world):
        """(base, parents, offsets, rest rotations, lengths) of the bones as a tree, grown as they
        inherit (``arrays``)."""
        base, offsets, rest_rotations, lengths = self.arrays(pose, world, _inherited_scale(self.skeleton, world,
                                                                                             self.bones[0]))
        return base, self.parents, offsets, rest_rotations, lengths


@dataclass
class _CachedChain:
    """A chain as built for its bones' pose ``locations`` (bytes), and the last base it hung from
    (bytes of the parent's world matrix) with the chain rebased there."""
    locations: bytes
    chain: Chain
    scale: float
    parent_world: bytes = b""
    rebased: Chain = None


def chain_arrays(skeleton, pose, world, chain):
    """The solver's view of bones ``chain`` (root first): a Chain hanging from the root's parent.
    The chain is built and checked once (again when its bones' pose locations change) and kept
    in ``skeleton.solver_chains``; later solves only rebase it on the parent's frame, and reuse
    the last rebased chain (with what solvers cached on it) while that frame stays put, as it
    does for a dragged hand on a still body and in every case of a scripted solve."""
    key, locations = tuple(chain), pose.locations[bone_rows(chain)].tobytes()
    cached = skeleton.solver_chains.get(key)
    parent = skeleton.parents[chain[0]]
    parent_world = world[parent].tobytes() if parent >= 0 else b"root"
    if cached is not None and cached.locations == locations and cached.parent_world == parent_world:
        return cached.rebased
    scale = _inherited_scale(skeleton, world, chain[0])
    if cached is None or cached.locations != locations or cached.scale != scale:
        cached = skeleton.solver_chains[key] = _CachedChain(
            locations, Chain(*HangingBones(skeleton, chain).arrays(pose, world, scale)), scale)
    cached.rebased = cached.chain.rebased(_base(skeleton, world, chain[0]))
    cached.parent_world = parent_world
    return cached.rebased


def tree_arrays(skeleton, pose, world, bones):
    """The solver's view of ``bones`` (ascending, one connected subtree such as a union of
    overlapping chains, which always has a single top bone): a Tree hanging from its parent."""
    return Tree(*HangingBones(skeleton, bones).tree_parts(pose, world))


def bone_tree_arrays(skeleton, pose, world, bones):
    """``tree_arrays`` as compiled kernels read it (a ``solvers.kinematics.BoneTree``), without a
    Tree's checks, which a skeleton's own subtree passes: what a solve each frame pays less."""
    return kept_bone_tree(HangingBones(skeleton, bones), pose, world)


def kept_bone_tree(hanging, pose, world):
    """``bone_tree_arrays`` of a ``HangingBones`` kept from frame to frame."""
    return bone_tree(*hanging.tree_parts(pose, world))
