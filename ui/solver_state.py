"""What the viewport shows of the IK solver, read from this frame's reports: a line from each
chain's tip to the target it fell short of (with the residual as a label), a ring on each joint
a limit holds, and while an IK handle or Auto IK drag moves, the sphere its chain can reach. Users
coming from Blender's pose mode look at the viewport, not at a stats panel, to see why a hand
stops short."""
import math

import numpy as np

from render.solver_overlay import LimitMark, ReachShell, ResidualLine, SolverOverlay
from render.style import DEFAULT_STYLE
from rig.evaluate import active_ik
from rig.pose import heads_tails

REACH_DRAGS = ("translate", "gizmo")  # drags that move a handle (Auto IK shows its own chain)


def residual_label(metres):
    """The residual as a short label: '12 mm', '0.4 mm', '1.25 m'."""
    if metres >= 1.0:
        return f"{metres:.2f} m"
    millimetres = metres * 1000.0
    return f"{millimetres:.0f} mm" if millimetres >= 10.0 else f"{millimetres:.2g} mm"


def solved_goals(state):
    """(IK constraint, world target point) for every goal solved this frame: the Auto IK drag's,
    then the rig's constraints with their handles' heads."""
    skeleton = state.rig.skeleton
    rig_goals = [(c, state.world[skeleton.index[c.target], :3, 3]) for c in active_ik(state.rig)]
    return (state.drag.goals() if state.drag is not None else []) + rig_goals


def residual_lines(state, tails):
    """A line per goal whose position residual is above the solver's tolerance. The tip is the
    tail of the chain's last bone, the point the solver measures (with ``use_tail`` off, that is
    the constrained bone's head). Distance goals are left out: their target is not where the tip
    should be."""
    reports = {report.bone: report for report in state.reports}
    hidden, tolerance = state.view.hidden, state.rig.solver.tolerance
    lines = []
    for constraint, target in solved_goals(state):
        report = reports.get(constraint.bone)
        if (report is None or report.unit != "m" or constraint.ik_type == "distance"
                or not (math.isfinite(report.error) and report.error > tolerance)
                or {constraint.bone, constraint.target} & hidden):
            continue
        tip = tails[state.rig.ik_chain(constraint)[-1]]
        lines.append(ResidualLine(constraint.bone, tip.copy(), np.array(target, dtype=float), report.error,
                                  residual_label(report.error)))
    return tuple(lines)


def limit_marks(state, heads, tails):
    """A mark per shown bone that a limit held in this frame's solve, once each."""
    index = state.rig.skeleton.index
    names = dict.fromkeys(name for report in state.reports for name in report.at_limit_bones)
    marks = []
    for name in names:
        if name not in state.view.hidden:
            i = index[name]
            radius = DEFAULT_STYLE.joint_radius * float(np.linalg.norm(tails[i] - heads[i]))
            marks.append(LimitMark(name, heads[i].copy(), radius))
    return tuple(marks)


def dragged_constraints(state):
    """The IK constraints whose reach the running drag is about: Auto IK's own, or those whose
    target handle is being moved."""
    drag = state.drag
    if drag is None:
        return []
    if drag.kind == "auto_ik":
        return [drag.goal]
    if drag.kind in REACH_DRAGS:
        return [c for c in active_ik(state.rig) if c.target == drag.bone]
    return []


def reach_shells(state, heads):
    """A shell per dragged constraint: its chain's length around its root's head."""
    rig = state.rig
    shells = []
    for constraint in dragged_constraints(state):
        chain = rig.ik_chain(constraint)
        shells.append(ReachShell(constraint.bone, heads[chain[0]].copy(), float(rig.skeleton.lengths[chain].sum())))
    return tuple(shells)


def solver_overlay(state):
    """This frame's ``SolverOverlay``, or None with the View panel's "Solver state" off."""
    if not state.view.show_solver:
        return None
    heads, tails = heads_tails(state.rig.skeleton, state.world)
    return SolverOverlay(residual_lines(state, tails), limit_marks(state, heads, tails), reach_shells(state, heads))
