"""Foot planting: each foot set flush on the ground under it, the knees bent through their poles,
the body raised or lowered as far as the legs allow (the IK overview's technique).

For each leg (``rig.feet``): a ray straight down from the ankle finds the ground point; rays
under the sole's points (heel, ball, toe, sides, the foot laid level) give the normal, their
mean, so a foot on rocks follows the ground's lie rather than one pebble's face. The foot turns
so its sole lies along that normal with its heading (the direction its toes point, seen from
above) kept; the ankle keeps its place seen from above and goes to the sole's height above the
ground point, then up as far as any sole point (or lowest skin vertex, ``rig.feet``) would be
under the ground. Both are written into
the leg's IK handle, so the rig's two-bone solve bends the knee through its pole (and a foot
copying the handle's rotation turns with it).

The hips then move straight up or down until the leg that must reach farthest is at the reach
it had, the straighter leg's, but never beyond ``NATURAL_REACH`` of its length: standing legs
end nearly straight and never locked; a crouch keeps its depth. The other IK handles and poles
of the body (hands, knee poles) move with the hips, so the body above keeps its pose. Ankles keep their places seen
from above, so planting a planted pose changes nothing, and the live option can plant after
every solve of a drag.
"""
from dataclasses import dataclass, field

import numpy as np

from rig.autorig import auto_rig
from rig.evaluate import evaluation
from rig.feet import UP, ankle_of, find_legs, leg_length, sole_of
from rig.limb_roles import SIDES
from rig.pose import Pose, location_for_head, rotation_for_world, update_world, world_matrices
from solvers.transforms import matrix3_to_quat

NATURAL_REACH = 0.99  # of a leg's length: a planted standing leg's knee is bent about 16°, never locked
REACH_TOLERANCE = 1e-4  # metres: an ankle this near its planted place reached it


@dataclass(frozen=True)
class FootPlant:
    """Where one foot went: its leg's ``role``, the ground ``contact`` under the ankle and the
    ground's ``normal`` used; ``reached``: the ankle got there (False: beyond the leg's reach
    from where the hips could go)."""
    role: str
    contact: np.ndarray
    normal: np.ndarray
    reached: bool


@dataclass
class PlantResult:
    """``evaluation`` (a ``rig.evaluate.Evaluation``) of the planted pose, what each foot did
    (``feet``, a ``FootPlant`` per leg planted), how far the hips moved up (``lift``, metres,
    negative: down) and ``warnings`` (one line each: a leg with no IK, a foot over no ground)."""
    evaluation: object
    feet: list = field(default_factory=list)
    lift: float = 0.0
    warnings: list = field(default_factory=list)

    @property
    def pose(self):
        return self.evaluation.pose


@dataclass(frozen=True)
class _Target:
    leg: object
    ankle: np.ndarray
    rotation: np.ndarray
    contact: np.ndarray
    normal: np.ndarray


def plant(rig, pose, ground, legs, world=None):
    """``PlantResult`` of planting ``pose``'s feet on ``ground`` (anything with
    ``surface_under``); ``legs`` is ``rig.feet.find_legs(rig)``. ``pose`` is not changed. Given
    ``world``, ``pose`` is taken as solved already (``rig.evaluate``'s channels to keep) with
    those world matrices, and is not solved again first."""
    skel = rig.skeleton
    first = evaluation(rig, pose) if world is None else None
    world = first.world if world is None else world
    warnings = list(legs.problems)
    targets = []
    for leg, target in zip(legs.legs, _foot_targets(skel, world, legs.legs, ground)):
        if target is None:
            warnings.append(f"{leg.role}: no ground under '{skel.names[leg.foot]}'; left as it is")
        else:
            targets.append(target)
    if not targets:
        return PlantResult(first or evaluation(rig, pose), [], 0.0, warnings)
    planted = (pose if first is None else first.pose).copy()
    planted_world = world_matrices(skel, planted)
    lift = _hips_lift(skel, planted_world, targets)
    if legs.hips >= 0 and lift != 0.0:
        for bone in [legs.hips] + _carried(rig, legs):
            head = planted_world[bone, :3, 3] + UP * lift
            planted.locations[bone] = location_for_head(skel, planted, planted_world, bone, head)
            update_world(skel, planted, planted_world, [bone])
    for target in targets:
        _place_handle(skel, planted, planted_world, target)
    result = evaluation(rig, planted)
    loose = [t for t in targets if not t.leg.copies_rotation]
    if loose:  # feet that do not copy their handle's rotation are turned directly, on the solved legs
        planted = result.pose.copy()
        for target in loose:
            planted.rotations[target.leg.foot] = rotation_for_world(skel, result.world, target.leg.foot,
                                                                    target.rotation)
        result = evaluation(rig, planted)
    feet = [FootPlant(t.leg.role, t.contact, t.normal,
                      bool(np.linalg.norm(ankle_of(skel, result.world, t.leg) - t.ankle) <= REACH_TOLERANCE))
            for t in targets]
    warnings += [f"{f.role}: the foot cannot reach the ground from where the hips can go"
                 for f in feet if not f.reached]
    return PlantResult(result, feet, lift, warnings)


