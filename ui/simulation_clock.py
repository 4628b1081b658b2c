"""The window's time for iTaSC's Simulation mode (``rig.simulation``): how far each solve steps.

During playback a solve steps by the frames the timeline moved at its rate (a frame dropped is
time stepped over, never lost); otherwise (a drag, a panel edit, the settling after a drag) by the
app's clock since the last frame, at most ``MAX_WALL_STEP``. A timeline that went back (a loop, a
scrub or a jump to the start) starts the simulation afresh: a first frame, as Blender's cache
has no frame before it. The state is the pose the last step left: over keys, the IK chains keep
it (Blender's Simulation mode ignores keyed rotations of what its IK moves). While a drag is held
or the last step still moved a bone, the next frame solves again, so a figure keeps moving toward
a still target, and stops asking once it settles.
"""
from dataclasses import dataclass

import numpy as np

from rig.constraints import RANGES
from rig.evaluate import active_ik
from rig.simulation import TimeStep, simulating
from solvers.simulation import turn_angle

MAX_WALL_STEP = 0.1  # seconds: a frame that stalled (a compile, a dialog) steps no further, so nothing jumps
SETTLED = 1e-7  # radians: a step that turns no bone further than this has settled (far below a pixel)


@dataclass
class SimulationClock:
    """The app clock's ``seconds`` and the timeline's ``frame`` at the last frame (None: none yet),
    the ``rotations`` the last simulated solve left (None: none yet, the next is a first frame),
    and whether that solve still ``moving``."""
    seconds: float | None = None
    frame: int | None = None
    rotations: np.ndarray | None = None
    moving: bool = False


def _time_step(state, clock, now):
    """The TimeStep of this frame's solve, or None when a playing timeline has not moved on."""
    timeline = state.timeline
    if clock.rotations is None or len(clock.rotations) != len(state.pose.rotations) or timeline.frame < clock.frame:
        return TimeStep(RANGES["dt"][0], first=True)
    if timeline.frame > clock.frame:
        return TimeStep((timeline.frame - clock.frame) / timeline.action.fps)
    if timeline.playing and state.drag is None:
        return None
    return TimeStep(min(max(now - clock.seconds, RANGES["dt"][0]), MAX_WALL_STEP))


def _keep_chains(state, clock):
    """Over keys, the rig's IK chains keep the rotations the last step left."""
    bones = sorted({b for c in active_ik(state.rig) for b in state.rig.ik_chain(c)})
    state.pose.rotations[bones] = clock.rotations[bones]


def simulated_solve(state, now):
    """The frame's one solve (``AppState.solve_if_pending``), stepping the Simulation mode by the
    time since the last frame (``now``: the app clock's seconds) when the rig's solver is in it."""
    clock = state.simulation_clock
    if not simulating(state.rig):
        clock.rotations = None
        state.solve_if_pending()
        return
    # Settling (nothing but time asked for the solve, every edit recorded) moves the figure as a
    # frame change does: a view, not an undo step, so undo goes back past it to the edit.
    settling = not state.solve_pending and state.drag is None and clock.moving and not state.timeline.playing and \
        state.history.current.matches(state)
    if state.drag is not None or clock.moving and not state.timeline.playing:
        state.mark_dirty()
    step = _time_step(state, clock, now) if state.solve_pending else None
    if step is not None:
        _step(state, clock, step)
        if settling:
            state.history.rebase(state)
    clock.seconds, clock.frame = now, state.timeline.frame


def _step(state, clock, step):
    """Solve one ``step``, noting the rotations it left and whether it moved a bone."""
    if not step.first and state.timeline.moved and state.timeline.action.has_keys():
        _keep_chains(state, clock)
    before = state.pose.rotations.copy()
    state.rig.time_step = step
    try:
        state.solve_if_pending()
    finally:
        state.rig.time_step = None
    after = state.pose.rotations
    clock.moving = max(map(turn_angle, before.tolist(), after.tolist()), default=0.0) > SETTLED
    clock.rotations = after.copy()
