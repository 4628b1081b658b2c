"""Two-bone IK that holds the bones' locks and limits (``solve_two_bone_limited``), rather than
clamping the free answer, which leaves the tip off the target wherever the clamp bites.

The free answer (``solvers.two_bone``, with its pole, stretch, soft reach and end rotation) says
where the tip should be: its distance from the root and the line it lies on. Two freedoms are
left to place it there within the limits:

- the middle joint's bend. A hinge (one free axis, perhaps limited) bends by the one angle, or
  the two, that put the tip at that distance (exact: the distance is a sinusoid in the angle);
  outside its range it takes the angle in range nearest that distance. A free middle joint keeps
  the free answer's bend. One with other limits keeps it where they allow it, else bends about
  one of its swing-twist axes that may turn alone (as a hinge), else takes a bend turned about the
  upper bone's line (the tip's distance does not change), in ``PLANES`` steps, twisted about its
  own axis into its limits. When the first bone cannot follow a bend, the next is tried (a free
  middle joint tries the turned bends too).
- the roll of the whole limb about the root-to-target line. The first bone turns the bent limb
  onto the line by the least turn from the free answer (which faces the pole or keeps the
  roll); when its limits forbid that, by the roll nearest it that they allow, found by a scan of
  ``ROLL_STEPS`` rolls and a bisection to the edge of the allowed range.

Where nothing lands the tip within the limits, the answer is the one nearest in limits, clamped,
and its residual says how far it fell short (``converged`` False).
"""
import math
from functools import lru_cache

import numpy as np
from numba import njit

from solvers import inputs, scalar as sc
from solvers.chain import SolveResult
from solvers.limb_end import end_rolled, end_twist
from solvers.limits import Hinge, SwingTwistLimit, clamp_encoded, encode_limits, violation_of
from solvers.two_bone import solve_two_bone

ROLL_STEPS = 72  # a 5 degree scan: an allowed range of rolls narrower than that may be missed
PLANES = 12  # bend planes a free or limited (not hinged) middle joint tries when the root cannot follow
ALLOWED = 1e-9  # radians a rotation may lie outside a limit and still count as inside (then clamped)
NEAR_ALLOWED = 1e-7  # a roll the scan's refinement brings this near a narrow allowed set is taken
Y = (0.0, 1.0, 0.0)


@njit(cache=True)
def _outside(kinds, parameters, q, axis, roll):
    """How far (radians) ``q`` rolled by ``roll`` about ``axis`` lies outside the encoded limits."""
    turned = sc.qmul(sc.qaxis_angle(axis, roll), q)
    clamped, _ = clamp_encoded(kinds, parameters, 0, len(kinds), turned)
    return violation_of(clamped, turned)


