"""Evaluate a rig's constraints on a pose: IK chains, then copy-rotation constraints.

IK results at full influence are written into the returned pose's rotations (the app solves
continuously from what the user sees, and a saved pose is what was on screen). A chain at partial
influence blends its FK channels with the IK result in the world matrices only and keeps its FK
channels in the pose, so the blend stays a blend frame after frame (IK/FK blending). Constraints
on a bone run after its parents are final, so a hand that copies its IK handle's rotation sits on
the solved forearm.
"""
from dataclasses import dataclass

import numpy as np

from rig.pose import Pose, world_matrices
from solvers.ccd import solve_ccd_chain
from solvers.chain import Chain
from solvers.fabrik import solve_fabrik_chain
from solvers.limits import EulerLimit
from solvers.one_bone import solve_one_bone
from solvers.transforms import matrix3_to_quat, quat_slerp, quat_to_matrix3
from solvers.two_bone import solve_two_bone


@dataclass
class ChainReport:
    """What one IK constraint's solve did this frame (for the stats panel and tests)."""
    bone: str
    solver: str
    iterations: int
    error: float
    converged: bool
    at_limit: int = 0
    """Bones of the chain held by a joint limit on at least one axis."""


def chain_arrays(skeleton, pose, world, chain):
    """The solver's view of bones ``chain`` (root first): a Chain hanging from the root's parent."""
    first = chain[0]
    parent = skeleton.parents[first]
    base = world[parent].copy() if parent >= 0 else np.eye(4)
    # Solvers hang chains from rigid frames; a stretched parent's scale is not the chain's business.
    base[:3, :3] = quat_to_matrix3(matrix3_to_quat(base[:3, :3] / np.linalg.norm(base[:3, :3], axis=0)))
    rest = skeleton.rest_local[chain]
    offsets = rest[:, :3, 3] + np.einsum("nij,nj->ni", rest[:, :3, :3], pose.locations[chain])
    return Chain(base, offsets, matrix3_to_quat(rest[:, :3, :3]), skeleton.lengths[chain])


# Solvers that need a chain of an exact length, and what auto picks for the others.
EXACT_LENGTH = {"one_bone": 1, "two_bone": 2}
ITERATIVE_FALLBACK = "fabrik"


def choose_solver(constraint, rig, chain_length):
    """Auto picks by chain length: one bone -> one_bone, two -> two_bone, longer -> fabrik. A
    forced solver that cannot take this chain (two_bone on three bones, or one not built yet)
    falls back to FABRIK."""
    requested = constraint.solver if constraint.solver != "auto" else rig.solver.type
    if requested == "auto":
        requested = {1: "one_bone", 2: "two_bone"}.get(chain_length, ITERATIVE_FALLBACK)
    if requested not in SOLVERS or EXACT_LENGTH.get(requested, chain_length) != chain_length:
        return ITERATIVE_FALLBACK
    return requested


def bone_limits(rig, chain):
    """Per-bone EulerLimit from the bone IK panel (locks and limits), None for free bones."""
    limits = []
    for i in chain:
        settings = rig.ik_settings(rig.skeleton.names[i])
        if any(settings.lock) or any(settings.use_limit):
            low = [lo if on else -np.pi for lo, on in zip(settings.limit_min, settings.use_limit)]
            high = [hi if on else np.pi for hi, on in zip(settings.limit_max, settings.use_limit)]
            limits.append(EulerLimit(tuple(low), tuple(high), tuple(settings.lock)))
        else:
            limits.append(None)
    return limits if any(limits) else None


def _stretch(rig, constraint, chain):
    if not constraint.use_stretch:
        return None
    amounts = np.array([rig.ik_settings(rig.skeleton.names[i]).stretch for i in chain])
    return amounts if amounts.any() else None


