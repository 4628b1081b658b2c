"""Analytic two-bone IK (law of cosines) with a Blender-style pole target, stretch, soft reach and
an end-bone rotation goal; one limb (``solve_two_bone``) or many at once (``solve_two_bone_batch``).

The chain's effector is the second bone's tail. Without a pole the middle joint bends, by the law
of cosines, about the hinge axis of the chain's current bend plane, held in the first bone's
frame (the rest bend plane's when the chain is straight, the first bone's X axis when both are
straight). The first bone then turns by the least rotation that puts the tip on the
root-to-target line: the shortest arc from the bent tip's direction to the target's (its axis
is their cross product), so the chain never rolls about that line (unless an end-rotation goal
asks it to) and the elbow follows a dragged hand without flips. That is where Blender's
iterative solver, moving the joints as little as it can, ends after small moves
(tests/rig/test_blender_nopole_reference.py); an implicit pole (the elbow kept on the current
elbow's side of the root-to-target line, as game engines do) lies further from Blender's elbows
and rolls a nearly straight limb sharply.

With a pole the order is Blender's (its IK solver's pole step runs before it bends the chain):
the chain in its rest shape turns so its tip points at the target and rolls about that line until the first bone's
"up" vector ``X cos(pole_angle) + Z sin(pole_angle)`` faces the pole; then it bends within its
plane. The rest shape stands for Blender's FK pose, so the result does not depend on how far the
chain starts bent (``solvers.chain.face_pole`` does the same for the iterative solvers); it keeps
the start's bend plane and the second bone's twist about its own axis, so a pose is its own
solution with the pole ``pole_facing`` gives it.

The second bone's new rotation is the shortest arc from its rest direction to its new one, then
the start's twist about its own axis (a swing-twist split): composing the shortest arc from each
frame's direction to the next would wind a twist into the bone wherever its direction loops (a
drag through a folded limb, whose bend plane falls back to the rest one, and back left a forearm
turned by 2.07 rad: tests/rig/test_continuous_paths.py).
tests/rig/test_blender_pole_reference.py checks the poses against Blender's.

The solve is written once, ``solve_limb``: one limb in plain float code, compiled with numba
(``scalar``'s helpers compile into it, so it runs their bodies). ``solve_two_bone`` calls it
through ``_solve_one`` (floats in, arrays out: a numpy call costs more than the limb's
arithmetic), ``solve_two_bone_batch`` through ``_solve_many``, a compiled loop over the limbs, so
both give the same poses. Input is conditioned in Python before either (``solvers.inputs``).
``cache=True`` keeps the machine code beside this file and ``warm`` (run by .ci/setup) fills it;
numba keys that cache on this file alone; ``solvers/__init__`` drops it when ``scalar`` changes.
"""
import math
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np
from numba import njit

from solvers import inputs
from solvers import scalar as sc
from solvers.chain import Chain, SolveResult, chain_pose
from solvers.limb_end import end_rolled, end_twist
from solvers.tolerances import REACHED
from solvers.transforms import normalize, quat_between, quat_to_matrix3

Y = (0.0, 1.0, 0.0)
X = (1.0, 0.0, 0.0)
STRAIGHT = 1e-7
FLOAT64 = np.dtype(float)
NOT_GIVEN = np.empty((0, 0))  # ``_solve_many``'s poles, stretch or end rotations when there are none
ORIGIN = (0.0, 0.0, 0.0)


def validate_two_bone(chain):
    """Raise ValueError when the chain cannot be solved by the two-bone solver."""
    if len(chain) != 2:
        raise ValueError(f"the two-bone solver needs a chain of exactly 2 bones, got {len(chain)}")


def _packed(base, offsets, rest_rotations, lengths):
    """L limbs' constants as the kernels read them (``_mount``), a C row of 27 floats each: the
    base's top three rows, both offsets, both rest rotations, the second bone's length."""
    count = len(lengths)
    return np.concatenate([base[:, :3].reshape(count, 12), offsets.reshape(count, 6),
                           rest_rotations.reshape(count, 8), lengths[:, 1:]], axis=1)


