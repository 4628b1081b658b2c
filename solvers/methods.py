"""Every IK method as one row of ``METHODS`` (a ``Method``): how it runs, what kind it is, what it
honours, where auto tries it and how its kernels are compiled. Everything else that names methods
derives from the rows: auto's order, the methods that restart, the rig's solver choices, the
warm-up (``warm_all``). ``solve`` runs a method on a problem through its row; an unknown name, or
a problem the method cannot take (a chain-only method on a tree), raises ValueError.

Auto picks from what the rows honour, and a forced method that cannot honour a setting is named
with the setting and the reason. A problem's features are the settings it holds beyond a
position goal: "locks", "limits", "stretch", "target rotation", "rotation locks" (a rotation goal
with some axes locked), "stiffness", "distance", "rotation control", "location off" (a
rotation-only goal), "location locks" (a position goal free along some axes, of the bone or the
target: iTaSC's), "soft reach" (a two-bone limb's reach eased in before full extension),
"weights" (several goals pulling one tree), "simulation" (iTaSC's Simulation mode: joint velocities
integrated over a frame's time, ``solvers.simulation``; only DLS and SDLS step in time,
and a solve stepping in time never restarts from fresh poses: that would be a jump). A method honours a feature when its result holds it.
The analytic methods hold locks and limits, one bone by clamping its answer, two bones by solving
within them (auto then finishes with an iterative method when that answer falls short).
"""
import functools
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from solvers import ccd, fabrik, fabrik_posed, kinematics, priority, two_bone, two_bone_limits, two_bone_posed
from solvers.chain import straight_chain
from solvers.goals import PositionGoal
from solvers.problem import Freedoms, Problem, Settings
from solvers.runners import run_ccd, run_dls, run_fabrik, run_one_bone, run_priority, run_sdls, run_two_bone
from solvers.tree import Tree

FEATURES = ("locks", "limits", "stretch", "target rotation", "rotation locks", "stiffness", "distance",
            "rotation control", "location off", "location locks", "soft reach", "weights", "simulation")
# Kinds of method: an analytic one answers in one step (exact on a chain without locks or limits),
# a geometric one iterates on the bones' points and turns, a Jacobian one linearises every goal.
ANALYTIC, GEOMETRIC, JACOBIAN = "analytic", "geometric", "jacobian"
# The chains auto tries a method on: free ones, and ones with locks or limits.
FREE, LIMITED = "free", "limited"


@dataclass(frozen=True)
class Method:
    """One IK method. ``run(problem, start, settings, fresh) -> SolveResult`` solves a
    ``solvers.problem.Problem`` (``solvers.runners`` has the built-in ones); ``kind``: ANALYTIC,
    GEOMETRIC or JACOBIAN; ``bones``: the chain length it takes (None: any); ``honours``: the
    features it holds on a chain; ``in_trees``: those it holds on a tree of chains (None: it
    takes chains only); ``auto``: the chains (FREE, LIMITED) auto tries it on, in the rows'
    order; ``restarts_auto``: it is the method auto restarts a limited chain with (one row);
    ``patience``: forced on a chain that then takes fresh starts, its own first run may spend
    1/``patience`` of the budget (a method whose misses are slow crawls rather than wrong basins
    needs longer before a fresh start pays); ``kernels``: the functions that compile (or load)
    the numba kernels it runs; ``aims``: it measures its reach as an angle (one bone aims)."""
    name: str
    kind: str
    run: Callable
    bones: int | None
    honours: frozenset
    in_trees: frozenset | None = None
    auto: tuple = ()
    restarts_auto: bool = False
    patience: int = 4
    kernels: tuple = ()
    aims: bool = False

    @property
    def exact(self):
        """Its answer is the best there is on a chain without locks or limits."""
        return self.kind == ANALYTIC

    @property
    def restartable(self):
        """Forced on a limited chain, it takes fresh starts as auto does (an analytic answer
        does not depend on where it starts)."""
        return self.kind != ANALYTIC

    def refusal(self, problem):
        """Why this method cannot take ``problem``'s shape, or None when it can."""
        count = len(problem.bones.lengths)  # not len(bones): a call in Python, and this runs every solve
        if not problem.is_chain:
            return None if self.in_trees is not None else _reason(self.name, "tree", count)
        if self.bones is not None and self.bones != count:
            return _reason(self.name, "chain length", count)
        return None

    def warm(self):
        """Compile (or load from the cache) every kernel this method runs, then solve a small
        chain (and a small tree, if it takes trees) through ``solve``."""
        for kernels in self.kernels:
            kernels()
        for problem in _warm_problems(self):
            solve(self.name, problem, np.tile([0.0, 0.0, 0.0, 1.0], (len(problem.bones), 1)), Settings(2))