SOLVERS = {
    "one_bone": lambda rig, c, arrays, start, target, pole, chain: solve_one_bone(
        arrays, start, target, pole, c.pole_angle),
    "two_bone": lambda rig, c, arrays, start, target, pole, chain: solve_two_bone(
        arrays, start, target, pole, c.pole_angle, stretch=_stretch(rig, c, chain)),
    "fabrik": lambda rig, c, arrays, start, target, pole, chain: solve_fabrik_chain(
        arrays, start, target, bone_limits(rig, chain), max_iterations=min(c.iterations, rig.solver.iterations),
        tolerance=rig.solver.tolerance),
    "ccd": lambda rig, c, arrays, start, target, pole, chain: solve_ccd_chain(
        arrays, start, target, bone_limits(rig, chain), max_iterations=min(c.iterations, rig.solver.iterations),
        tolerance=rig.solver.tolerance),
}


def _solve_chain(rig, constraint, pose, world, target):
    """Solve ``constraint``'s chain toward world point ``target`` (3,); returns the chain, its
    rotations blended by influence, its stretch and a report."""
    skel = rig.skeleton
    chain = rig.ik_chain(constraint)
    solver = choose_solver(constraint, rig, len(chain))
    start = pose.rotations[chain] if rig.solver.mode == "continuous" else Pose.rest(len(chain)).rotations
    arrays = chain_arrays(skel, pose, world, chain)
    pole = world[skel.index[constraint.pole_target], :3, 3] if constraint.pole_target else None
    result = SOLVERS[solver](rig, constraint, arrays, start, target, pole, chain)
    rotations = result.rotations
    if constraint.influence < 1.0:
        rotations = quat_slerp(pose.rotations[chain], rotations, constraint.influence)
    report = ChainReport(constraint.bone, solver, result.iterations, float(result.errors[0]), result.converged,
                         int(result.at_limit.any(axis=1).sum()))
    return chain, rotations, result.stretch, report


def _copy_rotation(rig, constraint, pose, world):
    skel = rig.skeleton
    i, target = skel.index[constraint.bone], skel.index[constraint.target]
    parent = skel.parents[i]
    parent_basis = world[parent, :3, :3] if parent >= 0 else np.eye(3)
    rest_basis = parent_basis @ skel.rest_local[i, :3, :3]
    wanted = matrix3_to_quat(rest_basis.T @ world[target, :3, :3])
    return i, quat_slerp(pose.rotations[i], wanted, constraint.influence)


def _active_ik(rig, goals):
    """(constraint, world target point) pairs to solve, the temporary ``goals`` first."""
    pairs = [(c, np.asarray(point, dtype=float)) for c, point in goals]
    pairs += [(c, None) for c in rig.ik if c.enabled and c.target is not None and c.influence > 0.0]
    return pairs


def evaluate(rig, pose, goals=()):
    """Return (solved pose, world matrices, [ChainReport]) for ``pose``; ``pose`` is not changed.

    ``goals`` are temporary IK constraints with explicit world target points, ``(IKConstraint,
    point (3,))`` pairs, solved before the rig's own (Auto IK's dragged bone: the chains that the
    rig constrains then follow it). Rig constraints without a target (targetless IK) are skipped.
    """
    solved = pose.copy()
    channels = solved  # what the returned pose holds; differs from ``solved`` once a blend happens
    world = world_matrices(rig.skeleton, solved)
    reports = []
    for constraint, point in _active_ik(rig, goals):
        target = point if point is not None else world[rig.skeleton.index[constraint.target], :3, 3]
        chain, rotations, stretch, report = _solve_chain(rig, constraint, solved, world, target)
        if constraint.influence < 1.0 and channels is solved:
            channels = solved.copy()
        solved.rotations[chain] = rotations
        solved.scales[chain, 1] = stretch
        if constraint.influence >= 1.0 and channels is not solved:
            channels.rotations[chain] = rotations
            channels.scales[chain, 1] = stretch
        reports.append(report)
        world = world_matrices(rig.skeleton, solved)
    order = sorted((c for c in rig.copy_rotation if c.enabled), key=lambda c: rig.skeleton.index[c.bone])
    for constraint in order:
        i, rotation = _copy_rotation(rig, constraint, solved, world)
        solved.rotations[i] = rotation
        if channels is not solved:
            channels.rotations[i] = rotation
        world = world_matrices(rig.skeleton, solved)
    return channels, world, reports