@dataclass
class TwoBoneLimbs:
    """L two-bone chains as stacked arrays: ``base`` (L, 4, 4), ``offsets`` (L, 2, 3),
    ``rest_rotations`` (L, 2, 4), ``lengths`` (L, 2), with the meaning of ``Chain``'s fields."""
    base: np.ndarray
    offsets: np.ndarray
    rest_rotations: np.ndarray
    lengths: np.ndarray

    @classmethod
    def from_chains(cls, chains):
        """Stack two-bone ``Chain`` objects (each already validated when it was built)."""
        for chain in chains:
            validate_two_bone(chain)
        return cls(np.stack([c.base for c in chains]), np.stack([c.offsets for c in chains]),
                   np.stack([c.rest_rotations for c in chains]), np.stack([c.lengths for c in chains]))

    def __len__(self):
        return len(self.lengths)

    @cached_property
    def packed(self):
        """The limbs' constants (L, 27) as ``_solve_many`` reads them."""
        return _packed(np.asarray(self.base, float), np.asarray(self.offsets, float),
                       np.asarray(self.rest_rotations, float), np.asarray(self.lengths, float))


@dataclass
class TwoBoneBatchResult:
    """Per limb: ``rotations`` (L, 2, 4), ``stretch`` (L, 2), ``errors`` (L, k) (tip distance, then
    the end bone's angle to ``end_rotations`` when given), ``converged`` (L,) booleans."""
    rotations: np.ndarray
    stretch: np.ndarray
    errors: np.ndarray
    converged: np.ndarray


class Asked(NamedTuple):
    """What one limb's solve is asked beyond its target, each with whether it was given."""
    pole: tuple  # world
    has_pole: bool
    pole_angle: float
    stretch: tuple  # per bone
    has_stretch: bool
    soft: float
    end_rotation: tuple  # world
    has_end: bool
    end_weight: float


class _Limb(NamedTuple):
    """A limb's constants for ``solve_limb``, those of its bones (not of the frame it hangs from).
    Each bone is solved in its rest frame (the frame its pose rotation acts in), which saves
    turning every rotation into world space and back: ``rest1`` takes the second bone's rest
    frame into the first bone's."""
    rest1: tuple
    mid: tuple  # the second bone's head, first bone's frame
    upper: float  # ``mid``'s length
    lower: float  # the second bone's length
    mid_dir1: tuple  # ``mid``'s direction in the second bone's rest frame
    straight_hinge1: tuple  # the straight-limb bend axis, second bone's rest frame
    rest_tip: tuple  # the tip of the chain in its rest shape, first bone's frame


class _Mount(NamedTuple):
    """Where a limb hangs: its root (world) and the rotation taking world directions into the
    first bone's rest frame."""
    root: tuple
    to_rest0: tuple


class _Solved(NamedTuple):
    """One limb's answer: pose rotations, stretches, errors (``end_error`` 0 without an end
    rotation) and whether the tip converged."""
    r0: tuple
    r1: tuple
    scale0: float
    scale1: float
    tip_error: float
    end_error: float
    converged: bool


@njit
def _mount(c):
    """A limb's ``_Mount`` from its ``_packed`` row."""
    base_q = sc.quat_from_matrix3(((c[0], c[1], c[2]), (c[4], c[5], c[6]), (c[8], c[9], c[10])))
    offset0, rest0 = (c[12], c[13], c[14]), (c[18], c[19], c[20], c[21])
    return _Mount(sc.add((c[3], c[7], c[11]), sc.qrotate(base_q, offset0)), sc.qconj(sc.qmul(base_q, rest0)))


