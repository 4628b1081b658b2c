"""BVH (Biovision hierarchy) motion files as rigs with a motion clip, and poses written as BVH.

What a BVH joint means. Every joint's rest frame is aligned with the file's axes (BVH has no rest
rotations). At a frame, joint j sits in its parent joint's frame at ``T(t) @ R``: ``t`` is the
OFFSET with any position channels replacing its components (Blender's reading: position channels
are where the joint is, not an addition to the offset), ``R`` the product of the rotation
channels in the order CHANNELS lists them (intrinsic Euler angles, degrees). Most BVH files
are Y-up like us (see Axes).

How it becomes our rig. Each joint is a bone whose head is the joint. Its tail is its child's
head, or the average of its children's heads (children sitting on the head itself are left out),
or its End Site; a leaf without an End Site, or a joint whose children average back onto it,
continues its parent's direction (else +Y) for half its offset's length, at least 5% of the
figure. The roll keeps the bone's X axis as near the file's X axis as the bone allows (the Z axis
near Z for bones running roughly along X), so CMU-style knees and elbows bending about X bend about the
bone's X as in Blender rigs. With ``A`` a bone's rest rotation, the file's rotation ``R`` becomes
our pose rotation ``A^T R A`` (the same turn, said in the bone's rest frame) and a joint moved by
position channels gets the location ``A^T (t - offset)``.

Axes. BVH is Y-up like us, but some exporters write Z-up files (Blender's convention: up +Z,
the figure facing -Y). With ``up="z"`` such a file is turned -90 degrees about X on reading, file
(x, y, z) becoming our (x, z, -y), so the figure stands up +Y and faces +Z: offsets and position
channels are remapped, and the rotation channels become rotations about the remapped axes (a
turn about the file's Y is one about our -Z), which keeps every frame exact.

Scale channels (Xscale/Yscale/Zscale, rare) are read and ignored, as Blender's importer does: a
joint's scale along the file's axes is not a scale along its bone's axes, so it has no faithful
place in our pose. A warning names the joints whose scale values are not all 1.

Units. We work in metres. ``scale`` multiplies file units into metres; by default it is guessed:
among metres, centimetres, millimetres, inches and the CMU mocap unit (inches / 0.45, used by the
widely shared CMU BVH conversions), the one that makes the figure's largest extent closest to an
adult's 1.7 m (ratio-wise). A guess is reported in the warnings; pass ``scale`` to override.
"""
import math
import os

import numpy as np

from rig.formats.bvh_parse import POSITION_CHANNELS, ROTATION_CHANNELS, SCALE_CHANNELS, decode, parse
from rig.formats.document import BVH_UP_AXES, RigDocument
from rig.formats.jsonfields import FileFormatError
from rig.pose import Pose
from rig.rig import Rig
from rig.skeleton import MIN_BONE_LENGTH, Skeleton, roll_from_frame
from solvers.transforms import matrix3_to_quat, normalize, quat_conjugate, quat_from_euler, quat_mul

UNIT_GUESSES = (("metres", 1.0), ("centimetres", 0.01), ("millimetres", 0.001), ("inches", 0.0254),
                ("CMU mocap units (inches / 0.45)", 0.0254 / 0.45))
TYPICAL_FIGURE = 1.7
CONNECTED_TOLERANCE = 1e-6
ALONG_X = 0.9  # |cos| between a bone and the X axis above which its roll keeps Z instead of X


def guess_scale(extent):
    """(metres per file unit, unit name) for a figure ``extent`` file units across (see module doc)."""
    if not extent > 0:
        return 1.0, "metres"
    name, scale = min(UNIT_GUESSES, key=lambda u: abs(math.log(extent * u[1] / TYPICAL_FIGURE)))
    return scale, name


def _rest_heads(joints):
    """Rest joint positions (N, 3) in file units."""
    heads = np.zeros((len(joints), 3))
    for i, j in enumerate(joints):
        heads[i] = j.offset + (heads[j.parent] if j.parent >= 0 else 0.0)
    return heads


def _end_sites(joints):
    """End Site offsets (N, 3), NaN rows for joints without one."""
    return np.array([j.end_site if j.end_site is not None else np.full(3, np.nan) for j in joints])


def figure_extent(heads, end_sites):
    """Largest side of the bounding box of joints and End Sites."""
    points = np.concatenate([heads, (heads + end_sites)[~np.isnan(end_sites[:, 0])]])
    return float((points.max(axis=0) - points.min(axis=0)).max())


def _children(parents):
    children = [[] for _ in parents]
    for i, p in enumerate(parents):
        if p >= 0:
            children[p].append(i)
    return children


