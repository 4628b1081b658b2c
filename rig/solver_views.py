"""The solvers' view of a rig's bones: a chain or a tree of them hanging from the rigid frame of
the first bone's parent, with their head offsets, rest rotations and lengths (``solvers.chain``,
``solvers.tree``). A chain is built and checked once per set of pose locations and rebased on
its parent's frame as the parent moves."""
from dataclasses import dataclass

import numpy as np

from rig.pose import bone_rows
from solvers.chain import Chain, rotation_error
from solvers.transforms import matrix3_to_quat, quat_to_matrix3
from solvers.tree import Tree


def _rigid(matrix):
    """``matrix`` with the scale taken out of its rotation: solvers hang chains from rigid frames,
    and a stretched parent's scale is not the chain's business."""
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


def _hanging_arrays(skeleton, pose, world, bones):
    """Base frame (the first bone's parent, rigid), head offsets, rest rotations and lengths of
    ``bones`` (ascending indices) as the solvers see them."""
    rest = skeleton.rest_local[bones]
    offsets = rest[:, :3, 3] + np.einsum("nij,nj->ni", rest[:, :3, :3], pose.locations[bones])
    return _base(skeleton, world, bones[0]), offsets, skeleton.rest_local_rotations[bones], skeleton.lengths[bones]


@dataclass
class _CachedChain:
    """A chain as built for its bones' pose ``locations`` (bytes) and the last base it hung from
    (bytes of the parent's world matrix) with the chain rebased there; ``rows`` index the bones'
    pose rows and ``parent`` is the first bone's parent (-1: none), both kept as ints and slices
    since every solve of the chain reads them."""
    locations: bytes
    chain: Chain
    rows: object
    parent: int
    parent_world: bytes = b""
    rebased: Chain = None


def chain_arrays(skeleton, pose, world, chain):
    """The solver's view of bones ``chain`` (root first): a Chain hanging from the root's parent.
    The chain is built and checked once (again when its bones' pose locations change) and kept
    in ``skeleton.solver_chains``; later solves only rebase it on the parent's frame, and reuse
    the last rebased chain (with what solvers cached on it) while that frame stays put, as it
    does for a dragged hand on a still body and in every case of a scripted solve."""
    key = tuple(chain)
    cached = skeleton.solver_chains.get(key)
    rows = bone_rows(chain) if cached is None else cached.rows
    locations = pose.locations[rows].tobytes()
    if cached is None or cached.locations != locations:
        cached = skeleton.solver_chains[key] = _CachedChain(
            locations, Chain(*_hanging_arrays(skeleton, pose, world, chain)), rows, int(skeleton.parents[chain[0]]))
    parent = cached.parent
    parent_world = world[parent].tobytes() if parent >= 0 else b"root"
    if cached.parent_world != parent_world:
        cached.rebased = cached.chain.rebased(_base(skeleton, world, chain[0]))
        cached.parent_world = parent_world
    return cached.rebased


def tree_arrays(skeleton, pose, world, bones):
    """The solver's view of ``bones`` (ascending, one connected subtree such as a union of
    overlapping chains, which always has a single top bone): a Tree hanging from its parent."""
    position = {bone: i for i, bone in enumerate(bones)}
    parents = [position.get(int(skeleton.parents[b]), -1) for b in bones]
    base, offsets, rest_rotations, lengths = _hanging_arrays(skeleton, pose, world, bones)
    return Tree(base, parents, offsets, rest_rotations, lengths)
