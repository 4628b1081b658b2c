"""IK goals on a skeleton: which bones each constraint moves, which constraints solve together,
and the problems they become.

An ``IKGoal`` is an IK constraint with its target, target rotation and pole resolved to world
space, so the same code serves the app (targets are handle bones) and scripted solves (targets
are points from a file). Constraints whose chains share bones are solved together as one tree,
as Blender does. Each group becomes one ``solvers.problem.Problem`` (the bones as
``rig.solver_views`` sees them, the goals in ``solvers.goals``' vocabulary, the bones' freedoms
from ``rig.ik_plan``), and ``solvers.methods.solve`` runs the methods ``solvers.methods`` chose:
this module knows no method's quirks, only which to try in what order and from where.
"""
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from rig.constraints import IKConstraint
from rig.ik_plan import bone_limits, group_plan
from rig.lone_chain import solve_lone_chain
from rig.lone_limb import LIMB, solve_lone_limb
from rig.pose import bone_rows, identity_rotations, update_world
from rig.simulation import continues, stepping
from rig.solver_views import chain_arrays, tree_arrays
from solvers.chain import SolveResult
from solvers.goals import DistanceGoal, JointRotationGoal, PositionGoal, RotationGoal
from solvers.kinematics import stretch_scales
from solvers.limits import rotation_within
from solvers.methods import METHODS, solve
from solvers.problem import Problem, Settings
from solvers.progress import summed_by_unit
from solvers.transforms import matrix3_to_quat, quat_slerp


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


class Residual(NamedTuple):
    """How far one goal is from met: ``goal`` names its kind ("position", "aim" for a one-bone
    chain's position, "distance", "rotation", "joint rotation"), ``value`` in ``unit`` ("m" or
    "rad"). (A named tuple: every solve makes one per goal.)"""
    goal: str
    value: float
    unit: str


NO_GOAL = Residual("position", 0.0, "m")  # what a constraint with no goal to meet (location and rotation off) leaves
NOT_FINITE = Residual("position", float("inf"), "m")  # a non-finite target's: nothing was solved


@dataclass
class ChainReport:
    """What one IK constraint's solve did (for the stats panel, scripted solves and tests).
    ``residuals``: every goal it asked for, first one first (its reach, its rotation, each
    Control Rotation), as ``Residual``; ``error`` and ``unit`` are the first's ("m" for a
    position, "rad" for an angle: a one-bone chain aims). ``solver`` names every method that ran
    ("two_bone+ccd"); ``notes`` every setting asked for and not honoured, with the reason.
    ``at_limit`` counts the solved bones a lock or limit held (a group's, for a constraint solved
    in a group); ``at_limit_bones`` names this constraint's chain bones among them, root first,
    for the viewport to mark."""
    bone: str
    solver: str
    iterations: int
    converged: bool
    residuals: tuple
    at_limit: int = 0
    notes: tuple = ()
    at_limit_bones: tuple = ()

    @property
    def error(self):
        return (self.residuals[0] if self.residuals else NO_GOAL).value

    @property
    def unit(self):
        return (self.residuals[0] if self.residuals else NO_GOAL).unit


GOAL_KINDS = {PositionGoal: "position", DistanceGoal: "distance", RotationGoal: "rotation",
              JointRotationGoal: "joint rotation"}


def _goal_kind(goal, unit):
    """``Residual.goal`` for ``goal``: "aim" for a position measured as an angle (a one-bone chain)."""
    kind = GOAL_KINDS[type(goal)]
    return "aim" if kind == "position" and unit == "rad" else kind


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


_REST_STARTS = {}  # bone count -> read-only identity rotations: a start no method may write into


def _start(rig, pose, bones):
    """Where an iterative solve starts: the current pose, or the rest pose in original-pose mode
    (a simulated frame after the first continues from the current pose: ``rig.simulation``)."""
    if rig.solver.mode == "continuous" or continues(rig):
        current = pose.rotations[bone_rows(bones)]  # a view for a chain's consecutive bones: no copy
        current.flags.writeable = False  # methods start from it; the pose changes only in _write
        return current
    start = _REST_STARTS.get(len(bones))
    if start is None:
        start = _REST_STARTS[len(bones)] = identity_rotations(len(bones))
        start.flags.writeable = False
    return start


