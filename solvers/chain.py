"""Array description of a serial chain, its forward kinematics, and the solve result.

A chain of n bones hangs from a fixed ``base`` frame (4x4, world, rigid). Bone i's rigid world
rotation is ``rot[i-1] @ R(rest_rotations[i]) @ R(rotations[i])`` (``rot[-1]`` the base's) and its
head sits at ``head[i-1] + rot[i-1] @ (offsets[i] * (1, stretch[i-1], 1))``: ``offsets`` (n, 3) is
the bone's head in the previous bone's frame, ``rest_rotations`` (n, 4) its rest orientation there,
``rotations`` (n, 4) the pose rotation the solvers produce. Bones point along their local +Y;
``lengths`` (n,) are rest lengths. ``stretch`` (n,) is each bone's whole stretch, uniform as
Blender's IK stretch: it scales the bone's length and its children's offsets, and the rig writes
it as inherited pose scales (``kinematics.stretch_scales``); frames stay rigid.
"""
import math
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import NamedTuple

import numpy as np

from solvers import kinematics, scalar
from solvers.limits import clamp_rotation
from solvers.transforms import EPS, matrix3_to_quat, quat_to_matrix3


class ChainShape:
    """What a chain's bones alone determine, not the base they hang from: a ``rebased`` chain
    shares its shape, and with it what the shape has cached, while everything a chain caches
    itself is its own (it may depend on the base)."""

    def __init__(self, offsets, rest_rotations, lengths):
        self.offsets, self.rest_rotations, self.lengths = offsets, rest_rotations, lengths
        # Each bone's vector from its head to the next point (the next head, or the last tail), in its frame.
        self.segments = np.vstack([offsets[1:], [[0.0, lengths[-1], 0.0]]])

    @cached_property
    def floats(self):
        """Offsets, rest rotations and lengths as plain Python floats, tuples throughout."""
        return (tuple(map(tuple, self.offsets.tolist())), tuple(map(tuple, self.rest_rotations.tolist())),
                tuple(self.lengths.tolist()))

    @cached_property
    def float_spans(self):
        """The distances between consecutive chain points (lengths of ``segments``), plain floats."""
        return tuple(np.linalg.norm(self.segments, axis=1).tolist())

    @cached_property
    def reach(self):
        """The chain's longest head-to-tail distance: its segments laid straight (metres)."""
        return float(sum(self.float_spans))


@dataclass
class Chain:
    base: np.ndarray
    offsets: np.ndarray
    rest_rotations: np.ndarray
    lengths: np.ndarray
    shape: ChainShape = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        self.base = np.asarray(self.base, dtype=float)
        self.offsets = np.asarray(self.offsets, dtype=float)
        self.rest_rotations = np.asarray(self.rest_rotations, dtype=float)
        self.lengths = np.asarray(self.lengths, dtype=float)
        n = len(self.lengths)
        if self.base.shape != (4, 4) or self.offsets.shape != (n, 3) or self.rest_rotations.shape != (n, 4):
            raise ValueError("chain arrays must be base (4, 4), offsets (n, 3), rest_rotations (n, 4), lengths (n,)")
        if n == 0:
            raise ValueError("a chain needs at least one bone")
        if not (np.isfinite(self.base).all() and np.isfinite(self.offsets).all()
                and np.isfinite(self.rest_rotations).all() and np.isfinite(self.lengths).all()):
            raise ValueError("chain arrays must be finite")
        if np.any(self.lengths < 0):
            raise ValueError("bone lengths must not be negative")
        _check_rigid(self.base)
        if np.abs(np.einsum("ij,ij->i", self.rest_rotations, self.rest_rotations) - 1.0).max() > 2e-6:
            raise ValueError("rest rotations must be unit quaternions")
        self.shape = ChainShape(self.offsets, self.rest_rotations, self.lengths)

    def __len__(self):
        return len(self.lengths)

    def rebased(self, base):
        """This chain hanging from another rigid ``base`` (4, 4), for a chain whose parent moves
        between solves: its fields, checked when it was built, and its ``shape`` (with what that
        cached) are shared; what the chain cached itself is not, and only the base is checked.
        Raises ValueError for a base that is not rigid."""
        base = np.asarray(base, dtype=float)
        if base.shape != (4, 4):
            raise ValueError("the chain's base must be a (4, 4) matrix")
        _check_rigid(base)
        chain = object.__new__(Chain)
        chain.__dict__.update((f.name, getattr(self, f.name)) for f in fields(Chain))
        chain.base = base
        return chain

    @property
    def segments(self):
        """Each bone's vector from its head to the next point, in its own frame (n, 3)."""
        return self.shape.segments

    @property
    def reach(self):
        return self.shape.reach

    @cached_property
    def floats(self):
        """The chain as plain Python floats for the per-limb fast paths: (base rotation quat,
        base origin, offsets, rest rotations, lengths), tuples throughout."""
        base = (tuple(matrix3_to_quat(self.base[:3, :3]).tolist()), tuple(self.base[:3, 3].tolist()))
        return base + self.shape.floats

    @cached_property
    def base_memo(self):
        """What ``cached_for_base`` keeps (a chain's own: ``rebased`` does not share it)."""
        return {}

    def cached_for_base(self, key, build):
        """``build()``, computed once per chain and kept under ``key``: constants a solver derives
        from the chain, base included (a rebased chain builds its own)."""
        memo = self.base_memo
        if key not in memo:
            memo[key] = build()
        return memo[key]

    @cached_property
    def root(self):
        """The first bone's head in the world (3,), where the chain's reach is measured from."""
        return self.base[:3, :3] @ self.offsets[0] + self.base[:3, 3]

    @cached_property
    def float_rest_points(self):
        """``chain_points`` of the rest pose as (x, y, z) float tuples."""
        return tuple(map(tuple, chain_points(self, np.tile([0.0, 0.0, 0.0, 1.0], (len(self), 1))).tolist()))


