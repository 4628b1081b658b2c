"""Verdicts on floats (held at a limit, on a swing ellipse's rim, converged, reached) go through the
tolerances of ``solvers.tolerances``, so inputs moved by a few ulps either way give the same
verdicts: maths libraries (numpy's SIMD paths, libm) differ between machines in the last bits."""
import math

import numpy as np
import pytest

from solvers import scalar as sc
from solvers.ccd import solve_ccd_chain
from solvers.chain import straight_chain
from solvers.dls import dls_plan, solve_dls
from solvers.fabrik import solve_fabrik_chain
from solvers.goals import BoneDofs, PositionGoal
from solvers.limits import Cone, Hinge, SwingTwistLimit, Twist, best_hinge_angle, clamp_rotation, \
    from_swing_twist_angles
from solvers.one_bone import solve_one_bone
from solvers.tolerances import AT_LIMIT
from solvers.transforms import quat_from_axis_angle
from solvers.tree import Tree
from solvers.two_bone import solve_two_bone

STEPS = range(-4, 5)  # ulps either way, and none


def nudged(value, steps):
    """``value`` (a float or an array) moved by ``steps`` ulps, up for positive steps."""
    value = np.asarray(value, dtype=float)
    for _ in range(abs(steps)):
        value = np.nextafter(value, math.inf if steps > 0 else -math.inf)
    return value


def verdicts(make, steps=STEPS):
    """The set of verdicts ``make(k)`` gives for each ulp step k: one element when they agree."""
    return {make(k) for k in steps}


def rotation_at(kind, angle):
    """A limit of ``kind`` on [0.1, 0.7] (a cone: up to 0.7) and a rotation at ``angle`` on its axis."""
    x = np.array([1.0, 0.0, 0.0])
    limit = {"hinge": Hinge(tuple(x), 0.1, 0.7), "twist": Twist(0.1, 0.7), "cone": Cone(0.7),
             "swing_twist": SwingTwistLimit((0.1, -1.0, -1.0), (0.7, 1.0, 1.0))}[kind]
    axis = np.array([0.0, 1.0, 0.0]) if kind == "twist" else x
    return limit, quat_from_axis_angle(axis, float(angle))


def held_at(kind, angle, steps):
    """Whether the limit of ``kind`` holds its axis at ``angle`` moved by ``steps`` ulps."""
    limit, q = rotation_at(kind, nudged(angle, steps))
    return bool(clamp_rotation((limit,), q)[1][1 if kind == "twist" else 0])


@pytest.mark.parametrize("kind, bound", [("hinge", 0.1), ("hinge", 0.7), ("twist", 0.1), ("twist", 0.7),
                                         ("swing_twist", 0.1), ("swing_twist", 0.7),
                                         ("cone", 0.7)])
def test_an_angle_on_its_bound_is_held_whichever_side_rounding_puts_it(kind, bound):
    inward = -1.0 if bound == 0.7 else 1.0
    assert verdicts(lambda k: held_at(kind, bound, k)) == {True}
    assert verdicts(lambda k: held_at(kind, bound + inward * 0.5 * AT_LIMIT, k)) == {True}  # within AT_LIMIT
    assert verdicts(lambda k: held_at(kind, bound + inward * 1e3 * AT_LIMIT, k)) == {False}  # clear of it
    assert verdicts(lambda k: held_at(kind, bound - inward * 1e-3, k)) == {True}  # beyond: clamped


def test_a_lock_holds_only_a_turn_it_undoes():
    """A lock (a range one angle wide) leaves every angle on its bound: it holds the turns it
    takes away, not the rounding a rotation about another axis leaves on it."""
    lock = SwingTwistLimit((-1.0, 0.0, 0.0), (1.0, 0.0, 0.0), (False, True, True))
    for k in STEPS:
        q = np.array(from_swing_twist_angles((0.3, float(nudged(0.0, k)), float(nudged(0.0, -k)))))
        assert not clamp_rotation((lock,), q)[1].any()
    turned = np.array(from_swing_twist_angles((0.3, 0.2, 0.0)))
    assert clamp_rotation((lock,), turned)[1].tolist() == [False, True, False]


