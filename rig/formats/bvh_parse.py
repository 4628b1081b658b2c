"""BVH syntax: the HIERARCHY block as joints and the MOTION block as a frame array, nothing more.

Accepts what real files do: CRLF or CR line ends, tabs, a byte-order mark, keywords in any case,
CHANNELS in any order and any subset (scale channels too), several ROOTs, joint names with spaces. Anything that
cannot be understood raises ``FileFormatError`` with field ``"line N"`` and what was expected
there; what can be read around (a frame count that disagrees with the rows, a cut-off last row)
becomes a warning. Nothing is sized from a count in the file, so a hostile count cannot exhaust
memory, and parsing is a loop (no recursion), so deep nesting cannot overflow the stack.
"""
import math
import re
from dataclasses import dataclass

import numpy as np

from rig.formats.jsonfields import FileFormatError

POSITION_CHANNELS = ("xposition", "yposition", "zposition")
ROTATION_CHANNELS = ("xrotation", "yrotation", "zrotation")
SCALE_CHANNELS = ("xscale", "yscale", "zscale")  # rare; read, then ignored by rig.formats.bvh
CHANNEL_NAMES = POSITION_CHANNELS + ROTATION_CHANNELS + SCALE_CHANNELS
MAX_JOINTS = 10000
# Offsets and channel values beyond this are no skeleton or motion (and would overflow FK).
MAX_MAGNITUDE = 1e9
MAX_FRAMES = 10 ** 18  # a header count (the rows that follow are what is read), kept to machine integers
DEFAULT_FRAME_TIME = 1.0 / 30.0

_TOKEN = re.compile(r"[{}]|[^\s{}]+")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


@dataclass
class BvhJoint:
    """One ROOT or JOINT as written: ``offset`` (3,) in file units, ``channels`` lower-case channel
    names in file order, ``end_site`` (3,) or None, ``line`` where the joint starts."""
    name: str
    parent: int
    line: int
    offset: np.ndarray = None
    channels: tuple = ()
    end_site: np.ndarray = None


@dataclass
class BvhData:
    """A parsed file: joints parents-first (file order), ``frames`` (F, total channels) in file
    units and degrees, ``frame_time`` seconds, ``warnings`` strings naming file and line."""
    joints: list
    frames: np.ndarray
    frame_time: float
    warnings: list


class _Tokens:
    """The hierarchy's tokens with their line numbers; every read names what it expected."""

    def __init__(self, path, lines, end_line, end_what):
        self.path = path
        self.items = [(m.group(), n) for n, line in enumerate(lines, 1) for m in _TOKEN.finditer(line)]
        self.pos = 0
        self.end_line, self.end_what = end_line, end_what

    def fail(self, line, expected, got):
        raise FileFormatError(self.path, f"line {line}", expected, got)

    def done(self):
        return self.pos >= len(self.items)

    def next(self, expected):
        if self.done():
            self.fail(self.end_line, expected, self.end_what)
        token = self.items[self.pos]
        self.pos += 1
        return token

    def expect(self, word, context=""):
        token, line = self.next(f"'{word}'{context}")
        if token.upper() != word.upper():
            self.fail(line, f"'{word}'{context}", token)
        return line

    def number(self, what):
        token, line = self.next(what)
        if not _NUMBER.fullmatch(token):
            self.fail(line, what, token)
        value = float(token)
        if not (math.isfinite(value) and abs(value) <= MAX_MAGNITUDE):
            self.fail(line, f"{what} of magnitude at most {MAX_MAGNITUDE:g}", token)
        return value

    def name(self, keyword, keyword_line):
        """The rest of the keyword's line up to '{': names may hold spaces."""
        words = []
        while not self.done() and self.items[self.pos][1] == keyword_line and self.items[self.pos][0] not in "{}":
            words.append(self.items[self.pos][0])
            self.pos += 1
        if not words:
            got = self.items[self.pos][0] if not self.done() else "the end of the line"
            self.fail(keyword_line, f"a joint name after {keyword}", got)
        return " ".join(words)


def _is_count(token, most):
    """Whether ``token`` is a whole number from 0 to ``most`` in ASCII digits (``str.isdigit`` also
    takes '²', and ``int`` refuses thousands of digits with a message that names no file)."""
    return token.isascii() and token.isdigit() and len(token) <= len(str(most)) and int(token) <= most


def _offset(tokens, what):
    return np.array([tokens.number(f"{what}'s {axis} offset (a number)") for axis in "XYZ"])


