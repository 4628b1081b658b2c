"""Analytic two-bone IK (law of cosines) with a Blender-style pole target, stretch, soft reach and
an end-bone rotation goal; one limb (``solve_two_bone``) or many at once (``solve_two_bone_batch``).

The chain's effector is the second bone's tail. The middle joint bends about the hinge axis of
the chain's current bend plane (its rest bend plane when straight, the first bone's X axis when
both are straight). The first bone then turns so the tip points at the target. With a pole the
order is Blender's (its IK solver's pole step runs before it bends the chain): the chain in its
rest shape turns so its tip points at the target and rolls about that line until the first bone's
"up" vector ``X cos(pole_angle) + Z sin(pole_angle)`` faces the pole; then it bends within its
plane. The rest shape stands for Blender's FK pose, so the result does not depend on the bend the
chain starts with (``solvers.chain.face_pole`` does the same for the iterative solvers).
tests/rig/test_blender_pole_reference.py checks the poses against Blender's.

The batch runs vectorised numpy; a single limb runs the same steps on plain floats
(``_solve_limb``), which is two orders of magnitude faster than a numpy batch of one. A single
solve with an end-bone rotation goal goes through the batch code as a batch of one.
"""
import math
from dataclasses import dataclass

import numpy as np

from solvers import scalar as sc
from solvers.chain import Chain, SolveResult, chain_pose
from solvers.transforms import EPS, aim_matrix, any_perpendicular, matrix3_to_quat, normalize, quat_from_axis_angle, \
    quat_angle, quat_between, quat_mul, quat_to_matrix3, signed_angle, swing_twist

Y = np.array([0.0, 1.0, 0.0])
X = np.array([1.0, 0.0, 0.0])
STRAIGHT = 1e-7


def validate_two_bone(chain):
    """Raise ValueError when the chain cannot be solved by the two-bone solver."""
    if len(chain) != 2:
        raise ValueError(f"the two-bone solver needs a chain of exactly 2 bones, got {len(chain)}")


@dataclass
class TwoBoneLimbs:
    """L two-bone chains as stacked arrays: ``base`` (L, 4, 4), ``offsets`` (L, 2, 3),
    ``rest_rotations`` (L, 2, 4), ``lengths`` (L, 2), with the meaning of ``Chain``'s fields."""
    base: np.ndarray
    offsets: np.ndarray
    rest_rotations: np.ndarray
    lengths: np.ndarray

    @classmethod
    def from_chains(cls, chains):
        """Stack two-bone ``Chain`` objects (each already validated when it was built)."""
        for chain in chains:
            validate_two_bone(chain)
        return cls(np.stack([c.base for c in chains]), np.stack([c.offsets for c in chains]),
                   np.stack([c.rest_rotations for c in chains]), np.stack([c.lengths for c in chains]))

    def __len__(self):
        return len(self.lengths)


@dataclass
class TwoBoneBatchResult:
    """Per limb: ``rotations`` (L, 2, 4), ``stretch`` (L, 2), ``errors`` (L, k) (tip distance, then
    the end bone's angle to ``end_rotations`` when given), ``converged`` (L,) booleans."""
    rotations: np.ndarray
    stretch: np.ndarray
    errors: np.ndarray
    converged: np.ndarray


def _apply(m, v):
    return np.einsum('lij,lj->li', m, v)


def _soft_distance(distance, reach, soft):
    """The distance the tip actually travels: ``distance`` itself until ``reach - soft``, then an
    exponential ease that approaches ``reach`` without the snap of a chain going straight."""
    start = reach - soft
    safe_soft = np.where(soft > EPS, soft, 1.0)
    eased = start + soft * (1.0 - np.exp(-(distance - start) / safe_soft))
    return np.where(soft > EPS, np.where(distance > start, eased, distance), np.minimum(distance, reach))


