"""Whole-pose operations: clear channels, mirror left <-> right (the pins with the pose).

Mirroring reflects the pose across the character's X = 0 plane (characters face +Z, their left
``.L`` is +X). A bone's mirror partner is found by name (``.L``/``.R``, ``_l``/``_r``,
``Left``/``Right``...); bones without a partner mirror onto themselves. For rigs whose rest pose
is itself symmetric (partner heads, tails and rolls mirrored), the mirrored pose puts every bone
where the reflection of its partner was.
"""
import re

import numpy as np

from rig.pins import Pin
from rig.pose import Pose
from solvers.transforms import IDENTITY_QUAT, matrix3_to_quat, quat_to_matrix3

REFLECT_X = np.diag([-1.0, 1.0, 1.0])

_SIDE_PAIRS = {"L": "R", "l": "r", "Left": "Right", "left": "right", "LEFT": "RIGHT"}
_SIDE_PAIRS.update({b: a for a, b in _SIDE_PAIRS.items()})
# A side marker stands apart from letters ("hand.L", "thigh_l", "left_arm"), except capitalised
# "Left"/"Right", which may open a camel-case word ("mixamorig:LeftHand"); so "Leg" is no side.
_SIDE = re.compile(r"(?<![A-Za-z])([LRlr]|left|right|LEFT|RIGHT)(?![A-Za-z])|(Left|Right)(?![a-z])")


def mirror_name(name):
    """The name of ``name``'s mirror partner ("hand.L" -> "hand.R", "LeftHand" -> "RightHand"),
    or ``name`` itself when it names no side. Only the last side marker is swapped."""
    matches = list(_SIDE.finditer(name))
    if not matches:
        return name
    match = matches[-1]
    group = 1 if match.group(1) is not None else 2
    return name[:match.start(group)] + _SIDE_PAIRS[match.group(group)] + name[match.end(group):]


def mirror_map(skeleton):
    """(N,) int array: the index of each bone's mirror partner (itself when it has none)."""
    return np.array([skeleton.index.get(mirror_name(n), i) for i, n in enumerate(skeleton.names)], dtype=np.int64)


def _local_reflections(skeleton, partners):
    """(N, 3, 3) per bone: its partner's rest frame expressed through the reflected own frame,
    ``D_i = R_i^T S R_partner``. For mirrored rolls this is a reflection of the bone's local
    axes (diag(-1, 1, 1) for Blender's roll rule), which carries local channels to the partner."""
    rest = skeleton.rest_world[:, :3, :3]
    return np.transpose(rest, (0, 2, 1)) @ REFLECT_X @ rest[partners]


def mirror_pose(skeleton, pose):
    """The left <-> right mirror image of ``pose`` (a new Pose; ``pose`` is not changed).

    Each partner j of bone i takes ``R_j = D_i^T R_i D_i`` (rotation), ``t_j = D_i^T t_i``
    (location) and i's scale with its axes permuted by ``D_i``. With a symmetric rest pose the
    world frame of j becomes ``S W_i D_i``: the reflection S of i's, re-expressed in j's axes.
    """
    partners = mirror_map(skeleton)
    reflect = _local_reflections(skeleton, partners)
    flip = np.transpose(reflect, (0, 2, 1))
    rotations = matrix3_to_quat(flip @ quat_to_matrix3(pose.rotations) @ reflect)
    # matrix3_to_quat picks either sign; keep w >= 0 like the channels users see.
    rotations = np.where(rotations[:, 3:4] < 0.0, -rotations, rotations)
    locations = np.einsum("nij,nj->ni", flip, pose.locations)
    scales = np.einsum("nij,nj->ni", np.abs(flip), pose.scales)
    mirrored = Pose.rest(len(skeleton))
    mirrored.rotations[partners] = rotations
    mirrored.locations[partners] = locations
    mirrored.scales[partners] = scales
    return mirrored


def mirror_pins(skeleton, pins):
    """The left <-> right mirror image of ``pins`` ({bone name: ``rig.pins.Pin``}) to go with
    ``mirror_pose``'s: each pin goes to its bone's partner, its position reflected and its
    rotation ``S W_i D_i`` as that bone's world frame is."""
    partners = mirror_map(skeleton)
    reflect = _local_reflections(skeleton, partners)
    mirrored = {}
    for name, pin in pins.items():
        bone = skeleton.index[name]
        rotation = None if pin.rotation is None else \
            tuple(float(v) for v in matrix3_to_quat(REFLECT_X @ quat_to_matrix3(np.asarray(pin.rotation)) @ reflect[bone]))
        mirrored[skeleton.names[partners[bone]]] = Pin(tuple(float(v) for v in REFLECT_X @ pin.position), rotation)
    return mirrored


def clear_channels(pose, bones, rotation=False, location=False, scale=False):
    """A copy of ``pose`` with the chosen channels of bone indices ``bones`` back at rest
    (Blender's Alt+R, Alt+G, Alt+S)."""
    cleared = pose.copy()
    bones = np.asarray(bones, dtype=np.int64)
    if rotation:
        cleared.rotations[bones] = IDENTITY_QUAT
    if location:
        cleared.locations[bones] = 0.0
    if scale:
        cleared.scales[bones] = 1.0
    return cleared
