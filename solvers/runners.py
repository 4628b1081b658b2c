"""The built-in methods' runners: each takes a ``solvers.problem.Problem`` and returns a
``SolveResult`` with one residual per goal (``solvers.methods`` lists them, one row each).

A runner's signature is ``run(problem, start, settings, fresh)``: ``start`` (n, 4) the pose it
starts from, ``settings`` a ``solvers.problem.Settings``, ``fresh`` whether the start is the pose
as it was (not a method's answer or a restart). A runner uses every goal and freedom its row says
it honours. Before an iterative method starts fresh on a chain with a pole, the chain is turned to
face the pole as far as the first bone's freedom allows (Blender's IK does this too); the analytic
methods take the pole themselves: one bone clamps its answer to its locks and limits, two bones
solve within theirs (``solvers.two_bone_limits``).
"""
from functools import partial

import numpy as np

from solvers.ccd import solve_ccd_chain
from solvers.chain import SolveResult, chain_pose, face_pole
from solvers.dls import dls_plan, solve_dls
from solvers.fabrik import Effector, fabrik_plan, solve_fabrik, solve_fabrik_chain
from solvers.goals import DistanceGoal, JointRotationGoal, PositionGoal, RotationGoal
from solvers.limits import clamp_rotation
from solvers.one_bone import solve_one_bone
from solvers.priority import solve_priority
from solvers.priority_plan import POSITION, ROTATION, Task, column_layout, priority_plan
from solvers.simulation import pole_turned, simulate_dls
from solvers.transforms import matrix3_to_quat, normalize, quat_angle, quat_to_matrix3, safe_acos
from solvers.tree import Tree, tree_pose
from solvers.two_bone import solve_two_bone
from solvers.two_bone_limits import solve_two_bone_limited


def _tip_goals(problem):
    """The indices in ``problem.goals`` of a chain's reach goal (its first position or distance
    goal) and of its rotation goal, each None when it has none."""
    if len(problem.goals) == 1 and type(problem.goals[0]) is PositionGoal:
        return 0, None  # the usual drag, answered without a walk over the goals
    reach = turn = None
    for k, goal in enumerate(problem.goals):
        if reach is None and isinstance(goal, (PositionGoal, DistanceGoal)):
            reach = k
        elif turn is None and isinstance(goal, RotationGoal):
            turn = k
    return reach, turn


def _aligned(problem, result, reach, turn):
    """``result`` with its native errors (reach first, then the turn) laid out per goal; goals the
    method does not take get their residual measured on the result's rotations."""
    goals, native = problem.goals, result.errors
    if reach == 0 and turn in (None, 1) and len(goals) == len(native) and type(goals[0]) is PositionGoal:
        return result  # the usual chain: laid out already
    errors = np.empty(len(goals))
    for k, goal in enumerate(goals):
        if k == reach:
            errors[k] = _distance_residual(goal, native[0])
        elif k == turn and len(native) > 1:
            errors[k] = native[1]
        else:
            errors[k] = _measured(problem, goal, result.rotations, result.stretch)
    result.errors = errors
    return result


def _measured(problem, goal, rotations, stretch):
    """The residual of a goal the method did not take, on the pose it left: a chain's tip for a
    reach or a turn, a bone's pose rotation for a joint rotation."""
    if isinstance(goal, JointRotationGoal):
        return quat_angle(rotations[goal.bone], np.array(goal.rotation))
    frames, points = chain_pose(problem.bones, rotations, stretch)
    if isinstance(goal, RotationGoal):
        return quat_angle(matrix3_to_quat(frames[-1]), np.array(goal.rotation))
    return _distance_residual(goal, float(np.linalg.norm(points[-1] - np.array(goal.target))))


def _distance_residual(goal, distance):
    """How far a tip ``distance`` from a goal's target is from meeting it."""
    if not isinstance(goal, DistanceGoal):
        return distance
    gap = distance - goal.distance
    return {"inside": max(gap, 0.0), "outside": max(-gap, 0.0), "on": abs(gap)}[goal.mode]


def _pole_faced(problem, start, reach):
    goal = problem.goals[reach]
    if not isinstance(goal, PositionGoal) or goal.pole is None:
        return start
    first = problem.freedoms.limits[0] if problem.freedoms.limits else None
    return face_pole(problem.bones, start, np.array(goal.target), np.array(goal.pole), goal.pole_angle,
                     (first,) if first is not None else ())


def _within_limits(problem, start):
    """The start pose with each bone held by its locks and limits, as Blender's IK segments take
    it (a bone with Y locked starts untwisted), so a bone the solve leaves alone ends allowed too."""
    if problem.freedoms.limits is None:
        return start
    start = np.array(start, dtype=float)
    for i, (limit, rest_allowed) in enumerate(zip(problem.freedoms.limits, problem.freedoms.rest_allowed)):
        # The clamp runs on Python floats: a bone starting at an allowed rest pose skips it.
        if limit is not None and not (rest_allowed and start[i, 3] == 1.0):
            start[i] = clamp_rotation((limit,), start[i])[0]
    return start