@dataclass(frozen=True)
class _Held:
    """What a result's ``at_limit`` says: how many of its bones a lock or limit held, and the
    names of a chain's bones among them, root first."""
    count: int = 0
    names: tuple = ()


NOT_HELD = _Held()


def _held(rig, bones, at_limit, chain):
    """``_Held`` for ``at_limit`` (per bone of ``bones``, by axis) and ``chain``."""
    if not at_limit.any():  # the common case, answered without a walk over the bones
        return NOT_HELD
    rows = at_limit.any(axis=1).tolist()
    held = {bone for bone, row in zip(bones, rows) if row}
    return _Held(sum(rows), tuple(rig.skeleton.names[bone] for bone in chain if bone in held))


def _constraint_goals(pose, goal, chain, bones, controlled):
    """The solver goals one constraint asks for, its ``chain``'s bones indexed by their place in
    the group's ``bones``: its reach (a position, with the pole, or a distance) and its rotation at
    the chain's tip, plus Control Rotation on the ``controlled`` bones ({bone: weight}).
    Non-finite targets raise ValueError."""
    c = goal.constraint
    tip = bones.index(chain[-1])
    goals = []
    if c.ik_type == "distance":
        goals.append(DistanceGoal(tip, goal.target, c.distance, DISTANCE_MODES[c.limit_mode], c.weight))
    elif c.use_location and not all(c.lock_location):
        frame = None if c.reference_axis == "bone" else \
            (goal.target_frame if goal.target_frame is not None else (0.0, 0.0, 0.0, 1.0))
        goals.append(PositionGoal(tip, goal.target, c.weight, lock_axes=c.lock_location, frame=frame,
                                  chain_length=len(chain), pole=goal.pole, pole_angle=c.pole_angle,
                                  soft_reach=c.soft_reach))
    if goal.rotation is not None and not all(c.lock_rotation):
        goals.append(RotationGoal(tip, goal.rotation, c.orient_weight, c.lock_rotation))
    if controlled:
        goals += [JointRotationGoal(bones.index(bone), pose.rotations[bone], controlled[bone])
                  for bone in chain if bone in controlled]
    return goals


class _GroupProblem(NamedTuple):
    """A group as one ``problem``, and ``counts``: how many of its goals each constraint added."""
    problem: Problem
    counts: list


def _problem(rig, pose, world, goals, bones, plan):
    """The group's ``_GroupProblem``, or None when a target is not finite."""
    try:
        per_goal = [_constraint_goals(pose, g, chain, bones, plan.controlled) for g, chain in zip(goals, plan.chains)]
    except ValueError:
        return None
    if len(goals) == 1:  # a lone chain, as every drag
        return _GroupProblem(Problem(chain_arrays(rig.skeleton, pose, world, bones), tuple(per_goal[0]),
                                     plan.freedoms), [len(per_goal[0])])
    return _GroupProblem(Problem(tree_arrays(rig.skeleton, pose, world, bones),
                                 tuple(g for own in per_goal for g in own), plan.freedoms),
                         [len(own) for own in per_goal])


def _reports(rig, goals, bones, plan, group, search):
    """One ChainReport per constraint from the search's best result: the residual of every goal
    it added, in its unit; the methods that ran, the iterations spent, what was not honoured and
    which bones a lock or limit held."""
    result = search.best
    errors, units, solver = result.errors.tolist(), result.units, "+".join(search.ran)
    limited = plan.freedoms.limits is not None  # else no bone has a lock or limit to hold it
    reports, k = [], 0
    for goal, chain, count in zip(goals, plan.chains, group.counts):
        residuals = tuple([Residual(_goal_kind(problem_goal, units[i]), errors[i], units[i])
                           for i, problem_goal in enumerate(group.problem.goals[k:k + count], k)])
        k += count
        first = residuals[0] if residuals else NO_GOAL
        held = _held(rig, bones, result.at_limit, chain) if limited else NOT_HELD
        reports.append(ChainReport(goal.constraint.bone, solver, search.iterations,
                                   first.value <= rig.solver.tolerance, residuals, held.count, plan.notes,
                                   held.names))
    return reports