def joint_tails(parents, heads, offsets, end_sites, figure):
    """Tail positions (N, 3) (see the module doc for the rule)."""
    tails = np.empty_like(heads)
    for i, kids in enumerate(_children(parents)):
        away = [offsets[c] for c in kids if np.linalg.norm(offsets[c]) > MIN_BONE_LENGTH]
        reach = np.mean(away, axis=0) if away else (end_sites[i] if not kids else None)
        if reach is None or not np.linalg.norm(reach) >= MIN_BONE_LENGTH:  # also NaN: no End Site
            own = np.linalg.norm(offsets[i])
            length = max(0.5 * own, 0.05 * figure, 10 * MIN_BONE_LENGTH)
            reach = normalize(offsets[i] if own > MIN_BONE_LENGTH else np.array([0.0, 1.0, 0.0])) * length
        tails[i] = heads[i] + reach
    return tails


def x_keeping_roll(direction):
    """The roll whose bone frame (Blender's rule) has X nearest the world X axis, or, for bones
    within ~25 degrees of the X axis (where that is ill-defined), Z nearest world Z.
    Directions (..., 3) give rolls (...)."""
    d = normalize(direction)
    along_x = np.abs(d[..., :1]) >= ALONG_X
    x = np.where(along_x, np.cross(d, np.array([0.0, 0.0, 1.0]) - d * d[..., 2:3]),
                 np.array([1.0, 0.0, 0.0]) - d * d[..., :1])
    x = normalize(x)
    frame = np.zeros(d.shape[:-1] + (4, 4))
    frame[..., :3, 0], frame[..., :3, 1], frame[..., :3, 2] = x, d, np.cross(x, d)
    frame[..., 3, 3] = 1.0
    return roll_from_frame(frame)


def _unique_names(path, joints, warnings):
    names, seen = [], set()
    for j in joints:
        name, k = j.name, 1
        while name in seen:
            name, k = f"{j.name}.{k:03d}", k + 1
        if name != j.name:
            warnings.append(f"{path}: line {j.line}: joint name '{j.name}' is used twice; renamed '{name}'")
        seen.add(name)
        names.append(name)
    return names


def build_skeleton(data, scale, path="<bvh>"):
    """Our skeleton for parsed BVH joints, in metres (``scale`` metres per file unit)."""
    joints = data.joints
    parents = np.array([j.parent for j in joints])
    offsets = np.array([j.offset for j in joints]) * scale
    heads, end_sites = _rest_heads(joints) * scale, _end_sites(joints) * scale
    tails = joint_tails(parents, heads, offsets, end_sites, figure_extent(heads, end_sites))
    parent_tails = np.where((parents >= 0)[:, None], tails[parents], np.inf)
    connected = np.linalg.norm(heads - parent_tails, axis=1) < CONNECTED_TOLERANCE
    rolls = x_keeping_roll(tails - heads)
    return Skeleton.from_bones(_unique_names(path, joints, data.warnings), parents, heads, tails, rolls, connected)


def _rotation_groups(joints):
    """Joints grouped by their rotation channel axes ("ZXY", "XYZ", ...): {axes: (joint indices,
    (J, k) frame columns)}, so each group converts to quaternions in one call."""
    groups, column = {}, 0
    for i, j in enumerate(joints):
        rotation = [(c[0].upper(), column + k) for k, c in enumerate(j.channels) if c in ROTATION_CHANNELS]
        column += len(j.channels)
        if rotation:
            axes = "".join(a for a, _ in rotation)
            groups.setdefault(axes, ([], []))
            groups[axes][0].append(i)
            groups[axes][1].append([c for _, c in rotation])
    return {axes: (np.array(idx), np.array(cols)) for axes, (idx, cols) in groups.items()}


def _positions(data, scale):
    """{joint index: (F, 3) joint positions in the parent frame, metres} for joints with position
    channels: the OFFSET with each present channel replacing its component."""
    out, column = {}, 0
    for i, j in enumerate(data.joints):
        for k, c in enumerate(j.channels):
            if c in POSITION_CHANNELS:
                t = out.setdefault(i, np.tile(j.offset * scale, (len(data.frames), 1)))
                t[:, POSITION_CHANNELS.index(c)] = data.frames[:, column + k] * scale
        column += len(j.channels)
    return out


def motion_poses(data, skeleton, scale):
    """One Pose per frame: a BVH rotation R becomes A^T R A, a position t becomes A^T (t - offset)."""
    count, n = len(data.frames), len(skeleton)
    rest = skeleton.rest_world[:, :3, :3]
    rest_q = matrix3_to_quat(rest)
    rotations = np.tile(np.array([0.0, 0.0, 0.0, 1.0]), (count, n, 1))
    locations = np.zeros((count, n, 3))
    for axes, (idx, cols) in _rotation_groups(data.joints).items():
        turn = quat_from_euler(np.radians(data.frames[:, cols]), axes)
        rotations[:, idx] = quat_mul(quat_conjugate(rest_q[idx]), quat_mul(turn, rest_q[idx]))
    for i, t in _positions(data, scale).items():
        locations[:, i] = (t - data.joints[i].offset * scale) @ rest[i]
    return [Pose(rotations[f], locations[f], np.ones((n, 3))) for f in range(count)]


