"""Scripted posing: solve every case of a goals file from the rig's rest pose.

A goals file (JSON) names the solver settings and a list of cases; each case is a list of goals
(bone, chain length, use tail, world target, optional rotation / pole / pole angle / weight, soft
reach, and iTaSC's ``ik_type`` "distance" with its ``distance`` and ``limit_mode``: the tip kept
inside, outside or on the sphere of that radius about the target). Keys are the rig file's IK
constraint keys, but ``chain_length`` for its ``chain_count``; any other key is refused.
Each case solves on its own from the rest pose with only its goals (the rig's own IK
constraints are not used; with a top-level ``simulation`` the cases are frames in time
instead, each from the pose the last left: ``rig.simulated_solve``), and reports every bone's
world head and tail with its pose ``rotation`` (xyzw, relative to rest, as pose files store it) and ``scale`` (inherited by its
children, ``rig.pose.Pose``: a textbook forward kinematics of the output gives its heads and
tails), per goal its residual with its unit (its first: the reach), whether that was reached
(within the tolerance), under ``goals`` every residual it has (reach, rotation, Control
Rotation), each with its unit, the methods that ran and the settings they did not honour, the worst
position residual (metres), the iterations and the seconds the solve took.
"""
import copy
import os
import time
from dataclasses import dataclass, field

import numpy as np

from rig.constraints import IK_TYPES, LIMIT_MODES, RANGES, SOLVER_TYPES, IKConstraint, SolverSettings
from rig.ik import IKGoal, solve_groups
from rig.formats.ground_file import read_ground
from rig.formats.jsonfields import Reader, load_json
from rig.ground import PlaneGround
from rig.pins import pin_where_it_is
from rig.pose import Pose, heads_tails, world_matrices
from rig.simulated_solve import SimulationFile, read_simulation, solve_sequence
from rig.whole_body import LeveledGoal, solve_levels
from rig.ranges import MAX_COORDINATE
from solvers.methods import warm_all
from solvers.transforms import normalize


@dataclass
class Case:
    """One case of a goals file: its ``goals`` (IKGoal) with their ``priorities`` (ints, 0 first;
    None where the file gave none), the bones it ``pins`` (names, held where they start: head and
    rotation) and whether its ``root_free``."""
    goals: list
    priorities: list
    pins: tuple = ()
    root_free: bool = False


@dataclass
class SolveJob:
    """A parsed goals file: solver ``settings``, ``cases`` (Case), the ``ground`` every case
    stands on (``rig.ground`` kind, or None) and what reading its scene file warned of; with a
    ``simulation`` (``rig.simulated_solve.SimulationFile``) the cases are frames in time."""
    settings: SolverSettings
    cases: list
    ground: object = None
    warnings: list = field(default_factory=list)
    simulation: SimulationFile | None = None

    def whole_body(self, case):
        """Whether ``case`` asks for what only the priority solve gives (``rig.whole_body``)."""
        return bool(case.pins or case.root_free or self.ground is not None
                    or any(p is not None for p in case.priorities))


PIN_KEYS = ("target", "rotation", "pole")  # a pin holds its bone where it starts: it takes none of these


def _read_pin(reader):
    """A pinned goal's bone name (its other keys refused: a pin has no target to reach)."""
    for key in PIN_KEYS:
        if key in reader.obj:
            reader.fail(key, "no value: a pinned bone holds where it starts", reader.obj[key])
    if "priority" in reader.obj:
        reader.fail("priority", "no value: pins come before every priority", reader.obj["priority"])
    return reader.string("bone")


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


def _read_case(case, rig, solver):
    goals, priorities, pins = [], [], []
    for reader in case.items("goals"):
        if reader.boolean("pin", False):
            name = _read_pin(reader)
            if name not in rig.skeleton.index:
                reader.fail("bone", "the name of a bone in this rig", name)
            if name in pins:
                reader.fail("bone", "a bone pinned once per case", name)
            pins.append(name)
            continue
        goals.append(_read_goal(reader, rig, solver))
        priorities.append(reader.integer("priority", 0, 0, MAX_PRIORITY) if "priority" in reader.obj else None)
        reader.asked.add("priority")
    if not goals and not pins:
        case.fail("goals", "at least one goal", [])
    return Case(goals, priorities, tuple(pins), case.string("root", "fixed", ROOTS) == "free")


MAX_PRIORITY = 255  # priority levels a goals file may use (0 first)
ROOTS = ("fixed", "free")  # a case's "root": "free" lets the body's top bone move too


def _read_ground(root):
    """The top level's ``ground``: ``{"height": h}`` (the plane y = h) or ``{"mesh": PATH}`` (a
    scene file's surface, PATH relative to the goals file's folder), or None without one; with
    what reading the scene warned of."""
    if "ground" not in root.obj:
        root.asked.add("ground")
        return None, []
    ground = root.child("ground")
    if "mesh" not in ground.obj:
        return PlaneGround(ground.number("height", low=-MAX_COORDINATE, high=MAX_COORDINATE)), []
    if "height" in ground.obj:
        ground.fail("height", "no height beside a mesh (a ground is a plane or a mesh)", ground.obj["height"])
    scene = read_ground(os.path.join(os.path.dirname(root.path), ground.string("mesh")))
    return scene.ground, scene.warnings


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
    cases = [_read_case(case, rig, settings.type) for case in root.items("cases")]
    ground, warnings = _read_ground(root)
    root.check_fields()
    job = SolveJob(settings, cases, ground, warnings, simulation)
    if simulation is not None and any(job.whole_body(case) for case in cases):
        root.fail("simulation", "no pins, priorities, root or ground beside it (the priority solver does not step "
                                "in time)", "a simulation")
    return job


def solve_case(rig, case, ground=None, whole_body=False, start=None):
    """Solve one ``case`` from the rest pose (or a copy of pose ``start``); returns (pose, world, [ChainReport], seconds). The
    seconds are the solve's, as a frame of the app pays them (which solves into the pose it has):
    from the goals to the posed world matrices, not making the case's rest pose. A ``whole_body``
    case solves with the priority solver (``rig.whole_body``): its pins first, then its goals by
    priority, on ``ground``. A plain list of IKGoal is a case of those goals alone."""
    if not isinstance(case, Case):
        case = Case(list(case), [None] * len(case))
    pose = Pose.rest(len(rig.skeleton)) if start is None else start.copy()
    world = rig.skeleton.rest_world.copy() if start is None else world_matrices(rig.skeleton, pose)
    start = time.perf_counter()
    if whole_body:
        pins = {name: pin_where_it_is(world, rig.skeleton.index[name]) for name in case.pins}
        goals = [LeveledGoal(g, 1 + (p or 0)) for g, p in zip(case.goals, case.priorities)]
        reports = solve_levels(rig, pose, world, goals, pins, case.root_free, ground)
    else:
        by_constraint = {id(g.constraint): g for g in case.goals}
        reports, _ = solve_groups(rig, pose, world, [g.constraint for g in case.goals],
                                  lambda c, _: by_constraint[id(c)])
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
        solved = solve_sequence(rig, job.cases, job.simulation, lambda r, case, start: solve_case(r, case, start=start))
        return {"cases": [_case_output(rig, *case) for case in solved]}
    out = []
    for first in range(0, len(job.cases), BATCH):
        solved = [solve_case(rig, case, job.ground, job.whole_body(case))
                  for case in job.cases[first:first + BATCH]]
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
