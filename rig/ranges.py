"""The ranges a rig may have, stated once. Loaders refuse what lies outside (naming the file and the
field), writers never meet it, and the command line checks against the same numbers. Beyond them
forward kinematics and the solvers overflow or lose all precision: a bone 1e154 m long already has an
infinite squared length, and scales multiply down a chain."""
import numpy as np

MAX_COORDINATE = 1e6  # metres: rest heads and tails, pose locations, goal targets and poles
MAX_SCALE = 1e3  # magnitude of a pose scale, per axis
MAX_QUATERNION = 1e6  # magnitude of a pose file's quaternion component (unit when written; made unit on reading)
MAX_BVH_SCALE = 1e3  # metres per BVH file unit
UNIT_TOLERANCE = 1e-12  # a quaternion this close to unit length is one, to rounding


def first_outside(values, bound):
    """Index (along the first axis) of the first row of ``values`` with a non-finite entry or one of
    magnitude over ``bound``; None when every row is inside."""
    values = np.asarray(values, dtype=float).reshape(len(values), -1)
    bad = ~(np.abs(values) <= bound).all(axis=1)  # NaN compares False, so it is caught too
    return int(np.argmax(bad)) if bad.any() else None


def unit_quaternion(rotation, norm):
    """A quaternion read from a file, of length ``norm`` (non-zero), made unit; one already unit
    to rounding is kept bit for bit (dividing by a norm of 1 +- 1e-16 would change it), so what
    was saved reads back the same."""
    return rotation if abs(norm - 1.0) <= UNIT_TOLERANCE else rotation / norm
