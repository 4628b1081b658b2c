"""IK goals on a skeleton: which bones each constraint moves, which constraints solve together,
and the solver calls that turn world-space goals into pose rotations.

An ``IKGoal`` is an IK constraint with its target, target rotation and pole resolved to world
space, so the same code serves the app (targets are handle bones) and scripted solves (targets
are points from a file). Constraints whose chains share bones are solved together as one tree,
as Blender does; ``rig.ik_plan`` derives what each group asks (``solvers.methods`` says which
methods honour it) and ``rig.solver_views`` gives the solvers their view of the bones. The Jacobian
solvers (``dls``, ``sdls``) take chains and trees alike, with every iTaSC setting: position and
lockable rotation goals, distance constraints, per-axis lock / stiffness / limits, Control
Rotation and stretch.
"""
from dataclasses import dataclass, replace

import numpy as np

from rig.constraints import IKConstraint
from rig.ik_plan import JACOBIAN_SOLVERS, bone_limits, group_plan
from rig.pose import identity_rotations, update_world
from rig.solver_views import chain_arrays, tree_arrays
from solvers.ccd import solve_ccd_chain
from solvers.chain import SolveResult, chain_pose, face_pole
from solvers.dls import dls_plan, solve_dls
from solvers.fabrik import Effector, fabrik_plan, solve_fabrik, solve_fabrik_chain
from solvers.goals import BoneDofs, DistanceGoal, JointRotationGoal, PositionGoal, RotationGoal
from solvers.one_bone import solve_one_bone
from solvers.transforms import matrix3_to_quat, normalize, quat_from_euler_xyz, quat_slerp, safe_acos
from solvers.two_bone import solve_two_bone


@dataclass
class IKGoal:
    """``constraint`` with world-space goals: ``target`` (3,), ``rotation`` (4,) xyzw for the
    chain's last bone (None: position only), ``pole`` (3,) or None; ``target_frame`` (4,) the
    target's world rotation, which the constraint's location locks use with reference axis
    "target" (None: the world's axes, for a target that is a bare point)."""
    constraint: IKConstraint
    target: np.ndarray
    rotation: np.ndarray = None
    pole: np.ndarray = None
    target_frame: np.ndarray = None


@dataclass
class ChainReport:
    """What one IK constraint's solve did (for the stats panel, scripted solves and tests).
    ``error`` is the residual of its first goal in ``unit``: "m" for a position, "rad" for an
    angle (a one-bone chain aims, so its residual is an angle). ``solver`` names every method
    that ran ("two_bone+ccd"); ``notes`` every setting asked for and not honoured, with the
    reason. ``at_limit`` counts the solved bones a lock or limit held (a group's, for a
    constraint solved in a group); ``at_limit_bones`` names this constraint's chain bones among
    them, root first, for the viewport to mark."""
    bone: str
    solver: str
    iterations: int
    error: float
    converged: bool
    at_limit: int = 0
    unit: str = "m"
    notes: tuple = ()
    at_limit_bones: tuple = ()


def goal_from_handles(rig, constraint, world):
    """The constraint's goal read from its target and pole bones in ``world`` (N, 4, 4); the
    target's rotation counts when the constraint uses rotation or the rig's solver settings
    turn target rotations on for every chain."""
    index = rig.skeleton.index
    target = world[index[constraint.target]]
    use_rotation = constraint.use_rotation or rig.solver.use_target_rotations
    frame = matrix3_to_quat(target[:3, :3])
    pole = world[index[constraint.pole_target], :3, 3] if constraint.pole_target else None
    return IKGoal(constraint, target[:3, 3].copy(), frame if use_rotation else None, pole, frame)


def constraint_groups(rig, constraints):
    """Split ``constraints`` into groups whose chains share bones (transitively); each group is
    (constraints, bones ascending). Groups come parents first, so a chain hanging from another
    group's bones is solved after them."""
    if len(constraints) == 1:  # one chain: one group (every drag and most scripted cases)
        return [(list(constraints), sorted(rig.ik_chain(constraints[0])))]
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