def _channels(tokens, joint):
    token, line = tokens.next("a channel count")
    if not _is_count(token, len(CHANNEL_NAMES)):
        tokens.fail(line, f"a channel count from 0 to {len(CHANNEL_NAMES)} for '{joint.name}'", token)
    names = []
    for _ in range(int(token)):
        channel, line = tokens.next("a channel name such as Xrotation")
        if channel.lower() not in CHANNEL_NAMES:
            tokens.fail(line, "a channel name: X/Y/Z followed by position, rotation or scale", channel)
        names.append(channel.lower())
    return tuple(names)


def _end_site(tokens, joint, warnings):
    tokens.expect("Site", " after 'End'")
    tokens.expect("{", " after 'End Site'")
    tokens.expect("OFFSET", " in an End Site")
    offset = _offset(tokens, f"End Site of '{joint.name}'")
    tokens.expect("}", " closing the End Site")
    if joint.end_site is not None:
        warnings.append(f"{tokens.path}: joint '{joint.name}' has more than one End Site; the first is used")
        return
    joint.end_site = offset


def _finish(tokens, joint, line):
    if joint.offset is None:
        tokens.fail(line, f"an OFFSET in joint '{joint.name}' (line {joint.line}) before its '}}'", "}")


def _joint_tree(tokens, joints, warnings):
    """Parse one ROOT block (its keyword already read) into ``joints``, parents first."""
    root_line = tokens.items[tokens.pos - 1][1]
    joints.append(BvhJoint(tokens.name("ROOT", root_line), -1, root_line))
    tokens.expect("{", f" after ROOT {joints[-1].name}")
    open_joints = [len(joints) - 1]
    expected = "OFFSET, CHANNELS, JOINT, End Site or '}'"
    while open_joints:
        joint = joints[open_joints[-1]]
        token, line = tokens.next(expected)
        word = token.upper()
        if word == "OFFSET":
            joint.offset = _offset(tokens, f"joint '{joint.name}'")
        elif word == "CHANNELS":
            joint.channels = _channels(tokens, joint)
        elif word == "JOINT":
            if len(joints) >= MAX_JOINTS:
                tokens.fail(line, f"at most {MAX_JOINTS} joints", token)
            joints.append(BvhJoint(tokens.name("JOINT", line), open_joints[-1], line))
            tokens.expect("{", f" after JOINT {joints[-1].name}")
            open_joints.append(len(joints) - 1)
        elif word == "END":
            _end_site(tokens, joint, warnings)
        elif word == "}":
            _finish(tokens, joint, line)
            open_joints.pop()
        else:
            tokens.fail(line, expected, token)


def _parse_hierarchy(path, lines, motion, warnings):
    """Joints from the lines before MOTION (line index ``motion``, None if there is none)."""
    if motion is None:
        tokens = _Tokens(path, lines, max(len(lines), 1), "the end of the file")
    else:
        tokens = _Tokens(path, lines[:motion], motion + 1, "MOTION")
    tokens.expect("HIERARCHY", " at the start of the file")
    joints = []
    while not tokens.done():
        tokens.expect("ROOT", " (a skeleton's root joint)")
        _joint_tree(tokens, joints, warnings)
    if not joints:
        tokens.fail(tokens.end_line, "a ROOT joint after HIERARCHY", "nothing")
    return joints


def _header_value(path, lines, index, label, pattern):
    """The value after ``label:`` on the first non-blank line from ``index``; returns (text, next index)."""
    while index < len(lines) and not lines[index].strip():
        index += 1
    match = re.fullmatch(pattern, lines[index].strip(), re.IGNORECASE) if index < len(lines) else None
    if match is None:
        got = lines[index].strip() if index < len(lines) else "the end of the file"
        raise FileFormatError(path, f"line {index + 1}", f"'{label}: <value>'", got)
    return match.group(1), index + 1


def _bad_value(path, rows, first_row_line):
    """Find the first unreadable or out-of-range value (slow path, only after a failure)."""
    for r, (n, tokens) in enumerate(rows):
        for k, token in enumerate(tokens):
            value = float(token) if _NUMBER.fullmatch(token) else math.nan
            if not (math.isfinite(value) and abs(value) <= MAX_MAGNITUDE):
                raise FileFormatError(path, f"line {n}", f"a finite number of magnitude at most "
                                      f"{MAX_MAGNITUDE:g} (frame {r + 1}, value {k + 1})", token)
    raise FileFormatError(path, f"line {first_row_line}", "numbers in the frame rows")


