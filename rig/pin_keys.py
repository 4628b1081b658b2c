"""Keyed pins: a bone's pin (``rig.pins``) as one more channel of an action (``rig.keys.PIN``).

A pin channel's key holds, in order: on (1) or off (0), whether the pin holds the bone's rotation
(1) or its position only (0), the target position (x, y, z, armature space, metres) and the
target rotation (x, y, z, w); an off key holds no target (zeros and the identity), nor does a
position-only key a rotation (the identity).

Evaluated as an animator expects, as Blender evaluates a boolean property next to a float one:
- on / off and the hold-rotation flag step at their keys (constant, whatever the key's
  interpolation): a pin keyed on at frame 10 and off at frame 30 holds on frames 10 to 29 and
  lets go at 30;
- the target moves only between two keys that are both on (its rotation only between two that
  both hold it), with the interpolation of the key it leaves (linear, smooth: Catmull-Rom through
  the run's keys, rotations slerped and eased along the short arc; constant: held); between two
  keys with the same target it stays there exactly, and from the last key of a run it stays where
  that key put it until the pin lets go, so a planted foot stays planted however far the next key
  is, and never slides toward where a later, separate plant will be;
- before a channel's first key and after its last, that key holds (Blender's constant
  extrapolation, as for every channel).
A bone whose pin the action does not key keeps the pin it has, as the IK/FK switches do: only
keyed pins change with the frame.
"""
import numpy as np

from rig.keys import CONSTANT, PIN, SMOOTH, eased, hermite, segment, tangent, with_key_values
from rig.pins import Pin
from solvers.transforms import quat_slerp

ON, HOLDS, POSITION, ROTATION = 0, 1, slice(2, 5), slice(5, 9)
OFF_KEY = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
IDENTITY = (0.0, 0.0, 0.0, 1.0)


def pin_key(pin):
    """The PIN channel's value for ``pin`` (a ``rig.pins.Pin``; None: no pin, an off key)."""
    if pin is None:
        return OFF_KEY
    return (1.0, float(pin.holds_rotation), *pin.position, *(pin.rotation if pin.holds_rotation else IDENTITY))


def with_pin_keys(action, pins, names, frame, interpolation="linear"):
    """``action`` with the pin of each bone of ``names`` keyed at ``frame`` as ``pins`` ({bone
    name: Pin}) has it: on with its target, or off where the bone has none."""
    return with_key_values(action, {(name, PIN): pin_key(pins.get(name)) for name in names}, frame, interpolation)


def _in_run(values, k):
    return 0 <= k < len(values) and values[k, ON] >= 0.5


def pin_at(channel, frame):
    """The Pin a PIN channel gives at ``frame`` (any float), or None where it is off."""
    values, frames = channel.values, channel.frames
    k, u = segment(channel, frame)
    if not _in_run(values, k):
        return None
    mode = int(channel.interpolations[k])
    moving = u > 0.0 and mode != CONSTANT and _in_run(values, k + 1)
    position = values[k, POSITION]
    if moving and not np.array_equal(position, values[k + 1, POSITION]):  # equal keys: held exactly
        if mode == SMOOTH:
            slopes = [tangent(frames, values[:, POSITION], j - 1 if _in_run(values, j - 1) else j,
                              j + 1 if _in_run(values, j + 1) else j) for j in (k, k + 1)]
            position = hermite(u, frames[k + 1] - frames[k], position, values[k + 1, POSITION], *slopes)
        else:
            position = position + (values[k + 1, POSITION] - position) * u
    if values[k, HOLDS] < 0.5:
        return Pin(tuple(float(v) for v in position))
    rotation = values[k, ROTATION]
    if moving and values[k + 1, HOLDS] >= 0.5 and not np.array_equal(rotation, values[k + 1, ROTATION]):
        rotation = quat_slerp(rotation, values[k + 1, ROTATION], eased(u, mode))
    return Pin(tuple(float(v) for v in position), tuple(float(v) for v in rotation))


def keyed_pins(action, frame, pins):
    """The pins at ``frame``: ``pins`` ({bone name: Pin}, what there is now) on the bones the
    action keys no pin of, and the action's keyed pins that are on there."""
    keyed = {channel.bone: channel for channel in action.channels.values() if channel.path == PIN}
    if not keyed:
        return pins
    out = {name: pin for name, pin in pins.items() if name not in keyed}
    for name, channel in keyed.items():
        pin = pin_at(channel, frame)
        if pin is not None:
            out[name] = pin
    return dict(sorted(out.items()))


def check_pin_values(values):
    """What is wrong with a PIN channel's ``values`` (K, 9), or None: flags that are not 0 or 1,
    a rotation held by an off key."""
    flags = values[:, [ON, HOLDS]]
    if np.any((flags != 0.0) & (flags != 1.0)):
        return "on and hold-rotation flags of 0 or 1"
    if np.any((values[:, HOLDS] == 1.0) & (values[:, ON] == 0.0)):
        return "no rotation held by an off key"
    return None

