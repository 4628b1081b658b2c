"""Analytic two-bone IK (law of cosines) with a Blender-style pole target.

The chain's effector is the second bone's tail. The middle joint bends about the hinge axis of
the chain's current bend plane (its rest bend plane when straight, the first bone's X axis when
both are straight). The first bone then turns so the tip points at the target; with a pole, the
chain also rolls about the root-to-target axis until the first bone's "up" vector
``X cos(pole_angle) + Z sin(pole_angle)`` (its rest axes) faces the pole, as Blender defines it.
"""
import numpy as np

from solvers.chain import Chain, SolveResult, chain_points
from solvers.transforms import EPS, normalize, quat_conjugate, quat_from_axis_angle, quat_between, quat_mul, \
    quat_rotate, quat_to_matrix3, matrix3_to_quat, safe_acos

Y = np.array([0.0, 1.0, 0.0])


def _frame(direction, up):
    """Orthonormal basis (3, 3) with columns (direction, up made perpendicular, their cross), or
    None when ``up`` is (nearly) parallel to ``direction``."""
    up_perp = up - direction * np.dot(up, direction)
    n = np.linalg.norm(up_perp)
    if n < 1e-9:
        return None
    up_perp = up_perp / n
    return np.column_stack([direction, up_perp, np.cross(direction, up_perp)])


def validate_two_bone(chain):
    """Raise ValueError when the chain cannot be solved by the two-bone solver."""
    if len(chain) != 2:
        raise ValueError(f"the two-bone solver needs a chain of exactly 2 bones, got {len(chain)}")


def solve_two_bone(chain: Chain, rotations, target, pole=None, pole_angle=0.0):
    """Solve a 2-bone chain so its tip reaches ``target`` (3,), world space.

    ``rotations`` (2, 4) is the starting pose (its bend plane and, without a pole, its roll are
    kept). Unreachable targets leave the chain straight toward the target; targets inside the
    inner radius fold it as far as it goes. A non-finite target or pole leaves the pose unchanged.
    """
    rotations = np.asarray(rotations, dtype=float)
    target = np.asarray(target, dtype=float)
    if not np.isfinite(target).all() or (pole is not None and not np.isfinite(pole).all()):
        return SolveResult(rotations.copy(), 0, np.array([np.inf]), False)
    q_rest0, q_rest1 = chain.rest_rotations
    q0, q1 = rotations
    root_basis_q = quat_mul(matrix3_to_quat(chain.base[:3, :3]), q_rest0)
    root = chain.base[:3, :3] @ chain.offsets[0] + chain.base[:3, 3]

    # Bend: in the first bone's frame, the second bone's head sits at ``mid`` and points along d2.
    mid = chain.offsets[1]
    upper_len = np.linalg.norm(mid)
    lower_len = chain.lengths[1]
    mid_dir = normalize(mid)
    d2 = quat_rotate(quat_mul(q_rest1, q1), Y)
    hinge = np.cross(mid_dir, d2)
    if np.linalg.norm(hinge) < 1e-9:
        hinge = np.cross(mid_dir, quat_rotate(q_rest1, Y))
    if np.linalg.norm(hinge) < 1e-9:
        hinge = np.array([1.0, 0.0, 0.0])
    hinge = normalize(hinge)
    distance = np.linalg.norm(target - root)
    if upper_len > EPS and lower_len > EPS:
        cos_bend = (distance ** 2 - upper_len ** 2 - lower_len ** 2) / (2.0 * upper_len * lower_len)
        bend = safe_acos(cos_bend)
        current_bend = safe_acos(np.dot(mid_dir, d2))
        turn = quat_from_axis_angle(hinge, bend - current_bend)
        q1 = quat_mul(quat_mul(quat_conjugate(q_rest1), quat_mul(turn, q_rest1)), q1)
    tip_local = mid + lower_len * quat_rotate(quat_mul(q_rest1, q1), Y)

    # Aim: turn the first bone so the tip lies on the root-to-target line (and faces the pole).
    root_basis = quat_to_matrix3(root_basis_q)
    current_tip_dir = normalize(root_basis @ quat_rotate(q0, tip_local))
    target_dir = normalize(target - root, fallback=current_tip_dir) if distance > EPS else current_tip_dir
    tip_dir_local = normalize(tip_local, fallback=Y)
    aimed = None
    if pole is not None:
        up_local = np.array([np.cos(pole_angle), 0.0, np.sin(pole_angle)])
        local_frame = _frame(tip_dir_local, up_local)
        world_frame = _frame(target_dir, np.asarray(pole, float) - root)
        if local_frame is not None and world_frame is not None:
            aimed = matrix3_to_quat(root_basis.T @ world_frame @ local_frame.T)
    if aimed is None:
        swing = quat_between(current_tip_dir, target_dir)
        aimed = quat_mul(quat_mul(quat_conjugate(root_basis_q), quat_mul(swing, root_basis_q)), q0)
    solved = np.stack([aimed, q1])
    solved = solved / np.linalg.norm(solved, axis=1, keepdims=True)
    error = np.linalg.norm(chain_points(chain, solved)[-1] - target)
    reach = upper_len + lower_len
    return SolveResult(solved, 1, np.array([error]), bool(error <= 1e-6 * max(reach, 1.0)))
