"""What each IK method honours, stated once: auto picks from it, and a forced method that cannot
honour a setting is named with the setting and the reason.

A problem's features are the settings it holds beyond a position goal: "locks", "limits",
"stretch", "target rotation", "rotation locks" (a rotation goal with some axes locked),
"stiffness", "distance", "rotation control", "location off" (a rotation-only goal), "location
locks" (a position goal free along some axes, of the bone or the target: iTaSC's), "soft reach"
(a two-bone limb's reach eased in before full extension), "weights"
(several goals pulling one tree). A method honours a feature when its result holds it. The
analytic methods hold locks and limits, one bone by clamping its answer, two bones by solving
within them (auto then finishes with an iterative method when that answer falls short).
"""
from dataclasses import dataclass, replace

FEATURES = ("locks", "limits", "stretch", "target rotation", "rotation locks", "stiffness", "distance",
            "rotation control", "location off", "location locks", "soft reach", "weights")


@dataclass(frozen=True)
class Method:
    """``bones``: the chain length it takes (None: any); ``honours``: the features it holds on a
    chain; ``in_trees``: those it holds on a tree of chains (None: it takes chains only);
    ``exact``: its answer is the best there is on a chain without locks or limits (analytic);
    ``patience``: forced on a chain that then takes fresh starts, its own first run may spend
    1/``patience`` of the budget (a method whose misses are slow crawls rather than wrong
    basins needs longer before a fresh start pays)."""
    name: str
    bones: int | None
    honours: frozenset
    in_trees: frozenset | None = None
    exact: bool = False
    patience: int = 4


_ALL = frozenset(FEATURES) - {"soft reach"}
METHODS = {m.name: m for m in (
    Method("one_bone", 1, frozenset({"locks", "limits"}), exact=True),
    Method("two_bone", 2, frozenset({"locks", "limits", "stretch", "target rotation", "soft reach"}), exact=True),
    Method("fabrik", None, frozenset({"locks", "limits", "stretch", "target rotation"}),
           frozenset({"locks", "limits", "target rotation", "weights"}), patience=2),
    Method("ccd", None, frozenset({"locks", "limits", "stretch", "target rotation", "stiffness"})),
    Method("dls", None, _ALL, _ALL),
    Method("sdls", None, _ALL, _ALL),
)}

# Fastest first, as bench/bench_solvers.py and bench/bench_limits.py measure them through the rig
# (app.py solve's path), with one exception: on free chains compiled CCD is now the faster (10
# bones: 45 vs 54 us median; 50 bones: 63 vs 146 us, both 100%), but it turns the bones nearest
# the root most, so a head reaching on the humanoid's spine lifted the hips until the leg IK lost
# the feet (tests/rig/test_evaluate.py); FABRIK spreads the turn along the chain, as an animator
# expects, so it stays first. Both beat DLS (0.7 ms). With limits CCD reaches 99-100% in
# 0.08-0.1 ms, FABRIK 98-100% in 0.4-2.5 ms.
AUTO_ORDER_FREE = ("one_bone", "two_bone", "fabrik", "ccd", "dls")
AUTO_ORDER_LIMITED = ("one_bone", "two_bone", "ccd", "dls")
RESTARTED = "dls"  # the limited method fast enough to restart
# Forced methods that restart on a limited chain. FABRIK among them since its limited step was
# compiled (0.4-2.5 ms a solve): bench_limits (200 poses) without restarts 94-100% per chain; with
# restarts after a quarter of the budget the robot arm fell to 97.5% (its misses are slow crawls)
# and the swing/twist median rose to 15 ms; with restarts after half (patience 2) every chain
# reaches 99.5-100% but the left leg (98%), swing/twist in about 6 ms. CCD keeps a quarter: given
# half, its legs fell from 99.5% to 98.5%.
RESTARTABLE = ("fabrik", "ccd", "dls", "sdls")
REASONS = {"tree": "takes one chain, not chains sharing bones"}


@dataclass(frozen=True)
class MethodChoice:
    """The methods a solve runs, in order (each after the one before left the goals short);
    ``restarts``: the method that takes fresh starts when they all stall (a limited chain's
    local minimum), or None; ``notes``: what the user asked for and did not get, each naming the
    setting and the reason."""
    methods: tuple
    notes: tuple = ()
    restarts: str | None = None


def unhonoured(method, features, bones, tree):
    """The features (and "tree" or "chain length") ``method`` cannot honour on this problem."""
    spec = METHODS[method]
    if tree and spec.in_trees is None:
        return ("tree",)
    if not tree and spec.bones is not None and spec.bones != bones:
        return ("chain length",)
    held = spec.in_trees if tree else spec.honours
    return tuple(f for f in FEATURES if f in features and f not in held)


def _reason(method, missing, bones):
    if missing == "chain length":
        return f"{method} takes chains of {METHODS[method].bones} bones, this one has {bones}"
    return f"{missing}: {method} {REASONS.get(missing, 'does not hold it')}"


def _auto(features, bones, tree):
    """Auto's MethodChoice: the methods that honour everything, fastest first; a limited chain
    restarts CCD (the fast limited method) when they all stall."""
    limited = bool({"locks", "limits"} & features)
    order = AUTO_ORDER_LIMITED if limited else AUTO_ORDER_FREE
    methods = tuple(m for m in order if not unhonoured(m, features, bones, tree))
    if not methods:  # no method holds it all: the one that drops least, saying what it drops
        fits = [m for m in order if unhonoured(m, features, bones, tree)[:1] not in (("tree",), ("chain length",))]
        fallback = min(fits, key=lambda m: (len(unhonoured(m, features, bones, tree)), order.index(m)))
        missing = unhonoured(fallback, features, bones, tree)
        return MethodChoice((fallback,), tuple(_reason(fallback, m, bones) for m in missing))
    exact = next((i for i, m in enumerate(methods) if METHODS[m].exact), None)
    if exact is not None and not limited:  # nothing after an analytic answer can do better
        methods = methods[:exact + 1]
    return MethodChoice(methods, restarts=RESTARTED if limited and RESTARTED in methods else None)


def choose_methods(requested, features, bones, tree):
    """The MethodChoice for ``requested`` ("auto" or a method name) on a problem with
    ``features`` (a set of FEATURES), ``bones`` bones, shared by several goals when ``tree``.

    A forced method runs when it can take the problem's shape, with a note for each setting it
    does not hold (an iterative one restarts from fresh starts on a limited chain, as auto does);
    when it cannot (two_bone on three bones, CCD on a tree), auto's methods run
    and the note says why."""
    auto = _auto(features, bones, tree)
    if requested == "auto":
        return auto
    missing = unhonoured(requested, features, bones, tree)
    if missing[:1] in (("tree",), ("chain length",)):
        return replace(auto, notes=(f"{_reason(requested, missing[0], bones)}: auto's methods ran instead",))
    limited = bool({"locks", "limits"} & features)
    return MethodChoice((requested,), tuple(_reason(requested, m, bones) for m in missing),
                        restarts=requested if limited and requested in RESTARTABLE else None)