@njit
def _straight_hinge(mid_dir, rest1):
    """The bend axis (first bone's frame) of a straight limb: the rest bend plane's normal, or
    the first bone's X axis made perpendicular to the middle joint when the rest pose is
    straight too."""
    hinge = sc.cross(mid_dir, sc.qrotate(rest1, Y))
    if sc.length(hinge) > STRAIGHT:
        return sc.normalize(hinge)
    x_axis = sc.sub(X, sc.scale(mid_dir, mid_dir[0]))
    return sc.normalize(sc.any_perpendicular(mid_dir) if sc.length(x_axis) <= 1e-6 else x_axis)


@njit
def _limb(rest1, mid, lower):
    mid_dir = sc.normalize(mid)
    to_rest1 = sc.qconj(rest1)
    return _Limb(rest1, mid, sc.length(mid), lower, sc.qrotate(to_rest1, mid_dir),
                 sc.qrotate(to_rest1, _straight_hinge(mid_dir, rest1)),
                 sc.add(mid, sc.scale(sc.qrotate(rest1, Y), lower)))


@njit
def _reach(distance, upper, lower, asked):
    """How far from the root the tip goes, and the bones' stretches: soft easing near full
    extension (an exponential that approaches the reach without the snap of a chain going
    straight), then stretch to cover what the easing and the reach left short."""
    reach = upper + lower
    solve_distance = min(distance, reach)
    soft = asked.soft
    if soft > sc.EPS:
        start = reach - soft
        solve_distance = start + soft * (1.0 - math.exp(-max(distance - start, 0.0) / soft)) \
            if distance > start else distance
    if not asked.has_stretch:
        return solve_distance, 1.0, 1.0
    # Each bone's Y scale grows at the rate that gives it its share of the extra length. Shares
    # are relative: amounts over 1 are taken as fractions of the largest, so cubing cannot overflow.
    largest = max(asked.stretch[0], asked.stretch[1], 1.0)
    rate0 = sc.stretch_share(asked.stretch[0] / largest) / max(upper, sc.EPS)
    rate1 = sc.stretch_share(asked.stretch[1] / largest) / max(lower, sc.EPS)
    give = rate0 * upper + rate1 * lower
    if give <= sc.EPS:
        return solve_distance, 1.0, 1.0
    ratio = distance / solve_distance if solve_distance > sc.EPS else 1.0
    grow = reach * (ratio - 1.0) / give
    return distance, 1.0 + grow * rate0, 1.0 + grow * rate1


@njit
def _bend(limb, solve_distance, q1):
    """Bend the middle joint so the tip lies ``solve_distance`` from the root: in the second
    bone's rest frame the bone turns within the bend plane, about the normal of the current one
    (of the rest one, kept perpendicular to a stretched middle joint, for a straight limb),
    keeping its twist (module doc). Returns the second bone's pose rotation and its new direction
    (its rest frame)."""
    mid_dir1, upper, lower = limb.mid_dir1, limb.upper, limb.lower
    d2 = sc.qrotate(q1, Y)
    if not (upper > sc.EPS and lower > sc.EPS):
        return q1, d2
    hinge = sc.cross(mid_dir1, d2)
    if sc.length(hinge) <= STRAIGHT:
        straight = limb.straight_hinge1
        hinge = sc.sub(straight, sc.scale(mid_dir1, sc.dot(straight, mid_dir1)))
    hinge = sc.normalize(hinge)
    cosine = sc.clip((solve_distance * solve_distance - upper * upper - lower * lower) / (2.0 * upper * lower),
                     -1.0, 1.0)
    sine = math.sqrt((1.0 - cosine) * (1.0 + cosine))
    new_d2 = sc.add(sc.scale(mid_dir1, cosine), sc.scale(sc.cross(hinge, mid_dir1), sine))
    return sc.qmul(sc.qbetween(Y, new_d2), _twist(q1)), new_d2


@njit
def _twist(q):
    """The part of rotation ``q`` about its own Y axis (swing-twist); none when it turns Y over."""
    norm = math.hypot(q[1], q[3])
    return (0.0, q[1] / norm, 0.0, q[3] / norm) if norm > 1e-12 else (0.0, 0.0, 0.0, 1.0)


