"""How a sequence of poses moves in time: each bone's angular velocity between frames ``dt``
apart, and its angular acceleration, to tell a smooth motion from a pop (iTaSC's Simulation mode
promises no bone turns faster than its max velocity: ``rig.simulation``)."""
from typing import NamedTuple

import numpy as np

from solvers.transforms import quat_conjugate, quat_mul, quat_to_rotvec


class Motion(NamedTuple):
    """Per step and bone: ``speed`` (frames - 1, bones) rad/s; per pair of steps and bone:
    ``acceleration`` (frames - 2, bones) rad/s^2, the change of the angular velocity vector."""
    speed: np.ndarray
    acceleration: np.ndarray


def motion(rotations, dt):
    """The ``Motion`` of pose rotations (frames, bones, 4) xyzw, ``dt`` seconds apart. Angular
    velocities are in each bone's own frame at the earlier pose (rotation vectors of the turn)."""
    rotations = np.asarray(rotations, dtype=float)
    turns = quat_to_rotvec(quat_mul(quat_conjugate(rotations[:-1]), rotations[1:])) / dt
    return Motion(np.linalg.norm(turns, axis=-1), np.linalg.norm(np.diff(turns, axis=0), axis=-1) / dt)


def case_rotations(out, names=None):
    """The pose rotations (cases, bones, 4) of an ``app.py solve`` output document, bones
    ``names`` (default: every bone, in the first case's order)."""
    names = list(out["cases"][0]["bones"]) if names is None else names
    return np.array([[case["bones"][name]["rotation"] for name in names] for case in out["cases"]])
