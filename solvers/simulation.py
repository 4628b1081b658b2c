"""iTaSC's Simulation mode for the Jacobian methods (DLS, SDLS): a frame integrates joint
velocities over its time instead of jumping to the answer (Blender's IK chapter, iTaSC).

One frame of ``dt`` seconds, as this module reads Blender's manual:
- The joint velocity is the damped least-squares (SDLS: selectively damped) solution for the
  goals' residual times the feedback coefficient, v = feedback * J+ e: the residual decays with
  time constant 1 / feedback. Blender also feeds the target's estimated velocity forward; this
  does not, so a target moving at speed s is followed about s / feedback behind.
- The frame is split into substeps short enough that feedback * substep <= ``MAX_GAIN`` (a longer
  one overshoots the answer: the manual's "risk of instability"), as Blender's substeps do.
- The damping is measured, not only set: a target out of reach leaves a residual that no pose
  removes, and the linear model does not see how it curves the cost around the stretched chain
  (the chain straightening is second order in its bend). With the set damping the step then
  overshoots the straight pose many times over (far beyond reach: the chain rocks across it while
  the velocity bound and the halvings below slow every other part of the step too) or creeps
  toward it (just beyond reach: the damping outweighs the little curvature there). So each
  substep first probes: the damped step (``damping``, scaled onto the velocity bound), then the
  residual where it leads against the linear prediction gives the cost's curvature along it
  that the model missed (``_missed_curvature``). The step then taken damps that direction by
  that curvature (a Newton step along it: a Levenberg-Marquardt damping measured rather than
  guessed), and damps the others by no more than it, fading to ``DAMPING_FLOOR`` of the set
  damping where the model is nearly right (a reachable target close by), never above the set one.
- Each substep's step is scaled down as a whole until no bone turns faster than ``max_velocity``
  (rad/s, the angle between its rotations before and after) and no stretch grows faster than
  ``max_velocity`` times its length per second: scaled, not clipped per joint, so the step keeps
  its direction. A step that would not lower the goals' weighted cost is halved, as the
  iterations' retries do (a safety: the measured damping rarely needs it). Limits and locks hold
  as in the iterations (``solvers.dls``'s bounded step). A substep whose damped step the linear
  model promises to lower the squared cost by less than ``UNMEASURABLE`` of it stands still: the
  chain has settled on its answer (beyond reach the residual stays, and every frame would
  otherwise probe and halve in vain).
- A straight chain pulled back along itself (a target inside reach on its line) bends once, as
  in the iterations (``solvers.dls._unfold``); one pulled outward is at its best (the Animation
  mode's answer for a target beyond reach) and stays: unfolded, it would pop off the answer
  every time it settled there.
- A chain's pole turns its first bone toward the pole's plane at the same gain, within half the
  velocity budget (the goals get what it leaves), where the iterations would face it at once.
- Stretch is not carried from frame to frame (the pose keeps it as scales): it starts each frame
  where the plan starts it, and only the rotations are integrated.
Reiteration (never / initial / always) is the caller's: a frame that reiterates converges as the
Animation mode does (``solvers.dls.solve_dls``), without the velocity bound, as the manual says.
"""
import math
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from solvers import dls, progress
from solvers import scalar as sc
from solvers.chain import SolveResult

MAX_GAIN = 1.0  # feedback * substep at most: a gain of 1 takes the whole (linearised) residual
SCALE_TRIES = 12  # scalings of a step (to the velocity bound, or halvings) before the substep stands still
SHORT_OF_BOUND = 0.999  # a step scaled onto the bound aims this far inside it: rounding stays under
POLE_SHARE = 0.5  # the part of a frame's velocity budget a pole's turn may take
DAMPING_FLOOR = 0.1  # the measured damping fades to no less than this share of the set damping
UNMEASURABLE = 1e-13  # a promised fall of the squared cost below this share of it is rounding


class Simulation(NamedTuple):
    """One frame of the Simulation mode: ``dt`` seconds, ``max_velocity`` rad/s, ``feedback`` 1/s."""
    dt: float
    max_velocity: float
    feedback: float

    def substeps(self):
        """How many substeps the frame takes (``MAX_GAIN``)."""
        return max(1, math.ceil(self.dt * self.feedback / MAX_GAIN - 1e-9))

    def check(self):
        """ValueError unless every field is finite and dt > 0, max_velocity >= 0, feedback >= 0."""
        if not (math.isfinite(self.dt) and self.dt > 0 and math.isfinite(self.max_velocity)
                and self.max_velocity >= 0 and math.isfinite(self.feedback) and self.feedback >= 0):
            raise ValueError(f"a simulation frame needs dt > 0, max_velocity >= 0 and feedback >= 0, got {self}")


