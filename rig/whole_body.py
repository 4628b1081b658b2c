"""Whole-body posing: pins that never slip, the body following a dragged goal, a ground below.

``solve_with_pins`` is what the window calls each frame when pins exist (and what scripted solves
call for cases with pins, priorities, a free root or a ground): every goal is one task of the
priority solver (``solvers.priority``) on the tree of bones from the solved root down to every
goal's bone, in levels: pins (a bone's head, and its world rotation unless position-only) and ground
contact (``rig.ground_contact``: every head and tail, and the feet's skin points) first, then the
dragged goal, then the rig's other IK goals, then a gentle pull toward the start pose. The solved
root is the top bone of the body (the highest ancestor of the goals whose subtree holds no IK
handle, so a master bone carrying the handles stays put); with ``root_free`` it also shifts, so the
spine bends, the pelvis lowers and the knees bend while pinned feet stay. The rig's bone IK locks
and limits hold throughout.
"""
import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from rig.ground_contact import Contact, ContactSet
from rig.ik import ChainReport, Residual
from rig.ik_plan import MAX_PLANS, bone_dofs, problem_features
from rig.pose import update_world
from rig.reach_stiffness import combined, reach_stiffness
from rig.simulation import simulating
from rig.solver_views import bone_tree_arrays
from solvers.goals import BoneDofs
from solvers.methods import choose_methods
from solvers.priority import solve_priority
from solvers.priority_plan import POSITION, ROTATION, Task, column_layout, priority_plan
from solvers.tolerances import PIN_POSITION, PIN_ROTATION
from solvers.transforms import quat_normalize

METHOD = "priority"
PIN_LEVEL, DRAGGED_LEVEL, HANDLE_LEVEL = 0, 1, 2
GROUND_PASSES = 8  # solves with a ground at most, each with the points the last left below it held too


@dataclass(frozen=True)
class LeveledGoal:
    """An ``rig.ik.IKGoal`` at priority ``level`` (0 first: pins; the goals below them from 1)."""
    goal: object
    level: int


def solve_with_pins(rig, pose, world, constraints, goal_for, pins, dragged=None, root_free=True, ground=None,
                    copies_follow=False):
    """Solve ``constraints`` (IK constraints; ``goal_for(constraint, world)`` gives each one's
    ``rig.ik.IKGoal``) and hold ``pins`` ({bone name: ``rig.pins.Pin``}) into ``pose`` and
    ``world`` (N, 4, 4) in place. ``dragged`` (one of ``constraints``, or a temporary constraint
    such as Auto IK's) is solved before the others; ``root_free``: the body's top bone moves too;
    ``ground`` (``rig.ground`` kind, or None): no bone of the solved tree, nor a skin point of its
    feet, goes below it (as drawn after the rig's Copy Rotations when ``copies_follow``:
    ``rig.ground_contact``). Returns
    what ``rig.ik.solve_groups`` does: ([ChainReport] one per constraint, the dragged one first,
    then one per pin, residuals position then rotation), [] (no bone is blended with FK))."""
    goals = [] if dragged is None else [LeveledGoal(goal_for(dragged, world), DRAGGED_LEVEL)]
    goals += [LeveledGoal(goal_for(c, world), HANDLE_LEVEL) for c in constraints if c is not dragged]
    return solve_levels(rig, pose, world, goals, pins, root_free, ground, copies_follow), []


def _tip(rig, constraint):
    """The bone whose tail a constraint's chain brings to its target."""
    return rig.ik_chain(constraint)[-1]


def solved_root(rig, bones):
    """The top bone of the tree that moves for goals on ``bones``: their lowest common ancestor,
    raised to the highest ancestor whose subtree holds no IK handle (target or pole bone)."""
    skeleton = rig.skeleton
    paths = [list(skeleton.ancestors(b))[::-1] + [b] for b in bones]
    common = None
    for depth in range(min(len(p) for p in paths)):
        if len({p[depth] for p in paths}) > 1:
            break
        common = paths[0][depth]
    if common is None:
        return None
    targets, poles = rig.handle_bones()
    handles = {skeleton.index[name] for name in targets | poles}
    for bone in paths[0][:paths[0].index(common) + 1]:
        if not handles & set(skeleton.subtree(bone).tolist()):
            return bone
    return common


