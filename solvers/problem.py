"""One IK problem, whatever method solves it, and ``solve``: the one entry point every method runs
through.

A ``Problem`` holds the bones that move (a ``Chain`` for one chain, root first; a ``Tree`` for
chains that share bones), goals from one vocabulary (``solvers.goals``: position with optional
pole, rotation with per-axis locks, distance, joint rotation; each weighted) and every bone's
freedom (``Freedoms``: Blender's bone IK settings as ``BoneDofs``, with what the geometric
methods derive from them). ``solve`` runs one method on it and returns a ``SolveResult`` whose
``errors`` hold one residual per goal, in the goal's order, in ``units`` ("m" for positions and
distances, "rad" for rotations; a one-bone chain aims, so its position residual is an angle).

What each method honours is stated in ``solvers.methods``; a method here uses every goal and
freedom it honours. Before an iterative method starts on a chain with a pole, the chain is turned
to face the pole as far as the first bone's freedom allows (Blender's IK does this too); the
analytic methods take the pole themselves: one bone clamps its answer to its locks and limits, two
bones solve within theirs (``solvers.two_bone_limits``).
"""
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from solvers.ccd import solve_ccd_chain
from solvers.chain import Chain, SolveResult, chain_pose, face_pole
from solvers.dls import dls_plan, solve_dls
from solvers.fabrik import Effector, fabrik_plan, solve_fabrik, solve_fabrik_chain
from solvers.goals import DistanceGoal, JointRotationGoal, PositionGoal, RotationGoal
from solvers.limits import EulerLimit, Hinge, clamp_rotation
from solvers.one_bone import solve_one_bone
from solvers.transforms import matrix3_to_quat, normalize, quat_angle, safe_acos
from solvers.tree import Tree
from solvers.two_bone import solve_two_bone
from solvers.two_bone_limits import solve_two_bone_limited

ANALYTIC = ("one_bone", "two_bone")


def _joint_limit(dofs):
    """The geometric methods' limit for one bone's ``BoneDofs`` (None: free): a bone with two axes
    locked is a Hinge about the third (the same rotations as its Euler limits, but the solvers
    then turn it about that axis directly rather than clamp a turn onto it)."""
    if dofs is None or not dofs.euler:
        return None
    low = [lo if on else -np.pi for lo, on in zip(dofs.limit_min, dofs.use_limit)]
    high = [hi if on else np.pi for hi, on in zip(dofs.limit_max, dofs.use_limit)]
    if sum(dofs.lock) == 2:
        axis = dofs.lock.index(False)
        return Hinge(tuple(float(a == axis) for a in range(3)), low[axis], high[axis])
    return EulerLimit(tuple(low), tuple(high), tuple(dofs.lock))


@dataclass(frozen=True)
class Freedoms:
    """Every bone's freedom, checked and derived once (a rig keeps it per constraint group):
    ``dofs`` (n,) ``BoneDofs`` or None for a free bone; derived from them, ``limits`` (n,) the
    geometric methods' joint limits (``solvers.limits``; None when no bone has a lock or limit),
    ``stretch`` (n,) IK stretch amounts and ``stiffness`` (n, 3), each None when all zero."""
    dofs: tuple
    limits: tuple = field(init=False)
    stretch: np.ndarray = field(init=False)
    stiffness: np.ndarray = field(init=False)

    def __post_init__(self):
        limits = tuple(_joint_limit(d) for d in self.dofs)
        stretch = np.array([d.stretch if d else 0.0 for d in self.dofs])
        stiffness = np.array([d.stiffness if d else (0.0, 0.0, 0.0) for d in self.dofs])
        object.__setattr__(self, "limits", limits if any(limits) else None)
        object.__setattr__(self, "stretch", stretch if stretch.any() else None)
        object.__setattr__(self, "stiffness", stiffness if stiffness.any() else None)

    @classmethod
    def free(cls, count):
        return cls((None,) * count)


@dataclass(frozen=True)
class Problem:
    """The bones that move (``Chain`` or ``Tree``), the ``goals`` (a tuple of ``solvers.goals``
    goals, bones indexed in ``bones``) and the ``freedoms`` (``Freedoms``) of those bones."""
    bones: object
    goals: tuple
    freedoms: Freedoms

    @property
    def is_chain(self):
        return isinstance(self.bones, Chain)

    def units(self, method):
        """Each goal's residual unit: "rad" for rotations and for the position a one-bone chain aims at."""
        if len(self.goals) == 1 and method != "one_bone" and type(self.goals[0]) is PositionGoal:
            return ("m",)  # the usual drag, answered without a walk over the goals
        return tuple("rad" if isinstance(g, (RotationGoal, JointRotationGoal)) or method == "one_bone" and k == 0
                     else "m" for k, g in enumerate(self.goals))