def turn_angle(a, b):
    """The angle (radians) of the rotation from unit quaternion ``a`` to ``b`` (4 floats each)."""
    return sc.length(sc.qto_rotvec(sc.qmul(sc.qconj(a), b)))


def _fastest(plan, before, after):
    """The largest turn of a moving bone, or stretch change, from state ``before`` to ``after``."""
    turns = [turn_angle(before.quats[j], after.quats[j]) for j in plan.free_bones.tolist() + plan.held_bones.tolist()]
    grown = [abs(a - b) for a, b in zip(before.stretch, after.stretch)]
    return max(turns + grown, default=0.0)


def _onto_bound(plan, state, change, bound):
    """(``change`` scaled down as a whole so no bone turns faster than ``bound``, the state it gives)."""
    candidate = dls._apply(plan, state, change, state.damping, state.unfolded)
    fastest = _fastest(plan, state, candidate)
    if fastest <= bound:
        return change, candidate
    change = change * (bound / fastest)
    return change, dls._apply(plan, state, change, state.damping, state.unfolded)


def _missed_curvature(plan, state, jacobian, change, probe):
    """The curvature of half the squared weighted cost along ``change`` (per squared weighted DOF
    unit) that the linear model (``jacobian``) does not see, from the state ``probe`` it leads to:
    r' = r - J d + defect to second order, so the curvature along d is |J d|^2 + 2 r.defect."""
    step = change / plan.column_scale
    size = float(step @ step)
    if size == 0.0:
        return 0.0
    before = dls._weighted_residual(plan, state)
    defect = dls._weighted_residual(plan, probe) - (before - jacobian @ step)
    return 2.0 * float(before @ defect) / size


def _curved(plan, jacobian, residual, change, curvature):
    """(plan, jacobian, residual) with one more row that adds ``curvature`` along ``change`` to
    the model: a row of zero residual, a goal of its own for SDLS's per-goal blocks."""
    step = change / plan.column_scale
    row = math.sqrt(curvature / float(step @ step)) * step
    blocks = np.zeros((plan.blocks.shape[0] + 1, plan.blocks.shape[1] + 1))
    blocks[:-1, :-1], blocks[-1, -1] = plan.blocks, 1.0
    return replace(plan, blocks=blocks), np.vstack([jacobian, row]), np.append(residual, 0.0)


def _promised(plan, state, jacobian, change):
    """Whether the linear model promises that ``change`` lowers the squared weighted cost by more
    than ``UNMEASURABLE`` of it: less is rounding, which no shorter step would register."""
    before = dls._weighted_residual(plan, state)
    after = before - jacobian @ (change / plan.column_scale)
    square = float(before @ before)
    return square - float(after @ after) > UNMEASURABLE * square


def _measured_step(plan, state, jacobian, residual, change, bound, damping, selective, gain):
    """The substep's DOF change once ``change``, the step damped by ``damping``, is probed: damped
    by the curvature the probe measured (the module's doc)."""
    probed, probe = _onto_bound(plan, state, change, bound)
    curvature = _missed_curvature(plan, state, jacobian, probed, probe)
    faded = min(max(curvature, (DAMPING_FLOOR * damping) ** 2), damping ** 2)
    if curvature > faded:
        plan, jacobian, residual = _curved(plan, jacobian, residual, probed, curvature - faded)
    return dls._bounded_direction(plan, state, jacobian, residual, math.sqrt(faded), selective, gain).change


