"""Pins: bones held where the user left them, above every other goal.

A pin holds its bone's head at ``position`` (armature space, metres) and, unless ``rotation`` is
None, the bone's world rotation (xyzw) as it was when pinned: the rotation of the bone's world
matrix, rest orientation included (``rig.pose.rest_basis`` gives the same frame for a rest pose).
Pins are keyed by bone name (``Pins``, a plain dict) so they survive a reordered skeleton; files
keep them under a ``"pins"`` object: ``{NAME: {"position": [x, y, z], "rotation": [x, y, z, w]}}``,
``rotation`` absent for a position-only pin.
"""
from dataclasses import dataclass

import numpy as np

from rig.ranges import MAX_COORDINATE, MAX_QUATERNION, unit_quaternion
from solvers.transforms import matrix3_to_quat, quat_to_matrix3


@dataclass(frozen=True)
class Pin:
    position: tuple
    rotation: tuple | None = None

    @property
    def holds_rotation(self):
        return self.rotation is not None


def _unit_basis(matrix):
    """The rotation of a bone's world ``matrix`` (4, 4): a stretched bone's basis without the stretch."""
    basis = matrix[:3, :3]
    scale = np.linalg.norm(basis, axis=0)
    return basis / np.where(scale > 0.0, scale, 1.0)


def _world_rotation(world, bone):
    return tuple(float(v) for v in matrix3_to_quat(_unit_basis(world[bone])))


def pin_where_it_is(world, bone, rotation=True):
    """A pin holding bone ``bone`` (index) where ``world`` (N, 4, 4) has it."""
    position = tuple(float(v) for v in world[bone, :3, 3])
    return Pin(position, _world_rotation(world, bone) if rotation else None)


def moved_with(pin, before, after):
    """``pin`` carried along as its bone moves from world matrix ``before`` to ``after`` (4, 4):
    turned and shifted as the bone was, so an edit of a pinned bone takes its pin with it; a pin
    a little off its bone (the solver's tolerance) stays that little off."""
    turn = _unit_basis(after) @ _unit_basis(before).T
    position = turn @ (np.asarray(pin.position) - before[:3, 3]) + after[:3, 3]
    rotation = None if pin.rotation is None else matrix3_to_quat(turn @ quat_to_matrix3(np.asarray(pin.rotation)))
    return Pin(tuple(float(v) for v in position), None if rotation is None else tuple(float(v) for v in rotation))


def pins_to_json(pins):
    """The ``"pins"`` object of a file, bones in name order so saves are stable."""
    out = {}
    for name in sorted(pins):
        pin = pins[name]
        entry = {"position": list(pin.position)}
        if pin.holds_rotation:
            entry["rotation"] = list(pin.rotation)
        out[name] = entry
    return out


def read_pins(reader, skeleton, key="pins", skipped=None):
    """Pins from ``reader``'s ``key`` object (a ``rig.formats.jsonfields.Reader``); a bone not in
    ``skeleton`` or a zero rotation fails naming the field. Absent: no pins. With a ``skipped``
    list, a bone not in ``skeleton`` is appended to it and left out instead (a pose file from a
    similar rig applies to the bones both share)."""
    if key not in reader.obj:
        reader.asked.add(key)
        return {}
    pins_reader = reader.child(key)
    pins = {}
    for name in pins_reader.names():
        if name not in skeleton.index:
            if skipped is None:
                pins_reader.fail(name, "the name of a bone in the rig", name)
            skipped.append(name)
            continue
        entry = pins_reader.child(name)
        position = entry.vector("position", 3, bound=MAX_COORDINATE)
        rotation = None
        if "rotation" in entry.obj:
            rotation = np.array(entry.vector("rotation", 4, bound=MAX_QUATERNION))
            norm = np.linalg.norm(rotation)
            if norm < 1e-6:
                entry.fail("rotation", "a non-zero quaternion [x, y, z, w]", list(rotation))
            rotation = tuple(float(v) for v in unit_quaternion(rotation, norm))
        else:
            entry.asked.add("rotation")
        pins[name] = Pin(position, rotation)
    return pins