def _solve(base, offsets, rest, lengths, rotations, target, pole, pole_angle, stretch, soft, end_rotation,
           end_weight):
    count = len(lengths)
    finite = np.isfinite(target).all(-1)
    if pole is not None:
        finite &= np.isfinite(pole).all(-1)
    if end_rotation is not None:
        finite &= np.isfinite(end_rotation).all(-1)
    base3 = base[:, :3, :3]
    root = _apply(base3, offsets[:, 0]) + base[:, :3, 3]
    target = np.where(finite[:, None], target, root)
    q0, q1 = rotations[:, 0], rotations[:, 1]
    rest1_m = quat_to_matrix3(rest[:, 1])
    root_basis = base3 @ quat_to_matrix3(rest[:, 0])
    to_target = target - root
    distance = np.linalg.norm(to_target, axis=-1)

    # Reach: soft easing near full extension, then stretch to cover what the easing left short.
    mid = offsets[:, 1]
    upper, lower = np.linalg.norm(mid, axis=-1), lengths[:, 1]
    reach = upper + lower
    solve_distance = _soft_distance(distance, reach, soft)
    scale = np.ones((count, 2))
    if stretch is not None:
        give = stretch[:, 0] * upper + stretch[:, 1] * lower
        ratio = np.where(solve_distance > EPS, distance / np.where(solve_distance > EPS, solve_distance, 1.0), 1.0)
        grow = np.where(give > EPS, reach * (ratio - 1.0) / np.where(give > EPS, give, 1.0), 0.0)
        scale = 1.0 + grow[:, None] * stretch
        solve_distance = np.where(give > EPS, distance, solve_distance)
    mid = mid * np.stack([np.ones(count), scale[:, 0], np.ones(count)], -1)
    upper, lower = np.linalg.norm(mid, axis=-1), lower * scale[:, 1]

    # Bend: in the first bone's frame the lower bone's direction turns within the bend plane.
    mid_dir = normalize(mid)
    pose1 = quat_mul(rest[:, 1], q1)
    d2 = _apply(quat_to_matrix3(pose1), np.broadcast_to(Y, (count, 3)))
    hinge = np.cross(mid_dir, d2)
    rest_hinge = np.cross(mid_dir, rest1_m[:, :, 1])
    x_hinge = X - mid_dir * mid_dir[:, :1]
    x_hinge = np.where(np.linalg.norm(x_hinge, axis=-1, keepdims=True) > 1e-6, x_hinge, any_perpendicular(mid_dir))
    hinge = np.where(np.linalg.norm(hinge, axis=-1, keepdims=True) > STRAIGHT, hinge,
                     np.where(np.linalg.norm(rest_hinge, axis=-1, keepdims=True) > STRAIGHT, rest_hinge, x_hinge))
    hinge = normalize(hinge)
    bendable = (upper > EPS) & (lower > EPS)
    safe_ul = np.where(bendable, 2.0 * upper * lower, 1.0)
    bend = np.arccos(np.clip((solve_distance ** 2 - upper ** 2 - lower ** 2) / safe_ul, -1.0, 1.0))
    new_d2 = mid_dir * np.cos(bend)[:, None] + np.cross(hinge, mid_dir) * np.sin(bend)[:, None]
    new_d2 = np.where(bendable[:, None], new_d2, d2)
    turn = quat_to_matrix3(quat_between(d2, new_d2))
    r1 = np.swapaxes(rest1_m, 1, 2) @ turn @ quat_to_matrix3(pose1)
    tip_local = mid + lower[:, None] * new_d2

    # Aim: turn the first bone so the tip lies on the root-to-target line (and faces the pole).
    r0 = quat_to_matrix3(q0)
    current_tip_dir = normalize(_apply(root_basis @ r0, tip_local))
    reaches = distance > EPS
    target_dir = np.where(reaches[:, None], to_target / np.where(reaches, distance, 1.0)[:, None], current_tip_dir)
    posed = np.zeros(count, dtype=bool)
    if pole is None:
        r0, _ = aim_matrix(root_basis, r0, normalize(tip_local), target_dir)
    else:
        # Blender: the unbent chain turns to the target and rolls its up vector to the pole, then bends.
        angle = np.broadcast_to(pole_angle, (count,))
        up_local = np.stack([np.cos(angle), np.zeros(count), np.sin(angle)], -1)
        start_tip = mid + lower[:, None] * rest1_m[:, :, 1]
        unfolded = np.linalg.norm(start_tip, axis=-1) > EPS
        start_dir = np.where(unfolded[:, None], normalize(start_tip), normalize(tip_local))
        r0, posed = aim_matrix(root_basis, r0, start_dir, target_dir, np.where(finite[:, None], pole, 0.0) - root,
                               up_local)
        r0 = r0 @ quat_to_matrix3(quat_between(normalize(tip_local), start_dir))

    # End-bone rotation: roll the chain about the target line (when no pole holds it), then twist
    # the end bone about its own axis; neither moves the tip.
    if end_rotation is not None:
        weight = np.broadcast_to(end_weight, (count,))
        goal = quat_to_matrix3(np.where(finite[:, None], end_rotation, [0.0, 0.0, 0.0, 1.0]))
        world1 = root_basis @ r0 @ rest1_m @ r1
        end_dir = world1[:, :, 1] - target_dir * np.sum(world1[:, :, 1] * target_dir, -1, keepdims=True)
        goal_dir = goal[:, :, 1] - target_dir * np.sum(goal[:, :, 1] * target_dir, -1, keepdims=True)
        rollable = ~posed & (np.linalg.norm(end_dir, axis=-1) > 1e-9) & (np.linalg.norm(goal_dir, axis=-1) > 1e-9)
        roll = np.where(rollable, signed_angle(end_dir, goal_dir, target_dir), 0.0) * weight
        r0 = np.swapaxes(root_basis, 1, 2) @ quat_to_matrix3(quat_from_axis_angle(target_dir, roll)) @ root_basis @ r0
        world1 = root_basis @ r0 @ rest1_m @ r1
        twist = swing_twist(matrix3_to_quat(np.swapaxes(world1, 1, 2) @ goal), Y)[1]
        twist_angle = 2.0 * np.arctan2(twist[:, 1], twist[:, 3])
        r1 = r1 @ quat_to_matrix3(quat_from_axis_angle(Y, weight * twist_angle))

    solved = np.stack([matrix3_to_quat(r0), matrix3_to_quat(r1)], axis=1)
    tip = root + _apply(root_basis @ r0, tip_local)
    errors = np.linalg.norm(tip - target, axis=-1)[:, None]
    if end_rotation is not None:
        world1 = root_basis @ r0 @ rest1_m @ r1
        errors = np.concatenate([errors, quat_angle(matrix3_to_quat(world1), end_rotation)[:, None]], axis=1)
    converged = finite & (errors[:, 0] <= 1e-6 * np.maximum(upper + lower, 1.0))
    solved = np.where(finite[:, None, None], solved, rotations)
    scale = np.where(finite[:, None], scale, 1.0)
    errors = np.where(finite[:, None], errors, np.inf)
    return solved, scale, errors, converged


