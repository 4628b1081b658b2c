"""How dear each joint of the body is to move when the whole body follows a goal: a person reaching
past their arm's length shifts and lowers the hips, bends the knees and leans the spine a little,
mostly forward and turning; the spine bends sideways least, the clavicles and the pelvis's own turn
little. As stiffness on the priority solver's columns (``solvers.priority_plan``: a column's weight
is 1 minus it, so a stiff axis both steps less and is pulled back to where it started first), on
top of the bone IK panel's own.

The bones' roles come from ``rig.limb_roles.recognise`` (names, else the hierarchy and rest
geometry), so any rig it recognises gets them; a bone it gives no role stays as its panel says.
A spine bone's sideways bend is its turn about the figure's facing: of its local X and Z, the one
nearer the facing in its rest frame.
"""
from typing import NamedTuple

import numpy as np

from rig.limb_roles import recognise


class SpineStiffness(NamedTuple):
    """A spine bone's stiffness per kind of turn."""
    bend: float  # forward and back: the way people reach down
    sideways: float  # toward a shoulder: what folds a figure that reaches sideways
    twist: float  # about the bone itself


SPINE = SpineStiffness(bend=0.6, sideways=0.85, twist=0.5)
ROLE_STIFFNESS = {"hips": 0.6, "shoulder": 0.7, "neck": 0.7, "head": 0.7}  # every axis alike


def _spine_axes(skeleton, bone, facing):
    """(x, y, z) stiffness of spine bone ``bone``: sideways on the local axis nearer ``facing``."""
    basis = skeleton.rest_world[bone, :3, :3]
    x_sideways = abs(basis[:, 0] @ facing) >= abs(basis[:, 2] @ facing)
    return (SPINE.sideways, SPINE.twist, SPINE.bend) if x_sideways else (SPINE.bend, SPINE.twist, SPINE.sideways)


def reach_stiffness(skeleton):
    """{bone index: (x, y, z) stiffness} of the bones whose role gives them one."""
    report = recognise(skeleton)
    facing = np.asarray(report.facing, dtype=float)
    stiffness = {}
    for role, names in report.roles.items():
        kind = role.split(".")[0]
        for name in names:
            bone = skeleton.index[name]
            if kind == "spine":
                stiffness[bone] = _spine_axes(skeleton, bone, facing)
            elif kind in ROLE_STIFFNESS:
                stiffness[bone] = (ROLE_STIFFNESS[kind],) * 3
    return stiffness


def combined(panel, body):
    """Per axis, a joint as dear as its panel's stiffness and the body's together (weights multiply)."""
    return tuple(1.0 - (1.0 - p) * (1.0 - b) for p, b in zip(panel, body))
