"""What one group of IK constraints asks of the solve, derived from its settings once: the
problem's features (``solvers.methods.FEATURES``), the methods chosen, per-bone limits, stretch
and stiffness. ``group_plan`` keeps a plan per group in ``rig.solve_plans`` and builds it again
only when a setting it depends on changed."""
from dataclasses import dataclass

import numpy as np

from solvers.limits import EulerLimit, Hinge
from solvers.methods import choose_methods

JACOBIAN_SOLVERS = ("dls", "sdls")


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
        if _stretch(rig, c, rig.ik_chain(c)) is not None:
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
    return features


def bone_limits(rig, bones):
    """Per-bone limits from the bone IK panel (locks and limits), None for free bones: a bone
    with two axes locked is a Hinge about the third (the same rotations as its Euler limits, but
    the solvers then turn it about that axis directly rather than clamp a turn onto it)."""
    limits = []
    for i in bones:
        settings = rig.ik_settings(rig.skeleton.names[i])
        if not (any(settings.lock) or any(settings.use_limit)):
            limits.append(None)
            continue
        low = [lo if on else -np.pi for lo, on in zip(settings.limit_min, settings.use_limit)]
        high = [hi if on else np.pi for hi, on in zip(settings.limit_max, settings.use_limit)]
        if sum(settings.lock) == 2:
            axis = settings.lock.index(False)
            limits.append(Hinge(tuple(float(a == axis) for a in range(3)), low[axis], high[axis]))
        else:
            limits.append(EulerLimit(tuple(low), tuple(high), tuple(settings.lock)))
    return limits if any(limits) else None


def _stretch(rig, constraint, chain):
    if not constraint.use_stretch:
        return None
    amounts = np.array([rig.ik_settings(rig.skeleton.names[i]).stretch for i in chain])
    return amounts if amounts.any() else None


def _stiffness(rig, chain):
    """Per-bone stiffness (n, 3) from the bone IK panel, or None when no axis is stiff."""
    rows = [rig.ik_settings(rig.skeleton.names[i]).stiffness for i in chain]
    return np.array(rows, dtype=float) if any(map(any, rows)) else None


@dataclass
class GroupPlan:
    """What one group's solve derives from its settings: the problem's ``features``, the
    ``choice`` of methods, per-bone ``limits`` (``bone_limits``), and for a lone chain its
    ``stretch`` amounts and ``stiffness`` (None when there are none)."""
    features: frozenset
    choice: object
    limits: list
    stretch: np.ndarray
    stiffness: np.ndarray


def _fingerprint(rig, goals, bones):
    """Everything a GroupPlan depends on, by value and hashable (bone settings are frozen): the
    panels edit constraints in place and replace bone settings, so a changed setting is a new key."""
    constraints = tuple((c.solver, c.use_stretch, c.ik_type, c.use_location, c.lock_rotation, c.lock_location,
                         c.soft_reach > 0.0, c.weight,
                         c.chain_count, c.use_tail, g.rotation is None)
                        for g in goals for c in (g.constraint,))
    names = rig.skeleton.names
    return rig.solver.type, constraints, tuple(rig.bone_ik.get(names[b]) for b in bones)


MAX_PLANS = 256  # cached group plans per rig: far more groups and settings than a session's edits need


def group_plan(rig, goals, bones):
    """The GroupPlan of ``goals`` over ``bones``, kept in ``rig.solve_plans`` under its bones and
    the fingerprint of the settings it came from: an edit makes a new key, and constraints made
    afresh with the same settings (each case of a goals file, each Auto IK drag) share a plan."""
    key = (tuple(bones), _fingerprint(rig, goals, bones))
    plan = rig.solve_plans.get(key)
    if plan is not None:
        return plan
    features = problem_features(rig, goals, bones)
    lone = len(goals) == 1
    plan = GroupPlan(frozenset(features), choose_methods(requested_method(goals, rig), features, len(bones), not lone),
                     bone_limits(rig, bones), _stretch(rig, goals[0].constraint, bones) if lone else None,
                     _stiffness(rig, bones) if lone else None)
    if len(rig.solve_plans) >= MAX_PLANS:  # settings edited many times over: keep the cache bounded
        rig.solve_plans.clear()
    rig.solve_plans[key] = plan
    return plan