def _clamped(problem, result, reach, tolerance):
    """A one-bone answer clamped to the bone's locks and limits, its aim measured again (an
    angle)."""
    rotations = result.rotations.copy()
    at_limit = np.zeros((len(rotations), 3), dtype=bool)
    for i, limit in enumerate(problem.freedoms.limits):
        if limit is not None:
            rotations[i], at_limit[i] = clamp_rotation((limit,), rotations[i])
    frames, points = chain_pose(problem.bones, rotations, result.stretch)
    target = np.array(problem.goals[reach].target)
    error = float(safe_acos(frames[0][:, 1] @ normalize(target - points[0])))
    errors = result.errors.copy()
    errors[0] = error
    return SolveResult(rotations, result.iterations, errors, error <= tolerance, result.stretch, at_limit)


def _unmoved(problem, start):
    """A chain with nothing for a geometric method to reach for (a rotation-only goal): the start,
    every goal's residual measured on it."""
    result = SolveResult(np.array(start, dtype=float), 0, np.zeros(len(problem.goals)), False)
    result.errors = np.array([_measured(problem, g, result.rotations, None) for g in problem.goals])
    return result


def _on_chain(solve_tip, analytic=False, clamped=False):
    """A chain method's runner: ``solve_tip(problem, goals, start, settings)`` reaches for the
    chain's tip goals (``_tip_goals``); an iterative (not ``analytic``) one starts fresh within the
    bones' limits, facing the pole; a ``clamped`` one's answer is clamped to the bones' locks and limits afterwards."""

    def run(problem, start, settings, fresh):
        reach, turn = _tip_goals(problem)
        if reach is None:
            return _unmoved(problem, start)
        if fresh and not analytic:
            start = _pole_faced(problem, _within_limits(problem, start), reach)
        result = solve_tip(problem, (reach, turn), start, settings)
        if clamped and problem.freedoms.limits is not None:
            result = _clamped(problem, result, reach, settings.tolerance)
        return _aligned(problem, result, reach, turn)

    return run


def _one_bone(problem, goals, start, settings):
    goal = problem.goals[goals[0]]
    return solve_one_bone(problem.bones, start, goal.target, getattr(goal, "pole", None),
                          getattr(goal, "pole_angle", 0.0))


def _two_bone(problem, goals, start, settings):
    """The analytic limb; within the bones' locks and limits where they have some."""
    reach, turn = goals
    goal, limits = problem.goals[reach], problem.freedoms.limits
    rotation = None if turn is None else problem.goals[turn]
    pole, pole_angle = getattr(goal, "pole", None), getattr(goal, "pole_angle", 0.0)
    asked = dict(stretch=problem.freedoms.stretch, soft=getattr(goal, "soft_reach", 0.0),
                 end_rotation=None if rotation is None else rotation.rotation,
                 end_weight=1.0 if rotation is None else rotation.weight)
    if limits is None:
        return solve_two_bone(problem.bones, start, goal.target, pole, pole_angle, **asked)
    return solve_two_bone_limited(problem.bones, start, goal.target, limits, pole, pole_angle,
                                  tolerance=settings.tolerance, **asked)


def _fabrik_chain(problem, goals, start, settings):
    reach, turn = goals
    freedoms = problem.freedoms
    return solve_fabrik_chain(problem.bones, start, problem.goals[reach].target, freedoms.limits,
                              target_rotation=None if turn is None else problem.goals[turn].rotation,
                              max_iterations=settings.iterations, tolerance=settings.tolerance,
                              stretch=freedoms.stretch)


def _ccd(problem, goals, start, settings):
    reach, turn = goals
    freedoms = problem.freedoms
    return solve_ccd_chain(problem.bones, start, problem.goals[reach].target, freedoms.limits,
                           max_iterations=settings.iterations, tolerance=settings.tolerance,
                           stretch=freedoms.stretch,
                           target_rotation=None if turn is None else problem.goals[turn].rotation,
                           stiffness=freedoms.stiffness)


