"""``posekit.tracks`` v1: a stream of tracker samples (a VR headset, two controllers, optional
pelvis and foot trackers), one object per frame:

    {"format": "posekit.tracks", "version": 1, "fps": F,
     "frames": [{"head": {"position": [x, y, z], "rotation": [x, y, z, w]}, "hand.L": {...}, ...}]}

World space in the rig's units (metres), +Y up, the floor at y = 0 (a VR stage space). ``head``,
``hand.L`` and ``hand.R`` are required in the first frame; ``pelvis``, ``foot.L`` and ``foot.R``
are optional; a later frame may lack any role (a lost tracker). The reader is strict: unknown keys,
non-finite or out-of-range numbers and zero rotations are one-line errors naming the frame and role.
"""
from dataclasses import dataclass

import numpy as np

from rig.formats.jsonfields import FileFormatError, Reader, check_header, load_json, save_json_atomic
from rig.keys import MAX_FPS
from rig.ranges import MAX_COORDINATE, MAX_QUATERNION, unit_quaternion

FORMAT, VERSION = "posekit.tracks", 1
ROLES = ("head", "hand.L", "hand.R", "pelvis", "foot.L", "foot.R")
REQUIRED = ("head", "hand.L", "hand.R")  # in the first frame
ROLE_GROUPS = {"head": ("head",), "hands": ("hand.L", "hand.R"), "pelvis": ("pelvis",), "feet": ("foot.L", "foot.R")}
MAX_FRAMES = 10_000_000


@dataclass(frozen=True)
class Sample:
    """One tracker in one frame: ``position`` (3,) and unit ``rotation`` (4,, xyzw), world space."""
    position: np.ndarray
    rotation: np.ndarray


@dataclass(frozen=True)
class TrackStream:
    """``frames``: per frame {role: Sample} for the trackers seen in it; ``fps`` frames a second."""
    fps: float
    frames: list

    def roles(self):
        """The roles any frame holds, in ``ROLES`` order."""
        seen = set().union(*self.frames) if self.frames else set()
        return [role for role in ROLES if role in seen]


def roles_from_groups(text):
    """The roles of a comma-separated list of ``ROLE_GROUPS`` names ("head,hands,feet"); ValueError
    naming the groups there are for an unknown one, or when head or hands are left out."""
    roles = []
    for name in (part.strip() for part in text.split(",")):
        if name not in ROLE_GROUPS:
            raise ValueError(f"unknown tracker group '{name}' (groups: {', '.join(ROLE_GROUPS)})")
        roles += [r for r in ROLE_GROUPS[name] if r not in roles]
    missing = [r for r in REQUIRED if r not in roles]
    if missing:
        raise ValueError(f"the trackers must include head and hands (missing {', '.join(missing)})")
    return [r for r in ROLES if r in roles]


def _sample(reader):
    position = np.array(reader.vector("position", 3, bound=MAX_COORDINATE))
    rotation = np.array(reader.vector("rotation", 4, bound=MAX_QUATERNION))
    norm = float(np.linalg.norm(rotation))
    if not norm > 1e-6:
        reader.fail("rotation", "a non-zero quaternion (x, y, z, w)", list(rotation))
    return Sample(position, unit_quaternion(rotation, norm))


def read_tracks(path):
    """The TrackStream in ``path``; FileFormatError (one line naming the frame and role) when the
    file is not a valid posekit.tracks v1 stream."""
    reader = Reader(path, load_json(path))
    check_header(reader, FORMAT, VERSION)
    fps = reader.number("fps", low=1e-3, high=MAX_FPS)
    items = reader.items("frames")
    if not items:
        reader.fail("frames", "at least one frame")
    if len(items) > MAX_FRAMES:
        reader.fail("frames", f"at most {MAX_FRAMES} frames", len(items))
    frames = []
    for k, item in enumerate(items):
        frame = {}
        for role in item.names():
            if role not in ROLES:
                item.fail(role, f"a tracker role, one of {', '.join(ROLES)}")
            frame[role] = _sample(item.child(role))
        frames.append(frame)
    missing = [role for role in REQUIRED if role not in frames[0]]
    if missing:
        raise FileFormatError(path, f"frames[0].{missing[0]}", "a head and two hand trackers in the first frame "
                              "(a value: the field is missing)")
    reader.check_fields()
    return TrackStream(fps, frames)


def stream_data(stream):
    """The JSON object of ``stream`` (numbers as plain floats)."""
    return {"format": FORMAT, "version": VERSION, "fps": float(stream.fps),
            "frames": [{role: {"position": [float(v) for v in s.position], "rotation": [float(v) for v in s.rotation]}
                        for role, s in frame.items()} for frame in stream.frames]}


def write_tracks(path, stream):
    """Write ``stream`` to ``path`` atomically; FileFormatError for a non-finite value, OSError."""
    save_json_atomic(path, stream_data(stream))
