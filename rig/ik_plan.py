"""What one group of IK constraints asks of the solve, derived from its settings once: the
problem's features (``solvers.methods.FEATURES``), the methods chosen and the bones' freedoms
(``solvers.problem.Freedoms``: locks, limits, stiffness, stretch). ``group_plan`` keeps a plan per
group in ``rig.solve_plans`` and builds it again only when a setting it depends on changed."""
from dataclasses import dataclass
from typing import NamedTuple

from rig.simulation import simulating
from solvers.goals import BoneDofs
from solvers.methods import JACOBIAN, choose_methods, names_of
from solvers.problem import Freedoms

JACOBIAN_SOLVERS = names_of(JACOBIAN)


def requested_method(goals, rig):
    """The method a group asks for: a Jacobian one when any constraint (or the rig) asks for it,
    else the first forced one, else "auto"."""
    asked = [g.constraint.solver if g.constraint.solver != "auto" else rig.solver.type for g in goals]
    return next((m for m in asked if m in JACOBIAN_SOLVERS), next((m for m in asked if m != "auto"), "auto"))


def problem_features(rig, goals, bones):
    """The settings (``solvers.methods.FEATURES``) the goals and the bones they move hold."""
    features = set()
    for bone in bones:
        settings = rig.ik_settings(rig.skeleton.names[bone])
        if any(settings.lock):
            features.add("locks")
        if any(settings.use_limit):
            features.add("limits")
        if any(settings.stiffness):
            features.add("stiffness")
        if settings.use_rotation_control:
            features.add("rotation control")
    for goal in goals:
        c = goal.constraint
        if c.use_stretch and any(rig.ik_settings(rig.skeleton.names[i]).stretch for i in rig.ik_chain(c)):
            features.add("stretch")
        if goal.rotation is not None and not all(c.lock_rotation):
            features.add("target rotation")
            if any(c.lock_rotation):
                features.add("rotation locks")
        if c.soft_reach > 0.0:
            features.add("soft reach")
        if c.ik_type == "distance":
            features.add("distance")
        elif not c.use_location or all(c.lock_location):
            features.add("location off")
        elif any(c.lock_location):
            features.add("location locks")
    if len({g.constraint.weight for g in goals}) > 1:
        features.add("weights")
    if simulating(rig):
        features.add("simulation")
    return features


class PanelDofs(NamedTuple):
    """A bone's IK panel settings as the solvers take them: ``dofs`` (``BoneDofs``, None for a
    free bone or for settings they cannot take) and ``note`` saying why settings went unused."""
    dofs: BoneDofs | None = None
    note: str | None = None


def bone_dofs(rig, bone, stretchy=False):
    """``PanelDofs`` of ``bone`` (stretch only when a constraint moving it allows it)."""
    settings = rig.ik_settings(rig.skeleton.names[bone])
    stretch = settings.stretch if stretchy else 0.0
    if not (any(settings.lock) or any(settings.use_limit) or any(settings.stiffness) or stretch):
        return PanelDofs()
    try:
        return PanelDofs(BoneDofs(settings.lock, settings.stiffness, settings.use_limit, settings.limit_min,
                                  settings.limit_max, stretch))
    except ValueError as error:
        return PanelDofs(note=f"{rig.skeleton.names[bone]}: its IK settings were not used ({error})")


def group_dofs(rig, goals, bones):
    """``PanelDofs`` of each of ``bones`` (the group's, ascending). A bone stretches when a
    constraint whose chain holds it allows stretch."""
    stretchy = {bone for g in goals if g.constraint.use_stretch for bone in rig.ik_chain(g.constraint)}
    return [bone_dofs(rig, bone, bone in stretchy) for bone in bones]


def _controlled(rig, bones):
    """{bone: weight} for ``bones`` with Control Rotation (Blender's iTaSC joint rotation) on."""
    controlled = {}
    for bone in bones:
        settings = rig.ik_settings(rig.skeleton.names[bone])
        if settings.use_rotation_control and settings.rotation_weight > 0.0:
            controlled[bone] = settings.rotation_weight
    return controlled


def bone_limits(rig, bones):
    """Per-bone joint limits from the bone IK panel (``Freedoms.limits``), None when none has any."""
    return Freedoms(tuple(bone_dofs(rig, bone).dofs for bone in bones)).limits


@dataclass
class GroupPlan:
    """What one group's solve derives from its settings: the problem's ``features``, the
    ``choice`` of methods, the bones' ``freedoms``, ``notes`` naming every setting asked for and
    not honoured (by the methods chosen, or bone settings that could not be used), ``controlled``:
    the bones with Control Rotation, each with its weight; per goal its ``chains`` (bone indices,
    root first) and the iteration ``budget`` (the most any member allows, within the rig's)."""
    features: frozenset
    choice: object
    freedoms: Freedoms
    notes: tuple
    controlled: dict
    chains: tuple
    budget: int


def _settings(rig, goals, bones):
    """Everything a GroupPlan may depend on, as it stands: the rig's solver settings and each
    goal's constraint, whole records (the panels edit both in place), with whether the goal has a
    rotation, and the bones' IK settings (frozen: an edit replaces them). Whole records, so a
    setting a plan starts to read is covered already; compared as dicts, in C, which costs a
    solve no more than a hand-picked key did."""
    names, settings = rig.skeleton.names, rig.bone_ik
    lone = goals[0] if len(goals) == 1 else None  # every drag: no comprehension's call (a twentieth of a limb's solve)
    return (vars(rig.solver), [(vars(g.constraint), g.rotation is None) for g in goals] if lone is None
            else [(vars(lone.constraint), lone.rotation is None)],
            list(map(settings.get, map(names.__getitem__, bones))) if settings else ())  # (): no bone has any


def _snapshot(settings):
    """A copy of ``_settings`` that later edits in place do not reach."""
    solver, constraints, bone_settings = settings
    return dict(solver), [(dict(c), rotated) for c, rotated in constraints], bone_settings


MAX_PLANS = 256  # groups with cached plans per rig: far more than a session's chains
MAX_PLANS_PER_GROUP = 8  # plans kept per group: a slider dragged in a panel makes one per value


def group_plan(rig, goals, bones):
    """The GroupPlan of ``goals`` over ``bones``, kept in ``rig.solve_plans`` under its bones with
    the settings it came from (``_settings``): an edit no longer matches, and constraints made
    afresh with the same settings (each case of a goals file, each Auto IK drag) share a plan."""
    settings = _settings(rig, goals, bones)
    key = tuple(bones)
    for snapshot, plan in rig.solve_plans.get(key, ()):
        if snapshot == settings:
            return plan
    features = problem_features(rig, goals, bones)
    choice = choose_methods(requested_method(goals, rig), features, len(bones), len(goals) > 1)
    panel = group_dofs(rig, goals, bones)
    constraints = [g.constraint for g in goals]
    plan = GroupPlan(frozenset(features), choice, freedoms=Freedoms(tuple(p.dofs for p in panel)),
                     notes=choice.notes + tuple(p.note for p in panel if p.note), controlled=_controlled(rig, bones),
                     chains=tuple(tuple(rig.ik_chain(c)) for c in constraints),
                     budget=max(min(c.iterations, rig.solver.iterations) for c in constraints))
    if len(rig.solve_plans) >= MAX_PLANS:  # chains of every length dragged: keep the cache bounded
        rig.solve_plans.clear()
    plans = rig.solve_plans.setdefault(key, [])
    plans.insert(0, (_snapshot(settings), plan))
    del plans[MAX_PLANS_PER_GROUP:]
    return plan
