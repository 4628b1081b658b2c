"""The iteration driver the iterative solvers run (CCD, DLS; FABRIK's compiled solve compiles the
same rules into its kernel, where a call per iteration from Python cost more than a step).

A solver supplies its state, one ``step`` and a ``measure``; the driver owns the loop, under the
rules ``solvers.progress`` states: it stops when every goal is within tolerance, at the iteration
cap, or when ``patience`` iterations in a row no longer lower the cost, and it always hands back
the best state it has seen.
"""
import math

import numpy as np

from solvers import progress
from solvers.chain import SolveResult


def _cost(errors, cost_of):
    """``cost_of(errors)``, or inf when any error is not finite (such a state never counts as better)."""
    return float(cost_of(errors)) if progress.all_finite(errors) else math.inf


def _summed(errors):
    """The default cost: every error a position's (metres)."""
    return progress.summed(errors, len(errors))


def iterate(state, step, measure, finish, max_iterations=20, tolerance=1e-3, patience=progress.PATIENCE, min_gain=None,
            cost=None):
    """Run ``step`` on ``state`` until converged, capped or stalled.

    - ``step(state) -> state``: one iteration; must not modify its argument in place.
    - ``measure(state) -> errors``: residual per goal, (k,), each compared with ``tolerance``.
    - ``finish(state) -> (rotations (n, 4), stretch (n,) or None, at_limit (n, 3) or None)``:
      turns the best state into a pose.
    - ``cost(errors) -> float``: what "best" and "improves" compare (default: the summed errors,
      all positions; ``solvers.progress.summed``); a solver that minimises a weighted objective, or
      measures angles, passes its own so the driver keeps its optimum.
    An iteration "improves" when it lowers the cost by more than ``min_gain`` (default
    ``progress.min_gain(tolerance)``). A non-finite error never counts as an improvement.
    Returns a ``SolveResult`` whose ``iterations`` counts the steps taken.
    """
    if max_iterations < 0 or tolerance < 0 or patience < 1:
        raise ValueError("max_iterations and tolerance must be >= 0 and patience >= 1")
    min_gain = progress.min_gain(tolerance) if min_gain is None else min_gain
    # Errors as Python floats: a handful of goals, where numpy calls would cost more than the sums.
    cost_of = _summed if cost is None else cost
    best = state
    best_errors = list(map(float, measure(state)))
    best_cost = _cost(best_errors, cost_of)
    iterations = 0
    stalled = 0
    while iterations < max_iterations and not progress.within(best_errors, tolerance):
        state = step(state)
        iterations += 1
        errors = list(map(float, measure(state)))
        current = _cost(errors, cost_of)
        stalled = progress.stalled_for(stalled, current, best_cost, min_gain)
        if current < best_cost:
            best, best_errors, best_cost = state, errors, current
        if stalled >= patience:
            break
    rotations, stretch, at_limit = finish(best)
    return SolveResult(rotations, iterations, np.array(best_errors), progress.within(best_errors, tolerance),
                       stretch, at_limit)
