"""Forward kinematics of a bone hierarchy, compiled: the one body each kind of pose-to-world
update runs. ``update_world`` is the rig's (4x4 matrices, with locations and scales);
``pose_bones`` the solvers' kernels' (pose rotations and IK stretch only, on quaternions).

``update_world``: a bone's world matrix is ``world[parent] @ rest_local @ T(location) @
R(rotation) @ S(scale)``: scale is inherited, as Blender's default (Inherit Scale "Full") and glTF
have it, so any standard forward kinematics of a pose gives the same bones. Quaternions are xyzw;
one of zero length (or not finite) counts as no rotation. A child of a bone scaled to (nearly)
zero on an axis has no frame there: its axes stay finite (degenerate), never NaN.

``pose_bones`` is ``register_jitable``: CCD's and FABRIK's kernels compile it in, and DLS calls it
through ``pose_matrices``. It gives what a solver turns bones with: the frame each bone turns in
and its world rotation, head and tail. Its ``stretch`` is each bone's whole stretch, uniform as
Blender's IK stretch: a bone stretched by s has length s times its own and moves its children's
heads by s times their offsets. In the rig the same pose has the inherited scale s / (its
parent's s) on every axis (``stretch_scales``; the tests hold the two to the same poses).

Compiled with numba because the update runs for a few bones many times per solve and per frame:
numpy's per-call cost (about 1 us a call, some twenty calls) made a two-bone update 18 us where
the compiled loop takes under 1 us (bench/bench_solvers.py). ``cache=True`` keeps the machine code
beside this file, so only the first run after set-up compiles.
"""
from typing import NamedTuple

import numpy as np
from numba import njit
from numba.extending import register_jitable

from solvers import scalar as sc

TINY_SCALE = 1e-12  # a stretch below this has no inverse: ``stretch_scales`` leaves its children's as they are


@njit(cache=True)
def _rotation(x, y, z, w):
    """The rotation matrix of quaternion (``x``, ``y``, ``z``, ``w``) (any length; zero or NaN:
    identity), its nine entries by rows: scalars, so no bone of an update allocates one."""
    norm2 = x * x + y * y + z * z + w * w
    if not 1e-24 < norm2 < np.inf:  # zero, NaN or infinite: no rotation
        x, y, z, w, norm2 = 0.0, 0.0, 0.0, 1.0, 1.0
    s = 2.0 / norm2
    return (1.0 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y),
            s * (x * y + w * z), 1.0 - s * (x * x + z * z), s * (y * z - w * x),
            s * (x * z - w * y), s * (y * z + w * x), 1.0 - s * (x * x + y * y))


@njit(cache=True)
def update_world(rest_local, parents, bones, locations, rotations, scales, world):
    """Set ``world[b]`` (4, 4) for each of ``bones`` (int64, parents before children) from its
    parent's ``world`` and its pose: ``rest_local`` (N, 4, 4) the bone's rest matrix in its
    parent's frame, ``parents`` (N,) with -1 for roots, ``locations`` (N, 3) in the rest frame,
    ``rotations`` (N, 4) xyzw, ``scales`` (N, 3). Element by element, without views or
    temporaries: for the few bones of a limb their set-up cost as much as the arithmetic."""
    local = np.empty((3, 4))
    for b in bones:
        r00, r01, r02, r10, r11, r12, r20, r21, r22 = _rotation(rotations[b, 0], rotations[b, 1], rotations[b, 2],
                                                                 rotations[b, 3])
        s0, s1, s2 = scales[b, 0], scales[b, 1], scales[b, 2]
        x, y, z = locations[b, 0], locations[b, 1], locations[b, 2]
        for i in range(3):
            a0, a1, a2, a3 = rest_local[b, i, 0], rest_local[b, i, 1], rest_local[b, i, 2], rest_local[b, i, 3]
            local[i, 0] = (a0 * r00 + a1 * r10 + a2 * r20) * s0
            local[i, 1] = (a0 * r01 + a1 * r11 + a2 * r21) * s1
            local[i, 2] = (a0 * r02 + a1 * r12 + a2 * r22) * s2
            local[i, 3] = a0 * x + a1 * y + a2 * z + a3
        p = parents[b]
        for i in range(3):
            if p < 0:
                for j in range(4):
                    world[b, i, j] = local[i, j]
            else:
                for j in range(4):
                    world[b, i, j] = world[p, i, 0] * local[0, j] + world[p, i, 1] * local[1, j] + \
                        world[p, i, 2] * local[2, j]
                world[b, i, 3] += world[p, i, 3]
        world[b, 3, 0], world[b, 3, 1], world[b, 3, 2], world[b, 3, 3] = 0.0, 0.0, 0.0, 1.0