def _tasks(rig, goals, pins, place):
    """The solver's tasks for ``goals`` (LeveledGoal) and ``pins``, bones as ``place`` numbers them;
    goals with a non-finite target are left out (their residual is inf)."""
    tasks = []
    for leveled in goals:
        goal = leveled.goal
        tip = place[_tip(rig, goal.constraint)]
        if np.isfinite(goal.target).all():
            tasks.append(Task(POSITION, tip, leveled.level, tuple(goal.target), use_tail=True,
                              weight=goal.constraint.weight))
        if goal.rotation is not None and np.isfinite(goal.rotation).all():
            tasks.append(Task(ROTATION, tip, leveled.level, tuple(quat_normalize(goal.rotation)),
                              weight=goal.constraint.orient_weight))
    for name, pin in pins.items():
        bone = place[rig.skeleton.index[name]]
        tasks.append(Task(POSITION, bone, PIN_LEVEL, tuple(pin.position)))
        if pin.holds_rotation:
            tasks.append(Task(ROTATION, bone, PIN_LEVEL, tuple(pin.rotation)))
    return tasks


def solve_levels(rig, pose, world, goals, pins, root_free=True, ground=None, copies_follow=False):
    """Solve ``goals`` (LeveledGoal, levels >= 1) and ``pins`` at level 0 with the priority solver
    into ``pose`` and ``world`` in place, above ``ground`` (``solve_with_pins``); returns
    [ChainReport], one per goal then one per pin."""
    skeleton = rig.skeleton
    goal_bones = [_tip(rig, g.goal.constraint) for g in goals] + [skeleton.index[name] for name in pins]
    root = solved_root(rig, goal_bones) if goal_bones else None
    if root is None:  # no goal, or goals on separate skeletons: nothing is solved together
        return _reports(rig, goals, pins, None)
    tree_bones = skeleton.subtree(root).tolist()
    tree_bones.sort()
    place = {bone: k for k, bone in enumerate(tree_bones)}
    moving = sorted({place[a] for b in goal_bones for a in [b, *skeleton.ancestors(b)] if a in place})
    tasks = _tasks(rig, goals, pins, place)
    start = (pose.copy(), world.copy())
    contact = None if ground is None else \
        Contact(ground, {place[skeleton.index[name]]: pin.holds_rotation for name, pin in pins.items()}, copies_follow)
    solved = _solve_passes(rig, pose, world, tasks, tree_bones, moving, root_free, contact)
    tolerance = rig.solver.tolerance
    short = _first_goals_short(solved)
    # A free root can end short where a fixed one reaches further (a local minimum of the larger
    # solve): the solve with the root fixed, from the same start, is kept when it brings the first
    # goals below the pins nearer by more than the tolerance, its pins held; it is tried only where
    # the fixed root's reach leaves room for that.
    if root_free and short > tolerance and \
            _fixed_short_at_least(solved.plan, tasks, *_heads_tails(rig, start[1], tree_bones)) < short - tolerance:
        fixed_pose, fixed_world = start[0].copy(), start[1].copy()
        fixed = _solve_passes(rig, fixed_pose, fixed_world, tasks, tree_bones, moving, False, contact)
        if _pins_held(fixed) and _first_goals_short(fixed) < short - tolerance:
            _take(pose, world, fixed_pose, fixed_world)
            solved = fixed
    return _reports(rig, goals, pins, solved.result)


class Solved(NamedTuple):
    """One solve's ``PriorityResult`` and the ``PriorityPlan`` it solved (its last ground pass's)."""
    result: object
    plan: object


