"""A rig's legs as foot planting sees them: the two-bone IK that bends each leg, and each foot's
sole, taken from the rest pose.

A leg is usable when the automatic IK set-up (``rig.autorig``) or the user gave it an IK
constraint on its lower bone with a chain of 2 (the two-bone analytic solve), aimed at a handle
bone; the foot follows the handle's rotation when a Copy Rotation says so, else planting turns
it itself.

The sole. In the rest pose a figure stands on the grid's plane when its feet do (the lowest point
of a foot within one foot's length above y = 0), else on its lowest foot point; a foot with a skin
(``rig.skin_contacts``) stands on its skin's lowest vertex: that plane is the sole, its normal +Y,
the foot pointing along its horizontal direction from the ankle to the toes' farthest tip. Points on the sole (heel, ball, toe, the sides) are kept in the foot's frame, so a
posed foot's sole is where its bone carries them; so are the skin's lowest vertices (those ground
contact always asks for), which planting keeps out of the ground. The ankle is the IK chain's tip:
the lower bone's tail, where the handle pulls.
"""
from dataclasses import dataclass

import numpy as np

from rig.limb_roles import SIDES, recognise

UP = np.array([0.0, 1.0, 0.0])
HEEL_BACK = 0.25  # of the foot's length (ankle to toe tip, level): how far the heel is behind the ankle
SOLE_HALF_WIDTH = 0.2  # of the foot's length: the sole's half width at heel and ball


@dataclass(frozen=True)
class Leg:
    """One leg: ``role`` ("leg.L"), bone indices ``upper``, ``lower``, ``foot``, the IK ``handle``
    (and whether the foot copies its rotation: ``copies_rotation``); the sole in the foot's rest
    frame relative to the ankle: ``sole_normal`` and ``sole_forward`` (unit, (3,)) and
    ``sole_points`` (K, 3; the first is the point under the ankle), and ``ankle_height`` above it;
    ``skin_points`` (S, 3) the skin's lowest vertices, as the sole points are kept (none without a
    skin)."""
    role: str
    upper: int
    lower: int
    foot: int
    handle: int
    copies_rotation: bool
    sole_normal: np.ndarray
    sole_forward: np.ndarray
    sole_points: np.ndarray
    ankle_height: float
    sole_frame: np.ndarray  # (3, 3): columns sole normal, sole forward and their cross product
    skin_points: np.ndarray


@dataclass(frozen=True)
class Legs:
    """The rig's usable ``legs``, the bone that carries the body (``hips``, moved to raise or
    lower it; -1 when none), and ``problems``: one line per leg that cannot be planted."""
    legs: tuple
    hips: int
    problems: tuple


def find_legs(rig):
    """The ``Legs`` of ``rig`` (module doc)."""
    skel = rig.skeleton
    report = recognise(skel)
    legs, problems = [], []
    for side in SIDES:
        role = f"leg.{side}"
        if role not in report.roles:
            problems.append(f"{role}: no leg found")
            continue
        upper, lower, foot = (skel.index[name] for name in report.roles[role])
        constraint = next((c for c in rig.ik if c.bone == skel.names[lower] and c.target and c.enabled), None)
        if constraint is None or list(rig.ik_chain(constraint)) != [upper, lower]:
            problems.append(f"{role}: no two-bone IK on '{skel.names[lower]}' (set up IK automatically first)")
            continue
        copies = any(c.bone == skel.names[foot] and c.target == constraint.target and c.enabled
                     for c in rig.copy_rotation)
        legs.append(_leg(skel, role, upper, lower, foot, skel.index[constraint.target], copies,
                         np.asarray(report.facing, dtype=float), _rest_skin(rig, foot)))
    return Legs(tuple(legs), _hips(skel, [leg.upper for leg in legs]), tuple(problems))


def _hips(skeleton, uppers):
    """The legs' nearest common ancestor, or its first ancestor not connected to its parent (a
    connected bone's head cannot move off its parent's tail)."""
    if not uppers:
        return -1
    lines = [skeleton.ancestors(u) for u in uppers]
    common = next((b for b in lines[0] if all(b in line for line in lines[1:])), -1)
    while common >= 0 and skeleton.connected[common] and skeleton.parents[common] >= 0:
        common = int(skeleton.parents[common])
    return common


def _rest_skin(rig, foot):
    """(the foot's skin vertices (V, 3), which of them ground contact always asks for (V,)) in the
    rest pose, (0, 3) and (0,) without a skin."""
    skin = rig.skin_contacts
    if skin is None:
        return np.zeros((0, 3)), np.zeros(0, bool)
    mine = skin.feet == foot
    return np.asarray(skin.skin.positions, dtype=float)[mine], skin.chosen[mine]


def _leg(skeleton, role, upper, lower, foot, handle, copies, facing, skin):
    rest = skeleton.rest_world
    ankle = skeleton.rest_tails[lower]
    foot_bones = skeleton.subtree(foot)
    points = np.r_[skeleton.rest_heads[foot_bones], skeleton.rest_tails[foot_bones]]
    tip = points[np.argmax(np.linalg.norm((points - ankle)[:, [0, 2]], axis=1))]
    level = tip - ankle
    level[1] = 0.0
    length = float(np.linalg.norm(level))
    forward = level / length if length > 1e-9 else facing / np.linalg.norm(facing)
    length = length if length > 1e-9 else float(skeleton.lengths[foot])
    lowest = float(points[:, 1].min())
    skin_points, chosen = skin
    ground = float(skin_points[:, 1].min()) if len(skin_points) else 0.0 if 0.0 <= lowest <= length else lowest
    side = np.cross(UP, forward)
    under = np.array([ankle[0], ground, ankle[2]])
    ball = skeleton.rest_tails[foot].copy()
    ball[1] = ground
    heel = under - forward * HEEL_BACK * length
    toe = np.array([tip[0], ground, tip[2]])
    width = SOLE_HALF_WIDTH * length
    world_points = np.array([under, heel + side * width, heel - side * width, ball + side * width,
                             ball - side * width, toe])
    basis = rest[foot, :3, :3]
    normal, forward = basis.T @ UP, basis.T @ forward
    return Leg(role, upper, lower, foot, handle, copies, normal, forward, (world_points - ankle) @ basis,
               float(ankle[1] - ground), np.column_stack([normal, forward, np.cross(normal, forward)]),
               (skin_points[chosen] - ankle) @ basis)


def leg_length(skeleton, world, leg):
    """The leg's hip-to-ankle length when straight, as posed (bone scales included)."""
    return float(sum(skeleton.lengths[b] * np.linalg.norm(world[b, :3, 1]) for b in (leg.upper, leg.lower)))


def ankle_of(skeleton, world, leg):
    """The ankle (the lower bone's tail, the IK chain's tip) in world space."""
    return world[leg.lower, :3, 3] + world[leg.lower, :3, 1] * skeleton.lengths[leg.lower]


def sole_of(world, leg, ankle):
    """(sole points (K, 3), sole normal (3,)) of the posed foot, its ankle at ``ankle``."""
    basis = world[leg.foot, :3, :3] / np.linalg.norm(world[leg.foot, :3, :3], axis=0)
    return ankle + leg.sole_points @ basis.T, basis @ leg.sole_normal
