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
plane. The rest shape stands for Blender's FK pose, so the result does not depend on the bend the
chain starts with (``solvers.chain.face_pole`` does the same for the iterative solvers).
tests/rig/test_blender_pole_reference.py checks the poses against Blender's.

The solve is written once (``_solve``) against the interface ``scalar`` and ``lanes`` share: a
single limb runs it on plain floats (a numpy call costs more than a whole limb's arithmetic), a
batch on component arrays, one lane per limb, so both give the same poses. The commonest single
solve, a limb with no pole, stretch, soft reach or end rotation (a dragged hand or foot), also
has ``_solve_floats``: the same steps inlined, with the limb's rotations held as matrix rows and
no function call per vector, in half the time; tests hold it to ``_solve``'s poses to rounding,
and it hands degenerate input back to ``_solve``.
"""
import math
from math import sqrt
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from solvers import inputs, lanes
from solvers import scalar as sc
from solvers.chain import Chain, SolveResult, chain_pose
from solvers.transforms import normalize, quat_between, quat_to_matrix3

Y = (0.0, 1.0, 0.0)
X = (1.0, 0.0, 0.0)
STRAIGHT = 1e-7
FLOAT64 = np.dtype(float)


def validate_two_bone(chain):
    """Raise ValueError when the chain cannot be solved by the two-bone solver."""
    if len(chain) != 2:
        raise ValueError(f"the two-bone solver needs a chain of exactly 2 bones, got {len(chain)}")


def _columns(values, count):
    """The components of ``values`` (count, k) as k contiguous (count,) lanes."""
    return tuple(np.ascontiguousarray(np.asarray(values, dtype=float).reshape(count, -1).T))


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
    def lanes(self):
        """The per-limb constants ``_solve`` takes (``_mount``, ``_limb``), as lanes. The base quaternions come
        from the float path's own conversion, once per limb: a last-bit difference there would
        grow to 1e-8 where the end-bone twist is ill-conditioned."""
        count = len(self)
        base_q = _columns([sc.quat_from_matrix3(m) for m in self.base[:, :3, :3].tolist()], count)
        mount = _mount(base_q, _columns(self.base[:, :3, 3], count), _columns(self.offsets[:, 0], count),
                       _columns(self.rest_rotations[:, 0], count))
        return mount, _limb(lanes, _columns(self.rest_rotations[:, 1], count), _columns(self.offsets[:, 1], count),
                            np.ascontiguousarray(self.lengths[:, 1]))


@dataclass
class TwoBoneBatchResult:
    """Per limb: ``rotations`` (L, 2, 4), ``stretch`` (L, 2), ``errors`` (L, k) (tip distance, then
    the end bone's angle to ``end_rotations`` when given), ``converged`` (L,) booleans."""
    rotations: np.ndarray
    stretch: np.ndarray
    errors: np.ndarray
    converged: np.ndarray


def _reach(xp, distance, upper, lower, stretch, soft):
    """How far from the root the tip goes, and the bones' Y scales: soft easing near full
    extension (an exponential that approaches the reach without the snap of a chain going
    straight), then stretch to cover what the easing and the reach left short."""
    reach = upper + lower
    solve_distance = xp.minimum(distance, reach)
    softly = soft > sc.EPS
    if xp.some(softly):
        start = reach - soft
        eased = start + soft * (1.0 - xp.exp(-xp.maximum(distance - start, 0.0) / xp.where(softly, soft, 1.0)))
        solve_distance = xp.where(softly, xp.where(distance > start, eased, distance), solve_distance)
    if stretch is None:
        return solve_distance, 1.0, 1.0
    # Each bone's Y scale grows at the rate that gives it its share of the extra length.
    rate0, rate1 = (sc.stretch_share(s) / xp.maximum(length, sc.EPS) for s, length in zip(stretch, (upper, lower)))
    give = rate0 * upper + rate1 * lower
    stretchy = give > sc.EPS
    near = solve_distance > sc.EPS
    ratio = xp.where(near, distance / xp.where(near, solve_distance, 1.0), 1.0)
    grow = xp.where(stretchy, reach * (ratio - 1.0) / xp.where(stretchy, give, 1.0), 0.0)
    return xp.where(stretchy, distance, solve_distance), 1.0 + grow * rate0, 1.0 + grow * rate1


def _straight_hinge(xp, mid_dir, rest1):
    """The bend axis (first bone's frame) of a straight limb: the rest bend plane's normal, or
    the first bone's X axis made perpendicular to the middle joint when the rest pose is
    straight too."""
    hinge = sc.cross(mid_dir, sc.qrotate(rest1, Y))
    x_axis = sc.sub(X, sc.scale(mid_dir, mid_dir[0]))
    x_axis = xp.fallback(xp.length(x_axis) <= 1e-6, x_axis, lambda: xp.any_perpendicular(mid_dir))
    return xp.normalize(xp.select(xp.length(hinge) <= STRAIGHT, x_axis, hinge))


class _Limb(NamedTuple):
    """A limb's constants for ``_solve``, those of its bones (not of the frame it hangs from).
    Each bone is solved in its rest frame (the frame its pose rotation acts in), which saves
    turning every rotation into world space and back: ``rest1`` takes the second bone's rest
    frame into the first bone's."""
    rest1: tuple
    mid: tuple  # the second bone's head, first bone's frame
    upper: object  # ``mid``'s length
    lower: object  # the second bone's length
    mid_dir1: tuple  # ``mid``'s direction in the second bone's rest frame
    straight_hinge1: tuple  # the straight-limb bend axis, second bone's rest frame
    rest_tip: tuple  # the tip of the chain in its rest shape, first bone's frame


def _limb(xp, rest1, mid, lower):
    mid_dir = xp.normalize(mid)
    to_rest1 = sc.qconj(rest1)
    return _Limb(rest1, mid, xp.length(mid), lower, sc.qrotate(to_rest1, mid_dir),
                 sc.qrotate(to_rest1, _straight_hinge(xp, mid_dir, rest1)),
                 sc.add(mid, sc.scale(sc.qrotate(rest1, Y), lower)))


def _mount(base_q, origin, offset0, rest0):
    """Where a limb hangs: its root (world) and the rotation taking world directions into the
    first bone's rest frame."""
    return sc.add(origin, sc.qrotate(base_q, offset0)), sc.qconj(sc.qmul(base_q, rest0))


def _bend(xp, mid_dir1, upper, lower, solve_distance, q1, straight_hinge1):
    """Bend the middle joint so the tip lies ``solve_distance`` from the root: in the second
    bone's rest frame the bone turns within the bend plane, about the normal of the current one
    (of the rest one, kept perpendicular to a stretched middle joint, for a straight limb).
    Returns the second bone's pose rotation and its new direction (its rest frame)."""
    d2 = sc.qrotate(q1, Y)
    hinge = sc.cross(mid_dir1, d2)
    hinge = xp.normalize(xp.fallback(xp.length(hinge) <= STRAIGHT, hinge, lambda: sc.sub(
        straight_hinge1, sc.scale(mid_dir1, sc.dot(straight_hinge1, mid_dir1)))))
    bendable = (upper > sc.EPS) & (lower > sc.EPS)
    cosine = xp.clip((solve_distance * solve_distance - upper * upper - lower * lower)
                     / xp.where(bendable, 2.0 * upper * lower, 1.0), -1.0, 1.0)
    sine = xp.sqrt((1.0 - cosine) * (1.0 + cosine))
    new_d2 = xp.select(bendable, sc.add(sc.scale(mid_dir1, cosine), sc.scale(sc.cross(hinge, mid_dir1), sine)), d2)
    return sc.qmul(xp.qbetween(d2, new_d2), q1), new_d2


def _end_rotation(xp, rest1, r0, r1, target_dir, poled, goal, weight):
    """Blend toward the end bone's rotation ``goal`` (first bone's rest frame) by ``weight``
    using only the freedom the tip leaves: roll the chain about the target line (unless a pole
    holds the roll), then twist the end bone about its own axis."""
    end_y = sc.qrotate(sc.qmul(r0, sc.qmul(rest1, r1)), Y)
    goal_y = sc.qrotate(goal, Y)
    end_dir = sc.sub(end_y, sc.scale(target_dir, sc.dot(end_y, target_dir)))
    goal_dir = sc.sub(goal_y, sc.scale(target_dir, sc.dot(goal_y, target_dir)))
    held = poled | (xp.length(end_dir) <= 1e-9) | (xp.length(goal_dir) <= 1e-9)
    roll = xp.where(held, 0.0, xp.signed_angle(end_dir, goal_dir, target_dir)) * weight
    r0 = sc.qmul(xp.qaxis_angle(target_dir, roll), r0)
    local = xp.qnormalize(sc.qmul(sc.qconj(sc.qmul(r0, sc.qmul(rest1, r1))), goal))  # w >= 0: the shorter twist
    twist = 2.0 * xp.atan2(local[1], local[3])
    return r0, sc.qmul(r1, xp.qaxis_angle(Y, weight * twist))


def _solve(xp, mount, limb, q0, q1, target, pole, pole_angle, stretch, soft, end_rotation, end_weight):
    """The two-bone solve on finite input, for ``xp`` = ``scalar`` (one limb, floats) or
    ``lanes`` (a batch); ``mount`` from ``_mount``, ``limb`` a ``_Limb``. Returns ((r0, r1),
    (scale0, scale1), errors, converged) with errors (tip distance,) or (tip distance, end-bone
    angle)."""
    root, to_rest0 = mount
    rest1, mid, upper, lower, mid_dir1, straight_hinge1, rest_tip = limb
    to_target = sc.qrotate(to_rest0, sc.sub(target, root))  # the first bone's rest frame from here on
    distance = xp.length(to_target)
    solve_distance, scale0, scale1 = _reach(xp, distance, upper, lower, stretch, soft)
    if stretch is not None:
        _, mid, upper, lower, mid_dir1, _, rest_tip = _limb(xp, rest1, (mid[0], mid[1] * scale0, mid[2]),
                                                            lower * scale1)
    r1, lower_dir = _bend(xp, mid_dir1, upper, lower, solve_distance, q1, straight_hinge1)
    tip = sc.add(mid, sc.scale(sc.qrotate(rest1, lower_dir), lower))

    # Aim: turn the first bone so the tip lies on the root-to-target line (and faces the pole).
    tip_dir = xp.normalize(tip)
    toward = sc.scale(to_target, 1.0 / xp.where(distance > sc.EPS, distance, 1.0))
    target_dir = xp.fallback(distance <= sc.EPS, toward, lambda: xp.normalize(sc.qrotate(q0, tip_dir)))
    if pole is None:
        r0, poled = xp.aim(q0, tip_dir, target_dir)
    else:  # Blender: the rest-shaped chain turns to the target and rolls to the pole, then bends
        start_dir = xp.normalize(xp.select(xp.length(rest_tip) <= sc.EPS, tip, rest_tip))
        r0, poled = xp.aim(q0, start_dir, target_dir, sc.qrotate(to_rest0, sc.sub(pole, root)),
                           (xp.cos(pole_angle), 0.0, xp.sin(pole_angle)))
        r0 = sc.qmul(r0, xp.qbetween(tip_dir, start_dir))
    if end_rotation is not None:
        end_rotation = sc.qmul(to_rest0, end_rotation)
        r0, r1 = _end_rotation(xp, rest1, r0, r1, target_dir, poled, end_rotation, end_weight)

    errors = (abs(distance - xp.length(tip)),)  # the aim is exact: the tip lies on the target line
    if end_rotation is not None:
        end = sc.qmul(r0, sc.qmul(rest1, r1))
        errors += (2.0 * xp.acos(xp.minimum(abs(sc.dot(end, end_rotation) + end[3] * end_rotation[3]), 1.0)),)
    converged = errors[0] <= 1e-6 * xp.maximum(upper + lower, 1.0)
    return (xp.qnormalize(r0), xp.qnormalize(r1)), (scale0, scale1), errors, converged


class _Floats(NamedTuple):
    """One limb's constants for ``_solve_floats``: ``_mount`` and ``_Limb`` with each rotation
    they apply to a vector held as matrix rows, which costs fewer float operations than turning
    the vector by a quaternion."""
    root: tuple  # world
    to_rest0: tuple  # rows: world directions into the first bone's rest frame
    mid: tuple
    upper: float
    lower: float
    mid_dir1: tuple
    straight_hinge1: tuple
    rest1_lower: tuple  # rows: the second bone's rest frame into the first's, scaled by ``lower``
    tolerance: float  # the tip error under which the solve counts as converged, as ``_solve``'s


def _float_constants(chain):
    """``_Floats`` for a chain, or None when a bone is too short to bend (the generic solve
    handles those): the limb's part is kept across rebasing, the mount's is per base. Raises
    ValueError for a chain that is not two bones long."""
    validate_two_bone(chain)
    base_q, origin, (offset0, mid), (rest0, rest1), (_, lower) = chain.floats
    limb = chain.cached("two_bone", lambda: _limb(sc, rest1, mid, lower))
    if limb.upper <= sc.EPS or limb.lower <= sc.EPS:
        return None
    root, to_rest0 = _mount(base_q, origin, offset0, rest0)
    rest1_lower = tuple(sc.scale(row, limb.lower) for row in sc.qmatrix(limb.rest1))
    return _Floats(root, sc.qmatrix(to_rest0), limb.mid, limb.upper, limb.lower, limb.mid_dir1, limb.straight_hinge1,
                   rest1_lower, 1e-6 * max(limb.upper + limb.lower, 1.0))


def _solve_floats(c, q0, q1, target):
    """``_solve`` for one limb with no pole, stretch, soft reach or end rotation (the common case
    of a dragged hand or foot), inlined on floats: the same steps, in the same frames, without a
    function call per vector. ``c`` is ``_Floats``; ``q0``, ``q1`` and the result's rotations are
    (x, y, z, w) tuples. Returns ((r0, r1), tip error), or None where ``_solve`` would take one of
    its guarded branches (a target at the root or not finite, a turn by half a circle, a
    degenerate bend axis), so that it answers instead. Agrees with ``_solve`` to rounding
    (tests/solvers/test_two_bone.py)."""
    (rx, ry, rz), ((a00, a01, a02), (a10, a11, a12), (a20, a21, a22)), (mx, my, mz), upper, lower, \
        (ux, uy, uz), (fx, fy, fz), ((b00, b01, b02), (b10, b11, b12), (b20, b21, b22)), _ = c
    x0, y0, z0, w0 = q0
    x1, y1, z1, w1 = q1
    vx, vy, vz = target[0] - rx, target[1] - ry, target[2] - rz
    px = a00 * vx + a01 * vy + a02 * vz  # the target, first bone's rest frame
    py = a10 * vx + a11 * vy + a12 * vz
    pz = a20 * vx + a21 * vy + a22 * vz
    distance = sqrt(px * px + py * py + pz * pz)
    if not sc.EPS < distance < math.inf:
        return None
    reach = upper + lower
    solve_distance = distance if distance < reach else reach

    # Bend (``_bend``): d = the second bone's Y axis now, h the hinge, e its new direction.
    dx, dy, dz = 2.0 * (x1 * y1 - z1 * w1), 1.0 - 2.0 * (x1 * x1 + z1 * z1), 2.0 * (y1 * z1 + x1 * w1)
    hx, hy, hz = uy * dz - uz * dy, uz * dx - ux * dz, ux * dy - uy * dx
    n = sqrt(hx * hx + hy * hy + hz * hz)
    if n <= STRAIGHT:
        along = fx * ux + fy * uy + fz * uz
        hx, hy, hz = fx - ux * along, fy - uy * along, fz - uz * along
        n = sqrt(hx * hx + hy * hy + hz * hz)
        if n <= sc.EPS:
            return None
    hx, hy, hz = hx / n, hy / n, hz / n
    cosine = (solve_distance * solve_distance - upper * upper - lower * lower) / (2.0 * upper * lower)
    cosine = 1.0 if cosine > 1.0 else -1.0 if cosine < -1.0 else cosine
    sine = sqrt((1.0 - cosine) * (1.0 + cosine))
    ex = ux * cosine + (hy * uz - hz * uy) * sine
    ey = uy * cosine + (hz * ux - hx * uz) * sine
    ez = uz * cosine + (hx * uy - hy * ux) * sine
    cw = 1.0 + dx * ex + dy * ey + dz * ez  # shortest arc d -> e, then applied to q1
    if cw < 1e-9:
        return None
    cx, cy, cz = dy * ez - dz * ey, dz * ex - dx * ez, dx * ey - dy * ex  # unnormalised: the end's qnormalize scales it
    x1, y1, z1, w1 = (cw * x1 + cx * w1 + cy * z1 - cz * y1, cw * y1 - cx * z1 + cy * w1 + cz * x1,
                      cw * z1 + cx * y1 - cy * x1 + cz * w1, cw * w1 - cx * x1 - cy * y1 - cz * z1)

    # Aim (``scalar.aim`` without a pole): the tip, first bone's frame, turned by q0 onto the target line.
    kx = mx + b00 * ex + b01 * ey + b02 * ez
    ky = my + b10 * ex + b11 * ey + b12 * ez
    kz = mz + b20 * ex + b21 * ey + b22 * ez
    tip = sqrt(kx * kx + ky * ky + kz * kz)
    if tip <= sc.EPS:
        return None
    kx, ky, kz = kx / tip, ky / tip, kz / tip
    tx, ty, tz = 2.0 * (y0 * kz - z0 * ky), 2.0 * (z0 * kx - x0 * kz), 2.0 * (x0 * ky - y0 * kx)
    ox, oy, oz = kx + w0 * tx + y0 * tz - z0 * ty, ky + w0 * ty + z0 * tx - x0 * tz, kz + w0 * tz + x0 * ty - y0 * tx
    n = sqrt(ox * ox + oy * oy + oz * oz)
    ox, oy, oz = ox / n, oy / n, oz / n
    px, py, pz = px / distance, py / distance, pz / distance
    cw = 1.0 + ox * px + oy * py + oz * pz
    if cw < 1e-9:
        return None
    cx, cy, cz = oy * pz - oz * py, oz * px - ox * pz, ox * py - oy * px
    x0, y0, z0, w0 = (cw * x0 + cx * w0 + cy * z0 - cz * y0, cw * y0 - cx * z0 + cy * w0 + cz * x0,
                      cw * z0 + cx * y0 - cy * x0 + cz * w0, cw * w0 - cx * x0 - cy * y0 - cz * z0)
    # scalar.qnormalize on both (w >= 0); their norms are at least cw's 1e-9, far from its EPS guard
    n0 = (1.0 if w0 >= 0.0 else -1.0) / sqrt(x0 * x0 + y0 * y0 + z0 * z0 + w0 * w0)
    n1 = (1.0 if w1 >= 0.0 else -1.0) / sqrt(x1 * x1 + y1 * y1 + z1 * z1 + w1 * w1)
    return ((x0 * n0, y0 * n0, z0 * n0, w0 * n0), (x1 * n1, y1 * n1, z1 * n1, w1 * n1)), abs(distance - tip)


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
    """``values`` as (nested) lists of floats; None stays None. A float64 array converts
    directly: ``asarray`` first would more than double the cost."""
    if type(values) is np.ndarray and values.dtype is FLOAT64:
        return values.tolist()
    if type(values) is tuple:  # a goal's target: floats already
        return values
    return values if values is None else np.asarray(values, dtype=float).tolist()


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
    target, beyond = inputs.near_target(_floats(target), chain.floats[1])
    start = inputs.unit_rows(_floats(rotations))
    if pole is None and stretch is None and end_rotation is None and soft == 0.0:
        constants = chain.cached_for_base("two_bone_floats", lambda: _float_constants(chain))
        solved = constants and _solve_floats(constants, *start, target)
        if solved:
            rotations, error = solved
            return SolveResult(np.array(rotations), 1, np.array((error + beyond,)), error <= constants.tolerance)
    validate_two_bone(chain)
    pole, stretch, end_rotation = _floats(pole), inputs.stretch_amounts(_floats(stretch)), _floats(end_rotation)
    pole_angle = inputs.finite_angle(pole_angle, "pole_angle")
    if pole is not None:
        pole, _ = inputs.near_target(pole, chain.floats[1])
    if end_rotation is not None:
        end_rotation = list(inputs.unit_quaternion(end_rotation, fallback=(math.nan,) * 4))
    if not all(map(math.isfinite, tuple(target) + tuple(pole or ()) + tuple(end_rotation or ()))):
        errors = np.full(1 if end_rotation is None else 2, np.inf)
        return SolveResult(np.array(start), 1, errors, False)
    q0, q1 = start
    base_q, origin, (offset0, mid), (rest0, rest1), (_, lower) = chain.floats
    limb = chain.cached("two_bone", lambda: _limb(sc, rest1, mid, lower))
    solved, scale, errors, converged = _solve(sc, _mount(base_q, origin, offset0, rest0), limb, q0, q1, target, pole,
                                              pole_angle, stretch, float(soft), end_rotation, float(end_weight))
    errors = (errors[0] + beyond,) + tuple(errors[1:])
    return SolveResult(np.array(solved), 1, np.array(errors), converged and beyond == 0.0, np.array(scale))


def _per_limb(value, count):
    """A per-limb setting as a float when it is one for all, else as (count,) lanes."""
    return float(value) if np.ndim(value) == 0 else np.ascontiguousarray(np.broadcast_to(value, (count,)), float)


def solve_two_bone_batch(limbs: TwoBoneLimbs, rotations, targets, poles=None, pole_angles=0.0, *, stretch=None,
                         soft=0.0, end_rotations=None, end_weights=1.0):
    """Solve L limbs at once; the same as ``solve_two_bone`` on each, limb by limb.

    ``rotations`` (L, 2, 4), ``targets`` (L, 3), ``poles`` (L, 3) or None, ``pole_angles``,
    ``soft`` and ``end_weights`` scalars or (L,), ``stretch`` (L, 2) or None, ``end_rotations``
    (L, 4) or None. Returns a ``TwoBoneBatchResult``.
    """
    count = len(limbs)
    rotations = np.asarray(rotations, dtype=float)
    inputs = [np.asarray(v, dtype=float) if v is not None else None for v in (targets, poles, end_rotations)]
    finite = np.logical_and.reduce([np.isfinite(v).all(-1) for v in inputs if v is not None])
    if not finite.all():  # those limbs solve stand-in input (+Z, the identity quaternion), then keep their pose
        inputs = [v if v is None else np.where(finite[:, None], v, np.eye(v.shape[-1])[-1]) for v in inputs]
    target, pole, end_rotation = [v if v is None else _columns(v, count) for v in inputs]
    q = _columns(rotations, count)
    (r0, r1), (scale0, scale1), errors, converged = _solve(
        lanes, *limbs.lanes, q[:4], q[4:], target, pole, _per_limb(pole_angles, count),
        None if stretch is None else _columns(stretch, count), _per_limb(soft, count), end_rotation,
        _per_limb(end_weights, count))
    solved = np.stack(r0 + r1, axis=-1).reshape(count, 2, 4)
    scale = np.ones((count, 2))
    scale[:, 0], scale[:, 1] = scale0, scale1
    errors = np.stack(errors, axis=-1)
    if not finite.all():
        solved[~finite], scale[~finite], errors[~finite] = rotations[~finite], 1.0, np.inf
        converged &= finite
    return TwoBoneBatchResult(solved, scale, errors, converged)