def rotation_error(matrix):
    """How far the rotation part of ``matrix`` (4, 4 or 3, 3) is from orthonormal: the largest
    deviation of its columns' dot products from the identity's; inf when it is not finite.
    Plain floats: numpy calls on a 3x3 cost more than a two-bone solve."""
    rows = matrix[:3, :3].tolist()
    if not all(math.isfinite(v) for row in rows for v in row):
        return math.inf
    x, y, z = zip(*rows)
    dot = scalar.dot
    return max(abs(dot(x, x) - 1.0), abs(dot(y, y) - 1.0), abs(dot(z, z) - 1.0),
               abs(dot(x, y)), abs(dot(x, z)), abs(dot(y, z)))


def _check_rigid(base):
    """Raise ValueError unless ``base`` (4, 4) is finite and its rotation part orthonormal and
    right-handed."""
    if not all(math.isfinite(v) for row in base.tolist() for v in row):
        raise ValueError("the chain's base must be finite")
    x, y, z = zip(*base[:3, :3].tolist())
    if rotation_error(base) > 1e-6 or scalar.dot(scalar.cross(x, y), z) < 0:
        raise ValueError("the chain's base must be a rigid transform (rotation and translation, no scale)")


def straight_chain(lengths, base=None):
    """A chain of bones (lengths (n,)) laid end to end along the base's +Y, rest pose straight."""
    lengths = np.asarray(lengths, dtype=float)
    offsets = np.zeros((len(lengths), 3))
    offsets[1:, 1] = lengths[:-1]
    rest = np.tile([0.0, 0.0, 0.0, 1.0], (len(lengths), 1))
    return Chain(np.eye(4) if base is None else base, offsets, rest, lengths)


def chain_pose(chain, rotations, stretch=None):
    """Rigid world rotations (n, 3, 3) of every bone and the chain's points (n + 1, 3): every
    head, then the last bone's tail, for pose ``rotations`` (n, 4) and optional ``stretch`` (n,).
    Runs the one forward kinematics (``solvers.kinematics``) on the chain as a bone hierarchy."""
    n = len(chain)
    hierarchy = chain.cached_for_base("hierarchy", lambda: bone_hierarchy(
        chain.base, np.arange(n, dtype=np.int64) - 1, chain.offsets, chain.rest_rotations))
    world, frames = kinematics.stretched_world(hierarchy, rotations, stretch)
    points = np.empty((n + 1, 3))
    points[:n] = world[:, :3, 3]
    points[n] = points[n - 1] + world[n - 1, :3, 1] * chain.lengths[-1]
    return frames, points