def _parse_rows(path, lines, index, channel_count, warnings):
    last = next((n for n in range(len(lines) - 1, index - 1, -1) if lines[n].strip()), None)
    end = len(lines)
    if last is not None and len(lines[last].split()) < channel_count:
        warnings.append(f"{path}: line {last + 1}: the last frame has {len(lines[last].split())} of {channel_count} "
                        "values (file cut short?); it was dropped")
        end = last
    frames = _read_rows_fast(lines[index:end], channel_count)
    if frames is not None:
        return frames
    rows = []
    for n in range(index, end):
        tokens = lines[n].split()
        if tokens:
            rows.append((n + 1, tokens))
    for n, tokens in rows:
        if len(tokens) != channel_count:
            raise FileFormatError(path, f"line {n}", f"{channel_count} values in a frame row, one per channel",
                                  f"{len(tokens)} values")
    if not rows:
        return np.zeros((0, channel_count))
    text = [token for _, tokens in rows for token in tokens]
    try:
        frames = np.array(text, dtype=float).reshape(len(rows), channel_count)
    except ValueError:
        frames = None
    if frames is None or not np.isfinite(frames).all() or np.abs(frames).max(initial=0.0) > MAX_MAGNITUDE:
        _bad_value(path, rows, rows[0][0])
    return frames


def _read_rows_fast(lines, channel_count):
    """The frame rows as an array when every row is well formed, else None (the caller then reads
    row by row to name the bad line). One numpy parse of the whole text: a 200 MB file would
    otherwise become 26 million Python strings."""
    rows = [line for line in lines if line and not line.isspace()]
    if any(len(line.split()) != channel_count for line in rows):
        return None
    try:
        values = np.fromstring(" ".join(rows), dtype=float, sep=" ")
    except ValueError:  # an unreadable token
        return None
    if len(values) != len(rows) * channel_count or not (np.abs(values) <= MAX_MAGNITUDE).all():
        return None
    return values.reshape(len(rows), channel_count)


def _parse_motion(path, lines, index, channel_count, warnings):
    """MOTION header and rows, starting after the MOTION line at ``index``."""
    count_text, index = _header_value(path, lines, index, "Frames", r"frames\s*:\s*(\S+)")
    if not _is_count(count_text, MAX_FRAMES):
        raise FileFormatError(path, f"line {index}", f"a whole number of frames up to {MAX_FRAMES} after 'Frames:'",
                              count_text)
    time_text, index = _header_value(path, lines, index, "Frame Time", r"frame\s*time\s*:\s*(\S+)")
    frame_time = float(time_text) if _NUMBER.fullmatch(time_text) else math.nan
    if not (math.isfinite(frame_time) and frame_time > 0):
        warnings.append(f"{path}: line {index}: frame time '{time_text}' is not a positive number; "
                        f"using {DEFAULT_FRAME_TIME:.6g} s")
        frame_time = DEFAULT_FRAME_TIME
    if channel_count == 0:
        return np.zeros((1, 0)), frame_time
    frames = _parse_rows(path, lines, index, channel_count, warnings)
    if len(frames) != int(count_text):
        warnings.append(f"{path}: the header says {int(count_text)} frames but {len(frames)} rows follow; "
                        f"reading {len(frames)}")
    return frames, frame_time


def decode(path, data, warnings):
    """Text of a BVH file's bytes: UTF-8 (with or without a byte-order mark), else Latin-1."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        warnings.append(f"{path}: not UTF-8 text; read as Latin-1")
        return data.decode("latin-1")


def parse(text, path="<bvh>"):
    """Parse BVH text into ``BvhData``; raises FileFormatError naming the line."""
    warnings = []
    lines = text.removeprefix("\ufeff").splitlines()
    motion = next((n for n, line in enumerate(lines) if line.strip().upper() == "MOTION"), None)
    joints = _parse_hierarchy(path, lines, motion, warnings)
    channel_count = sum(len(j.channels) for j in joints)
    if motion is None:
        warnings.append(f"{path}: no MOTION section; only the skeleton was read")
        return BvhData(joints, np.zeros((1 if channel_count == 0 else 0, channel_count)), DEFAULT_FRAME_TIME,
                       warnings)
    frames, frame_time = _parse_motion(path, lines, motion + 1, channel_count, warnings)
    return BvhData(joints, frames, frame_time, warnings)
