"""IK goals on a skeleton: which bones each constraint moves, which constraints solve together,
and the solver calls that turn world-space goals into pose rotations.

An ``IKGoal`` is an IK constraint with its target, target rotation and pole resolved to world
space, so the same code serves the app (targets are handle bones) and scripted solves (targets
are points from a file). Constraints whose chains share bones are solved together as one tree,
as Blender does; a lone chain goes to the solver its length and settings choose. The Jacobian
solvers (``dls``, ``sdls``) take chains and trees alike, with every iTaSC setting: position and
lockable rotation goals, distance constraints, per-axis lock / stiffness / limits, Control
Rotation and stretch.
"""
from dataclasses import dataclass

import numpy as np

from rig.constraints import IKConstraint
from rig.pose import Pose, update_world
from solvers.ccd import solve_ccd_chain
from solvers.chain import Chain, SolveResult, face_pole, rotation_error
from solvers.dls import dls_plan, solve_dls
from solvers.fabrik import Effector, fabrik_plan, solve_fabrik, solve_fabrik_chain
from solvers.goals import BoneDofs, DistanceGoal, JointRotationGoal, PositionGoal, RotationGoal
from solvers.limits import EulerLimit
from solvers.one_bone import solve_one_bone
from solvers.transforms import matrix3_to_quat, quat_slerp, quat_to_matrix3
from solvers.tree import Tree
from solvers.two_bone import solve_two_bone


@dataclass
class IKGoal:
    """``constraint`` with world-space goals: ``target`` (3,), ``rotation`` (4,) xyzw for the
    chain's last bone (None: position only), ``pole`` (3,) or None."""
    constraint: IKConstraint
    target: np.ndarray
    rotation: np.ndarray = None
    pole: np.ndarray = None


@dataclass
class ChainReport:
    """What one IK constraint's solve did (for the stats panel, scripted solves and tests).
    ``error`` is the residual of its first goal in ``unit``: "m" for a position, "rad" for an
    angle (a one-bone chain aims, so its residual is an angle)."""
    bone: str
    solver: str
    iterations: int
    error: float
    converged: bool
    at_limit: int = 0
    unit: str = "m"


def goal_from_handles(rig, constraint, world):
    """The constraint's goal read from its target and pole bones in ``world`` (N, 4, 4); the
    target's rotation counts when the constraint uses rotation or the rig's solver settings
    turn target rotations on for every chain."""
    index = rig.skeleton.index
    target = world[index[constraint.target]]
    use_rotation = constraint.use_rotation or rig.solver.use_target_rotations
    rotation = matrix3_to_quat(target[:3, :3]) if use_rotation else None
    pole = world[index[constraint.pole_target], :3, 3] if constraint.pole_target else None
    return IKGoal(constraint, target[:3, 3].copy(), rotation, pole)


def _rigid(matrix):
    """``matrix`` with the scale taken out of its rotation: solvers hang chains from rigid frames,
    and a stretched parent's scale is not the chain's business."""
    rigid = matrix.copy()
    if rotation_error(matrix) <= 1e-12:  # rigid already
        return rigid
    basis = matrix[:3, :3] / np.sqrt(np.einsum("ij,ij->j", matrix[:3, :3], matrix[:3, :3]))
    if rotation_error(basis) > 1e-9:  # sheared by an inherited stretch
        basis = quat_to_matrix3(matrix3_to_quat(basis))
    rigid[:3, :3] = basis
    return rigid


def _base(skeleton, world, bone):
    """The rigid frame ``bone`` hangs from: its parent's in ``world``, or the armature's."""
    parent = skeleton.parents[bone]
    return _rigid(world[parent]) if parent >= 0 else np.eye(4)


def _hanging_arrays(skeleton, pose, world, bones):
    """Base frame (the first bone's parent, rigid), head offsets, rest rotations and lengths of
    ``bones`` (ascending indices) as the solvers see them."""
    rest = skeleton.rest_local[bones]
    offsets = rest[:, :3, 3] + np.einsum("nij,nj->ni", rest[:, :3, :3], pose.locations[bones])
    return _base(skeleton, world, bones[0]), offsets, skeleton.rest_local_rotations[bones], skeleton.lengths[bones]