class Hierarchy(NamedTuple):
    """Bones as ``kinematics.update_world`` takes a skeleton: each bone's rest matrix in its
    parent's frame (the base folded into the roots'), parents, the bones in order, and zero pose
    locations."""
    rest_local: np.ndarray
    parents: np.ndarray
    bones: np.ndarray
    locations: np.ndarray


def bone_hierarchy(base, parents, offsets, rest_rotations):
    """The ``Hierarchy`` of bones hanging from ``base`` (4, 4): ``parents`` (n,) int64, -1 for the
    base; ``offsets`` and ``rest_rotations`` as a Chain's."""
    n = len(parents)
    rest_local = np.zeros((n, 4, 4))
    rest_local[:, :3, :3] = quat_to_matrix3(rest_rotations)
    rest_local[:, :3, 3] = offsets
    rest_local[:, 3, 3] = 1.0
    roots = parents < 0
    rest_local[roots] = base @ rest_local[roots]
    return Hierarchy(rest_local, np.ascontiguousarray(parents, dtype=np.int64), np.arange(n, dtype=np.int64),
                     np.zeros((n, 3)))


def chain_frames(chain, rotations, stretch=None):
    """World frames (n, 4, 4) of every bone for pose ``rotations`` (n, 4), each bone's stretch
    included as its (uniform) scale, so tails are ``frames[:, :3, 3] + frames[:, :3, 1] * lengths``."""
    world, points = chain_pose(chain, rotations, stretch)
    frames = np.zeros((len(chain), 4, 4))
    frames[:, :3, :3] = world
    if stretch is not None:
        frames[:, :3, :3] *= np.asarray(stretch, float)[:, None, None]
    frames[:, :3, 3] = points[:-1]
    frames[:, 3, 3] = 1.0
    return frames


def chain_points(chain, rotations, stretch=None):
    """Heads of every bone plus the last tail, (n + 1, 3)."""
    return chain_pose(chain, rotations, stretch)[1]


# How much less far than a far target a stretched chain reaches, relative to the distance.
STRETCH_SHORT = 1e-10


@dataclass
class StretchedChain:
    """A chain with its bones grown to reach a far target: ``chain`` to solve on and ``factors``
    (n,), each bone's whole stretch (``SolveResult.stretch``)."""
    chain: Chain
    factors: np.ndarray


def grown_factors(spans, rates, distance):
    """Blender's IK stretch of segments laid straight: per segment (``spans`` (n,), metres, each
    scaled whole by its bone's stretch) the stretch ``1 + grow * rates`` (``rates`` (n,) per metre
    of extra length) with ``grow`` shared so the segments reach a hair (``STRETCH_SHORT``) less
    far than ``distance``. None when nothing can grow or ``distance`` is within reach (or NaN)."""
    spans, rates = np.asarray(spans, dtype=float), np.asarray(rates, dtype=float)
    reach, give = float(spans.sum()), float(rates @ spans)
    distance = float(distance)
    if give <= EPS or not distance > reach:
        return None
    return 1.0 + max((distance * (1.0 - STRETCH_SHORT) - reach) / give, 0.0) * rates


def stretch_to_reach(chain, target, amounts):
    """Blender's IK stretch for the iterative solvers: when ``target`` (3,) lies beyond the
    chain's reach, stretch bone i by ``1 + grow * rates[i]`` (``grown_factors``), each rate giving the bone its
    share of the extra length (``scalar.stretch_share`` of its amount), ``grow`` shared so the grown chain
    reaches a hair (``STRETCH_SHORT``) less far than the target: a target just out of reach is
    met by laying the chain straight, in one pass, where one exactly at full extension is
    approached slowly. Returns a StretchedChain, or None when nothing stretches (no amounts, or
    the target within reach)."""
    if amounts is None:
        return None
    amounts = np.asarray(amounts, dtype=float)
    # Shares are relative: amounts over 1 are taken as fractions of the largest, so cubing cannot overflow.
    rates = scalar.stretch_share(amounts / max(amounts.max(), 1.0)) / np.maximum(chain.lengths, EPS)
    factors = grown_factors(chain.shape.float_spans, rates, np.linalg.norm(np.asarray(target, dtype=float) - chain.root))
    if factors is None:
        return None
    offsets = chain.offsets.copy()
    offsets[1:] *= factors[:-1, None]
    grown = Chain(chain.base, offsets, chain.rest_rotations, chain.lengths * factors)
    return StretchedChain(grown, factors)