def test_the_best_hinge_angle_is_held_on_its_bound_whichever_side_rounding_puts_it():
    vectors = np.array([[0.0, 1.0, 0.0]])

    def held(k):
        turned = quat_from_axis_angle(np.array([1.0, 0.0, 0.0]), float(nudged(0.5, k)))
        direction = sc.qrotate(tuple(turned), (0.0, 1.0, 0.0))
        return best_hinge_angle((1.0, 0.0, 0.0), 0.0, 0.5, vectors, np.array([direction]), np.ones(1))[1]
    assert verdicts(held) == {True}


@pytest.mark.parametrize("t", [0.4, 2.0, -1.2])
def test_a_swing_on_its_ellipse_rim_is_held_and_kept_whichever_side_rounding_puts_it(t):
    """X and Z both limited about 0: Blender's ellipse bounds the swing (semi-axes the sines of the
    half limits). A swing on its rim, moved by ulps, is held in X and Z and kept as it is."""
    limit = SwingTwistLimit((-0.6, -1.0, -0.4), (0.6, 1.0, 0.4))
    sx, sz = math.sin(0.3) * math.cos(t), math.sin(0.2) * math.sin(t)

    def clamped(k):
        x, z = float(nudged(sx, k)), float(nudged(sz, -k))
        q = np.array([x, 0.0, z, math.sqrt(1.0 - x * x - z * z)])
        result, held = clamp_rotation((limit,), q)
        assert np.abs(result - q).max() < 1e-12
        return tuple(held.tolist())
    assert verdicts(clamped) == {(True, False, True)}


ARM = straight_chain([1.0, 1.0])
HINGE_ARM = [None, Hinge((1.0, 0.0, 0.0), 0.0, np.pi / 2)]
BEYOND = np.array([0.0, 0.5, 0.5])  # the elbow would have to bend past its limit


def fabrik_verdict(target):
    result = solve_fabrik_chain(ARM, np.tile([0.0, 0.0, 0.0, 1.0], (2, 1)), target, limits=HINGE_ARM,
                                max_iterations=40, tolerance=1e-4)
    return bool(result.converged), tuple(map(tuple, result.at_limit.tolist()))


def ccd_verdict(target):
    result = solve_ccd_chain(ARM, np.tile([0.0, 0.0, 0.0, 1.0], (2, 1)), target, limits=HINGE_ARM)
    return bool(result.converged), tuple(map(tuple, result.at_limit.tolist()))


def dls_verdict(target):
    tree = Tree.from_chain(ARM)
    dofs = [None, BoneDofs(use_limit=(True, False, False), limit_min=(0.0, -np.pi, -np.pi),
                           limit_max=(np.pi / 2, np.pi, np.pi))]
    result = solve_dls(dls_plan(tree, [PositionGoal(1, target)], dofs), np.tile([0.0, 0.0, 0.0, 1.0], (2, 1)))
    return bool(result.converged), tuple(map(tuple, result.at_limit.tolist()))


@pytest.mark.parametrize("verdict", [fabrik_verdict, ccd_verdict, dls_verdict])
@pytest.mark.parametrize("target", [BEYOND, np.array([0.0, 1.2, 0.9])])
def test_solvers_give_the_same_verdicts_for_targets_ulps_apart(verdict, target):
    found = verdicts(lambda k: verdict(nudged(target, k)), steps=(-3, -1, 0, 1, 3))
    assert len(found) == 1, found
    [(converged, held)] = found
    assert converged != held[1][0]  # at the limit exactly when short of the target


def test_analytic_solves_reach_a_target_ulps_either_side():
    chain = straight_chain([0.6, 0.5])
    rest = np.tile([0.0, 0.0, 0.0, 1.0], (2, 1))
    reachable = np.array([0.3, 0.7, 0.4])
    assert verdicts(lambda k: bool(solve_two_bone(chain, rest, nudged(reachable, k)).converged)) == {True}
    bone = straight_chain([0.6])
    assert verdicts(lambda k: bool(solve_one_bone(bone, rest[:1], nudged(reachable, k)).converged)) == {True}
