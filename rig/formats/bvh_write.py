"""Writing poses as BVH: joints at our bone heads, so reading the file back puts every joint where
our pose put it (to float precision).

Our skeletons may have bones that are not connected, rest frames not aligned with the world and
scaled pose bones; BVH has none of these. Each bone becomes a joint at its head with a
world-aligned rest frame: OFFSET is the head's rest position relative to the parent's head, and
per frame the joint's rotation is the bone's world rotation (scale removed) times the inverse of
its rest rotation, said relative to the parent joint. Roots get position channels; any other
joint gets them only where the pose moves it off its OFFSET (pose locations, IK stretch).
Leaf bones get an End Site at their tail. Written in centimetres by default (``scale`` = file
units per metre), Y up, one ROOT block per root bone.

What BVH cannot carry is named in the warnings: a bone's tail where the file's joints do not put
it (a reader takes a bone's tail at its child joint, or the average of several, as
``rig.formats.bvh`` does), and bones whose pose scales them (a BVH joint has no scale: such a
bone comes back at its rest size).
"""
import re

import numpy as np

from rig.formats.atomic import save_text_atomic
from rig.formats.bvh import figure_extent, joint_tails
from rig.formats.jsonfields import FileFormatError
from rig.pose import Pose, world_matrices
from solvers.transforms import euler_from_matrix3

ROTATION_ORDERS = ("ZXY", "XYZ")
MOVE_TOLERANCE = 1e-9  # metres: a joint this close to its OFFSET in every frame needs no position channels
TAIL_TOLERANCE = 1e-6  # metres: a tail read back this close to ours is where we had it
SCALE_TOLERANCE = 1e-6  # a bone whose world axes are this close to unit length is not scaled
NAMED = 12  # bones a warning names before it counts the rest


def _rigid(world):
    """World rotations (N, 3, 3) without scale or shear (nearest rotation, by SVD)."""
    u, _, vt = np.linalg.svd(world[..., :3, :3])
    return u @ vt


def _joint_frames(world, skeleton):
    """Per frame and bone: the BVH joint's world rotation (F, N, 3, 3) and position (F, N, 3),
    from the bones' world matrices ``world`` (F, N, 4, 4)."""
    rotations = _rigid(world) @ np.swapaxes(skeleton.rest_world[:, :3, :3], -1, -2)
    return rotations, world[..., :3, 3]


def _bone_list(skeleton, bones):
    names = [skeleton.names[i] for i in bones]
    return ", ".join(names[:NAMED]) + (f" and {len(names) - NAMED} more" if len(names) > NAMED else "")


def _losses(skeleton, world):
    """Warnings naming the bones whose tails or scale the file cannot carry (module doc), for the
    bones' world matrices ``world`` (F, N, 4, 4)."""
    heads, tails = skeleton.rest_heads, skeleton.rest_tails
    leaves = np.array([not len(skeleton.children(i)) for i in range(len(skeleton))], dtype=bool)
    end_sites = np.where(leaves[:, None], tails - heads, np.nan)
    read = joint_tails(skeleton.parents, heads, _offsets(skeleton), end_sites, figure_extent(heads, end_sites))
    moved = np.flatnonzero(np.linalg.norm(read - tails, axis=1) > TAIL_TOLERANCE)
    axes = np.linalg.norm(world[..., :3, :3], axis=-2)
    scaled = np.flatnonzero(np.abs(axes - 1.0).max(axis=(0, 2)) > SCALE_TOLERANCE)
    warnings = []
    if len(moved):
        warnings.append(f"BVH has joints, not tails: the tails of {_bone_list(skeleton, moved)} read back where "
                        "the joints put them (at the child joint, or the average of several), not where they are")
    if len(scaled):
        warnings.append(f"BVH has no scale: {_bone_list(skeleton, scaled)} (scaled or stretched in the pose) "
                        "read back at their rest size")
    return warnings


def _local_channels(skeleton, rotations, positions):
    """Joint rotations and positions relative to the parent joint, (F, N, 3, 3) and (F, N, 3)."""
    parents = skeleton.parents
    has_parent = parents >= 0
    parent_rot = np.where(has_parent[None, :, None, None], rotations[:, parents], np.eye(3))
    parent_pos = np.where(has_parent[None, :, None], positions[:, parents], 0.0)
    local_rot = np.swapaxes(parent_rot, -1, -2) @ rotations
    local_pos = np.einsum("fnji,fnj->fni", parent_rot, positions - parent_pos)
    return local_rot, local_pos


def _offsets(skeleton):
    heads = skeleton.rest_heads
    return heads - np.where((skeleton.parents >= 0)[:, None], heads[skeleton.parents], 0.0)