@njit(cache=True)
def _allowed_roll(kinds, parameters, q, axis, steps):
    """The roll about unit ``axis`` nearest 0 that brings ``q`` within the encoded limits, and how
    far outside them it leaves ``q`` (0 when it found one): rolls scanned outward from 0 in
    ``steps`` steps a turn, then bisected to the edge of the allowed range nearest 0. When none
    is allowed, the scan's least violation refined by golden section about it."""
    step = 2.0 * math.pi / steps
    best, best_roll = _outside(kinds, parameters, q, axis, 0.0), 0.0
    if best <= ALLOWED:
        return 0.0, 0.0
    for k in range(1, steps // 2 + 1):
        for roll in (k * step, -k * step):
            outside = _outside(kinds, parameters, q, axis, roll)
            if outside <= ALLOWED:
                inside, out = roll, roll - math.copysign(step, roll)  # the scanned roll before it failed
                for _ in range(60):
                    middle = 0.5 * (inside + out)
                    if _outside(kinds, parameters, q, axis, middle) <= ALLOWED:
                        inside = middle
                    else:
                        out = middle
                    if abs(inside - out) < 1e-12:
                        break
                return inside, 0.0
            if outside < best:
                best, best_roll = outside, roll
    low, high = best_roll - step, best_roll + step
    ratio = 0.5 * (math.sqrt(5.0) - 1.0)
    a, b = high - ratio * (high - low), low + ratio * (high - low)
    fa, fb = _outside(kinds, parameters, q, axis, a), _outside(kinds, parameters, q, axis, b)
    for _ in range(60):
        if fa < fb:
            high, b, fb = b, a, fa
            a = high - ratio * (high - low)
            fa = _outside(kinds, parameters, q, axis, a)
        else:
            low, a, fa = a, b, fb
            b = low + ratio * (high - low)
            fb = _outside(kinds, parameters, q, axis, b)
    roll, outside = (a, fa) if fa < fb else (b, fb)
    return (roll, outside) if outside < best else (best_roll, best)


def warm():
    """Compile (or load) the roll search and the clamp for the argument types
    ``solve_two_bone_limited`` passes."""
    encoded = _encoded(Hinge((1.0, 0.0, 0.0), -1.0, 1.0))
    _allowed_roll(*encoded, (0.0, 0.0, 0.0, 1.0), (0.0, 1.0, 0.0), ROLL_STEPS)
    _clamp(*encoded, (0.0, 0.0, 0.0, 1.0))


def _hinge_angle(q, axis):
    """The angle of ``q``'s turn about unit ``axis`` (its twist), in [-pi, pi)."""
    along = sc.dot(q[:3], axis)
    return (2.0 * math.atan2(along, q[3]) + math.pi) % (2.0 * math.pi) - math.pi


def _hinge_bends(hinge, mid1, lower, distance, reference):
    """The hinge's pose rotations of the second bone that put the tip ``distance`` from the
    root, in its range, nearest ``reference`` (an angle) first, each with True; when none does,
    the angle in its range that comes nearest, with False. ``mid1`` is the second bone's head seen
    from the root, in the second bone's rest frame; the tip is ``mid1 + R(axis, angle) Y * lower``
    there."""
    axis = hinge.axis
    along = sc.scale(axis, axis[1])  # Y's part along the axis
    across, side = sc.sub(Y, along), sc.cross(axis, Y)
    base = sc.dot(mid1, mid1) + lower * lower + 2.0 * lower * sc.dot(mid1, along)
    a, b = 2.0 * lower * sc.dot(mid1, across), 2.0 * lower * sc.dot(mid1, side)

    def span(angle):  # the tip's distance from the root at this hinge angle
        return math.sqrt(max(base + a * math.cos(angle) + b * math.sin(angle), 0.0))

    amplitude, peak = math.hypot(a, b), math.atan2(b, a)
    wrap = lambda angle: (angle + math.pi) % (2.0 * math.pi) - math.pi  # noqa: E731 (the hinge clamp's range)
    angles = []
    if amplitude > 1e-12 * max(base, 1.0):
        cosine = (distance * distance - base) / amplitude
        if abs(cosine) <= 1.0:
            spread = math.acos(cosine)
            angles = [wrap(peak + spread), wrap(peak - spread)]
    inside = [t for t in angles if hinge.min_angle <= t <= hinge.max_angle]
    if not inside:  # the nearest distance in range: at an end, or at an extreme within it
        ends = [hinge.min_angle, hinge.max_angle] + [t for t in (wrap(peak), wrap(peak + math.pi))
                                                     if hinge.min_angle <= t <= hinge.max_angle]
        return [(sc.qaxis_angle(axis, min(ends, key=lambda t: abs(span(t) - distance))), False)]
    inside.sort(key=lambda t: abs(wrap(t - reference)))
    return [(sc.qaxis_angle(axis, t), True) for t in inside]


def _bends(limit, free_r1, mid1, lower, distance):
    """The second bone's pose rotations to try, best first, each with whether it puts the tip at
    ``distance``: a hinge's exact bends; else the free bend and that bend turned about the upper
    bone's line (which keeps the distance), in ``PLANES`` steps, held to other limits as
    ``_limited_bends`` says."""
    if isinstance(limit, Hinge):
        return _hinge_bends(limit, mid1, lower, distance, _hinge_angle(free_r1, limit.axis))
    line = sc.normalize(mid1)
    turned = (sc.qmul(sc.qaxis_angle(line, 2.0 * math.pi * k / PLANES), free_r1) for k in range(PLANES))
    if limit is None:
        return ((q, True) for q in turned)
    return _limited_bends(limit, free_r1, turned, mid1, lower, distance)


def _limited_bends(limit, free_r1, turned, mid1, lower, distance):
    """Bends within a middle joint's limits other than a hinge: the free bend where they allow
    it; a bend about each swing-twist axis that may turn alone (as a hinge); each ``turned`` bend
    twisted about its own axis into the limits where a twist can (the nearest allowed twist);
    last, the free bend clamped (its distance lost)."""
    clamped = _clamped(limit, free_r1)[0]
    exact = violation_of(clamped, free_r1) <= ALLOWED
    if exact:
        yield clamped, True
    if isinstance(limit, SwingTwistLimit):
        for hinge in _axis_hinges(limit):
            yield from (bend for bend in _hinge_bends(hinge, mid1, lower, distance, 0.0) if bend[1])
    encoded = _encoded(limit)
    for q in turned:
        axis = sc.qrotate(q, Y)
        twist, outside = _allowed_roll(*encoded, q, axis, ROLL_STEPS)
        if outside <= NEAR_ALLOWED:
            yield sc.qmul(sc.qaxis_angle(axis, twist), q), True
    if not exact:
        yield clamped, False


def _axis_hinges(limit):
    """The swing-twist limit's axes that may turn alone (the others' ranges hold 0), as hinges,
    the widest range first: a turn about X (or Z, or Y) alone has that angle on its axis and 0 on
    the others (``limits.swing_twist_angles``)."""
    low, high = limit.encoded()[1][:3], limit.encoded()[1][3:6]
    hinges = [Hinge(tuple(float(k == axis) for k in range(3)), low[axis], high[axis]) for axis in range(3)
              if high[axis] > low[axis] and all(low[k] <= 0.0 <= high[k] for k in range(3) if k != axis)]
    return sorted(hinges, key=lambda hinge: hinge.min_angle - hinge.max_angle)


def solve_two_bone_limited(chain, rotations, target, limits, pole=None, pole_angle=0.0, *, stretch=None,
                           soft=0.0, end_rotation=None, end_weight=1.0, tolerance=1e-6):
    """``solve_two_bone`` whose answer holds ``limits`` (per bone: one ``solvers.limits`` limit or
    None). Returns a ``SolveResult`` whose errors are measured on the posed chain (tip distance,
    then the end bone's angle to ``end_rotation`` when given), ``converged`` when the tip lies
    within ``tolerance`` of the target, and ``at_limit`` the axes the limits held."""
    free = solve_two_bone(chain, rotations, target, pole, pole_angle, stretch=stretch, soft=soft,
                          end_rotation=end_rotation, end_weight=end_weight)
    if not np.isfinite(free.errors).all():
        return free  # input it could not solve: the pose as it was
    root_limit, middle_limit = limits
    scales = free.stretch
    base_q, base_origin, offsets, rest_rotations, lengths = chain.floats
    rest1 = rest_rotations[1]
    mid = (offsets[1][0], offsets[1][1] * float(scales[0]), offsets[1][2])
    mid1, lower = sc.qrotate(sc.qconj(rest1), mid), lengths[1] * float(scales[1])
    r0_free, r1_free = tuple(free.rotations[0].tolist()), tuple(free.rotations[1].tolist())

    def tip(r1):  # the tip in the first bone's frame
        return sc.add(mid, sc.qrotate(rest1, sc.scale(sc.qrotate(r1, Y), lower)))

    free_tip = tip(r1_free)
    line = sc.normalize(sc.qrotate(r0_free, free_tip))  # the root-to-target line, first bone's rest frame
    # The end rotation in the frame the first bone turns in; a pole holds the roll itself.
    end_goal = None if end_rotation is None or pole is not None else sc.qmul(
        sc.qconj(sc.qmul(base_q, rest_rotations[0])), sc.qnormalize(tuple(np.asarray(end_rotation, float).tolist())))
    nearest = None
    for r1, exact in _bends(middle_limit, r1_free, mid1, lower, sc.length(free_tip)):
        r0 = preferred = _end_rolled(sc.qmul(r0_free, sc.qbetween(sc.normalize(tip(r1)), sc.normalize(free_tip))),
                                     r1, rest1, line, end_goal, end_weight)
        outside = 0.0
        if root_limit is not None:
            roll, outside = _allowed_roll(*_encoded(root_limit), r0, line, ROLL_STEPS)
            r0 = sc.qmul(sc.qaxis_angle(line, roll), r0)
        rank = (outside > NEAR_ALLOWED, not exact, outside)  # a root in limits first, then the distance kept
        if nearest is None or rank < nearest[0]:
            nearest = (rank, r0, r1, preferred if r0 != preferred else None, exact)
        if exact and outside <= NEAR_ALLOWED:
            break
    _, r0, r1, preferred, exact = nearest
    r1 = _end_twisted(r0, r1, rest1, middle_limit, end_goal, end_weight)
    (r0, held0), (r1, held1) = _clamped(root_limit, r0), _clamped(middle_limit, r1)
    # A bone the limits turned off its free answer is held: by the axes that forbade that answer.
    held0 = held0 if preferred is None else _clamped(root_limit, preferred)[1]
    held1 = held1 if exact else _clamped(middle_limit, r1_free)[1]
    frame0 = sc.qmul(sc.qmul(base_q, rest_rotations[0]), r0)  # the first bone's world rotation
    reached = sc.add(sc.add(base_origin, sc.qrotate(base_q, offsets[0])), sc.qrotate(frame0, tip(r1)))
    miss = math.hypot(*sc.sub(reached, tuple(np.asarray(target, float).tolist())))
    errors = [min(miss, inputs.LARGEST_FLOAT)]  # capped as the free solve caps a target past the largest float
    if end_rotation is not None:
        goal = sc.qnormalize(tuple(np.asarray(end_rotation, float).tolist()))
        end = sc.qmul(frame0, sc.qmul(rest1, r1))
        errors.append(2.0 * math.acos(min(abs(sc.qdot(end, goal)), 1.0)))
    return SolveResult(np.array((r0, r1)), 1, np.array(errors), errors[0] <= tolerance, scales,
                       np.array((held0, held1)))


def _end_rolled(r0, r1, rest1, line, end_goal, weight):
    """``r0`` rolled about ``line`` (the tip stays) to point the end bone's Y toward
    ``end_goal``'s (None: as it is), by ``weight``, as the free solve rolls for an end rotation:
    a bend the limits chose rolls the end bone off the free answer's."""
    return r0 if end_goal is None else end_rolled(rest1, r0, r1, line, end_goal, weight)


def _end_twisted(r0, r1, rest1, limit, end_goal, weight):
    """``r1`` twisted about its own Y toward ``end_goal`` by ``weight`` (the tip stays), as far as
    its limits allow a twist that leaves its Y where it is."""
    if end_goal is None:
        return r1
    twisted = sc.qmul(r1, sc.qaxis_angle(Y, weight * end_twist(rest1, r0, r1, end_goal)))
    allowed = _clamped(limit, twisted)[0]
    return allowed if sc.length(sc.sub(sc.qrotate(allowed, Y), sc.qrotate(r1, Y))) <= ALLOWED else r1


def _encoded(limit):
    """One limit as ``_allowed_roll`` and ``_clamp`` read it (kinds, parameters), made once per
    limit (each time for one whose bounds are lists, which cannot be a key)."""
    try:
        return _encoded_once(limit)
    except TypeError:
        return encode_limits(1, ((limit,),))[1:]


@lru_cache(maxsize=256)
def _encoded_once(limit):
    return encode_limits(1, ((limit,),))[1:]


@njit(cache=True)
def _clamp(kinds, parameters, q):
    return clamp_encoded(kinds, parameters, 0, len(kinds), q)


def _clamped(limit, q):
    """``q`` (4-tuple) held to ``limit`` (None: free) and the axes it held: a search's answer lies
    within ``ALLOWED`` of its limits, and a clamp puts it exactly inside."""
    return (q, (False, False, False)) if limit is None else _clamp(*_encoded(limit), q)