DISTANCE_MODES = {"inside": "inside", "outside": "outside", "on_surface": "on"}


def _iterations(rig, constraint):
    return min(constraint.iterations, rig.solver.iterations)


ANALYTIC_SOLVERS = ("one_bone", "two_bone")  # they take the pole themselves
CHAIN_SOLVERS = {
    "one_bone": lambda rig, goal, arrays, start, iterations, plan: solve_one_bone(
        arrays, start, goal.target, goal.pole, goal.constraint.pole_angle),
    "two_bone": lambda rig, goal, arrays, start, iterations, plan: solve_two_bone(
        arrays, start, goal.target, goal.pole, goal.constraint.pole_angle, stretch=plan.stretch,
        soft=goal.constraint.soft_reach, end_rotation=goal.rotation, end_weight=goal.constraint.orient_weight),
    "fabrik": lambda rig, goal, arrays, start, iterations, plan: solve_fabrik_chain(
        arrays, start, goal.target, plan.limits, target_rotation=goal.rotation,
        max_iterations=iterations, tolerance=rig.solver.tolerance, stretch=plan.stretch),
    "ccd": lambda rig, goal, arrays, start, iterations, plan: solve_ccd_chain(
        arrays, start, goal.target, plan.limits, max_iterations=iterations, tolerance=rig.solver.tolerance,
        stretch=plan.stretch, target_rotation=goal.rotation, stiffness=plan.stiffness),
}


def _start(rig, pose, bones):
    """Where an iterative solve starts: the current pose, or the rest pose in original-pose mode."""
    return pose.rotations[bones] if rig.solver.mode == "continuous" else identity_rotations(len(bones))


def _chain_start(rig, pose, goal, arrays, chain, limits):
    """``_start`` for a lone chain, turned to face its pole first as Blender's IK does, as far
    as the first bone's locks and limits let it (the analytic solvers take the pole themselves)."""
    start = _start(rig, pose, chain)
    if goal.pole is None:
        return start
    first = limits[0] if limits else None
    return face_pole(arrays, start, goal.target, goal.pole, goal.constraint.pole_angle,
                     (first,) if first is not None else ())


@dataclass(frozen=True)
class _Held:
    """What a result's ``at_limit`` says: how many of its bones a lock or limit held, and the
    names of a chain's bones among them, root first."""
    count: int = 0
    names: tuple = ()


def _held(rig, bones, at_limit, chain):
    """``_Held`` for ``at_limit`` (per bone of ``bones``, by axis) and ``chain``."""
    if not at_limit.any():  # the common case, answered without a walk over the bones
        return _Held()
    rows = at_limit.any(axis=1).tolist()
    held = {bone for bone, row in zip(bones, rows) if row}
    return _Held(sum(rows), tuple(rig.skeleton.names[bone] for bone in chain if bone in held))


def _held_by_limits(result, limits, arrays, goal, method, tolerance):
    """An analytic answer clamped to the bones' locks and limits, its residual measured again
    (an angle for one bone, which aims; the tip's distance otherwise)."""
    rotations = result.rotations.copy()
    at_limit = np.zeros((len(rotations), 3), dtype=bool)
    for i, limit in enumerate(limits):
        if limit is not None:
            rotations[i], at_limit[i] = limit.clamp(rotations[i])
    frames, points = chain_pose(arrays, rotations, result.stretch)
    if method == "one_bone":
        aim = normalize(goal.target - points[0])
        error = float(safe_acos(frames[0][:, 1] @ aim))
    else:
        error = float(np.linalg.norm(points[-1] - goal.target))
    errors = result.errors.copy()
    errors[0] = error
    return SolveResult(rotations, result.iterations, errors, error <= tolerance, result.stretch, at_limit)


