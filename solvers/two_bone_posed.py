"""A lone two-bone limb solved straight into a rig's pose and world matrices: one compiled call
from the target to the posed bones, for the rig's commonest solve (a dragged hand or foot, each
case of a scripted arm).

``solve_posed`` runs ``two_bone.solve_limb`` (the one two-bone solve) on the limb's constants,
writes both bones' pose rotations and stretch (as inherited scales) into the pose arrays, then
``kinematics.update_world`` over the bones below the limb: what ``solve_two_bone``, the rig's
write and its forward kinematics do one after another, without the Python between them (through
the rig that glue cost several times the solve). The limb's row (``posed_row``) also holds its
bones, what its constraint asks beside the target and the parent's world matrix and the bones'
pose locations it was built under, so the caller keeps it from solve to solve, passing only the
target, the pole and the arrays (each argument costs the call some 0.03-0.08 us), and the
kernel, which reads those arrays anyway, answers ``STALE`` (writing nothing) once they moved.
It takes only input that needs no conditioning: a target and pole within ``inputs.FAR`` of the
limb, finite, and unit start rotations. Anything else it leaves untouched and answers NaN, so
the caller takes ``solve_two_bone``'s path, which conditions it.
"""
import math
from typing import NamedTuple

import numpy as np
from numba import njit

from solvers import inputs
from solvers.chain import Chain
from solvers.kinematics import STALE, TINY_SCALE, built_under, hangs_as_built, update_world
from solvers.two_bone import Asked, limb_constants, solve_limb

PACKED = 27  # ``two_bone._packed``'s row comes first in a posed row,
BONES = PACKED  # then the limb's two bones in the pose,
STRETCH = BONES + 2  # both bones' stretch amounts (2; zero: no stretch),
ASKED = STRETCH + 2  # from the rest pose (1.0) or not (0.0), the pole angle in [-pi, pi], soft reach (metres),
BUILT = ASKED + 3  # then what it was built under: its parent's world, its locations (``kinematics.built_under``)
NEAR = inputs.FAR * inputs.FAR / 4.0  # ``inputs.near_target``'s bound on a squared distance
UNIT = 1e-3  # ``inputs.unit_rows``' tolerance on a start rotation's squared norm


@njit
def _near(x, y, z, origin_x, origin_y, origin_z):
    """Whether a point is finite and within ``inputs.FAR`` of the origin (NaN compares False)."""
    dx, dy, dz = x - origin_x, y - origin_y, z - origin_z
    return dx * dx + dy * dy + dz * dz <= NEAR


@njit
def _start(rotations, bone, from_rest):
    """The start rotation of ``bone`` and whether it is usable as it is (unit, finite)."""
    if from_rest:
        return inputs.IDENTITY, True
    x, y, z, w = rotations[bone, 0], rotations[bone, 1], rotations[bone, 2], rotations[bone, 3]
    return (x, y, z, w), abs(x * x + y * y + z * z + w * w - 1.0) < UNIT


@njit(cache=True)
def solve_posed(c, tx, ty, tz, has_pole, px, py, pz, rest_local, parents, moved, locations, rotations, scales, world):
    """Solve the limb whose ``posed_row`` is ``c`` for target (``tx``, ``ty``, ``tz``), world,
    and a pole (``has_pole``: ``px``, ``py``, ``pz``, world); its bones, stretch, start, pole
    angle and soft reach come in the row. Writes the bones' rotations and scales into
    ``rotations`` (N, 4) and ``scales`` (N, 3), then the world matrices of ``moved`` (the limb's
    first bone and all below it, ascending) as ``kinematics.update_world`` with ``rest_local``,
    ``parents`` and ``locations``. Returns the tip's distance from the target; with nothing
    written, ``STALE`` when the row no longer holds and NaN for input needing conditioning."""
    first, second = int(c[BONES]), int(c[BONES + 1])
    if not hangs_as_built(c[BUILT:], parents[first], (first, second), locations, world):
        return STALE
    from_rest = c[ASKED] != 0.0
    ox, oy, oz = c[3], c[7], c[11]
    q0, unit0 = _start(rotations, first, from_rest)
    q1, unit1 = _start(rotations, second, from_rest)
    if not (unit0 and unit1 and _near(tx, ty, tz, ox, oy, oz) and (not has_pole or _near(px, py, pz, ox, oy, oz))):
        return math.nan
    stretch = (c[STRETCH], c[STRETCH + 1])
    asked = Asked((px, py, pz), has_pole, c[ASKED + 1], stretch, stretch != (0.0, 0.0), c[ASKED + 2],
                  inputs.IDENTITY, False, 1.0)
    solved = solve_limb(c, q0, q1, (tx, ty, tz), asked)
    for k in range(4):
        rotations[first, k], rotations[second, k] = solved.r0[k], solved.r1[k]
    # Each bone's whole stretch as the inherited scale ``kinematics.stretch_scales`` writes: the
    # first's own, the second's divided by the first's.
    above = solved.scale0 if abs(solved.scale0) >= TINY_SCALE else 1.0
    for k in range(3):
        scales[first, k], scales[second, k] = solved.scale0, solved.scale1 / above
    update_world(rest_local, parents, moved, locations, rotations, scales, world)
    return solved.tip_error


class Limb(NamedTuple):
    """A limb as ``posed_row`` takes it: its ``chain`` (``solvers.chain.Chain``), its ``bones``
    (first, second) in the pose, their ``stretch`` amounts (2,; None: none), whether it solves
    ``from_rest``, its ``pole_angle`` in [-pi, pi] and ``soft`` reach (metres)."""
    chain: Chain
    bones: tuple
    stretch: object
    from_rest: bool
    pole_angle: float
    soft: float


def posed_row(limb, parent_world, locations):
    """The posed row of ``limb`` (a ``Limb``) hanging from the parent whose world matrix is
    ``parent_world`` (4, 4; None for a root limb), its bones at pose ``locations`` (2, 3): the
    kernel's constants (kept on the chain for its base, as ``solve_two_bone`` keeps them), the
    bones, the stretch, what the limb asks, then what they were built under."""
    chain = limb.chain
    packed = chain.cached_for_base("two_bone", lambda: limb_constants(chain))
    return np.concatenate([packed, limb.bones, np.zeros(2) if limb.stretch is None else limb.stretch,
                           (float(limb.from_rest), limb.pole_angle, limb.soft), built_under(parent_world, locations)])


def warm():
    """Compile (or load from the cache) ``solve_posed`` for the argument types the rig passes."""
    chain = Chain(np.eye(4), [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 0.0, 0.0, 1.0]] * 2, [1.0, 1.0])
    rest_local = np.tile(np.eye(4), (2, 1, 1))
    rest_local[1, 1, 3] = 1.0
    rotations = np.tile([0.0, 0.0, 0.0, 1.0], (2, 1))
    row = posed_row(Limb(chain, (0, 1), None, True, 0.0, 0.0), None, np.zeros((2, 3)))
    solve_posed(row, 0.5, 1.0, 0.5, False, 0.0, 0.0, 0.0, rest_local, np.array([-1, 0]), np.array([0, 1]),
                np.zeros((2, 3)), rotations, np.ones((2, 3)), np.empty((2, 4, 4)))
