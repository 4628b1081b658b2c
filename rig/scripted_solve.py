"""Scripted posing: solve every case of a goals file from the rig's rest pose.

A goals file (JSON) names the solver settings and a list of cases; each case is a list of goals
(bone, chain length, use tail, world target, optional rotation / pole / pole angle / weight, soft
reach, and iTaSC's ``ik_type`` "distance" with its ``distance`` and ``limit_mode``: the tip kept
inside, outside or on the sphere of that radius about the target). Keys are the rig file's IK
constraint keys, but ``chain_length`` for its ``chain_count``; any other key is refused.
Each case solves on its own from the rest pose with only its goals (the rig's own IK
constraints are not used; with a top-level ``simulation`` the cases are frames in time instead,
each from the pose the last left: ``rig.simulated_solve``), and reports every bone's world head and tail with its pose
``rotation`` (xyzw, relative to rest, as pose files store it) and ``scale`` (inherited by its
children, ``rig.pose.Pose``: a textbook forward kinematics of the output gives its heads and
tails), per goal its residual with its unit (its first: the reach), whether that was reached
(within the tolerance), under ``goals`` every residual it has (reach, rotation, Control
Rotation), each with its unit, the methods that ran and the settings they did not honour, the worst
position residual (metres), the iterations and the seconds the solve took.
"""
import copy
import time
from dataclasses import dataclass

import numpy as np

from rig.constraints import IK_TYPES, LIMIT_MODES, RANGES, SOLVER_TYPES, IKConstraint, SolverSettings
from rig.ik import IKGoal, solve_groups
from rig.formats.jsonfields import Reader, load_json
from rig.pose import Pose, heads_tails, world_matrices
from rig.simulated_solve import SimulationFile, read_simulation, solve_sequence
from rig.ranges import MAX_COORDINATE
from solvers.methods import warm_all
from solvers.transforms import normalize


@dataclass
class SolveJob:
    """A parsed goals file: solver ``settings`` and ``cases``, each a list of IKGoal; with a
    ``simulation`` (``rig.simulated_solve.SimulationFile``) the cases are frames in time."""
    settings: SolverSettings
    cases: list
    simulation: SimulationFile | None = None


def _read_goal(reader, rig, solver):
    bone = reader.string("bone")
    if bone not in rig.skeleton.index:
        reader.fail("bone", "the name of a bone in this rig", bone)
    rotation = reader.vector("rotation", 4) if "rotation" in reader.obj else None
    if rotation is not None:
        rotation = np.array(rotation)
        largest = np.abs(rotation).max()  # scaled first: the norm of [1e200, 0, 0, 1e200] overflows
        if largest == 0.0 or np.linalg.norm(rotation / largest) * largest < 1e-6:
            reader.fail("rotation", "a non-zero quaternion [x, y, z, w]", list(rotation))
        rotation = normalize(rotation / largest)
    pole = np.array(reader.vector("pole", 3, bound=MAX_COORDINATE)) if "pole" in reader.obj else None
    d = IKConstraint(bone=bone)
    constraint = IKConstraint(
        bone=bone, chain_count=reader.integer("chain_length", 0, *RANGES["chain_count"]),
        use_tail=reader.boolean("use_tail", True), pole_angle=reader.number("pole_angle", 0.0, *RANGES["pole_angle"]),
        weight=reader.number("weight", 1.0, *RANGES["weight"]), use_rotation=rotation is not None, solver=solver,
        ik_type=reader.string("ik_type", d.ik_type, IK_TYPES),
        distance=reader.number("distance", d.distance, *RANGES["distance"]),
        limit_mode=reader.string("limit_mode", d.limit_mode, LIMIT_MODES),
        soft_reach=reader.number("soft_reach", d.soft_reach, *RANGES["soft_reach"]))
    return IKGoal(constraint, np.array(reader.vector("target", 3, bound=MAX_COORDINATE)), rotation, pole)


def read_goals(path, rig):
    """Parse and check a goals file against ``rig``; raises FileFormatError naming the case and
    field (``cases[2].goals[0].target``)."""
    root = Reader(str(path), load_json(path))
    settings = SolverSettings(type=root.string("solver", "auto", SOLVER_TYPES),
                              iterations=root.integer("iterations", 100, *RANGES["iterations"]),
                              tolerance=root.number("tolerance", 1e-5, 0.0), mode="original_pose")
    simulation = read_simulation(root, rig.solver)
    if simulation is not None:
        settings = simulation.settings(settings)
    cases = []
    for case in root.items("cases"):
        goals = [_read_goal(g, rig, settings.type) for g in case.items("goals")]
        if not goals:
            case.fail("goals", "at least one goal", [])
        cases.append(goals)
    root.check_fields()
    return SolveJob(settings, cases, simulation)


def solve_case(rig, goals, start=None):
    """Solve one case from the rest pose (or a copy of pose ``start``); returns (pose, world,
    [ChainReport], seconds). The seconds are the solve's, as a frame of the app pays them (which
    solves into the pose it has): from the goals to the posed world matrices, not making the
    case's start pose."""
    pose = Pose.rest(len(rig.skeleton)) if start is None else start.copy()
    world = rig.skeleton.rest_world.copy() if start is None else world_matrices(rig.skeleton, pose)
    by_constraint = {id(g.constraint): g for g in goals}
    start = time.perf_counter()
    reports, _ = solve_groups(rig, pose, world, [g.constraint for g in goals], lambda c, _: by_constraint[id(c)])
    return pose, world, reports, time.perf_counter() - start


BATCH = 64  # cases solved back to back before their results are laid out: laying out each one
# between solves (a dict per bone) cooled the caches the next solve needed (3-4 us of an arm's 20)


def run_job(rig, job):
    """Solve every case of ``job`` on ``rig`` (not changed); returns the OUT.json document. The
    solvers' kernels are loaded first, as the window loads them at start, so a case's seconds are
    what a frame pays (the first case paid a 0.16 s load)."""
    warm_all()
    rig = copy.copy(rig)
    rig.solver = job.settings
    if job.simulation is not None:
        return {"cases": [_case_output(rig, *case) for case in solve_sequence(rig, job.cases, job.simulation,
                                                                             solve_case)]}
    out = []
    for first in range(0, len(job.cases), BATCH):
        solved = [solve_case(rig, goals) for goals in job.cases[first:first + BATCH]]
        out += [_case_output(rig, *case) for case in solved]
    return {"cases": out}


def _case_output(rig, pose, world, reports, seconds):
    """One case of the OUT.json document."""
    heads, tails = heads_tails(rig.skeleton, world)
    bones = {name: {"head": heads[i].tolist(), "tail": tails[i].tolist(),
                    "rotation": pose.rotations[i].tolist(), "scale": pose.scales[i].tolist()}
             for i, name in enumerate(rig.skeleton.names)}
    residuals = [{"bone": r.bone, "method": r.solver, "residual": r.error, "unit": r.unit,
                  "reached": r.converged,
                  "goals": [{"goal": g.goal, "residual": g.value, "unit": g.unit} for g in r.residuals],
                  "not_honoured": list(r.notes)} for r in reports]
    return {"bones": bones, "error": max((r.error for r in reports if r.unit == "m"), default=0.0),
            "residuals": residuals, "iterations": max(r.iterations for r in reports), "seconds": seconds}