def _solve_chain(rig, pose, world, goals, bones, method, start, iterations, plan):
    """A lone chain with ``method``; ``start`` None starts from the pose (pole faced)."""
    goal, chain = goals[0], bones
    arrays = chain_arrays(rig.skeleton, pose, world, chain)
    if start is None:
        start = _start(rig, pose, chain) if method in ANALYTIC_SOLVERS else \
            _chain_start(rig, pose, goal, arrays, chain, plan.limits)
    result = CHAIN_SOLVERS[method](rig, goal, arrays, start, iterations, plan)
    if method in ANALYTIC_SOLVERS and plan.limits is not None:
        result = _held_by_limits(result, plan.limits, arrays, goal, method, rig.solver.tolerance)
    held = _held(rig, chain, result.at_limit, chain)
    return result, [ChainReport(goal.constraint.bone, method, result.iterations, float(result.errors[0]),
                                result.converged, held.count, "rad" if method == "one_bone" else "m",
                                at_limit_bones=held.names)]


def _solve_tree(rig, pose, world, goals, bones, method, start, iterations, plan):
    """FABRIK on the union of the goals' chains, one effector per goal weighted by its weight."""
    position = {bone: i for i, bone in enumerate(bones)}
    effectors, rotations = [], []
    for goal in goals:
        chain = rig.ik_chain(goal.constraint)
        use_rotation = goal.rotation is not None
        effectors.append(Effector(position[chain[-1]], len(chain), max(goal.constraint.weight, 1e-3), use_rotation))
        rotations.append(goal.rotation if use_rotation else [0.0, 0.0, 0.0, 1.0])
    fabrik = fabrik_plan(tree_arrays(rig.skeleton, pose, world, bones), effectors, plan.limits)
    result = solve_fabrik(fabrik, _start(rig, pose, bones) if start is None else start,
                          np.array([g.target for g in goals]), np.array(rotations),
                          iterations, rig.solver.tolerance)
    return result, _group_reports(rig, goals, [[effector] for effector in effectors], result, method, bones)


def _rows(bones):
    """An index for ``bones`` (ascending): a slice when they are consecutive, as most chains'
    are, since writing through a slice costs a third of writing through a list."""
    first, count = bones[0], len(bones)
    return slice(first, first + count) if bones[-1] - first + 1 == count else np.asarray(bones)


def _write(pose, bones, rotations, stretch, influence):
    rows = _rows(bones)
    if influence < 1.0:
        rotations = quat_slerp(pose.rotations[rows], rotations, influence)
    pose.rotations[rows] = rotations
    pose.scales[rows, 1] = stretch


def _bone_dofs(rig, stretchy, bone):
    """The bone IK panel's settings of ``bone`` as the Jacobian solver's BoneDofs (stretch only
    when a constraint moving it allows it); (BoneDofs or None, note or None): settings it cannot
    take leave the bone free, and the note says so."""
    settings = rig.ik_settings(rig.skeleton.names[bone])
    try:
        return BoneDofs(settings.lock, settings.stiffness, settings.use_limit, settings.limit_min,
                        settings.limit_max, settings.stretch if stretchy else 0.0), None
    except ValueError as error:
        return None, f"{rig.skeleton.names[bone]}: its IK settings were not used ({error})"


def _jacobian_goals(rig, pose, goal, position):
    """The solver goals one constraint asks for: position (or distance) and rotation at the
    chain's tip, plus Control Rotation on bones that have it. Non-finite targets raise ValueError."""
    c = goal.constraint
    tip = position[rig.ik_chain(c)[-1]]
    goals = []
    if c.ik_type == "distance":
        goals.append(DistanceGoal(tip, goal.target, c.distance, DISTANCE_MODES[c.limit_mode], c.weight))
    elif c.use_location and not all(c.lock_location):
        frame = None if c.reference_axis == "bone" else \
            (goal.target_frame if goal.target_frame is not None else (0.0, 0.0, 0.0, 1.0))
        goals.append(PositionGoal(tip, goal.target, c.weight, lock_axes=c.lock_location, frame=frame))
    if goal.rotation is not None and not all(c.lock_rotation):
        goals.append(RotationGoal(tip, goal.rotation, c.orient_weight, c.lock_rotation))
    for bone in rig.ik_chain(c):
        settings = rig.ik_settings(rig.skeleton.names[bone])
        if settings.use_rotation_control:
            goals.append(JointRotationGoal(position[bone], pose.rotations[bone], settings.rotation_weight))
    return goals