def _foot_targets(skel, world, legs, ground):
    """Per leg, its planted ankle and foot rotation (a ``_Target``), or None over no ground. The
    ground is asked twice for all feet together: under the level feet, then under the placed soles."""
    ankles = [ankle_of(skel, world, leg) for leg in legs]
    headings = [_heading(world[leg.foot, :3, :3] / np.linalg.norm(world[leg.foot, :3, :3], axis=0), leg)
                for leg in legs]
    probes = [np.r_[[ankle], ankle + leg.sole_points @ _rotation(leg, UP, heading).T]
              for leg, ankle, heading in zip(legs, ankles, headings)]
    under = _split(ground.surface_under(np.concatenate(probes)) if probes else None, probes)
    placed = []
    for leg, ankle, heading, (points, normals, hit) in zip(legs, ankles, headings, under):
        if not hit[0]:
            placed.append(None)
            continue
        normal = normals[hit].sum(axis=0)
        normal /= np.linalg.norm(normal)
        rotation = _rotation(leg, normal, heading)
        target = ankle.copy()
        target[1] = points[0, 1] + leg.ankle_height / normal[1]
        placed.append(_Target(leg, target, rotation, points[0], normal))
    soles = [t.ankle + np.r_[t.leg.sole_points, t.leg.skin_points] @ t.rotation.T for t in placed if t is not None]
    below = iter(_split(ground.surface_under(np.concatenate(soles)) if soles else None, soles))
    for target, sole in zip((t for t in placed if t is not None), soles):
        points, _, hit = next(below)
        sunk = points[hit, 1] - sole[hit, 1]  # lift the foot off whatever its sole went into
        target.ankle[1] += max(float(sunk.max()) if len(sunk) else 0.0, 0.0)
    return placed


def _split(hits, groups):
    """``hits`` (a GroundHits for the concatenated ``groups`` of points) as (point, normal, hit) per group."""
    out, start = [], 0
    for group in groups:
        rows = slice(start, start + len(group))
        out.append((hits.point[rows], hits.normal[rows], hits.hit[rows]))
        start += len(group)
    return out


def _heading(basis, leg):
    """The foot's heading: where its toes point seen from above (unit, level); a foot pointing
    straight down or up takes the way its sole faces away from, then +Z."""
    for direction in (basis @ leg.sole_forward, -(basis @ leg.sole_normal), np.array([0.0, 0.0, 1.0])):
        level = direction - UP * direction[1]
        if np.linalg.norm(level) > 1e-6:
            return level / np.linalg.norm(level)
    return np.array([0.0, 0.0, 1.0])


def _rotation(leg, normal, heading):
    """The foot's world rotation putting its sole normal on ``normal`` with its forward seen from
    above along ``heading``: forward = heading tilted into the plane normal to ``normal``."""
    forward = heading - UP * (heading @ normal) / normal[1]
    forward /= np.linalg.norm(forward)
    side = np.array([normal[1] * forward[2] - normal[2] * forward[1], normal[2] * forward[0] - normal[0] * forward[2],
                     normal[0] * forward[1] - normal[1] * forward[0]])  # normal x forward, without np.cross's overhead
    return np.column_stack([normal, forward, side]) @ leg.sole_frame.T


