"""How a solve measures its progress and when an iterative one stops, stated once: the Python
driver (``solvers.iterate``) calls these bodies and FABRIK's compiled loop (``solvers.fabrik_loop``)
compiles them in.

An iterative solve stops when every error is within the tolerance, at the iteration cap, or when
``PATIENCE`` iterations in a row have not lowered its cost by more than ``min_gain(tolerance)``;
it answers with the best iterate it has seen. A cost with an error that is not finite (NaN, inf)
is inf, so such an iterate is never the better one.

Where a cost adds position errors (metres) and rotation errors (radians), a radian counts as
``METRES_PER_RADIAN`` metres. (DLS weighs the angles it minimises by its plan's own scale, the
longest path to a goal: ``solvers.dls_plan``.)
"""
import math

from numba.extending import register_jitable

PATIENCE = 3  # iterations in a row without progress that end a solve
MIN_GAIN = 1e-3  # progress is a cost lowered by more than this share of the tolerance
# A radian of rotation error counts as this many metres in a summed cost: a hand 1 m from its
# shoulder that is 0.1 rad off its rotation weighs as much as one 0.1 m off its target.
METRES_PER_RADIAN = 1.0


@register_jitable
def min_gain(tolerance):
    """How much an iteration must lower the cost to count as progress."""
    return tolerance * MIN_GAIN


@register_jitable
def within(errors, tolerance):
    """Whether every error is within ``tolerance`` (a NaN never is)."""
    for error in errors:
        if not error <= tolerance:
            return False
    return True


@register_jitable
def all_finite(errors):
    for error in errors:
        if not math.isfinite(error):
            return False
    return True


@register_jitable
def summed(errors, angles_from):
    """The cost of ``errors``: positions (metres) before index ``angles_from``, angles (radians)
    from it on, each angle counted as ``METRES_PER_RADIAN`` metres; inf when any is not finite."""
    if not all_finite(errors):
        return math.inf
    total = 0.0
    for i in range(len(errors)):
        total += errors[i] if i < angles_from else METRES_PER_RADIAN * errors[i]
    return total


@register_jitable
def stalled_for(stalled, cost, best_cost, gain):
    """Iterations in a row without progress, ``stalled`` before an iteration whose cost is ``cost``
    against the best so far, ``best_cost``: progress (lowering it by more than ``gain``) resets it."""
    return 0 if cost < best_cost - gain else stalled + 1


def summed_by_unit(errors, units):
    """The cost of residuals ``errors`` in ``units`` ("m" or "rad", as a ``SolveResult`` has
    them), each radian counted as ``METRES_PER_RADIAN`` metres; inf when any is not finite."""
    if not all_finite(errors):
        return math.inf
    return sum(METRES_PER_RADIAN * e if unit == "rad" else e for e, unit in zip(errors, units))