def _solve_passes(rig, pose, world, tasks, tree_bones, moving, root_free, contact):
    """Solve ``tasks`` on ``tree_bones`` into ``pose`` and ``world`` in place, above ``contact``
    (``rig.ground_contact.Contact``, or None): each point on the plane of the surface under it,
    again from where a pass left a point below the surface under it then (a step it crossed, a
    skin vertex between those asked for), that surface's plane held in every later pass too, so a
    pass cannot trade one step for another."""
    skeleton, solver = rig.skeleton, rig.solver
    points = None if contact is None else ContactSet(rig, world, tree_bones, moving, contact)
    asked = () if points is None else points.tasks(world, PIN_LEVEL, PIN_POSITION)[:1]
    sunk = []
    for _ in range(GROUND_PASSES if contact is not None else 1):
        bones = bone_tree_arrays(skeleton, pose, world, tree_bones)
        layout = _layout(rig, bones, tree_bones, moving, root_free)
        # The last pass's sunk points are where the surface under them is found again: not twice.
        plan = priority_plan(bones, tasks, layout, (*asked, *sunk[:-1]))
        solved = Solved(solve_priority(plan, pose.rotations[tree_bones], solver.iterations, solver.tolerance,
                                       solver.damping), plan)
        _write(rig, pose, world, tree_bones, moving, solved.result, root_free)
        if points is None:
            break
        now, deeper = points.tasks(world, PIN_LEVEL, PIN_POSITION)
        if not len(deeper.bone):
            break
        asked = (now,)
        sunk.append(deeper)
    return solved


def _first_goals_short(solved):
    """The summed error of the first level of goals below the pins (the dragged goal's, in a drag)."""
    plan = solved.plan
    below = plan.levels[plan.levels > PIN_LEVEL]
    return float(solved.result.errors[plan.task_level == below[0]].sum()) if len(below) else 0.0


def _fixed_short_at_least(plan, tasks, heads, tails):
    """A bound below the first goals' summed error (``_first_goals_short``) with the tree's top bone
    fixed where it starts (``heads``, ``tails``: the tree's bones' at the start): each position goal's
    distance beyond what its bone's ancestors can carry it to, as turning keeps every bone's
    length and its head's distance from its parent's (a rotation goal's bound is 0)."""
    below = plan.levels[plan.levels > PIN_LEVEL]
    parents = plan.bones.parents
    bound = 0.0
    for task in tasks:
        if not len(below) or task.level != below[0] or task.kind != POSITION:
            continue
        bone = task.bone
        point = tails[bone] if task.use_tail else heads[bone]
        reach = float(np.linalg.norm(point - heads[bone]))
        while parents[bone] >= 0:
            reach += float(np.linalg.norm(heads[bone] - heads[parents[bone]]))
            bone = parents[bone]
        bound += max(float(np.linalg.norm(np.asarray(task.target) - heads[bone])) - reach, 0.0)
    return bound


def _pins_held(solved):
    """Whether the solve held its pins (and ground) within their bounds."""
    plan, errors = solved.plan, solved.result.errors
    top = plan.task_level == PIN_LEVEL
    bounds = np.where(plan.task_kind == ROTATION, PIN_ROTATION, PIN_POSITION)
    return bool((errors[top] <= bounds[top]).all())


def _take(pose, world, other_pose, other_world):
    """Copy ``other_pose`` and ``other_world`` into ``pose`` and ``world`` in place."""
    pose.rotations[:], pose.locations[:], pose.scales[:] = other_pose.rotations, other_pose.locations, other_pose.scales
    world[:] = other_world


def _layout(rig, bones, tree_bones, moving, root_free):
    """The solve's ``solvers.priority_plan.Layout``, kept in ``rig.solve_plans`` under its bones with
    the bone IK settings it came from (frozen records: an edit replaces them), so a drag builds it
    once."""
    key = ("priority", tuple(tree_bones), tuple(moving), root_free)
    names, settings = rig.skeleton.names, rig.bone_ik
    snapshot = [settings.get(names[b]) for b in tree_bones]
    kept = rig.solve_plans.get(key)
    if kept is not None and kept[0] == snapshot:
        return kept[1]
    layout = column_layout(bones, _body_dofs(rig, tree_bones), moving, root_free)
    if len(rig.solve_plans) >= MAX_PLANS:  # the bound the group plans share
        rig.solve_plans.clear()
    rig.solve_plans[key] = (snapshot, layout)
    return layout