def _bvh_names(names):
    """Names BVH can hold (no spaces or braces), still unique; returns (names, warnings)."""
    out, warnings, seen = [], [], set()
    for name in names:
        clean = re.sub(r"[\s{}]+", "_", name) or "bone"
        candidate, k = clean, 1
        while candidate in seen:
            candidate, k = f"{clean}.{k:03d}", k + 1
        if candidate != name:
            warnings.append(f"bone '{name}' is written as '{candidate}'")
        seen.add(candidate)
        out.append(candidate)
    return out, warnings


def _number(v):
    return f"{v:.10g}"


def _vector(v):
    return " ".join(_number(x) for x in v)


# Whitespace means nothing in BVH; indenting past this would make a deep chain's file grow with
# the square of its depth (a 10,000-bone chain: 50 MB of tabs).
MAX_INDENT = 16


def _hierarchy(skeleton, names, moved, scale, order):
    """HIERARCHY lines and the bone index behind each joint in channel order (depth first)."""
    children = [skeleton.children(i) for i in range(len(names))]
    offsets, tails = _offsets(skeleton), skeleton.rest_tails - skeleton.rest_heads
    rotation = " ".join(f"{axis}rotation" for axis in order)
    lines, order_out = ["HIERARCHY"], []
    stack = [(i, 0) for i in reversed(np.flatnonzero(skeleton.parents < 0))]
    while stack:
        i, depth = stack.pop()
        pad = "\t" * min(depth, MAX_INDENT)
        if i < 0:  # marker: close bone ~i
            lines.append(pad + "}")
            continue
        order_out.append(i)
        lines += [f"{pad}{'JOINT' if skeleton.parents[i] >= 0 else 'ROOT'} {names[i]}", pad + "{",
                  f"{pad}\tOFFSET {_vector(offsets[i] * scale)}"]
        lines.append(f"{pad}\tCHANNELS 6 Xposition Yposition Zposition {rotation}" if moved[i]
                     else f"{pad}\tCHANNELS 3 {rotation}")
        if not len(children[i]):
            lines += [f"{pad}\tEnd Site", f"{pad}\t{{", f"{pad}\t\tOFFSET {_vector(tails[i] * scale)}", f"{pad}\t}}"]
        stack.append((~i, depth))
        stack += [(c, depth + 1) for c in reversed(children[i])]
    return lines, order_out


def bvh_text(skeleton, poses, frame_time=1.0 / 30.0, scale=100.0, order="ZXY"):
    """BVH text for ``poses`` (a Pose or a list, one frame each) of ``skeleton``; returns
    (text, warnings). ``scale`` is file units per metre, ``order`` the rotation channel order."""
    poses = [poses] if isinstance(poses, Pose) else list(poses)
    if order not in ROTATION_ORDERS:
        raise ValueError(f"rotation order must be one of {', '.join(ROTATION_ORDERS)}, got '{order}'")
    if not poses or not all(p.is_finite() for p in poses):
        raise ValueError("need at least one pose, all finite")
    if not (np.isfinite(scale) and scale > 0 and np.isfinite(frame_time) and frame_time > 0):
        raise ValueError("scale and frame time must be positive numbers")
    names, warnings = _bvh_names(skeleton.names)
    world = np.stack([world_matrices(skeleton, pose) for pose in poses])
    warnings += _losses(skeleton, world)
    rotations, positions = _local_channels(skeleton, *_joint_frames(world, skeleton))
    if not (np.isfinite(rotations).all() and np.isfinite(positions * scale).all()):
        raise ValueError("the posed joints are not finite (scales multiplied down the hierarchy overflow)")
    offsets = _offsets(skeleton)
    moved = (skeleton.parents < 0) | (np.abs(positions - offsets).max(axis=(0, 2)) > MOVE_TOLERANCE)
    lines, joint_order = _hierarchy(skeleton, names, moved, scale, order)
    angles = np.degrees(euler_from_matrix3(rotations, order))
    lines += ["MOTION", f"Frames: {len(poses)}", f"Frame Time: {_number(frame_time)}"]
    for f in range(len(poses)):
        row = []
        for i in joint_order:
            if moved[i]:
                row.append(_vector(positions[f, i] * scale))
            row.append(_vector(angles[f, i]))
        lines.append(" ".join(row))
    return "\n".join(lines) + "\n", warnings


def save_bvh(path, skeleton, poses, frame_time=1.0 / 30.0, scale=100.0, order="ZXY"):
    """Write ``poses`` as a BVH file (see ``bvh_text``); returns the warnings."""
    try:
        text, warnings = bvh_text(skeleton, poses, frame_time, scale, order)
    except ValueError as error:
        raise FileFormatError(path, None, f"a rig and poses that can be written ({error})") from None
    save_text_atomic(path, text, suffix=".bvh")
    return warnings