def face_pole(chain, rotations, target, pole, pole_angle, first_limits=()):
    """Blender's pole step, taken before an iterative solve bends the chain: turn the chain's
    first bone until the chain in its rest shape would point its tip at ``target`` and, rolled
    about that line, its "up" vector ``X cos(pole_angle) + Z sin(pole_angle)`` would face ``pole``
    (both (3,), world). The other bones keep their rotations. The rest shape stands for the FK pose
    Blender starts from: taking the current bends instead would creep the roll from one solve to
    the next in continuous mode. Returns rotations (n, 4); the same ones when a point is not
    finite, or the target or the rest tip sits at the root (a pole parallel to the aim is ignored).
    ``first_limits`` (the first bone's limits, as ``validate_limits`` gives them) hold the turn: a
    base that may only turn about Y turns about Y as near as it can to facing the pole."""
    target, pole = tuple(np.asarray(target, float).tolist()), tuple(np.asarray(pole, float).tolist())
    base_q, _, _, rest_rotations, _ = chain.floats
    rest_points = chain.float_rest_points  # cached: this runs on every solve of a chain with a pole
    root, to_rest = rest_points[0], scalar.qconj(scalar.qmul(base_q, rest_rotations[0]))
    to_target = scalar.qrotate(to_rest, scalar.sub(target, root))  # the first bone's rest frame from here on
    tip = scalar.qrotate(to_rest, scalar.sub(rest_points[-1], root))
    if not all(map(math.isfinite, to_target + pole)) or min(scalar.length(to_target), scalar.length(tip)) < EPS:
        return rotations
    turned, _ = scalar.aim(tuple(rotations[0]), scalar.normalize(tip), scalar.normalize(to_target),
                           scalar.qrotate(to_rest, scalar.sub(pole, root)),
                           (math.cos(pole_angle), 0.0, math.sin(pole_angle)))
    rotations = np.array(rotations, dtype=float)
    rotations[0] = clamp_rotation(first_limits, np.array(turned))[0] if first_limits else turned
    return rotations


@dataclass
class SolveResult:
    """What every solve returns. ``rotations`` (n, 4) are the chain's new pose rotations, ``stretch``
    (n,) each bone's whole uniform stretch (ones without stretch; see the module doc), ``errors`` the
    residual per goal (metres for positions, radians for rotations), ``at_limit`` (n, 3) booleans per
    bone and local axis; ``units`` each residual's unit ("m" or "rad") where ``solvers.methods.solve``
    ran it. Left out, ``stretch`` and ``at_limit`` are shared read-only arrays of ones and False."""
    rotations: np.ndarray
    iterations: int
    errors: np.ndarray
    converged: bool
    stretch: np.ndarray = None
    at_limit: np.ndarray = field(default=None)
    units: tuple = ()

    def __post_init__(self):
        if self.stretch is None or self.at_limit is None:
            n = len(self.rotations)
            defaults = _UNSTRETCHED_UNLIMITED.get(n) or _unstretched_unlimited(n)
            self.stretch = defaults[0] if self.stretch is None else self.stretch
            self.at_limit = defaults[1] if self.at_limit is None else self.at_limit


_UNSTRETCHED_UNLIMITED = {}


def _unstretched_unlimited(n):
    """``SolveResult``'s defaults for n bones, made once: making them per solve cost a tenth of a
    two-bone solve. Read-only, so sharing them cannot leak a change from one result to another."""
    ones, unlimited = np.ones(n), np.zeros((n, 3), dtype=bool)
    ones.flags.writeable = unlimited.flags.writeable = False
    _UNSTRETCHED_UNLIMITED[n] = ones, unlimited
    return ones, unlimited
