"""Keys: an action of keyed bone channels over frames (Blender's action and its F-curves).

An ``Action`` holds, per bone and channel path (``PATHS``: rotation xyzw, location, scale, as the
pose holds them), a ``Channel`` of keys: frames (strictly increasing, may be fractional), values
and, per key, the interpolation of the segment that starts at it (``INTERPOLATIONS``, as
Blender's key interpolation governs the curve up to the next key). Channels the action does not
key take the action's ``base`` pose, so evaluating a frame never depends on what was shown before:
the same frame gives the same pose however it was reached. IK handles are bones, so their
location channels are keyed like any other. ``PIN`` keys a bone's pin (``rig.pins``): whether it
is on, whether it holds the rotation, and its target; ``rig.pin_keys`` keys and evaluates it (no
pose channel either: ``pose_at`` leaves it).
``SWITCH`` keys, on an IK constraint's bone, the constraint's influence: the limb's IK/FK switch
(``rig.snap``). It is no pose channel (``pose_at`` leaves it to ``switches_at``); the app keys
it constant, and interpolation edits leave it so: a switch happens at its key, never blended in
over the frames before it.

Actions and channels are values: every edit returns a new Action and shares the channels it did
not touch (undo keeps references, not copies, of a 4,511-frame clip). Their arrays are read-only.

Interpolation: "constant" holds the key's value; "linear" lerps positions and slerps rotations
along the shorter arc (hemisphere-corrected, so a key at 170 degrees then one at 190 turns 20,
never 340); "smooth" runs positions and scales along a Catmull-Rom spline through the keys and
eases rotations along that same short arc (smoothstep in time), so a 180-degree turn never flips.
"""
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from rig.pose import Pose
from solvers.transforms import quat_normalize, quat_slerp

SWITCH = "ik_influence"
PIN = "pin"
PATHS = {"rotation": 4, "location": 3, "scale": 3, SWITCH: 1, PIN: 9}  # a pin: on, holds rotation, position, rotation
QUATERNIONS = {"rotation": slice(0, 4), PIN: slice(5, 9)}  # where a path's key holds a unit quaternion
INTERPOLATIONS = ("constant", "linear", "smooth")
CONSTANT, LINEAR, SMOOTH = range(3)
DEFAULT_FPS = 24.0  # Blender's default scene rate
MAX_FPS = 1000.0
MAX_FRAME = 1_000_000
UNIT_TOLERANCE = 1e-12  # a key quaternion this close to unit length is stored as given
FRAME_TOLERANCE = 1e-6  # frames closer than this are the same frame (keys read from seconds)


def _frozen(array, dtype=float):
    array = np.array(array, dtype=dtype)
    array.setflags(write=False)
    return array


@dataclass(eq=False, frozen=True)
class Channel:
    """One keyed property of one bone: ``frames`` (K,), ``values`` (K, PATHS[path]),
    ``interpolations`` (K,) indices into INTERPOLATIONS. Compared by identity (see module doc)."""
    bone: str
    path: str
    frames: np.ndarray
    values: np.ndarray
    interpolations: np.ndarray

    @classmethod
    def of(cls, bone, path, frames, values, interpolations):
        values = np.array(values, dtype=float).reshape(len(frames), PATHS[path])
        part = QUATERNIONS.get(path)
        if part is not None:  # unit quaternions kept bit for bit, so a saved action reads back exactly
            quaternions = values[:, part]
            norms = np.linalg.norm(quaternions, axis=1, keepdims=True)
            values[:, part] = np.where(np.abs(norms - 1.0) > UNIT_TOLERANCE, quat_normalize(quaternions), quaternions)
        return cls(bone, path, _frozen(frames), _frozen(values), _frozen(interpolations, np.int8))

    def index_of(self, frame):
        """The key at ``frame`` (within FRAME_TOLERANCE), or None."""
        k = int(np.searchsorted(self.frames, frame - FRAME_TOLERANCE))
        return k if k < len(self.frames) and abs(self.frames[k] - frame) <= FRAME_TOLERANCE else None