def chain_arrays(skeleton, pose, world, chain):
    """The solver's view of bones ``chain`` (root first): a Chain hanging from the root's parent.
    The chain is built and checked once (again when its bones' pose locations change) and kept
    in ``skeleton.solver_chains``; later solves only rebase it on the parent's frame."""
    key, locations = tuple(chain), pose.locations[chain].tobytes()
    cached = skeleton.solver_chains.get(key)
    if cached is not None and cached[0] == locations:
        return cached[1].rebased(_base(skeleton, world, chain[0]))
    built = Chain(*_hanging_arrays(skeleton, pose, world, chain))
    skeleton.solver_chains[key] = (locations, built)
    return built


def tree_arrays(skeleton, pose, world, bones):
    """The solver's view of ``bones`` (ascending, one connected subtree such as a union of
    overlapping chains, which always has a single top bone): a Tree hanging from its parent."""
    position = {bone: i for i, bone in enumerate(bones)}
    parents = [position.get(int(skeleton.parents[b]), -1) for b in bones]
    base, offsets, rest_rotations, lengths = _hanging_arrays(skeleton, pose, world, bones)
    return Tree(base, parents, offsets, rest_rotations, lengths)


def constraint_groups(rig, constraints):
    """Split ``constraints`` into groups whose chains share bones (transitively); each group is
    (constraints, bones ascending). Groups come parents first, so a chain hanging from another
    group's bones is solved after them."""
    groups = []
    for constraint in constraints:
        bones = set(rig.ik_chain(constraint))
        members = [constraint]
        for group in [g for g in groups if g[1] & bones]:
            groups.remove(group)
            members = group[0] + members
            bones |= group[1]
        groups.append((members, bones))
    ordered = [(members, sorted(bones)) for members, bones in groups]
    return sorted(ordered, key=lambda group: group[1][0])


# Solvers that need a chain of an exact length, and what auto picks for the others.
EXACT_LENGTH = {"one_bone": 1, "two_bone": 2}
ITERATIVE_FALLBACK = "fabrik"
JACOBIAN_SOLVERS = ("dls", "sdls")
DISTANCE_MODES = {"inside": "inside", "outside": "outside", "on_surface": "on"}


def _requested(constraint, rig):
    return constraint.solver if constraint.solver != "auto" else rig.solver.type


def choose_solver(constraint, rig, chain_length):
    """Auto picks by chain length: one bone -> one_bone, two -> two_bone, longer -> fabrik. A
    forced solver that cannot take this chain (two_bone on three bones) falls back to FABRIK."""
    requested = _requested(constraint, rig)
    if requested in JACOBIAN_SOLVERS:
        return requested
    if requested == "auto":
        requested = {1: "one_bone", 2: "two_bone"}.get(chain_length, ITERATIVE_FALLBACK)
    if requested not in CHAIN_SOLVERS or EXACT_LENGTH.get(requested, chain_length) != chain_length:
        return ITERATIVE_FALLBACK
    return requested


def bone_limits(rig, bones):
    """Per-bone EulerLimit from the bone IK panel (locks and limits), None for free bones."""
    limits = []
    for i in bones:
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


def _iterations(rig, constraint):
    return min(constraint.iterations, rig.solver.iterations)


ANALYTIC_SOLVERS = ("one_bone", "two_bone")  # they take the pole themselves
CHAIN_SOLVERS = {
    "one_bone": lambda rig, goal, arrays, start, chain: solve_one_bone(
        arrays, start, goal.target, goal.pole, goal.constraint.pole_angle),
    "two_bone": lambda rig, goal, arrays, start, chain: solve_two_bone(
        arrays, start, goal.target, goal.pole, goal.constraint.pole_angle, stretch=_stretch(rig, goal.constraint, chain),
        end_rotation=goal.rotation, end_weight=goal.constraint.orient_weight),
    "fabrik": lambda rig, goal, arrays, start, chain: solve_fabrik_chain(
        arrays, start, goal.target, bone_limits(rig, chain), target_rotation=goal.rotation,
        max_iterations=_iterations(rig, goal.constraint), tolerance=rig.solver.tolerance,
        stretch=_stretch(rig, goal.constraint, chain)),
    "ccd": lambda rig, goal, arrays, start, chain: solve_ccd_chain(
        arrays, start, goal.target, bone_limits(rig, chain), max_iterations=_iterations(rig, goal.constraint),
        tolerance=rig.solver.tolerance, stretch=_stretch(rig, goal.constraint, chain)),
}