def _finite(values):
    return all(math.isfinite(v) for v in values)


def _solve_limb(chain, rotations, target, pole, pole_angle, stretch, soft):
    """One limb on plain floats: the steps of ``_solve`` without the end-rotation goal.
    Returns (rotations (2, 4), stretch (2,), error, converged) as Python values."""
    base_q, base_origin, offsets, (rest0, rest1), (_, lower) = chain.floats
    q0, q1 = rotations
    root = sc.add(base_origin, sc.qrotate(base_q, offsets[0]))
    if not _finite(target) or (pole is not None and not _finite(pole)):
        return (q0, q1), (1.0, 1.0), math.inf, False
    to_target = sc.sub(target, root)
    distance = sc.length(to_target)

    mid = offsets[1]
    upper = sc.length(mid)
    reach = upper + lower
    if soft > sc.EPS:
        start = reach - soft
        solve_distance = start + soft * (1.0 - math.exp(-(distance - start) / soft)) if distance > start else distance
    else:
        solve_distance = min(distance, reach)
    scale0 = scale1 = 1.0
    if stretch is not None:
        give = stretch[0] * upper + stretch[1] * lower
        if give > sc.EPS:
            ratio = distance / solve_distance if solve_distance > sc.EPS else 1.0
            grow = reach * (ratio - 1.0) / give
            scale0, scale1 = 1.0 + grow * stretch[0], 1.0 + grow * stretch[1]
            solve_distance = distance
    mid = (mid[0], mid[1] * scale0, mid[2])
    upper, lower = sc.length(mid), lower * scale1

    mid_dir = sc.normalize(mid)
    pose1 = sc.qmul(rest1, q1)
    d2 = sc.qrotate(pose1, (0.0, 1.0, 0.0))
    hinge = sc.cross(mid_dir, d2)
    if sc.length(hinge) <= STRAIGHT:
        hinge = sc.cross(mid_dir, sc.qrotate(rest1, (0.0, 1.0, 0.0)))
        if sc.length(hinge) <= STRAIGHT:
            hinge = sc.sub((1.0, 0.0, 0.0), sc.scale(mid_dir, mid_dir[0]))
            if sc.length(hinge) <= 1e-6:
                hinge = sc.any_perpendicular(mid_dir)
    hinge = sc.normalize(hinge)
    new_d2 = d2
    if upper > sc.EPS and lower > sc.EPS:
        cosine = (solve_distance * solve_distance - upper * upper - lower * lower) / (2.0 * upper * lower)
        bend = math.acos(min(1.0, max(-1.0, cosine)))
        new_d2 = sc.add(sc.scale(mid_dir, math.cos(bend)), sc.scale(sc.cross(hinge, mid_dir), math.sin(bend)))
    r1 = sc.qmul(sc.qconj(rest1), sc.qmul(sc.qbetween(d2, new_d2), pose1))
    tip_local = sc.add(mid, sc.scale(new_d2, lower))

    root_q = sc.qmul(base_q, rest0)
    tip_dir = sc.normalize(tip_local)
    target_dir = sc.scale(to_target, 1.0 / distance) if distance > sc.EPS else \
        sc.normalize(sc.qrotate(sc.qmul(root_q, q0), tip_dir))
    start_tip = sc.add(mid, sc.scale(sc.qrotate(rest1, (0.0, 1.0, 0.0)), lower))
    if pole is not None and sc.length(start_tip) > sc.EPS:
        # Blender: the unbent chain turns to the target and rolls its up vector to the pole, then bends.
        start_dir = sc.normalize(start_tip)
        up_local = (math.cos(pole_angle), 0.0, math.sin(pole_angle))
        r0 = sc.qmul(sc.aim(root_q, q0, start_dir, target_dir, sc.sub(pole, root), up_local),
                     sc.qbetween(tip_dir, start_dir))
    else:
        r0 = sc.aim(root_q, q0, tip_dir, target_dir)

    tip = sc.add(root, sc.qrotate(sc.qmul(root_q, r0), tip_local))
    error = sc.length(sc.sub(tip, target))
    converged = error <= 1e-6 * max(upper + lower, 1.0)
    return (sc.qnormalize(r0), sc.qnormalize(r1)), (scale0, scale1), error, converged