@dataclass(frozen=True)
class Action:
    """Keyed channels by (bone name, path), played at ``fps`` frames a second from ``start`` to
    ``end`` (frames, inclusive), over ``base`` (the Pose unkeyed channels take)."""
    name: str
    fps: float
    start: int
    end: int
    base: Pose
    channels: dict = field(default_factory=dict)

    @classmethod
    def empty(cls, base, name="action", fps=DEFAULT_FPS, start=0, end=100):
        return cls(name, fps, start, end, base.copy())

    @cached_property
    def key_frames(self):
        """Every frame that holds a key of any channel, ascending (the timeline's markers)."""
        if not self.channels:
            return np.zeros(0)
        frames = np.unique(np.concatenate([c.frames for c in self.channels.values()]))
        keep = np.concatenate([[True], np.diff(frames) > FRAME_TOLERANCE])
        return frames[keep]

    def has_keys(self):
        return bool(self.channels)

    def seconds(self, frame):
        """When ``frame`` plays, from frame 0."""
        return frame / self.fps

    def interpolation_at(self, frame):
        """The interpolation of the keys at ``frame`` (the first channel's), or None without keys there."""
        for channel in self.channels.values():
            k = channel.index_of(frame)
            if k is not None:
                return INTERPOLATIONS[channel.interpolations[k]]
        return None

    def neighbour_key(self, frame, direction):
        """The nearest key frame after (``direction`` 1) or before (-1) ``frame``, or None."""
        frames = self.key_frames
        if direction > 0:
            later = frames[frames > frame + FRAME_TOLERANCE]
            return float(later[0]) if len(later) else None
        earlier = frames[frames < frame - FRAME_TOLERANCE]
        return float(earlier[-1]) if len(earlier) else None

    def _plan(self, skeleton):
        """Per path: the channels on bones of ``skeleton`` and those bones' rows, cached per skeleton
        (a skeleton is never edited in place)."""
        plans = self.__dict__.setdefault("_plans", {})
        plan = plans.get(id(skeleton))
        if plan is None or plan[0] is not skeleton:
            groups = {path: ([], []) for path in PATHS_ATTRIBUTE}
            for (bone, path), channel in self.channels.items():
                if bone in skeleton.index and path in groups:
                    groups[path][0].append(channel)
                    groups[path][1].append(skeleton.index[bone])
            plan = plans[id(skeleton)] = (skeleton, groups)
        return plan[1]

    def pose_at(self, frame, skeleton):
        """The keyed pose at ``frame`` (any float) for ``skeleton``'s bones: the base, its missing
        bones at rest, every keyed channel sampled."""
        pose = sized_pose(self.base, len(skeleton))
        for path, (channels, rows) in self._plan(skeleton).items():
            if channels:
                getattr(pose, PATHS_ATTRIBUTE[path])[rows] = sample(channels, path, frame)
        return pose


    def switches_at(self, frame):
        """{IK constraint bone: influence} the keyed IK/FK switches give at ``frame``."""
        channels = [c for c in self.channels.values() if c.path == SWITCH]
        if not channels:
            return {}
        return {c.bone: float(v[0]) for c, v in zip(channels, sample(channels, SWITCH, frame))}


PATHS_ATTRIBUTE = {"rotation": "rotations", "location": "locations", "scale": "scales"}


def sized_pose(pose, count):
    """A copy of ``pose`` with ``count`` bones: cut, or rest channels for bones past its last."""
    rest = Pose.rest(count)
    n = min(count, len(pose.rotations))
    rest.rotations[:n], rest.locations[:n], rest.scales[:n] = pose.rotations[:n], pose.locations[:n], pose.scales[:n]
    return rest


def segment(channel, frame):
    """(k, u): the segment from key k that ``frame`` falls in and how far along it (0..1); u is 0
    before the first key and after the last."""
    frames = channel.frames
    k = int(np.searchsorted(frames, frame, side="right")) - 1
    if k < 0:
        return 0, 0.0
    if k >= len(frames) - 1:
        return len(frames) - 1, 0.0
    return k, (frame - frames[k]) / (frames[k + 1] - frames[k])


def eased(u, mode):
    """How far along a segment at ``u`` a rotation has turned: smoothstep for SMOOTH keys."""
    return u * u * (3.0 - 2.0 * u) if mode == SMOOTH else u