# Z-up to Y-up, -90 degrees about X: each file channel becomes (our channel, sign).
Z_UP_CHANNELS = {"x": ("x", 1.0), "y": ("z", -1.0), "z": ("y", 1.0)}


def _z_up_vector(v):
    return None if v is None else np.array([v[0], v[2], -v[1]])


def z_up_to_y_up(data):
    """``data`` (parsed BVH, Z-up) said in Y-up axes (module doc): offsets, End Sites and channel
    names remapped, the columns of channels that now point the other way negated. In place."""
    column, flip = 0, []
    for j in data.joints:
        j.offset, j.end_site = _z_up_vector(j.offset), _z_up_vector(j.end_site)
        channels = []
        for c in j.channels:
            axis, sign = Z_UP_CHANNELS[c[0]]
            if c in SCALE_CHANNELS:
                sign = 1.0  # a scale factor has no direction
            channels.append(axis + c[1:])
            if sign < 0:
                flip.append(column)
            column += 1
        j.channels = tuple(channels)
    data.frames[:, flip] *= -1.0
    return data


def _warn_scale_channels(data, path):
    """Scale channels are ignored (module doc); say so where they hold anything but 1."""
    column, scaled = 0, []
    for j in data.joints:
        columns = [column + k for k, c in enumerate(j.channels) if c in SCALE_CHANNELS]
        if columns and np.any(np.abs(data.frames[:, columns] - 1.0) > 1e-9):
            scaled.append(j.name)
        column += len(j.channels)
    if scaled:
        data.warnings.append(f"{path}: scale channels of {', '.join(scaled[:5])}"
                             f"{' and others' if len(scaled) > 5 else ''} are not 1; scale channels are "
                             "ignored (the pose keeps scale 1, as in Blender)")


def bvh_document(data, path="<bvh>", scale=None, frame=0, up="y"):
    """A RigDocument for parsed BVH: the rig, clip "motion" (a Pose per frame; the rest pose if the
    file has no frames), ``pose`` = frame ``frame`` (negative counts from the end). ``up`` is the
    file's up axis, "y" or "z" (see the module doc)."""
    if up not in BVH_UP_AXES:
        raise ValueError(f"the BVH up axis must be one of {', '.join(BVH_UP_AXES)}, got {up!r}")
    if up == "z":
        data = z_up_to_y_up(data)
    _warn_scale_channels(data, path)
    warnings = data.warnings
    if scale is None:
        extent = figure_extent(_rest_heads(data.joints), _end_sites(data.joints))
        scale, unit = guess_scale(extent)
        warnings.append(f"{path}: units guessed as {unit} (figure {extent:.4g} units across); "
                        "pass a scale to override")
    elif not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive number of metres per file unit, got {scale}")
    skeleton = build_skeleton(data, scale, path)
    poses = motion_poses(data, skeleton, scale) or [Pose.rest(len(skeleton))]
    if not -len(poses) <= frame < len(poses):
        raise ValueError(f"frame {frame} is out of range: the motion has {len(poses)} frames")
    name = os.path.splitext(os.path.basename(str(path)))[0] or "bvh"
    return RigDocument(Rig(name, skeleton), str(path), warnings, {"motion": poses}, pose=poses[frame],
                       frame_times={"motion": data.frame_time})


# Refused up front: a 200 MB file (about 280,000 frames of a 31-joint figure) would take over 2 GB
# as poses. 64 MB still holds an hour of 120 fps capture.
MAX_BVH_BYTES = 64 << 20


def load_bvh(path, scale=None, frame=0, up="y"):
    """Read a BVH file as a RigDocument (see ``bvh_document``); FileFormatError if unreadable."""
    warnings = []
    try:
        size = os.path.getsize(path)
        if size > MAX_BVH_BYTES:
            raise FileFormatError(path, None, f"a BVH file of at most {MAX_BVH_BYTES >> 20} MB (this one has "
                                  f"{size / 2 ** 20:.0f} MB; every frame becomes a pose held in memory, so cut "
                                  "the motion into shorter clips)")
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise FileFormatError(path, None, "a readable file") from e
    data = parse(decode(path, raw, warnings), str(path))
    data.warnings[:0] = warnings
    return bvh_document(data, path, scale, frame, up)
