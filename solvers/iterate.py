"""The iteration driver the iterative solvers run (CCD, DLS; FABRIK's compiled solve keeps these
same stop rules inside its kernel, where a call per iteration from Python cost more than a step).

A solver supplies its state, one ``step`` and a ``measure``; the driver owns the loop: it stops
when every goal is within tolerance, at the iteration cap, or when ``patience`` iterations in a row
no longer lower the summed error, and it always hands back the best state it has seen.
"""
import math

import numpy as np

from solvers.chain import SolveResult


def _cost(errors, cost_of):
    """``cost_of(errors)``, or inf when any error is not finite (such a state never counts as better)."""
    return float(cost_of(errors)) if all(map(math.isfinite, errors)) else math.inf


def iterate(state, step, measure, finish, max_iterations=20, tolerance=1e-3, patience=3, min_gain=None, cost=None):
    """Run ``step`` on ``state`` until converged, capped or stalled.

    - ``step(state) -> state``: one iteration; must not modify its argument in place.
    - ``measure(state) -> errors``: residual per goal, (k,), each compared with ``tolerance``.
    - ``finish(state) -> (rotations (n, 4), stretch (n,) or None, at_limit (n, 3) or None)``:
      turns the best state into a pose.
    - ``cost(errors) -> float``: what "best" and "improves" compare (default: the summed error); a
      solver that minimises a weighted objective passes it so the driver keeps its optimum.
    An iteration "improves" when it lowers the cost by more than ``min_gain`` (default
    ``tolerance * 1e-3``). A non-finite error never counts as an improvement.
    Returns a ``SolveResult`` whose ``iterations`` counts the steps taken.
    """
    if max_iterations < 0 or tolerance < 0 or patience < 1:
        raise ValueError("max_iterations and tolerance must be >= 0 and patience >= 1")
    min_gain = tolerance * 1e-3 if min_gain is None else min_gain
    # Errors as Python floats: a handful of goals, where numpy calls would cost more than the sums.
    cost_of = sum if cost is None else cost
    best = state
    best_errors = list(map(float, measure(state)))
    best_cost = _cost(best_errors, cost_of)
    iterations = 0
    stalled = 0
    within = float(tolerance).__ge__  # False for NaN, like the comparison it stands for
    while iterations < max_iterations and not all(map(within, best_errors)):
        state = step(state)
        iterations += 1
        errors = list(map(float, measure(state)))
        current = _cost(errors, cost_of)
        if current < best_cost - min_gain:
            stalled = 0
        else:
            stalled += 1
        if current < best_cost:
            best, best_errors, best_cost = state, errors, current
        if stalled >= patience:
            break
    rotations, stretch, at_limit = finish(best)
    return SolveResult(rotations, iterations, np.array(best_errors), all(map(within, best_errors)),
                       stretch, at_limit)