def _solve_jacobian(rig, pose, world, goals, bones, method, start, iterations, plan):
    """DLS / SDLS on the group's bones as one tree, every goal at once."""
    position = {bone: i for i, bone in enumerate(bones)}
    try:
        per_goal = [_jacobian_goals(rig, pose, g, position) for g in goals]
    except ValueError:  # a non-finite target: leave the pose as it is
        return None, [ChainReport(g.constraint.bone, method, 0, float("inf"), False) for g in goals]
    stretchy = {bone for g in goals if g.constraint.use_stretch for bone in rig.ik_chain(g.constraint)}
    dofs, notes = [None] * len(bones), []
    for bone in {bone for g in goals for bone in rig.ik_chain(g.constraint)}:
        dofs[position[bone]], note = _bone_dofs(rig, bone in stretchy, bone)
        notes += [note] if note else []
    flat = [g for group in per_goal for g in group]
    if not flat:
        return None, []
    dls = dls_plan(tree_arrays(rig.skeleton, pose, world, bones), flat, dofs)
    if start is None:  # like Blender, a pole holds a lone chain only: in a tree the goals' poles would fight
        start = _chain_start(rig, pose, goals[0], chain_arrays(rig.skeleton, pose, world, bones), bones, plan.limits) \
            if len(goals) == 1 else _start(rig, pose, bones)
    result = solve_dls(dls, start, iterations, rig.solver.tolerance, rig.solver.damping, method)
    reports = _group_reports(rig, goals, per_goal, result, method, bones)
    return result, [replace(r, notes=tuple(notes)) for r in reports]


def _group_reports(rig, goals, per_goal, result: SolveResult, solver, bones):
    """One ChainReport per constraint, ``per_goal`` holding the solver goals (or effectors) each
    one added: its first goal's residual (position, or rotation); ``bones`` are the group's, in
    ``result``'s order."""
    reports, k = [], 0
    for goal, own in zip(goals, per_goal):
        error = float(result.errors[k]) if own else 0.0
        unit = "rad" if own and isinstance(own[0], (RotationGoal, JointRotationGoal)) else "m"
        k += len(own)
        held = _held(rig, bones, result.at_limit, rig.ik_chain(goal.constraint))
        reports.append(ChainReport(goal.constraint.bone, solver, result.iterations, error,
                                   error <= rig.solver.tolerance, held.count, unit, at_limit_bones=held.names))
    return reports


def _runner(method, tree):
    if method in JACOBIAN_SOLVERS:
        return _solve_jacobian
    return _solve_tree if tree else _solve_chain


SHARES = 4  # a method with others after it may spend 1/SHARES of the budget: one that crawls
# (CCD on the sphere a limit leaves it) must leave the rest to methods that converge faster
RESTART_SHARES = 20  # a fresh start may spend 1/RESTART_SHARES of the budget: most that reach do so fast
RESTARTS = 40  # fresh starts a limited chain may take when its methods stall short of the goals
RESTART_SEED = 20261124  # fixed: the same problem always gets the same starts