def pole_facing(chain: Chain, rotations, pole_angle):
    """The world direction (3,) in which a pole must lie, seen from the root-to-tip line, for pose
    ``rotations`` (2, 4) of ``chain`` to be its own solution with that pole and ``pole_angle``:
    the up vector of the rest-shaped chain that the solver turns (module doc) and then bends into
    this pose."""
    world, points = chain_pose(chain, rotations)
    rest_tip = chain.offsets[1] + chain.lengths[1] * quat_to_matrix3(chain.rest_rotations[1])[:, 1]
    tip = world[0].T @ (points[-1] - points[0])
    unbend = quat_to_matrix3(quat_between(normalize(rest_tip), normalize(tip)))
    return world[0] @ unbend @ np.array([math.cos(pole_angle), 0.0, math.sin(pole_angle)])


def solve_two_bone(chain: Chain, rotations, target, pole=None, pole_angle=0.0, *, stretch=None, soft=0.0,
                   end_rotation=None, end_weight=1.0):
    """Solve a 2-bone chain so its tip reaches ``target`` (3,), world space.

    ``rotations`` (2, 4) is the starting pose (its bend plane and, without a pole, its roll are
    kept). Unreachable targets leave the chain straight toward the target; targets inside the
    inner radius fold it as far as it goes. A non-finite target, pole or end rotation leaves the
    pose unchanged (converged False, error inf).

    - ``stretch`` (2,): per-bone stretchiness >= 0 (Blender's IK Stretch); when the target lies
      beyond reach the bones lengthen along Y by ``1 + t * stretch[i]`` so the tip arrives.
    - ``soft``: distance (metres) before full extension over which the reach eases in, so the
      knee never snaps straight; without stretch the tip then stops short of far targets.
    - ``end_rotation`` (4,): world rotation wanted for the second bone, blended in by
      ``end_weight`` in [0, 1]; it only uses freedom the tip position leaves (the roll about the
      target line when there is no pole, the bone's twist about its own axis).
    ``result.errors`` is (tip distance,) or (tip distance, end-bone angle in radians).
    """
    if end_rotation is None:
        validate_two_bone(chain)
        solved, scale, error, converged = _solve_limb(
            chain, np.asarray(rotations, dtype=float).tolist(), np.asarray(target, dtype=float).tolist(),
            None if pole is None else np.asarray(pole, dtype=float).tolist(), float(pole_angle),
            None if stretch is None else np.asarray(stretch, dtype=float).tolist(), float(soft))
        return SolveResult(np.array(solved), 1, np.array([error]), converged, np.array(scale))
    solved, scale, errors, converged = _solve(
        chain.base[None], chain.offsets[None], chain.rest_rotations[None], chain.lengths[None],
        np.asarray(rotations, dtype=float)[None], np.asarray(target, dtype=float)[None],
        None if pole is None else np.asarray(pole, dtype=float)[None], pole_angle,
        None if stretch is None else np.asarray(stretch, dtype=float)[None], soft,
        None if end_rotation is None else np.asarray(end_rotation, dtype=float)[None], end_weight)
    return SolveResult(solved[0], 1, errors[0], bool(converged[0]), scale[0])