def _body_dofs(rig, tree_bones):
    """Each bone's ``BoneDofs``: its panel's, with the stiffness a reaching body gives its role
    (``rig.reach_stiffness``) on top."""
    body = reach_stiffness(rig.skeleton)
    dofs = []
    for bone in tree_bones:
        panel = bone_dofs(rig, bone).dofs
        if bone in body:
            panel = panel or BoneDofs()
            panel = dataclasses.replace(panel, stiffness=combined(panel.stiffness, body[bone]))
        dofs.append(panel)
    return tuple(dofs)


def _heads_tails(rig, world, bones):
    heads = world[bones, :3, 3]
    return heads, heads + world[bones, :3, 1] * rig.skeleton.lengths[bones, None]


def _write(rig, pose, world, tree_bones, moving, result, root_free):
    """The solve's rotations (of the bones that move) and the top bone's shift into ``pose``, then
    the world matrices from the top bone down."""
    skeleton = rig.skeleton
    rows = [tree_bones[k] for k in moving]
    pose.rotations[rows] = result.rotations[moving]
    top = tree_bones[0]
    if root_free and np.any(result.shift):
        # The shift is in the top bone's base frame: its rest offset's frame, grown by what it inherits.
        parent = skeleton.parents[top]
        scale = 1.0 if parent < 0 else float(np.linalg.norm(world[parent, :3, 0]))
        rest = skeleton.rest_local[top, :3, :3]
        pose.locations[top] += rest.T @ result.shift / (scale if scale > 0.0 else 1.0)
    update_world(skeleton, pose, world, [top])


def _not_honoured(rig, goal):
    """What the whole-body solve does not hold of ``goal``'s settings, each as a note naming the
    setting and why: those the priority row does not honour (``solvers.methods``), and an
    influence below 1 (every goal of the solve is met in full or as near as it gets)."""
    constraint = goal.constraint
    features = problem_features(rig, [goal], rig.ik_chain(constraint))
    notes = choose_methods(METHOD, features, len(rig.ik_chain(constraint)), True).notes
    if constraint.influence < 1.0:
        notes += (f"influence: {METHOD} solves every goal of a whole-body solve at full influence "
                  f"(asked {constraint.influence:g})",)
    return notes


def _reports(rig, goals, pins, result):
    """ChainReports for ``goals`` then ``pins``, each task's error where it was solved (inf where
    its target was not finite or nothing was solved)."""
    errors = iter(result.errors.tolist()) if result is not None else iter(())
    iterations = result.iterations if result is not None else 0
    reports = []
    tolerance = rig.solver.tolerance
    # iTaSC's Simulation mode is a setting the priority solve does not hold: each report says so
    # (a goal's among its other settings, ``_not_honoured``).
    notes = choose_methods(METHOD, {"simulation"}, 0, True).notes if simulating(rig) else ()
    for leveled in goals:
        goal = leveled.goal
        residuals = (Residual("position", next(errors) if np.isfinite(goal.target).all() else np.inf, "m"),)
        if goal.rotation is not None:
            residuals += (Residual("rotation", next(errors) if np.isfinite(goal.rotation).all() else np.inf, "rad"),)
        reports.append(ChainReport(goal.constraint.bone, METHOD, iterations,
                                   all(r.value <= tolerance for r in residuals), residuals,
                                   notes=_not_honoured(rig, goal)))
    for name, pin in pins.items():
        residuals = (Residual("position", next(errors, np.inf), "m"),)
        if pin.holds_rotation:
            residuals += (Residual("rotation", next(errors, np.inf), "rad"),)
        reports.append(ChainReport(name, METHOD, iterations, all(r.value <= tolerance for r in residuals), residuals,
                                   notes=notes))
    return reports