def _write(skeleton, pose, bones, rotations, stretch, influence):
    """A group's result into ``pose``: rotations (blended by ``influence``) and the solver's
    whole stretch per bone as the inherited scales Blender's IK stretch gives its pose bones."""
    rows = bone_rows(bones)
    if influence < 1.0:
        rotations = quat_slerp(pose.rotations[rows], rotations, influence)
    pose.rotations[rows] = rotations
    whole = stretch.tolist()  # plain floats: numpy's per-call cost is most of a two-bone solve here
    if whole.count(1.0) == len(whole):
        pose.scales[rows] = 1.0
        return
    place = {bone: k for k, bone in enumerate(bones)}
    pose.scales[rows] = stretch_scales([place.get(p, -1) for p in skeleton.parents[rows].tolist()], whole)


SHARES = 4  # a method with others after it may spend 1/SHARES of the budget: one that crawls
# (CCD on the sphere a limit leaves it) must leave the rest to methods that converge faster
RESTART_SHARES = 20  # a fresh start may spend 1/RESTART_SHARES of the budget: most that reach do so fast
RESTARTS = 40  # fresh starts a limited chain may take when its methods stall short of the goals
RESTART_SEED = 20261124  # fixed: the same problem always gets the same starts


def _restart_poses(rig, bones):
    """Seeded starts inside the bones' limits for a limited chain whose methods stalled in a
    local minimum (limits make them): Blender's IK angles (``solvers.limits.swing_twist_angles``)
    drawn within each axis's range, locked axes 0, held inside the swing's ellipse."""
    rng = np.random.default_rng(RESTART_SEED)
    settings = [rig.ik_settings(rig.skeleton.names[b]) for b in bones]
    low = np.array([np.where(s.use_limit, s.limit_min, -np.pi) for s in settings])
    high = np.array([np.where(s.use_limit, s.limit_max, np.pi) for s in settings])
    locked = np.array([s.lock for s in settings])
    limits = bone_limits(rig, bones) or (None,) * len(bones)
    for _ in range(RESTARTS):
        angles = np.where(locked, 0.0, rng.uniform(low, high))
        yield np.array([rotation_within(limit, a) for limit, a in zip(limits, angles)])


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
    residual, ``solvers.progress.summed_by_unit``), the methods that ran and the iterations spent
    of ``budget``."""
    budget: int
    best: SolveResult = None
    ran: list = None
    iterations: int = 0

    def remaining(self):
        return self.budget - self.iterations

    def offer(self, method, result):
        self.ran = (self.ran or []) + ([method] if not self.ran or self.ran[-1] != method else [])
        self.iterations += result.iterations
        if self.best is None or summed_by_unit(result.errors.tolist(), result.units) < \
                summed_by_unit(self.best.errors.tolist(), self.best.units):
            self.best = result


def solve_goals(rig, pose, world, goals, bones):
    """Solve one group of goals (their chains cover ``bones``) into ``pose`` and ``world`` (the
    group's bones and all below them) in place; returns [ChainReport], one per goal. A lone
    two-bone limb takes ``rig.lone_limb``'s compiled path, and a lone free chain's first FABRIK
    run ``rig.lone_chain``'s (the rest goes on from its answer when it is short). For the rest
    ``solvers.methods.choose_methods`` picks what runs from what the group asks for and holds;
    when a method leaves the goals short, the next one goes on from its best pose (an analytic
    answer clamped to limits, then CCD, then DLS). A limited chain still short takes seeded fresh
    starts within its limits, then the last method polishes the best of them, all within the
    iteration budget. Reports name every method that ran ("two_bone+ccd")
    and every setting the user asked for that was not honoured. The result blends with the pose
    by the group's strongest influence, so a goal at full influence is met."""
    plan = group_plan(rig, goals, bones)
    first = None  # the first method's run, when the lone chain's compiled path made it
    if len(goals) == 1:
        error = solve_lone_limb(rig, pose, world, goals[0], bones, plan)
        if error is not None:
            return [ChainReport(goals[0].constraint.bone, LIMB[0], 1, error <= rig.solver.tolerance,
                                (Residual("position", error, "m"),), 0, plan.notes)]
        first = solve_lone_chain(rig, pose, world, goals[0], bones, plan, _first_share(plan))
        if first is not None and first.rotations is None:  # within the tolerance: written
            return [ChainReport(goals[0].constraint.bone, plan.choice.methods[0], first.iterations, True,
                                (Residual("position", first.error, "m"),), 0, plan.notes)]
    group = _problem(rig, pose, world, goals, bones, plan)
    if group is None:  # a non-finite target: the pose stays as it is
        return [ChainReport(g.constraint.bone, plan.choice.methods[0], 0, False, (NOT_FINITE,)) for g in goals]
    search = _Search(plan.budget)
    simulation = stepping(rig)

    def run(method, start, iterations):
        """One method's solve from ``start`` (None: the pose as it is); whether to go on."""
        fresh = start is None
        if first is not None and not search.ran:  # that same run (method, start and iterations) made already
            result = SolveResult(first.rotations, first.iterations, np.array([first.error]), False, units=("m",))
        else:
            settings = Settings(max(iterations, 1), rig.solver.tolerance, rig.solver.damping, simulation)
            result = solve(method, group.problem, _start(rig, pose, bones) if fresh else start, settings, fresh)
        search.offer(method, result)
        return not (search.best.converged or _out_of_reach(rig, pose, world, goals, bones, plan.features))

    choice = plan.choice
    if len(choice.methods) == 1 and choice.restarts is None:  # one method with the whole budget, as most drags
        run(choice.methods[0], None, search.budget)
    else:
        _methods_in_turn(rig, bones, choice, search, run)
    _write(rig.skeleton, pose, bones, search.best.rotations, search.best.stretch,
           _group_influence([g.constraint for g in goals]))
    update_world(rig.skeleton, pose, world, bones[:1])
    return _reports(rig, goals, bones, plan, group, search)


def _first_share(plan):
    """The iterations a group without restarts gives its first method: the whole budget when it
    runs alone, else its share (``_methods_in_turn``)."""
    alone = len(plan.choice.methods) == 1 and plan.choice.restarts is None
    return max(plan.budget if alone else plan.budget // SHARES, 1)


def _methods_in_turn(rig, bones, choice, search, run):
    """Run ``choice``'s methods in turn, each going on from the best pose so far, then, for a
    limited chain still short, seeded fresh starts and a polish of the best, within ``search``'s
    budget; ``run(method, start, iterations)`` solves once and says whether to go on."""
    share = search.budget // SHARES
    start, going = None, True
    forced = choice.restarts is not None and len(choice.methods) == 1  # its own first run, then fresh starts
    for k, method in enumerate(choice.methods):
        last = k == len(choice.methods) - 1 and choice.restarts is None
        first = search.budget // METHODS[method].patience if forced else share
        going = run(method, start, search.remaining() if last else min(search.remaining(), first))
        if not going or search.remaining() <= 0:
            return
        # An analytic answer clamped to limits is a poor start; an iterative one a good one.
        start = None if METHODS[method].exact else search.best.rotations
    if choice.restarts is None:
        return
    for restart in _restart_poses(rig, bones):
        if search.remaining() <= share:
            break
        if not run(choice.restarts, restart, search.budget // RESTART_SHARES):
            return
    if search.remaining() > 0:
        run(choice.methods[-1], search.best.rotations, search.remaining())


def _group_influence(constraints):
    """The influence a group of constraints blends with: its strongest member's."""
    return max([c.influence for c in constraints])


def solve_groups(rig, pose, world, constraints, goal_for):
    """Solve ``constraints`` group by group (bones shared: together; parents first) into
    ``pose`` and ``world`` in place. ``goal_for(constraint, world)`` gives each one's IKGoal, read
    once the groups before it have moved. Returns ([ChainReport], bones whose result is blended
    with FK at partial influence)."""
    if len(constraints) == 1:  # one chain, one group (every drag, most scripted cases): none of the loop's lists
        constraint = constraints[0]
        bones = rig.ik_chain(constraint)  # root first: ascending, as parents come before children
        reports = solve_goals(rig, pose, world, [goal_for(constraint, world)], bones)
        return reports, (list(bones) if constraint.influence < 1.0 else [])  # a lone group's influence is its own
    reports, blended = [], []
    for members, bones in constraint_groups(rig, constraints):
        reports += solve_goals(rig, pose, world, [goal_for(c, world) for c in members], bones)
        if _group_influence(members) < 1.0:
            blended += bones
    return reports, blended
