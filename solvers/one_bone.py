"""One-bone aim: turn a single bone so it points at a target, optionally rolled toward a pole.

The pole follows the two-bone solver's Blender semantics: the bone's "up" vector
``X cos(pole_angle) + Z sin(pole_angle)`` (its rest axes) faces the pole point.
"""
import math

import numpy as np

from solvers import inputs
from solvers import scalar as sc
from solvers.chain import Chain, SolveResult
from solvers.tolerances import AIMED


def validate_one_bone(chain):
    """Raise ValueError when the chain cannot be solved by the one-bone solver."""
    if len(chain) != 1:
        raise ValueError(f"the one-bone solver needs a chain of exactly 1 bone, got {len(chain)}")
    if chain.lengths[0] <= sc.EPS:
        raise ValueError("the one-bone solver needs a bone of non-zero length to aim")


def solve_one_bone(chain: Chain, rotations, target, pole=None, pole_angle=0.0):
    """Aim the chain's only bone (its +Y) at ``target`` (3,), world space.

    ``rotations`` (1, 4) is the starting pose; without a pole its roll is kept (shortest turn).
    ``result.errors`` is (angle in radians between the bone and the direction to the target,).
    A target at the bone's head leaves the pose unchanged with error 0; a non-finite target or
    pole leaves it unchanged with converged False and error inf.
    """
    start = inputs.unit_quaternion(np.asarray(rotations, dtype=float)[0].tolist())
    rotations = np.array([start])
    base_q, origin, offsets, rest, _ = chain.floats
    target, _ = inputs.near_target(tuple(np.asarray(target, dtype=float).tolist()), origin)
    pole = None if pole is None else inputs.near_target(tuple(np.asarray(pole, dtype=float).tolist()), origin)[0]
    pole_angle = inputs.finite_angle(pole_angle, "pole_angle")
    if not all(map(math.isfinite, target)) or (pole is not None and not all(map(math.isfinite, pole))):
        return SolveResult(rotations, 0, np.array([np.inf]), False)
    head = sc.add(origin, sc.qrotate(base_q, offsets[0]))
    to_target = sc.sub(target, head)
    if sc.length(to_target) <= sc.EPS:
        return SolveResult(rotations, 0, np.array([0.0]), True)
    to_rest = sc.qconj(sc.qmul(base_q, rest[0]))  # aim in the bone's rest frame
    aim = sc.normalize(sc.qrotate(to_rest, to_target))
    pole_dir = up_local = None
    if pole is not None:
        pole_dir = sc.qrotate(to_rest, sc.sub(pole, head))
        up_local = (math.cos(pole_angle), 0.0, math.sin(pole_angle))
    solved = sc.qnormalize(sc.aim(start, (0.0, 1.0, 0.0), aim, pole_dir, up_local)[0])
    direction = sc.qrotate(solved, (0.0, 1.0, 0.0))
    error = math.atan2(sc.length(sc.cross(direction, aim)), sc.dot(direction, aim))
    return SolveResult(np.array([solved]), 1, np.array([error]), error <= AIMED)