def _start(rig, pose, bones):
    """Where an iterative solve starts: the current pose, or the rest pose in original-pose mode."""
    return pose.rotations[bones] if rig.solver.mode == "continuous" else Pose.rest(len(bones)).rotations


def _chain_start(rig, pose, goal, arrays, chain):
    """``_start`` for a lone chain, turned to face its pole first as Blender's IK does, as far
    as the first bone's locks and limits let it (the analytic solvers take the pole themselves)."""
    start = _start(rig, pose, chain)
    if goal.pole is None:
        return start
    limits = bone_limits(rig, chain[:1])
    return face_pole(arrays, start, goal.target, goal.pole, goal.constraint.pole_angle,
                     (limits[0],) if limits else ())


def _solve_chain(rig, pose, world, goal):
    """A lone chain with the solver its length and settings choose: (result, [ChainReport])."""
    chain = rig.ik_chain(goal.constraint)
    solver = choose_solver(goal.constraint, rig, len(chain))
    arrays = chain_arrays(rig.skeleton, pose, world, chain)
    start = _start(rig, pose, chain) if solver in ANALYTIC_SOLVERS else _chain_start(rig, pose, goal, arrays, chain)
    result = CHAIN_SOLVERS[solver](rig, goal, arrays, start, chain)
    return result, [ChainReport(goal.constraint.bone, solver, result.iterations, float(result.errors[0]),
                                result.converged, int(result.at_limit.any(axis=1).sum()),
                                "rad" if solver == "one_bone" else "m")]


def _solve_tree(rig, pose, world, goals, bones):
    """FABRIK on the union of the goals' chains, one effector per goal weighted by its weight."""
    position = {bone: i for i, bone in enumerate(bones)}
    effectors, rotations = [], []
    for goal in goals:
        chain = rig.ik_chain(goal.constraint)
        use_rotation = goal.rotation is not None
        effectors.append(Effector(position[chain[-1]], len(chain), max(goal.constraint.weight, 1e-3), use_rotation))
        rotations.append(goal.rotation if use_rotation else [0.0, 0.0, 0.0, 1.0])
    plan = fabrik_plan(tree_arrays(rig.skeleton, pose, world, bones), effectors, bone_limits(rig, bones))
    result = solve_fabrik(plan, _start(rig, pose, bones), np.array([g.target for g in goals]), np.array(rotations),
                          max(_iterations(rig, g.constraint) for g in goals), rig.solver.tolerance)
    return result, _group_reports(rig, goals, [[effector] for effector in effectors], result, "fabrik")


def _write(pose, bones, rotations, stretch, influence):
    if influence < 1.0:
        rotations = quat_slerp(pose.rotations[bones], rotations, influence)
    pose.rotations[bones] = rotations
    pose.scales[bones, 1] = stretch


def _bone_dofs(rig, constraint, bone):
    """The bone IK panel's settings of ``bone`` as the Jacobian solver's BoneDofs (stretch only
    when the constraint allows it); settings it cannot take leave the bone free."""
    settings = rig.ik_settings(rig.skeleton.names[bone])
    try:
        return BoneDofs(settings.lock, settings.stiffness, settings.use_limit, settings.limit_min,
                        settings.limit_max, settings.stretch if constraint.use_stretch else 0.0)
    except ValueError:
        return None


def _jacobian_goals(rig, pose, goal, position):
    """The solver goals one constraint asks for: position (or distance) and rotation at the
    chain's tip, plus Control Rotation on bones that have it. Non-finite targets raise ValueError."""
    c = goal.constraint
    tip = position[rig.ik_chain(c)[-1]]
    goals = []
    if c.ik_type == "distance":
        goals.append(DistanceGoal(tip, goal.target, c.distance, DISTANCE_MODES[c.limit_mode], c.weight))
    elif c.use_location:
        goals.append(PositionGoal(tip, goal.target, c.weight))
    if goal.rotation is not None and not all(c.lock_rotation):
        goals.append(RotationGoal(tip, goal.rotation, c.orient_weight, c.lock_rotation))
    for bone in rig.ik_chain(c):
        settings = rig.ik_settings(rig.skeleton.names[bone])
        if settings.use_rotation_control:
            goals.append(JointRotationGoal(position[bone], pose.rotations[bone], settings.rotation_weight))
    return goals