def _restart_poses(rig, bones):
    """Seeded starts inside the bones' limits for a limited chain whose methods stalled in a
    local minimum (limits make them): Euler angles drawn within each axis's range, locked axes 0."""
    rng = np.random.default_rng(RESTART_SEED)
    settings = [rig.ik_settings(rig.skeleton.names[b]) for b in bones]
    low = np.array([np.where(s.use_limit, s.limit_min, -np.pi) for s in settings])
    high = np.array([np.where(s.use_limit, s.limit_max, np.pi) for s in settings])
    locked = np.array([s.lock for s in settings])
    for _ in range(RESTARTS):
        yield quat_from_euler_xyz(np.where(locked, 0.0, rng.uniform(low, high)))


def _out_of_reach(rig, pose, world, goals, bones, features):
    """True when a lone chain's target lies beyond its straight reach with nothing to stretch:
    no method can do better than the one that already laid the chain straight."""
    if len(goals) > 1 or "stretch" in features or "distance" in features:
        return False
    arrays = chain_arrays(rig.skeleton, pose, world, bones)
    return bool(np.linalg.norm(goals[0].target - arrays.root) > arrays.reach)


@dataclass
class _Search:
    """One group's solve across methods and fresh starts: the best result so far (least summed
    residual) with its reports, the methods that ran and the iterations spent of ``budget``."""
    budget: int
    best: SolveResult = None
    reports: list = None
    ran: list = None
    iterations: int = 0

    def remaining(self):
        return self.budget - self.iterations

    def offer(self, method, result, reports):
        self.ran = (self.ran or []) + ([method] if not self.ran or self.ran[-1] != method else [])
        self.iterations += result.iterations
        if self.best is None or np.sum(result.errors) < np.sum(self.best.errors):
            self.best, self.reports = result, reports


def solve_goals(rig, pose, world, goals, bones):
    """Solve one group of goals (their chains cover ``bones``) into ``pose`` in place; returns
    [ChainReport], one per goal. ``solvers.methods.choose_methods`` picks what runs from what the
    group asks for and holds; when a method leaves the goals short, the next one goes on from its
    best pose (an analytic answer clamped to limits, then CCD, then DLS). A limited chain still
    short takes seeded fresh starts within its limits, then the last method polishes the best of
    them, all within the iteration budget. Reports name every method that ran ("two_bone+ccd")
    and every setting the user asked for that was not honoured. The result blends with the pose
    by the group's strongest influence, so a goal at full influence is met."""
    plan = group_plan(rig, goals, bones)
    choice, tree = plan.choice, len(goals) > 1
    search = _Search(max(_iterations(rig, g.constraint) for g in goals))
    share = search.budget // SHARES
    restart_share = search.budget // RESTART_SHARES

    def run(method, start, iterations):
        result, reports = _runner(method, tree)(rig, pose, world, goals, bones, method, start, max(iterations, 1), plan)
        if result is None:  # a goal it cannot take (a non-finite target): nothing to search
            search.reports = reports
            return False
        search.offer(method, result, reports)
        return not (search.best.converged or _out_of_reach(rig, pose, world, goals, bones, plan.features))

    start, going = None, True
    for k, method in enumerate(choice.methods):
        last = k == len(choice.methods) - 1 and choice.restarts is None
        going = run(method, start, search.remaining() if last else min(search.remaining(), share))
        if not going or search.remaining() <= 0:
            break
        # An analytic answer clamped to limits is a poor start; an iterative one a good one.
        start = None if method in ANALYTIC_SOLVERS else search.best.rotations
    if going and choice.restarts is not None:
        for restart in _restart_poses(rig, bones):
            if search.remaining() <= share:
                break
            going = run(choice.restarts, restart, restart_share)
            if not going:
                break
        if going and search.remaining() > 0:
            run(choice.methods[-1], search.best.rotations, search.remaining())
    reports = [replace(r, solver="+".join(search.ran or [r.solver]), iterations=search.iterations,
                       notes=choice.notes + r.notes) for r in search.reports or []]
    if search.best is not None:  # a lone chain's bones, ascending, are its chain root first
        _write(pose, bones, search.best.rotations, search.best.stretch,
               _group_influence([g.constraint for g in goals]))
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