def _hips_lift(skel, world, targets):
    """How far the hips move up (module doc): the most any leg allows at the reach kept."""
    reaches, lifts = [], []
    for target in targets:
        length = leg_length(skel, world, target.leg)
        hip, ankle = world[target.leg.upper, :3, 3], ankle_of(skel, world, target.leg)
        reaches.append(np.linalg.norm(ankle - hip) / length)
    reach = min(max(reaches), NATURAL_REACH)
    for target in targets:
        span = reach * leg_length(skel, world, target.leg)
        offset = target.ankle - world[target.leg.upper, :3, 3]
        across = float(np.hypot(offset[0], offset[2]))
        lifts.append(offset[1] + (np.sqrt(span * span - across * across) if across < span else 0.0))
    return float(min(lifts))


def _carried(rig, legs):
    """The handles and poles that move with the hips: those of IK chains hanging from the hips
    (arms, head) and the legs' poles, where they are not already below the hips; so the body
    above keeps its pose and the knees keep their way."""
    skel = rig.skeleton
    below = set(skel.subtree(legs.hips).tolist())
    feet = {leg.handle for leg in legs.legs}
    bones = []
    for constraint in rig.ik:
        if not constraint.enabled or not below.intersection(rig.ik_chain(constraint)):
            continue
        for name in (constraint.target, constraint.pole_target):
            bone = skel.index.get(name) if name else None
            if bone is not None and bone not in below and bone not in feet and bone not in bones:
                bones.append(bone)
    return [b for b in bones if not set(skel.ancestors(b)).intersection(bones)]  # a child moves with its parent


def _place_handle(skel, pose, world, target):
    """Pose the leg's IK handle at the planted ankle, turned as the foot is to be (its parent as
    in ``world``), and update ``world`` below it."""
    handle = target.leg.handle
    parent = world[skel.parents[handle]] if skel.parents[handle] >= 0 else np.eye(4)
    wanted = np.eye(4)
    wanted[:3, :3], wanted[:3, 3] = target.rotation, target.ankle
    local = np.linalg.solve(parent @ skel.rest_local[handle], wanted)
    pose.rotations[handle] = matrix3_to_quat(local[:3, :3])
    pose.locations[handle] = local[:3, 3]
    update_world(skel, pose, world, [handle])


def sole_report(rig, world, legs, ground):
    """Per leg planted: (role, worst angle between sole and ground normals (radians), worst
    distance of a sole point from the ground straight below or above it (metres)), for the
    tests and the command's report."""
    out = []
    for leg in legs.legs:
        points, normal = sole_of(world, leg, ankle_of(rig.skeleton, world, leg))
        hits = ground.surface_under(points)
        if not hits.hit.any():
            continue
        cosines = np.clip(hits.normal[hits.hit] @ normal, -1.0, 1.0)
        gaps = np.abs(points[hits.hit, 1] - hits.point[hits.hit, 1]) * hits.normal[hits.hit, 1]
        out.append((leg.role, float(np.arccos(cosines.min())), float(gaps.max())))
    return out


def plant_any_rig(rig, pose, ground):
    """Plant ``pose`` of ``rig`` whether or not its legs have IK: a rig without is set up
    automatically (``rig.autorig``) for the solve and the result given back as channels of its
    own bones, each constraint's effect in them. Returns (Pose of ``rig``, PlantResult)."""
    legs = find_legs(rig)
    if len(legs.legs) == len(SIDES):
        result = plant(rig, pose, ground, legs)
        return result.pose, result
    rigged, _, rigged_pose = auto_rig(rig, pose)
    result = plant(rigged, rigged_pose, ground, find_legs(rigged))
    shown, count = result.evaluation.shown, len(rig.skeleton)
    return Pose(shown.rotations[:count].copy(), shown.locations[:count].copy(), shown.scales[:count].copy()), result
