"""An action (``rig.keys``) as JSON, for saved sessions and the autosave:

    {"name": "walk", "fps": 24, "start": 0, "end": 100, "base": POSE (posekit.pose),
     "channels": [{"bone": "hand_ik.L", "path": "location", "frames": [0, 12],
                   "values": [x, y, z, x, y, z], "interpolation": ["linear", "smooth"]}]}

``values`` is flat, PATHS[path] numbers a key; a ``"pin"`` channel's key is on (1) or off (0),
holds rotation (1) or not (0), then the target position and rotation (``rig.pin_keys``). Actions
saved before pins were keyed have no pin channels and read as they did. Reading is strict: a bone
the rig lacks, frames that do not increase, a value that is not finite, a pin flag that is not 0
or 1, an unknown interpolation or key fail naming the field.
"""
import numpy as np

from rig.formats.jsonfields import Reader
from rig.formats.rigfile import pose_from_dict, pose_to_dict
from rig.constraints import RANGES
from rig.keys import FRAME_TOLERANCE, INTERPOLATIONS, MAX_FPS, MAX_FRAME, PATHS, PIN, QUATERNIONS, SWITCH, Action, \
    Channel, sized_pose
from rig.pin_keys import check_pin_values
from rig.ranges import MAX_COORDINATE


def action_to_dict(action, skeleton):
    channels = [{"bone": c.bone, "path": c.path, "frames": c.frames.tolist(), "values": c.values.ravel().tolist(),
                 "interpolation": [INTERPOLATIONS[m] for m in c.interpolations]}
                for c in action.channels.values()]
    return {"name": action.name, "fps": action.fps, "start": action.start, "end": action.end,
            "base": pose_to_dict(skeleton, sized_pose(action.base, len(skeleton))), "channels": channels}


def _numbers(reader, key, count, bound):
    """``count`` finite numbers of magnitude at most ``bound`` at ``key``, as an array."""
    value = reader.required(key)
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        array = None
    if array is None or array.shape != (count,) or not np.isfinite(array).all() or np.abs(array).max(initial=0) > bound:
        reader.fail(key, f"a list of {count} finite numbers of magnitude at most {bound:g}",
                    value if not isinstance(value, list) or len(value) < 8 else f"a list of {len(value)}")
    return array


def _channel(reader, skeleton):
    bone = reader.string("bone")
    if bone not in skeleton.index:
        reader.fail("bone", "the name of a bone in the rig", bone)
    path = reader.string("path", choices=tuple(PATHS))
    raw = reader.required("frames")
    count = len(raw) if isinstance(raw, list) and raw else 0
    if not count:
        reader.fail("frames", "a non-empty list of frames", raw)
    frames = _numbers(reader, "frames", count, MAX_FRAME)
    if np.any(np.diff(frames) <= FRAME_TOLERANCE):
        reader.fail("frames", "increasing frames")
    values = _numbers(reader, "values", count * PATHS[path], MAX_COORDINATE).reshape(count, PATHS[path])
    if path in QUATERNIONS and np.any(np.linalg.norm(values[:, QUATERNIONS[path]], axis=1) < 1e-6):
        reader.fail("values", "non-zero quaternions")
    problem = check_pin_values(values) if path == PIN else None
    if problem:
        reader.fail("values", problem)
    low, high = RANGES["influence"]
    if path == SWITCH and (np.any(values < low) or np.any(values > high)):
        reader.fail("values", f"influences from {low:g} to {high:g}")
    modes = reader.required("interpolation")
    if not isinstance(modes, list) or len(modes) != count or any(m not in INTERPOLATIONS for m in modes):
        reader.fail("interpolation", f"a list of {count} of {', '.join(INTERPOLATIONS)}",
                    modes if not isinstance(modes, list) or len(modes) < 8 else f"a list of {len(modes)}")
    return Channel.of(bone, path, frames, values, [INTERPOLATIONS.index(m) for m in modes])


def action_from_dict(data, skeleton, path="<action>", prefix=""):
    """The Action ``data`` holds, for ``skeleton``; FileFormatError naming the field otherwise."""
    root = Reader(path, data, prefix)
    name = root.string("name")
    fps = root.number("fps", low=1e-3, high=MAX_FPS)
    start = root.integer("start", low=-MAX_FRAME, high=MAX_FRAME)
    end = root.integer("end", low=start, high=MAX_FRAME)
    base, skipped = pose_from_dict(root.required("base"), skeleton, path, root.name("base."))
    if skipped:
        root.fail("base", "a pose of the rig's bones", skipped[0])
    channels = {}
    for item in root.items("channels"):
        channel = _channel(item, skeleton)
        if (channel.bone, channel.path) in channels:
            item.fail("bone", f"one channel per bone and path ({channel.bone} {channel.path} twice)")
        channels[(channel.bone, channel.path)] = channel
    root.check_fields()
    return Action(name, fps, start, end, base, channels)