_ALL = frozenset(FEATURES) - {"soft reach"}
_PRIORITY = frozenset({"locks", "limits", "target rotation", "stiffness", "weights"})
# Rows in auto's order, fastest first, as bench/bench_solvers.py and bench/bench_limits.py measure
# them through the rig (app.py solve's path), with one exception: on free chains compiled CCD is
# now the faster (10 bones: 45 vs 54 us median; 50 bones: 63 vs 146 us, both 100%), but it turns
# the bones nearest the root most, so a head reaching on the humanoid's spine lifted the hips until
# the leg IK lost the feet (tests/rig/test_evaluate.py); FABRIK spreads the turn along the chain,
# as an animator expects, so it stays first. Both beat DLS (0.7 ms). With limits CCD reaches
# 99-100% in 0.08-0.1 ms, FABRIK 98-100% in 0.4-2.5 ms, so auto leaves FABRIK to free chains.
# Forced, the iterative methods restart on a limited chain: FABRIK too since its limited step was
# compiled (0.4-2.5 ms a solve): bench_limits (200 poses) without restarts 94-100% per chain; with
# restarts after a quarter of the budget the robot arm fell to 97.5% (its misses are slow crawls)
# and the swing/twist median rose to 15 ms; with restarts after half (patience 2) every chain
# reaches 99.5-100% but the left leg (98%), swing/twist in about 6 ms. CCD keeps a quarter: given
# half, its legs fell from 99.5% to 98.5%. DLS is the limited method fast enough for auto to
# restart.
METHODS = {m.name: m for m in (
    Method("one_bone", ANALYTIC, run_one_bone, 1, frozenset({"locks", "limits"}), auto=(FREE, LIMITED), aims=True),
    Method("two_bone", ANALYTIC, run_two_bone, 2,
           frozenset({"locks", "limits", "stretch", "target rotation", "soft reach"}), auto=(FREE, LIMITED),
           kernels=(two_bone.warm, two_bone_limits.warm, two_bone_posed.warm)),
    Method("fabrik", GEOMETRIC, run_fabrik, None, frozenset({"locks", "limits", "stretch", "target rotation"}),
           frozenset({"locks", "limits", "target rotation", "weights"}), auto=(FREE,), patience=2,
           kernels=(fabrik.warm, fabrik_posed.warm)),
    Method("ccd", GEOMETRIC, run_ccd, None,
           frozenset({"locks", "limits", "stretch", "target rotation", "stiffness"}), auto=(FREE, LIMITED),
           kernels=(ccd.warm,)),
    Method("dls", JACOBIAN, run_dls, None, _ALL, _ALL, auto=(FREE, LIMITED), restarts_auto=True),
    Method("sdls", JACOBIAN, run_sdls, None, _ALL, _ALL),
    # Goals in priority levels (pins, ground, the dragged goal, the rig's handles) are the whole-body
    # solve's (rig.whole_body); as a row it takes every goal on one level, which auto leaves to DLS.
    Method("priority", JACOBIAN, run_priority, None, _PRIORITY, _PRIORITY, kernels=(priority.warm,)),
)}
AUTO_ORDER_FREE = tuple(name for name, m in METHODS.items() if FREE in m.auto)
AUTO_ORDER_LIMITED = tuple(name for name, m in METHODS.items() if LIMITED in m.auto)
RESTARTED = next(name for name, m in METHODS.items() if m.restarts_auto)
# Kernels every method's answer runs through (the forward kinematics that measure it), and the
# rig's, compiled before any row's.
SHARED_KERNELS = (kinematics.warm,)
REASONS = {"tree": "takes one chain, not chains sharing bones",
           "simulation": "jumps to its answer (only dls and sdls step in time)"}