@njit
def _end_rotation(rest1, r0, r1, target_dir, poled, goal, weight):
    """Blend toward the end bone's rotation ``goal`` (first bone's rest frame) by ``weight``
    using only the freedom the tip leaves: roll the chain about the target line (unless a pole
    holds the roll), then twist the end bone about its own axis."""
    if not poled:
        r0 = end_rolled(rest1, r0, r1, target_dir, goal, weight)
    return r0, sc.qmul(r1, sc.qaxis_angle(Y, weight * end_twist(rest1, r0, r1, goal)))


@njit
def _aim(limb, mount, q0, tip, distance, to_target, asked):
    """Turn the first bone so the tip (first bone's frame) lies on the root-to-target line, and
    faces the pole when there is one. Returns its rotation, the target line's direction and
    whether the pole set the roll."""
    tip_dir = sc.normalize(tip)
    if distance > sc.EPS:
        target_dir = sc.scale(to_target, 1.0 / distance)
    else:
        target_dir = sc.normalize(sc.qrotate(q0, tip_dir))
    if not asked.has_pole:
        r0, poled = sc.aim(q0, tip_dir, target_dir)
        return r0, target_dir, poled
    # Blender: the rest-shaped chain turns to the target and rolls to the pole, then bends
    start_dir = sc.normalize(tip if sc.length(limb.rest_tip) <= sc.EPS else limb.rest_tip)
    up = (math.cos(asked.pole_angle), 0.0, math.sin(asked.pole_angle))
    r0, poled = sc.aim(q0, start_dir, target_dir, sc.qrotate(mount.to_rest0, sc.sub(asked.pole, mount.root)), up)
    return sc.qmul(r0, sc.qbetween(tip_dir, start_dir)), target_dir, poled


@njit
def solve_limb(c, q0, q1, target, asked):
    """The two-bone solve of one limb on finite input: ``c`` its ``_packed`` row, ``q0``, ``q1``
    its start rotations, ``target`` world, ``asked`` an ``Asked``. Returns ``_Solved``."""
    mount = _mount(c)
    rest1, mid, lower = (c[22], c[23], c[24], c[25]), (c[15], c[16], c[17]), c[26]  # the bones' part of the row
    limb = _limb(rest1, mid, lower)
    to_target = sc.qrotate(mount.to_rest0, sc.sub(target, mount.root))  # the first bone's rest frame from here on
    distance = sc.length(to_target)
    solve_distance, scale0, scale1 = _reach(distance, limb.upper, limb.lower, asked)
    if asked.has_stretch:
        stretched = _limb(rest1, sc.scale(mid, scale0), lower * scale1)  # uniform, as Blender's stretch
        limb = _Limb(rest1, stretched.mid, stretched.upper, stretched.lower, stretched.mid_dir1,
                     limb.straight_hinge1, stretched.rest_tip)
    r1, lower_dir = _bend(limb, solve_distance, q1)
    tip = sc.add(limb.mid, sc.scale(sc.qrotate(rest1, lower_dir), limb.lower))
    r0, target_dir, poled = _aim(limb, mount, q0, tip, distance, to_target, asked)
    end_error = 0.0
    if asked.has_end:
        goal = sc.qmul(mount.to_rest0, asked.end_rotation)
        r0, r1 = _end_rotation(rest1, r0, r1, target_dir, poled, goal, asked.end_weight)
        end = sc.qmul(r0, sc.qmul(rest1, r1))
        end_error = 2.0 * math.acos(min(abs(sc.qdot(end, goal)), 1.0))
    tip_error = abs(distance - sc.length(tip))  # the aim is exact: the tip lies on the target line
    converged = tip_error <= REACHED * max(limb.upper + limb.lower, 1.0)
    return _Solved(sc.qnormalize(r0), sc.qnormalize(r1), scale0, scale1, tip_error, end_error, converged)


