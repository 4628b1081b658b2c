"""Blender's iTaSC Simulation mode on a rig: which solves step in time, and by how much.

With ``SolverSettings.itasc_mode`` "simulation", the IK evaluation is a sequence in time: whoever
evaluates says how far time moved since the last solve by setting ``rig.time_step`` (a
``TimeStep``; the window from the timeline or the wall clock, ``ui.simulation_clock``; ``app.py
solve`` from its file's ``dt``). The Jacobian methods then integrate joint velocities over that
time (``solvers.simulation``) and auto picks one of them (a geometric or analytic method forced on
a chain runs as it always does, and its report says "simulation: ... jumps to its answer").

Reiteration, as Blender's manual describes it: "never": every frame is one step, the first
too; "initial" (Blender's default): the first frame (a step with no previous frame: ``first``)
converges, as the Animation mode does, then each frame steps; "always": every frame converges
from the pose the last one left, so the velocity bound and continuity between frames are not
kept (the manual: "the maximum joint velocity and the continuity between frames is not
guaranteed anymore"). A solve with no ``time_step`` (an export, a still evaluation) converges as
a first frame does. A stepping frame starts from the pose as it is (the state the last frame
left), whatever ``SolverSettings.mode`` says; a first frame honours the mode.
"""
from dataclasses import dataclass

from solvers.simulation import Simulation


@dataclass(frozen=True)
class TimeStep:
    """How far time moved since the last solve: ``dt`` seconds, and whether this is the ``first``
    frame (nothing before it to continue from)."""
    dt: float
    first: bool = False


def simulating(rig):
    """Whether the rig's solver is in iTaSC's Simulation mode."""
    return rig.solver.itasc_mode == "simulation"


def stepping(rig):
    """The ``solvers.simulation.Simulation`` the rig's next solve takes, or None when it converges
    (Animation mode, no time step, or a frame that reiterates)."""
    step, solver = rig.time_step, rig.solver
    if not simulating(rig) or step is None or solver.reiteration == "always" or \
            step.first and solver.reiteration == "initial":
        return None
    return Simulation(step.dt, solver.max_velocity, solver.feedback)


def continues(rig):
    """Whether the next solve continues from the pose as it is rather than the mode's start: a
    simulated frame after the first."""
    return simulating(rig) and rig.time_step is not None and not rig.time_step.first