def _substep(plan, state, seconds, simulation, damping, selective):
    """The state one substep of ``seconds`` later: the velocity step, scaled to the bound."""
    jacobian = dls._jacobian(plan, state)
    residual = dls._step_residual(plan, state)
    bound, cost = simulation.max_velocity * seconds, dls._cost(plan, state.errors)
    # A straight chain pulled back along itself bends; pulled outward it is at its best.
    unfold = dls._stalled(plan, state, jacobian, residual) and dls._pulls_inward(plan, state)
    if unfold:
        change = dls._unfold(plan, state)
    else:
        damping, gain = damping * plan.scale, simulation.feedback * seconds
        change = dls._bounded_direction(plan, state, jacobian, residual, damping, selective, gain).change
        if not _promised(plan, state, jacobian, change):
            return state  # settled on the answer (a target out of reach: the residual stays)
        change = _measured_step(plan, state, jacobian, residual, change, bound, damping, selective, gain)
    for _ in range(SCALE_TRIES):
        candidate = dls._apply(plan, state, change, state.damping, state.unfolded or unfold)
        fastest = _fastest(plan, state, candidate)
        if fastest > bound:
            change = change * (SHORT_OF_BOUND * bound / fastest)
        elif unfold or dls._cost(plan, candidate.errors) < cost:
            return candidate
        else:  # past the answer: a shorter step
            change = change * 0.5
    return state


def simulate_dls(plan, rotations, simulation, tolerance=1e-3, damping=0.1, selective=False):
    """One frame of the Simulation mode on ``plan`` (``solvers.dls.DlsPlan``) from ``rotations``
    (n, 4), the pose the last frame left; returns a ``SolveResult`` whose ``iterations`` counts the
    substeps taken (none once every goal is within ``tolerance``). Every moving bone turns by at
    most ``simulation.max_velocity * simulation.dt`` (``solvers.tolerances.VELOCITY_BOUND``).
    Non-finite rotations leave the pose unchanged (errors inf). ValueError for a bad ``simulation``,
    ``damping`` or shape."""
    simulation.check()
    rotations = dls._checked(plan, rotations, damping)
    if not np.isfinite(rotations).all():
        return SolveResult(rotations.copy(), 0, np.full(len(plan.goals), np.inf), False)
    state = dls._start(plan, rotations, lay_straight=False)
    count, taken = simulation.substeps(), 0
    seconds = simulation.dt / count
    while taken < count and plan.weights.shape[1] and not progress.within(state.errors, tolerance):
        state = _substep(plan, state, seconds, simulation, damping, selective)
        taken += 1
    pose, stretch, at_limit = dls._finish(plan, rotations, state)
    return SolveResult(pose, taken, np.array(state.errors), progress.within(state.errors, tolerance), stretch,
                       at_limit)


class PoleTurn(NamedTuple):
    """A frame's start with its chain turned toward the pole (``pose``), and the ``simulation``
    left for the goals: the velocity budget less what the turn used."""
    pose: np.ndarray
    simulation: Simulation


def _roll(chain, start, faced, target):
    """The rotation (4 floats, in the first bone's rest frame) about the root-to-target line that
    takes the chain's first bone from ``start`` toward ``faced``: the twist about that line of the
    turn between them (none once the chain's plane holds the pole, whatever the bend)."""
    base_q, _, _, rest_rotations, _ = chain.floats
    to_rest = sc.qconj(sc.qmul(base_q, rest_rotations[0]))
    axis = sc.normalize(sc.qrotate(to_rest, sc.sub(target, chain.float_rest_points[0])))
    turn = sc.qmul(faced, sc.qconj(start))
    along = sc.scale(axis, sc.dot(axis, turn[:3]))
    return sc.qnormalize(along + (turn[3],))


def pole_turned(chain, start, faced, target, simulation):
    """``PoleTurn``: ``start`` (n, 4) with its first bone rolled about the root-to-target line
    toward ``faced`` (the iterations' start, facing the pole; ``solvers.chain.face_pole``) as far
    as a frame's gain allows, within ``POLE_SHARE`` of the frame's velocity budget."""
    if faced is start:  # no pole
        return PoleTurn(start, simulation)
    first = start[0].tolist()
    offset = sc.qto_rotvec(_roll(chain, first, faced[0].tolist(), tuple(float(x) for x in target)))
    angle = sc.length(offset)
    if angle == 0.0:
        return PoleTurn(start, simulation)
    share = min(1.0, simulation.feedback * simulation.dt, POLE_SHARE * simulation.max_velocity * simulation.dt / angle)
    turned = np.array(start, dtype=float)
    turned[0] = sc.qmul(sc.qfrom_rotvec(sc.scale(offset, share)), first)
    used = share * angle / simulation.dt
    return PoleTurn(turned, simulation._replace(max_velocity=max(simulation.max_velocity - used, 0.0)))