@njit(cache=True)
def _solve_one(c, x0, y0, z0, w0, x1, y1, z1, w1, tx, ty, tz, px, py, pz, pole_angle, settings, has_pole,
               has_stretch, has_end, out):
    """``solve_limb`` for ``solve_two_bone``: ``c`` a ``_packed`` row, the start rotations, the
    target and the pole with its angle as floats (floats pass cheaper than an array), ``settings``
    a C float64 array of the stretch (2), soft reach, end rotation (4) and end weight, with whether
    the pole, stretch and end rotation were given. Fills ``out`` (3, 4) with the rotations then
    (tip error, end error, scale0, scale1), and returns whether it converged (an array made here
    would cost more to return)."""
    asked = Asked((px, py, pz), has_pole, pole_angle, (settings[0], settings[1]), has_stretch, settings[2],
                   (settings[3], settings[4], settings[5], settings[6]), has_end, settings[7])
    solved = solve_limb(c, (x0, y0, z0, w0), (x1, y1, z1, w1), (tx, ty, tz), asked)
    for k in range(4):
        out[0, k], out[1, k] = solved.r0[k], solved.r1[k]
    out[2, 0], out[2, 1], out[2, 2], out[2, 3] = solved.tip_error, solved.end_error, solved.scale0, solved.scale1
    return solved.converged


@njit(cache=True)
def _solve_many(packed, rotations, targets, poles, pole_angles, stretch, soft, end_rotations, end_weights):
    """``solve_limb`` for each limb of ``solve_two_bone_batch``: C float64 arrays, (L, 27),
    (L, 2, 4), (L, 3), poles (L, 3), (L,), stretch (L, 2), (L,), end rotations (L, 4), (L,); an
    empty (0, 0) array for poles, stretch or end rotations not given. Returns rotations
    (L, 2, 4), scales (L, 2), errors (L, 1 or 2) and converged (L,)."""
    count = len(packed)
    has_pole, has_stretch, has_end = len(poles) > 0, len(stretch) > 0, len(end_rotations) > 0
    solved_rotations, scales = np.empty((count, 2, 4)), np.empty((count, 2))
    errors, converged = np.empty((count, 2 if has_end else 1)), np.empty(count, dtype=np.bool_)
    for i in range(count):
        q, t = rotations[i], targets[i]
        asked = Asked((poles[i, 0], poles[i, 1], poles[i, 2]) if has_pole else ORIGIN, has_pole, pole_angles[i],
                       (stretch[i, 0], stretch[i, 1]) if has_stretch else (0.0, 0.0), has_stretch, soft[i],
                       (end_rotations[i, 0], end_rotations[i, 1], end_rotations[i, 2], end_rotations[i, 3])
                       if has_end else inputs.IDENTITY, has_end, end_weights[i])
        solved = solve_limb(packed[i], (q[0, 0], q[0, 1], q[0, 2], q[0, 3]), (q[1, 0], q[1, 1], q[1, 2], q[1, 3]),
                             (t[0], t[1], t[2]), asked)
        for k in range(4):
            solved_rotations[i, 0, k], solved_rotations[i, 1, k] = solved.r0[k], solved.r1[k]
        scales[i, 0], scales[i, 1] = solved.scale0, solved.scale1
        errors[i, 0] = solved.tip_error
        if has_end:
            errors[i, 1] = solved.end_error
        converged[i] = solved.converged
    return solved_rotations, scales, errors, converged


def warm():
    """Compile (or load from the cache) both entry kernels for the argument types the entry points
    pass, so a first solve does not."""
    chain = Chain(np.eye(4), [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 0.0, 0.0, 1.0]] * 2, [1.0, 1.0])
    solve_two_bone(chain, [[0.0, 0.0, 0.0, 1.0]] * 2, (0.5, 1.0, 0.5))
    solve_two_bone_batch(TwoBoneLimbs.from_chains([chain]), [[[0.0, 0.0, 0.0, 1.0]] * 2], [[0.5, 1.0, 0.5]])


