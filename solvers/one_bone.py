"""One-bone aim: turn a single bone so it points at a target, optionally rolled toward a pole.

The pole follows the two-bone solver's Blender semantics: the bone's "up" vector
``X cos(pole_angle) + Z sin(pole_angle)`` (its rest axes) faces the pole point.
"""
import numpy as np

from solvers.chain import Chain, SolveResult, chain_pose
from solvers.transforms import EPS, aim_matrix, matrix3_to_quat, normalize, quat_to_matrix3


def validate_one_bone(chain):
    """Raise ValueError when the chain cannot be solved by the one-bone solver."""
    if len(chain) != 1:
        raise ValueError(f"the one-bone solver needs a chain of exactly 1 bone, got {len(chain)}")
    if chain.lengths[0] <= EPS:
        raise ValueError("the one-bone solver needs a bone of non-zero length to aim")


def solve_one_bone(chain: Chain, rotations, target, pole=None, pole_angle=0.0):
    """Aim the chain's only bone (its +Y) at ``target`` (3,), world space.

    ``rotations`` (1, 4) is the starting pose; without a pole its roll is kept (shortest turn).
    ``result.errors`` is (angle in radians between the bone and the direction to the target,).
    A target at the bone's head leaves the pose unchanged with error 0; a non-finite target or
    pole leaves it unchanged with converged False and error inf.
    """
    rotations = np.asarray(rotations, dtype=float)
    target = np.asarray(target, dtype=float)
    if not np.isfinite(target).all() or (pole is not None and not np.isfinite(pole).all()):
        return SolveResult(rotations.copy(), 0, np.array([np.inf]), False)
    world, points = chain_pose(chain, rotations)
    to_target = target - points[0]
    if np.linalg.norm(to_target) <= EPS:
        return SolveResult(rotations.copy(), 0, np.array([0.0]), True)
    basis = (chain.base[:3, :3] @ quat_to_matrix3(chain.rest_rotations[0]))[None]
    pole_dir = up_local = None
    if pole is not None:
        pole_dir = (np.asarray(pole, dtype=float) - points[0])[None]
        up_local = np.array([[np.cos(pole_angle), 0.0, np.sin(pole_angle)]])
    pose, _ = aim_matrix(basis, quat_to_matrix3(rotations[0])[None], np.array([[0.0, 1.0, 0.0]]),
                         normalize(to_target)[None], pole_dir, up_local)
    solved = matrix3_to_quat(pose)
    direction = chain_pose(chain, solved)[0][0, :, 1]
    aim = normalize(to_target)
    error = np.arctan2(np.linalg.norm(np.cross(direction, aim)), np.dot(direction, aim))
    return SolveResult(solved, 1, np.array([error]), bool(error <= 1e-9))