def method_named(name):
    """The ``Method`` called ``name``; ValueError naming the known ones for any other."""
    row = METHODS.get(name)
    if row is None:
        raise ValueError(f"unknown IK method {name!r}: the methods are {', '.join(METHODS)}")
    return row


def names_of(kind):
    """The names of the methods of ``kind`` (ANALYTIC, GEOMETRIC, JACOBIAN), in the rows' order."""
    return tuple(name for name, m in METHODS.items() if m.kind == kind)


def solve(name, problem, start, settings, fresh=True):
    """Run method ``name`` on ``problem`` (a ``solvers.problem.Problem``) from pose ``start``
    (n, 4) under ``settings`` (``solvers.problem.Settings``); ``fresh``: the start is the pose as it
    was, not a method's answer or a restart, so a chain turns to face its pole first. Returns a
    ``SolveResult`` with one residual per goal and their ``units``. Raises ValueError for an
    unknown method or one that cannot take the problem's shape (``Method.refusal``)."""
    row = METHODS.get(name) or method_named(name)
    refusal = row.refusal(problem) if row.bones is not None or row.in_trees is None else None  # else it takes all
    if refusal is not None:
        raise ValueError(refusal)
    result = row.run(problem, start, settings, fresh)
    result.units = problem.units(row.aims)
    return result


def _warm_problems(row):
    """A small chain problem ``row`` takes, and a small tree one when it takes trees."""
    bones = row.bones or 3
    problems = [Problem(straight_chain([0.5] * bones), (PositionGoal(bones - 1, (0.3, 0.4, 0.2)),),
                        Freedoms.free(bones))]
    if row.in_trees is not None:
        tree = Tree(np.eye(4), [-1, 0, 0], [[0.0, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.5, 0.0]],
                    [[0.0, 0.0, 0.0, 1.0]] * 3, [0.5, 0.5, 0.5])
        problems.append(Problem(tree, (PositionGoal(1, (0.3, 0.6, 0.0)), PositionGoal(2, (-0.3, 0.6, 0.0))),
                                Freedoms.free(3)))
    return problems


def warm_all():
    """Compile (or load from the cache) every kernel the rows run, so no solve compiles one: what
    ``.ci/setup`` and the app's start (``ui.solver_warmup``) call."""
    for kernels in SHARED_KERNELS:
        kernels()
    for row in METHODS.values():
        row.warm()


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
    spec = method_named(method)
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


def _restarts(features):
    """Whether a solve with ``features`` takes fresh starts when it stalls: on a limited chain (a
    local minimum of its limits), unless it steps in time (a fresh start would be a jump)."""
    return bool({"locks", "limits"} & features) and "simulation" not in features


def _auto(features, bones, tree):
    """Auto's MethodChoice: the methods that honour everything, fastest first; a limited chain
    restarts with ``RESTARTED`` when they all stall."""
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
    return MethodChoice(methods, restarts=RESTARTED if _restarts(features) and RESTARTED in methods else None)


def choose_methods(requested, features, bones, tree):
    """The MethodChoice for ``requested`` ("auto" or a method name) on a problem with
    ``features`` (a set of FEATURES), ``bones`` bones, shared by several goals when ``tree``.

    A forced method runs when it can take the problem's shape, with a note for each setting it
    does not hold (an iterative one restarts from fresh starts on a limited chain, as auto does);
    when it cannot (two_bone on three bones, CCD on a tree), auto's methods run
    and the note says why."""
    return _choose_methods(requested, frozenset(features), bones, tree)


@functools.lru_cache(maxsize=1024)
def _choose_methods(requested, features, bones, tree):
    """``choose_methods``, kept: a drag asks the same a few times a frame (~20 us each), and the
    answer is a frozen record of the registry's constants."""
    auto = _auto(features, bones, tree)
    if requested == "auto":
        return auto
    missing = unhonoured(requested, features, bones, tree)
    if missing[:1] in (("tree",), ("chain length",)):
        return replace(auto, notes=(f"{_reason(requested, missing[0], bones)}: auto's methods ran instead",))
    return MethodChoice((requested,), tuple(_reason(requested, m, bones) for m in missing),
                        restarts=requested if _restarts(features) and METHODS[requested].restartable else None)