def pole_facing(chain: Chain, rotations, pole_angle):
    """The world direction (3,) in which a pole must lie, seen from the root-to-tip line, for pose
    ``rotations`` (2, 4) of ``chain`` to be its own solution with that pole and ``pole_angle``:
    the up vector of the rest-shaped chain that the solver turns (module doc) and then bends into
    this pose."""
    world, points = chain_pose(chain, rotations)
    rest_tip = chain.offsets[1] + chain.lengths[1] * quat_to_matrix3(chain.rest_rotations[1])[:, 1]
    tip = world[0].T @ (points[-1] - points[0])
    unbend = quat_to_matrix3(quat_between(normalize(rest_tip), normalize(tip)))
    return world[0] @ unbend @ np.array([math.cos(pole_angle), 0.0, math.sin(pole_angle)])



def _floats(values):
    """``values`` as (nested) lists of floats, the kernel's argument type; None stays None. A
    float64 array converts directly: ``asarray`` first would more than double the cost."""
    if type(values) is np.ndarray and values.dtype is FLOAT64:
        return values.tolist()
    if type(values) is tuple and all(type(v) is float for v in values):  # a goal's target
        return values
    return values if values is None else np.asarray(values, dtype=float).tolist()


class _Given(NamedTuple):
    """``solve_two_bone``'s stretch, soft reach and end rotation conditioned for ``_solve_one``:
    ``settings`` its array, whether stretch and an end rotation were given, and whether all are
    finite."""
    settings: np.ndarray
    stretch: bool = False
    end: bool = False
    finite: bool = True


NOTHING_GIVEN = _Given(np.array((0.0, 0.0, 0.0) + inputs.IDENTITY + (1.0,)))


def _conditioned(stretch, soft, end_rotation, end_weight):
    """``_Given`` for ``solve_two_bone``'s stretch, soft reach and end rotation; ValueError for bad
    stretch amounts."""
    stretch, end_rotation = inputs.stretch_amounts(_floats(stretch)), _floats(end_rotation)
    if end_rotation is not None:
        end_rotation = list(inputs.unit_quaternion(end_rotation, fallback=(math.nan,) * 4))
    values = (*(stretch or (0.0, 0.0)), soft, *(end_rotation or inputs.IDENTITY), end_weight)
    return _Given(np.array(values, dtype=float), stretch is not None, end_rotation is not None,
                  all(map(math.isfinite, values)))


def _pole(chain, pole, pole_angle):
    """``pole`` as 3 floats (pulled in as a target is; the origin when None) and ``pole_angle``
    reduced to [-pi, pi]; ValueError for a non-finite angle."""
    if pole_angle != 0.0:
        pole_angle = inputs.finite_angle(pole_angle, "pole_angle")
    return (ORIGIN if pole is None else inputs.near_target(_floats(pole), chain.floats[1])[0]), pole_angle


def limb_constants(chain):
    """The chain's ``_packed`` row, once per chain and base."""
    validate_two_bone(chain)
    return _packed(chain.base[None], chain.offsets[None], chain.rest_rotations[None], chain.lengths[None])[0]


