"""``app.py solve`` in iTaSC's Simulation mode: a goals file's top-level ``"simulation": {"dt": s,
"max_velocity": rad_per_s, "feedback": f, "reiteration": "never" | "initial" | "always"}`` makes
its cases one sequence in time. Each case is one frame ``dt`` seconds after the one before: it
starts from the pose the previous case left (the first from the rest pose) and the Jacobian
methods step toward its goals (``rig.simulation``, ``solvers.simulation``). Only ``dt`` is
required; the others default to the rig's solver settings (Blender's: 50 rad/s, 20, "initial").
"""
from dataclasses import dataclass, replace

from rig.constraints import RANGES, REITERATIONS
from rig.simulation import TimeStep


@dataclass(frozen=True)
class SimulationFile:
    """A goals file's ``simulation`` object: ``dt`` seconds a case, and the solver settings it sets."""
    dt: float
    max_velocity: float
    feedback: float
    reiteration: str

    def settings(self, solver):
        """``solver`` (SolverSettings) in Simulation mode with this file's settings."""
        return replace(solver, itasc_mode="simulation", max_velocity=self.max_velocity, feedback=self.feedback,
                       reiteration=self.reiteration)


def read_simulation(root, solver):
    """The ``simulation`` object of the goals file read by ``root`` (a ``Reader``), its defaults
    from ``solver`` (SolverSettings), or None when there is none. A bad or unknown field raises
    FileFormatError naming it (``simulation.dt``)."""
    if "simulation" not in root.obj:
        return None
    s = root.child("simulation")
    return SimulationFile(dt=s.number("dt", None, *RANGES["dt"]),
                          max_velocity=s.number("max_velocity", solver.max_velocity, *RANGES["max_velocity"]),
                          feedback=s.number("feedback", solver.feedback, *RANGES["feedback"]),
                          reiteration=s.string("reiteration", solver.reiteration, REITERATIONS))


def solve_sequence(rig, cases, simulation, solve_case):
    """Solve ``cases`` on ``rig`` (its solver settings already the simulation's) as frames ``dt``
    apart, each from the pose the last left; ``solve_case(rig, goals, pose)`` solves one (None: from
    rest). Returns each case's solved (pose, world, reports, seconds)."""
    solved, pose = [], None
    for k, goals in enumerate(cases):
        rig.time_step = TimeStep(simulation.dt, first=k == 0)
        case = solve_case(rig, goals, pose)
        pose = case[0]
        solved.append(case)
    rig.time_step = None
    return solved