def sample(channels, path, frame):
    """The values (C, PATHS[path]) of ``channels`` (all on ``path``) at ``frame``."""
    count = len(channels)
    ks, us, modes = np.empty(count, dtype=int), np.empty(count), np.empty(count, dtype=int)
    for i, channel in enumerate(channels):
        ks[i], us[i] = segment(channel, frame)
        modes[i] = channel.interpolations[ks[i]]
    us = np.where(modes == CONSTANT, 0.0, us)
    a = np.array([c.values[k] for c, k in zip(channels, ks)])
    b = np.array([c.values[min(k + 1, len(c.frames) - 1)] for c, k in zip(channels, ks)])
    smooth = modes == SMOOTH
    if path == "rotation":
        turned = np.where(smooth, eased(us, SMOOTH), us)
        return np.where((turned == 0.0)[:, None], a, quat_slerp(a, b, turned))  # on a key: its value, bit for bit
    linear = a + (b - a) * us[:, None]
    if not smooth.any():
        return linear
    return np.where(smooth[:, None], _catmull_rom(channels, ks, us, a, b), linear)


def tangent(frames, values, lo, hi):
    """Catmull-Rom's slope (value per frame) at a key between its neighbours ``lo`` and ``hi``
    (the key itself at an end, one-sided)."""
    return (values[hi] - values[lo]) / (frames[hi] - frames[lo]) if hi > lo else np.zeros(values.shape[1:])


def hermite(u, span, a, b, slope_a, slope_b):
    """The cubic from ``a`` to ``b`` over ``span`` frames with those slopes, at ``u`` (0..1)."""
    h00, h10, h01, h11 = 2 * u**3 - 3 * u**2 + 1, u**3 - 2 * u**2 + u, -2 * u**3 + 3 * u**2, u**3 - u**2
    return h00 * a + h10 * span * slope_a + h01 * b + h11 * span * slope_b


def _catmull_rom(channels, ks, us, a, b):
    out = np.empty_like(a)
    for i, (channel, k, u) in enumerate(zip(channels, ks, us)):
        frames, values, last = channel.frames, channel.values, len(channel.frames) - 1
        if k + 1 > last:
            out[i] = a[i]
            continue
        slopes = [tangent(frames, values, max(j - 1, 0), min(j + 1, last)) for j in (k, k + 1)]
        out[i] = hermite(u, frames[k + 1] - frames[k], a[i], b[i], *slopes)
    return out


# Edits: each returns a new Action --------------------------------------------------------------
def _with_channels(action, channels):
    return replace(action, channels=channels)


def _insert(channel, bone, path, frame, value, interpolation):
    """``channel`` (or a new one when None) with the key at ``frame`` set to ``value``."""
    if channel is None:
        return Channel.of(bone, path, [frame], [value], [interpolation])
    k = channel.index_of(frame)
    frames, values, modes = channel.frames.copy(), channel.values.copy(), channel.interpolations.copy()
    if k is not None:
        values[k], modes[k] = value, interpolation
        return Channel.of(bone, path, frames, values, modes)
    k = int(np.searchsorted(frames, frame))
    return Channel.of(bone, path, np.insert(frames, k, frame), np.insert(values, k, value, axis=0),
                      np.insert(modes, k, interpolation))


def with_key_values(action, values, frame, interpolation="linear"):
    """``action`` with each channel of ``values`` ({(bone name, path): value}) keyed at ``frame``;
    an existing key there is replaced, keeping its interpolation."""
    channels = dict(action.channels)
    for (name, path), value in values.items():
        channel = channels.get((name, path))
        k = None if channel is None else channel.index_of(frame)
        mode = INTERPOLATIONS.index(interpolation) if k is None else int(channel.interpolations[k])
        channels[(name, path)] = _insert(channel, name, path, float(frame), value, mode)
    return _with_channels(action, channels)


def with_keys(action, pose, skeleton, bones, frame, interpolation="linear"):
    """``action`` with every pose channel of ``bones`` (indices into ``skeleton``) keyed at
    ``frame`` to its value in ``pose`` (``with_key_values``)."""
    values = {(skeleton.names[bone], path): getattr(pose, attribute)[bone]
              for bone in bones for path, attribute in PATHS_ATTRIBUTE.items()}
    return with_key_values(action, values, frame, interpolation)