def _fabrik_tree(problem, start, settings):
    """FABRIK on a tree: one effector per position goal, taking the rotation goal on its bone."""
    turned = {g.bone: g for g in problem.goals if isinstance(g, RotationGoal)}
    reaches = [(k, g) for k, g in enumerate(problem.goals) if isinstance(g, (PositionGoal, DistanceGoal))]
    effectors = [Effector(g.bone, getattr(g, "chain_length", 0), g.weight, g.bone in turned) for _, g in reaches]
    rotations = [turned[g.bone].rotation if g.bone in turned else (0.0, 0.0, 0.0, 1.0) for _, g in reaches]
    if not effectors:  # rotation-only goals: nothing for FABRIK to reach for
        return SolveResult(np.array(start, dtype=float), 0, np.full(len(problem.goals), np.inf), False)
    plan = fabrik_plan(problem.bones, effectors, problem.freedoms.limits)
    start = _within_limits(problem, start)
    result = solve_fabrik(plan, start, np.array([g.target for _, g in reaches]), np.array(rotations),
                          settings.iterations, settings.tolerance)
    native = iter(result.errors[len(reaches):])  # rotation angles, in effector order
    angle_of = {g.bone: next(native) for _, g in reaches if g.bone in turned}
    errors = np.empty(len(problem.goals))
    distance_of = dict(zip((k for k, _ in reaches), result.errors.tolist()))
    for k, goal in enumerate(problem.goals):
        if k in distance_of:
            errors[k] = _distance_residual(goal, distance_of[k])
        elif isinstance(goal, RotationGoal):
            errors[k] = angle_of.get(goal.bone, np.inf)
        else:
            errors[k] = quat_angle(result.rotations[goal.bone], np.array(goal.rotation))
    result.errors = errors
    return result


run_one_bone = _on_chain(_one_bone, analytic=True, clamped=True)
run_two_bone = _on_chain(_two_bone, analytic=True)
run_ccd = _on_chain(_ccd)
_run_fabrik_chain = _on_chain(_fabrik_chain)


def run_fabrik(problem, start, settings, fresh):
    """FABRIK on a chain or on a tree of chains."""
    if problem.is_chain:
        return _run_fabrik_chain(problem, start, settings, fresh)
    return _fabrik_tree(problem, start, settings)


def _run_jacobian(selective, problem, start, settings, fresh):
    """DLS, or SDLS when ``selective``, on a chain (as a tree of one chain) or a tree, every goal at
    once; with ``settings.simulation``, one frame of iTaSC's Simulation mode (``solvers.simulation``),
    which turns toward the pole in time too."""
    simulation = settings.simulation
    reach = _tip_goals(problem)[0] if problem.is_chain and fresh else None
    if reach is not None:
        faced = _pole_faced(problem, start, reach)
        start, simulation = (faced, None) if simulation is None else \
            pole_turned(problem.bones, start, faced, problem.goals[reach].target, simulation)
    tree = Tree.from_chain(problem.bones) if problem.is_chain else problem.bones
    plan = dls_plan(tree, problem.goals, problem.freedoms.dofs)
    if simulation is not None:
        return simulate_dls(plan, start, simulation, settings.tolerance, settings.damping, selective)
    return solve_dls(plan, start, settings.iterations, settings.tolerance, settings.damping, selective)


run_dls = partial(_run_jacobian, False)
run_sdls = partial(_run_jacobian, True)


def _priority_tasks(goals):
    """The priority solver's tasks for a problem's goals, all on one level (weights share it), and
    per goal the index of its task (None for a kind it does not take: distance, joint rotation)."""
    tasks, index = [], []
    for goal in goals:
        if isinstance(goal, PositionGoal):
            index.append(len(tasks))
            tasks.append(Task(POSITION, goal.bone, 1, goal.target, use_tail=goal.use_tail, weight=goal.weight))
        elif isinstance(goal, RotationGoal):
            index.append(len(tasks))
            tasks.append(Task(ROTATION, goal.bone, 1, goal.rotation, weight=goal.weight))
        else:
            index.append(None)
    return tasks, index


def _tree_residual(tree, goal, rotations):
    """The residual of a goal the priority solver does not take, on the pose it left."""
    if isinstance(goal, JointRotationGoal):
        return quat_angle(rotations[goal.bone], np.array(goal.rotation))
    _, heads, tails = tree_pose(tree, quat_to_matrix3(rotations))
    point = tails[goal.bone] if goal.use_tail else heads[goal.bone]
    return _distance_residual(goal, float(np.linalg.norm(point - np.array(goal.target))))


def run_priority(problem, start, settings, fresh):
    """The priority solver with every goal on one level (weighted among themselves) above its pull
    toward the start: the bones above each goal's bone move, within their locks and limits."""
    reach = _tip_goals(problem)[0] if problem.is_chain and fresh else None
    if reach is not None:
        start = _pole_faced(problem, start, reach)
    tree = Tree.from_chain(problem.bones) if problem.is_chain else problem.bones
    tasks, index = _priority_tasks(problem.goals)
    parents = tree.parents.tolist()
    moving = set()
    for task in tasks:
        bone = task.bone
        while bone >= 0 and bone not in moving:
            moving.add(bone)
            bone = parents[bone]
    plan = priority_plan(tree.bone_tree, tasks, column_layout(tree.bone_tree, problem.freedoms.dofs, moving))
    solved = solve_priority(plan, start, settings.iterations, settings.tolerance, settings.damping)
    errors = np.array([solved.errors[k] if k is not None else _tree_residual(tree, goal, solved.rotations)
                       for goal, k in zip(problem.goals, index)])
    return SolveResult(solved.rotations, solved.iterations, errors, bool((errors <= settings.tolerance).all()),
                       at_limit=solved.at_limit)