def solve_two_bone_batch(limbs: TwoBoneLimbs, rotations, targets, poles=None, pole_angles=0.0, *, stretch=None,
                         soft=0.0, end_rotations=None, end_weights=1.0):
    """Solve L limbs at once; the same as ``solve_two_bone`` on each, limb by limb.

    ``rotations`` (L, 2, 4), ``targets`` (L, 3), ``poles`` (L, 3) or None, ``pole_angles``,
    ``soft`` and ``end_weights`` scalars or (L,), ``stretch`` (L, 2) or None, ``end_rotations``
    (L, 4) or None. Returns a ``TwoBoneBatchResult``.
    """
    def per_limb(value):
        return np.broadcast_to(np.asarray(value, dtype=float), (len(limbs),))

    solved, scale, errors, converged = _solve(
        limbs.base, limbs.offsets, limbs.rest_rotations, limbs.lengths, np.asarray(rotations, dtype=float),
        np.asarray(targets, dtype=float), None if poles is None else np.asarray(poles, dtype=float),
        per_limb(pole_angles), None if stretch is None else np.asarray(stretch, dtype=float), per_limb(soft),
        None if end_rotations is None else np.asarray(end_rotations, dtype=float), per_limb(end_weights))
    return TwoBoneBatchResult(solved, scale, errors, converged)