STALE = -1.0  # what a kept compiled solve answers, writing nothing, once ``hangs_as_built`` fails


@njit
def hangs_as_built(built, parent, bones, locations, world):
    """Whether the bones a compiled solve keeps rows for still hang as they did when the rows
    were built: ``built`` (``built_under``) holds the world matrix of ``bones``' ``parent`` (-1:
    none) and each bone's pose location then, and either moving moves the bones."""
    if parent >= 0:
        for i in range(4):
            for j in range(4):
                if world[parent, i, j] != built[4 * i + j]:
                    return False
    for b in range(len(bones)):
        for k in range(3):
            if locations[bones[b], k] != built[16 + 3 * b + k]:
                return False
    return True


def built_under(parent_world, locations):
    """``hangs_as_built``'s row: the parent's world matrix by rows (``parent_world`` (4, 4); None
    for a root: zeros, unread), then the bones' pose ``locations`` (m, 3)."""
    return np.concatenate([np.zeros(16) if parent_world is None else np.ravel(parent_world), np.ravel(locations)])


class BoneTree(NamedTuple):
    """A bone tree as ``pose_bones`` reads it: ``parents`` (n,) int64, parents before children, -1
    for a bone hanging from the base, whose rotation (``base_rotation``, a quaternion) and
    ``origin`` (3 floats) are rigid; per bone its rest rotation (``rest_rotations``, (n, 4)) and
    head (``offsets``, (n, 3)) in its parent's frame, and ``lengths`` (n,). A chain is the tree
    whose parents are i - 1. Arrays C-ordered and writeable: one compiled specialisation serves
    every tree."""
    parents: np.ndarray
    base_rotation: tuple
    origin: tuple
    rest_rotations: np.ndarray
    offsets: np.ndarray
    lengths: np.ndarray


def bone_tree(base, parents, offsets, rest_rotations, lengths):
    """The ``BoneTree`` of bones hanging from rigid ``base`` (4, 4), the rest as ``BoneTree``'s."""
    base = np.asarray(base, dtype=float)
    arrays = (np.require(np.asarray(a, dtype=d), requirements=("C", "W"))
              for a, d in ((parents, np.int64), (rest_rotations, float), (offsets, float), (lengths, float)))
    parents, rest, offsets, lengths = arrays
    return BoneTree(parents, tuple(sc.quat_from_matrix3(base[:3, :3].tolist())), tuple(base[:3, 3].tolist()), rest,
                    offsets, lengths)


@register_jitable
def pose_bones(bones, stretch, rotations, before, world, heads, tails):
    """Forward kinematics of ``bones`` for the solvers: a ``BoneTree``, or a solver's tables with
    its fields (a kernel reads fields by name, and one more record in its arguments costs every
    call), at pose ``rotations`` (n, 4; normalised on the way, as a solver's rounding leaves them
    nearly unit). Writes per bone the frame it turns in (its parent's world rotation, or the
    base's, times its rest rotation) to ``before`` (None: not wanted), its world rotation (that
    frame times its pose rotation) to ``world``, both quaternions (n, 4), its head and its tail to
    ``heads`` and ``tails`` (n, 3). ``stretch`` (n,) is each bone's whole uniform stretch, moving its
    tail and its children's heads (None: no stretch); frames stay rigid."""
    for i in range(len(bones.parents)):
        p = bones.parents[i]
        offset = (bones.offsets[i, 0], bones.offsets[i, 1], bones.offsets[i, 2])
        if p < 0:
            above, head = bones.base_rotation, bones.origin
        else:
            above = (world[p, 0], world[p, 1], world[p, 2], world[p, 3])
            head = (heads[p, 0], heads[p, 1], heads[p, 2])
            if stretch is not None:
                offset = sc.scale(offset, stretch[p])
        head = sc.add(head, sc.qrotate(above, offset))
        rest = bones.rest_rotations
        frame = sc.qmul(above, (rest[i, 0], rest[i, 1], rest[i, 2], rest[i, 3]))
        pose = sc.qnormalize((rotations[i, 0], rotations[i, 1], rotations[i, 2], rotations[i, 3]))
        rotation = sc.qmul(frame, pose)
        length = bones.lengths[i] if stretch is None else bones.lengths[i] * stretch[i]
        if before is not None:
            before[i, 0], before[i, 1], before[i, 2], before[i, 3] = frame
        world[i, 0], world[i, 1], world[i, 2], world[i, 3] = rotation
        heads[i, 0], heads[i, 1], heads[i, 2] = head
        tails[i, 0], tails[i, 1], tails[i, 2] = sc.add(head, sc.qrotate(rotation, (0.0, length, 0.0)))