class Settings(NamedTuple):
    """How long and how closely a method works: at most ``iterations``, done when every goal is
    within ``tolerance`` (metres or radians); ``damping`` for the Jacobian methods. (A named
    tuple: one is made per method run, and a tuple is made in a third of a dataclass's time.)"""
    iterations: int = 100
    tolerance: float = 1e-3
    damping: float = 0.1


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


def _solve_chain(method, problem, start, settings, fresh):
    chain, freedoms = problem.bones, problem.freedoms
    reach, turn = _tip_goals(problem)
    if reach is None:
        return _unmoved(problem, start)
    goal = problem.goals[reach]
    target = goal.target
    rotation = None if turn is None else problem.goals[turn].rotation
    pole, pole_angle = getattr(goal, "pole", None), getattr(goal, "pole_angle", 0.0)
    if method == "one_bone":
        result = solve_one_bone(chain, start, target, pole, pole_angle)
    elif method == "two_bone":
        asked = dict(stretch=freedoms.stretch, soft=getattr(goal, "soft_reach", 0.0), end_rotation=rotation,
                     end_weight=1.0 if turn is None else problem.goals[turn].weight)
        result = solve_two_bone(chain, start, target, pole, pole_angle, **asked) if freedoms.limits is None else \
            solve_two_bone_limited(chain, start, target, freedoms.limits, pole, pole_angle,
                                   tolerance=settings.tolerance, **asked)
    else:
        start = _pole_faced(problem, start, reach) if fresh else start
        if method == "fabrik":
            result = solve_fabrik_chain(chain, start, target, freedoms.limits, target_rotation=rotation,
                                        max_iterations=settings.iterations, tolerance=settings.tolerance,
                                        stretch=freedoms.stretch)
        else:
            result = solve_ccd_chain(chain, start, target, freedoms.limits, max_iterations=settings.iterations,
                                     tolerance=settings.tolerance, stretch=freedoms.stretch,
                                     target_rotation=rotation, stiffness=freedoms.stiffness)
    if method == "one_bone" and freedoms.limits is not None:
        result = _clamped(problem, result, reach, settings.tolerance)
    return _aligned(problem, result, reach, turn)


def _solve_fabrik_tree(problem, start, settings):
    """FABRIK on a tree: one effector per position goal, taking the rotation goal on its bone."""
    turned = {g.bone: g for g in problem.goals if isinstance(g, RotationGoal)}
    reaches = [(k, g) for k, g in enumerate(problem.goals) if isinstance(g, (PositionGoal, DistanceGoal))]
    effectors = [Effector(g.bone, getattr(g, "chain_length", 0), g.weight, g.bone in turned) for _, g in reaches]
    rotations = [turned[g.bone].rotation if g.bone in turned else (0.0, 0.0, 0.0, 1.0) for _, g in reaches]
    if not effectors:  # rotation-only goals: nothing for FABRIK to reach for
        return SolveResult(np.array(start, dtype=float), 0, np.full(len(problem.goals), np.inf), False)
    plan = fabrik_plan(problem.bones, effectors, problem.freedoms.limits)
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


def _solve_jacobian(method, problem, start, settings, fresh):
    if problem.is_chain and fresh:
        start = _pole_faced(problem, start, _tip_goals(problem)[0])
    tree = Tree.from_chain(problem.bones) if problem.is_chain else problem.bones
    plan = dls_plan(tree, problem.goals, problem.freedoms.dofs)
    return solve_dls(plan, start, settings.iterations, settings.tolerance, settings.damping, method)


def solve(method, problem, start, settings, fresh=True):
    """Run ``method`` ("one_bone", "two_bone", "fabrik", "ccd", "dls", "sdls") on ``problem`` from
    pose ``start`` (n, 4); ``fresh``: the start is the pose as it was, not a method's answer or a
    restart, so a chain turns to face its pole first. Returns a ``SolveResult`` with one residual
    per goal and their ``units``."""
    if method in ("dls", "sdls"):
        result = _solve_jacobian(method, problem, start, settings, fresh)
    elif problem.is_chain:
        result = _solve_chain(method, problem, start, settings, fresh)
    else:
        result = _solve_fabrik_tree(problem, start, settings)
    result.units = problem.units(method)
    return result
