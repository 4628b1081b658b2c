"""What a running G or R reads besides the pointer, as Blender's modal transforms do: the axis
lock (X / Y / Z; pressing the same axis again goes global -> local -> none; with Shift, G keeps
to the plane across that axis instead) and a typed value
(digits, '.', '-' to flip the sign, Backspace), which overrides the pointer while any is typed."""
from dataclasses import dataclass

import numpy as np

AXIS_NAMES = "XYZ"


@dataclass(frozen=True)
class AxisLock:
    """The transform is held to ``axis`` (0, 1, 2 for X, Y, Z): the world's, or with ``local``
    the bone's own; with ``plane``, to the plane across that axis (a grab moves along the other
    two, Blender's Shift+X / Y / Z)."""
    axis: int
    local: bool = False
    plane: bool = False

    def label(self):
        frame = "local" if self.local else "global"
        if self.plane:
            return f"{frame} {''.join(a for k, a in enumerate(AXIS_NAMES) if k != self.axis)} plane"
        return f"{frame} {AXIS_NAMES[self.axis]}"

    def first_free_axis(self):
        """The axis a typed value moves along: the lock's own, or the plane's first."""
        return AxisLock(min(k for k in range(3) if k != self.axis), self.local) if self.plane else self

    def direction(self, bone_world):
        """The unit world direction of the lock for a bone whose world matrix is ``bone_world``."""
        if not self.local:
            return np.eye(3)[self.axis]
        column = bone_world[:3, self.axis]
        return column / np.linalg.norm(column)


def next_lock(lock, axis, plane=False):
    """The lock after pressing ``axis`` (with Shift: ``plane``): a new axis or kind locks it
    globally, the same one goes from global to local, then off."""
    if lock is None or lock.axis != axis or lock.plane != plane:
        return AxisLock(axis, plane=plane)
    return AxisLock(axis, True, plane) if not lock.local else None


def type_into(text, char):
    """``text`` after typing ``char``: a digit, '.' (once), '-' (flips the sign, Blender's
    NumInput) or '\\b' (Backspace: removes the last character)."""
    if char == "\b":
        return text[:-1]
    if char == "-":
        return text[1:] if text.startswith("-") else "-" + text
    if char == "." and "." in text:
        return text
    return text + char


def typed_value(text):
    """The number ``text`` holds, 0 where it holds none yet ("-", "."); None while nothing is typed."""
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        return 0.0
