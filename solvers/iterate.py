"""The one iteration driver every iterative solver (FABRIK, CCD, DLS) runs.

A solver supplies its state, one ``step`` and a ``measure``; the driver owns the loop: it stops
when every goal is within tolerance, at the iteration cap, or when ``patience`` iterations in a row
no longer lower the summed error, and it always hands back the best state it has seen.
"""
import numpy as np

from solvers.chain import SolveResult


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
    cost_of = np.sum if cost is None else cost
    best = state
    best_errors = np.asarray(measure(state), dtype=float)
    best_cost = float(cost_of(best_errors)) if np.isfinite(best_errors).all() else np.inf
    iterations = 0
    stalled = 0
    while iterations < max_iterations and not np.all(best_errors <= tolerance):
        state = step(state)
        iterations += 1
        errors = np.asarray(measure(state), dtype=float)
        current = float(cost_of(errors)) if np.isfinite(errors).all() else np.inf
        if current < best_cost - min_gain:
            stalled = 0
        else:
            stalled += 1
        if current < best_cost:
            best, best_errors, best_cost = state, errors, current
        if stalled >= patience:
            break
    rotations, stretch, at_limit = finish(best)
    return SolveResult(rotations, iterations, best_errors, bool(np.all(best_errors <= tolerance)),
                       stretch, at_limit)