def solve_two_bone(chain: Chain, rotations, target, pole=None, pole_angle=0.0, *, stretch=None, soft=0.0,
                   end_rotation=None, end_weight=1.0):
    """Solve a 2-bone chain so its tip reaches ``target`` (3,), world space.

    ``rotations`` (2, 4) is the starting pose. Its bend plane is kept; without a pole the first
    bone then turns by the shortest arc that aims the tip at the target, so the chain keeps its
    roll about the root-to-target line (module doc). Unreachable targets leave the chain
    straight toward the target; targets inside the inner radius fold it as far as it goes. A
    non-finite target, pole or end rotation leaves the pose unchanged (converged False, error
    inf).

    - ``stretch`` (2,): per-bone stretchiness >= 0 (Blender's IK Stretch); when the target lies
      beyond reach the bones lengthen along Y, sharing the extra length as
      ``scalar.stretch_share`` says, so the tip arrives.
    - ``soft``: distance (metres) before full extension over which the reach eases in, so the
      knee never snaps straight; without stretch the tip then stops short of far targets.
    - ``end_rotation`` (4,): world rotation wanted for the second bone, blended in by
      ``end_weight`` in [0, 1]; it only uses freedom the tip position leaves (the roll about the
      target line when there is no pole, the bone's twist about its own axis).
    ``result.errors`` is (tip distance,) or (tip distance, end-bone angle in radians).
    """
    constants = chain.cached_for_base("two_bone", lambda: limb_constants(chain))
    target, beyond = inputs.near_target(_floats(target), chain.floats[1])
    start = inputs.unit_rows(_floats(rotations))
    given = NOTHING_GIVEN if stretch is None and end_rotation is None and soft == 0.0 else \
        _conditioned(stretch, soft, end_rotation, end_weight)
    at, pole_angle = _pole(chain, pole, pole_angle)
    if not (given.finite and all(map(math.isfinite, target)) and all(map(math.isfinite, at))):
        return SolveResult(np.array(start), 1, np.full(1 + given.end, np.inf), False)
    solved = np.empty((3, 4))
    converged = _solve_one(constants, *start[0], *start[1], *target, *at, pole_angle, given.settings,
                           pole is not None, given.stretch, given.end, solved)
    errors = solved[2, :1 + given.end]
    if beyond:
        errors[0] += beyond
    return SolveResult(solved[:2], 1, errors, converged and beyond == 0.0, solved[2, 2:] if given.stretch else None)


def _c_array(values, shape):
    """``values`` broadcast to ``shape`` as a writable C float64 array: the one array type the
    batch kernel is compiled for (a copy only where the input is not already that)."""
    array = np.asarray(values, dtype=float)
    if array.shape != shape:
        array = np.broadcast_to(array, shape)
    return array if array.flags.c_contiguous and array.flags.writeable else np.array(array, order="C")


def _given(values, shape):
    """``_c_array``, or ``NOT_GIVEN`` for None."""
    return NOT_GIVEN if values is None else _c_array(values, shape)


def solve_two_bone_batch(limbs: TwoBoneLimbs, rotations, targets, poles=None, pole_angles=0.0, *, stretch=None,
                         soft=0.0, end_rotations=None, end_weights=1.0):
    """Solve L limbs at once; the same as ``solve_two_bone`` on each, limb by limb.

    ``rotations`` (L, 2, 4), ``targets`` (L, 3), ``poles`` (L, 3) or None, ``pole_angles``,
    ``soft`` and ``end_weights`` scalars or (L,), ``stretch`` (L, 2) or None, ``end_rotations``
    (L, 4) or None. Returns a ``TwoBoneBatchResult``.
    """
    count = len(limbs)
    rotations = _c_array(rotations, (count, 2, 4))
    given = [_given(v, (count, k)) for v, k in ((targets, 3), (poles, 3), (end_rotations, 4))]
    finite = np.logical_and.reduce([np.isfinite(v).all(-1) for v in given if v is not NOT_GIVEN])
    if not finite.all():  # those limbs solve stand-in input (+Z, the identity quaternion), then keep their pose
        given = [v if v is NOT_GIVEN else np.where(finite[:, None], v, np.eye(v.shape[-1])[-1]) for v in given]
    targets, poles, end_rotations = given
    solved, scale, errors, converged = _solve_many(
        limbs.packed, rotations, targets, poles, _c_array(pole_angles, (count,)), _given(stretch, (count, 2)),
        _c_array(soft, (count,)), end_rotations, _c_array(end_weights, (count,)))
    if not finite.all():
        solved[~finite], scale[~finite], errors[~finite] = rotations[~finite], 1.0, np.inf
        converged &= finite
    return TwoBoneBatchResult(solved, scale, errors, converged)