@register_jitable
def put_rotation_matrix(rows, q):
    """Write the rotation matrix of quaternion ``q`` into ``rows`` (3, 3)."""
    m = sc.qmatrix((q[0], q[1], q[2], q[3]))
    for r in range(3):
        rows[r, 0], rows[r, 1], rows[r, 2] = m[r]


@register_jitable
def rotation_matrices(quats):
    """The rotation matrices (n, 3, 3) of quaternions ``quats`` (n, 4)."""
    matrices = np.empty((len(quats), 3, 3))
    for i in range(len(quats)):
        put_rotation_matrix(matrices[i], quats[i])
    return matrices


@njit(cache=True)
def pose_matrices(parents, base_rotation, origin, rest_rotations, offsets, lengths, stretch, rotations):
    """``pose_bones`` for a caller in Python, as one array (n, 8, 3) (numba returns each array
    slowly, ~0.3 us): per bone the rows of the frame it turns in (0-2) and of its world rotation
    (3-5), its head (6) and tail (7). The tree comes as a ``BoneTree``'s fields (``*bones``): numba
    types a record argument slowly too."""
    n = len(parents)
    bones = BoneTree(parents, base_rotation, origin, rest_rotations, offsets, lengths)
    before, world, posed = np.empty((n, 4)), np.empty((n, 4)), np.empty((n, 8, 3))
    pose_bones(bones, stretch, rotations, before, world, posed[:, 6], posed[:, 7])
    for i in range(n):
        put_rotation_matrix(posed[i, 0:3], before[i])
        put_rotation_matrix(posed[i, 3:6], world[i])
    return posed


def stretch_scales(parents, stretch):
    """The rig's inherited pose scales (n, 3) of a solver's ``stretch`` (n,), each bone's whole
    uniform stretch (``pose_bones``): s / (the parent's s) on every axis, Blender's IK stretch
    written as its pose bones inherit it. ``parents`` (n,) index ``stretch`` (-1: an unstretched
    parent); a parent stretch below ``TINY_SCALE`` counts as 1."""
    whole = [float(s) for s in stretch]  # plain floats: a limb's two bones cost less than numpy's calls
    above = [whole[p] if p >= 0 and abs(whole[p]) >= TINY_SCALE else 1.0 for p in parents]
    return np.array([(s / a,) * 3 for s, a in zip(whole, above)]).reshape(len(whole), 3)


def stretched_world(hierarchy, rotations, stretch=None):
    """``update_world`` of every bone of ``hierarchy`` (a ``solvers.chain.Hierarchy``) at pose
    ``rotations`` (n, 4) and a solver's whole ``stretch`` (n,) or None, written as inherited
    scales: the world matrices (n, 4, 4) and the rigid world rotations (n, 3, 3)."""
    n = len(hierarchy.parents)
    scales = np.ones((n, 3)) if stretch is None else stretch_scales(hierarchy.parents, stretch)
    world = np.empty((n, 4, 4))
    update_world(hierarchy.rest_local, hierarchy.parents, hierarchy.bones, hierarchy.locations,
                 np.array(rotations, dtype=float), scales, world)  # a copy: C order, writable
    rigid = world[:, :3, :3].copy()
    if stretch is not None:  # each bone's whole stretch is its world scale
        whole = np.asarray(stretch, dtype=float)
        rigid /= np.where(np.abs(whole) < TINY_SCALE, 1.0, whole)[:, None, None]
    return world, rigid


def warm():
    """Compile (or load from the cache) every kernel here for the argument types the rig passes."""
    world = np.empty((1, 4, 4))
    update_world(np.eye(4)[None], np.array([-1]), np.array([0]), np.zeros((1, 3)), np.array([[0.0, 0.0, 0.0, 1.0]]),
                 np.ones((1, 3)), world)
    bones = bone_tree(np.eye(4), [-1], [[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 1.0]], [1.0])
    pose_matrices(*bones, np.ones(1), np.array([[0.0, 0.0, 0.0, 1.0]]))
