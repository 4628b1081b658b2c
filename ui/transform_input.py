"""What a running G or R reads besides the pointer, as Blender's modal transforms do: the axis
lock (X / Y / Z; pressing the same axis again goes global -> local -> none; with Shift, G keeps
to the plane across that axis instead) and typed values (digits, '.', '-' to flip the sign,
Backspace), which override the pointer while any is typed. A grab takes one typed value per free
axis (three with no lock, two in a plane), Tab and Shift+Tab moving between them as Blender's
NumInput does; a rotation takes one angle."""
from dataclasses import dataclass, replace

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

    def free_axes(self):
        """The axes typed values move along, in order: the lock's own, or the plane's two."""
        if not self.plane:
            return (self,)
        return tuple(AxisLock(k, self.local) for k in range(3) if k != self.axis)

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


def typed_axes(lock):
    """The axes a grab's typed values move along: the world's three with no lock, else the lock's
    free ones."""
    return tuple(AxisLock(k) for k in range(3)) if lock is None else lock.free_axes()


def typed_count(lock, rotation=False):
    """How many values a transform takes typed: one angle for a rotation, else one per free axis."""
    return 1 if rotation else len(typed_axes(lock))


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


@dataclass(frozen=True)
class TypedInput:
    """The texts typed into a running G or R, one per component, and ``active``, the one keys type
    into. Three slots always: a lock that leaves fewer components reads the first ones."""
    texts: tuple = ("", "", "")
    active: int = 0

    def values(self, count):
        """The first ``count`` components as numbers (0 where none is typed), or None while none of
        them is typed (then the pointer moves the transform)."""
        texts = self.texts[:count]
        if not any(texts):
            return None
        return tuple(typed_value(text) or 0.0 for text in texts)

    def type(self, char):
        """After typing ``char`` (as ``type_into`` takes it) into the active component."""
        texts = list(self.texts)
        texts[self.active] = type_into(texts[self.active], char)
        return replace(self, texts=tuple(texts))

    def step(self, count, delta):
        """After Tab (``delta`` 1) or Shift+Tab (-1) among ``count`` components, wrapping."""
        return replace(self, active=(min(self.active, count - 1) + delta) % count)

    def within(self, count):
        """Kept to ``count`` components (a new lock may leave fewer)."""
        return replace(self, active=min(self.active, count - 1))

    def label(self, count):
        """The typed components as Blender's header shows them: "1.5|" for one, else each
        component with the active one bracketed and its cursor shown, "[1|]  2  0"."""
        if count == 1:
            return f"{self.texts[0]}|"
        shown = [f"[{text}|]" if k == self.active else (text or "0") for k, text in enumerate(self.texts[:count])]
        return "  ".join(shown)