def with_switch_key(action, bone, frame, influence):
    """``action`` with the IK/FK switch of the constraint on ``bone`` keyed at ``frame`` (constant)."""
    channels = dict(action.channels)
    channels[(bone, SWITCH)] = _insert(channels.get((bone, SWITCH)), bone, SWITCH, float(frame), [influence], CONSTANT)
    return _with_channels(action, channels)


def _frames_mask(channel, frames):
    frames = np.asarray(sorted(frames), dtype=float)
    if not len(frames):
        return np.zeros(len(channel.frames), dtype=bool)
    nearest = np.clip(np.searchsorted(frames, channel.frames), 0, len(frames) - 1)
    below = np.clip(nearest - 1, 0, len(frames) - 1)
    return np.minimum(np.abs(frames[nearest] - channel.frames), np.abs(frames[below] - channel.frames)) <= FRAME_TOLERANCE


def without_keys(action, frames, bones=None):
    """``action`` without any key at ``frames`` (on ``bones``, names, when given); channels left
    with no key are dropped."""
    channels = {}
    for name, channel in action.channels.items():
        keep = ~_frames_mask(channel, frames) if bones is None or channel.bone in bones else True
        keep = np.broadcast_to(keep, channel.frames.shape)
        if keep.all():
            channels[name] = channel
        elif keep.any():
            channels[name] = Channel.of(channel.bone, channel.path, channel.frames[keep], channel.values[keep],
                                        channel.interpolations[keep])
    return _with_channels(action, channels)


def moved_keys(action, frames, delta):
    """``action`` with the keys at ``frames`` moved by ``delta`` frames; a key they land on is
    replaced (Blender's behaviour when keys are dragged over others)."""
    if not delta:
        return action
    channels = {}
    for name, channel in action.channels.items():
        moving = _frames_mask(channel, frames)
        if not moving.any():
            channels[name] = channel
            continue
        new_frames = np.where(moving, channel.frames + delta, channel.frames)
        landed = ~moving & _frames_mask(channel, new_frames[moving])
        keep = ~landed
        order = np.argsort(new_frames[keep], kind="stable")
        channels[name] = Channel.of(channel.bone, channel.path, new_frames[keep][order], channel.values[keep][order],
                                    channel.interpolations[keep][order])
    return _with_channels(action, channels)


def with_interpolation(action, frames, interpolation):
    """``action`` with the keys at ``frames`` interpolating as ``interpolation``."""
    mode = INTERPOLATIONS.index(interpolation)
    channels = {}
    for name, channel in action.channels.items():
        mask = _frames_mask(channel, frames)
        if mask.any() and channel.path != SWITCH:
            channel = Channel.of(channel.bone, channel.path, channel.frames, channel.values,
                                 np.where(mask, mode, channel.interpolations))
        channels[name] = channel
    return _with_channels(action, channels)


# Clips and bakes ------------------------------------------------------------------------------
CONSTANT_CHANNEL = 1e-12  # a channel within this of the base in every frame needs no keys


def action_from_poses(name, poses, fps, skeleton):
    """A file's clip (a Pose a frame, from frame 0) as an action: one linear key a frame on every
    channel that moves; the first frame is the base, so channels that never move need none."""
    base = poses[0]
    channels = {}
    frames = np.arange(len(poses), dtype=float)
    modes = np.full(len(poses), LINEAR, dtype=np.int8)
    for path, attribute in PATHS_ATTRIBUTE.items():
        values = np.stack([getattr(p, attribute) for p in poses], axis=1)  # (N bones, F, d)
        moves = np.abs(values - getattr(base, attribute)[:, None]).max(axis=(1, 2)) > CONSTANT_CHANNEL
        for bone in np.flatnonzero(moves[:len(skeleton)]):
            bone_name = skeleton.names[bone]
            channels[(bone_name, path)] = Channel.of(bone_name, path, frames, values[bone], modes)
    return Action(name, float(fps), 0, len(poses) - 1, base.copy(), channels)


def frame_range(action, fps=None):
    """The frames an export at ``fps`` (default: the action's) samples: from start to end
    inclusive, in the action's frames, so the clip lasts as long at any rate."""
    fps = action.fps if fps is None else fps
    duration = (action.end - action.start) / action.fps
    count = int(np.floor(duration * fps + 1e-6)) + 1
    return action.start + np.arange(count) * action.fps / fps