def _solve_jacobian(rig, pose, world, goals, bones, method):
    """DLS / SDLS on the group's bones as one tree, every goal at once."""
    position = {bone: i for i, bone in enumerate(bones)}
    try:
        per_goal = [_jacobian_goals(rig, pose, g, position) for g in goals]
    except ValueError:  # a non-finite target: leave the pose as it is
        return None, [ChainReport(g.constraint.bone, method, 0, float("inf"), False) for g in goals]
    dofs = [None] * len(bones)
    for goal in goals:
        for bone in rig.ik_chain(goal.constraint):
            dofs[position[bone]] = _bone_dofs(rig, goal.constraint, bone)
    flat = [g for group in per_goal for g in group]
    if not flat:
        return None, []
    plan = dls_plan(tree_arrays(rig.skeleton, pose, world, bones), flat, dofs)
    # Like Blender, a pole holds a lone chain only: in a tree the goals' poles would fight.
    start = _chain_start(rig, pose, goals[0], chain_arrays(rig.skeleton, pose, world, bones), bones) \
        if len(goals) == 1 else _start(rig, pose, bones)
    result = solve_dls(plan, start, max(_iterations(rig, g.constraint) for g in goals),
                       rig.solver.tolerance, rig.solver.damping, method)
    return result, _group_reports(rig, goals, per_goal, result, method)


def _group_reports(rig, goals, per_goal, result: SolveResult, solver):
    """One ChainReport per constraint, ``per_goal`` holding the solver goals (or effectors) each
    one added: its first goal's residual (position, or rotation)."""
    at_limit = int(result.at_limit.any(axis=1).sum())
    reports, k = [], 0
    for goal, own in zip(goals, per_goal):
        error = float(result.errors[k]) if own else 0.0
        unit = "rad" if own and isinstance(own[0], (RotationGoal, JointRotationGoal)) else "m"
        k += len(own)
        reports.append(ChainReport(goal.constraint.bone, solver, result.iterations, error,
                                   error <= rig.solver.tolerance, at_limit, unit))
    return reports


def solve_goals(rig, pose, world, goals, bones):
    """Solve one group of goals (their chains cover ``bones``) into ``pose`` in place; returns
    [ChainReport], one per goal. A group asks for a Jacobian solver when any of its
    constraints (or the rig) does; otherwise a lone chain gets its own solver and a tree FABRIK.
    The result blends with the pose by the group's strongest influence, so a goal at full
    influence is met."""
    requested = [_requested(g.constraint, rig) for g in goals]
    jacobian = next((r for r in requested if r in JACOBIAN_SOLVERS), None)
    if jacobian is not None:
        result, reports = _solve_jacobian(rig, pose, world, goals, bones, jacobian)
    elif len(goals) == 1:
        result, reports = _solve_chain(rig, pose, world, goals[0])
    else:
        result, reports = _solve_tree(rig, pose, world, goals, bones)
    if result is not None:  # a lone chain's bones, ascending, are its chain root first
        _write(pose, bones, result.rotations, result.stretch, _group_influence([g.constraint for g in goals]))
    return reports


def _group_influence(constraints):
    """The influence a group of constraints blends with: its strongest member's."""
    return max(c.influence for c in constraints)


def solve_groups(rig, pose, world, constraints, goal_for):
    """Solve ``constraints`` group by group (bones shared: together; parents first) into
    ``pose`` and ``world`` in place. ``goal_for(constraint, world)`` gives each one's IKGoal, read
    once the groups before it have moved. Returns ([ChainReport], bones whose result is blended
    with FK at partial influence)."""
    reports, blended = [], []
    for members, bones in constraint_groups(rig, constraints):
        reports += solve_goals(rig, pose, world, [goal_for(c, world) for c in members], bones)
        if _group_influence(members) < 1.0:
            blended += bones
        update_world(rig.skeleton, pose, world, bones[:1])
    return reports, blended
