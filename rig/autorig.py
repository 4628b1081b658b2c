"""Automatic IK set-up for humanoids: find arms, legs, spine and head, then add hand/foot IK
handles and elbow/knee poles the way assets/humanoid.json has them.

Recognition. Names first: a bone is a hand (wrist) or a foot (ankle) when its name, stripped of a
namespace (``mixamorig:``), a Rigify prefix (``DEF-``, ``ORG-``), a side marker (``.L``/``_r``/
``-L``, ``Left``/``right`` prefixes or suffixes, ``L_``, a capital ``L``/``R`` before a capital as
in CMU's ``LHipJoint``) and separators, is exactly that word; the limb's two IK bones are its
parent and grandparent. When names say nothing, the hierarchy is read instead: a branch point is a
bone with a mirrored pair of children (heads mirrored about X within 5% of the figure, subtrees of
equal size) besides a central one; the lower branch point is the hips and its pair the legs, the
other the chest and its pair the arms (a bone left of +X is ``.L``). Along a limb, a foot is the
first bone after the thigh and shin that runs more across than down; a hand is the first bone that
branches (into fingers) or the limb's last bone. Spine: the bones from the hips (the legs' common
ancestor) up to the arms' common ancestor; neck and head above it.

Set-up. Each limb gets an IK constraint on its lower bone (chain of 2) aimed at a handle bone
shaped like the hand/foot but sitting at the lower bone's tail, a copy-rotation from the handle
to the hand/foot, and a pole bone level with the knee / elbow, 0.6 limb lengths out from the
shoulder/hip-to-wrist/ankle line in the direction the limb bends (+Z for knees and -Z for elbows
when the limb is straight). Handles and
poles hang from the root when the root is a non-deforming master bone (not part of the body, as
in the humanoid), else they have no parent, so moving the hips does not drag planted feet. Pole
angles are computed so the rest pose is already solved, and ``snap_handles`` moves the handles of a
pose so that pose is (joint for joint) the IK solution, e.g. a BVH frame.
"""
import copy
import re
from dataclasses import dataclass, field

import numpy as np

from rig.constraints import CopyRotationConstraint, IKConstraint
from rig.solver_views import chain_arrays
from rig.pose import Pose, location_for_head, world_matrices
from rig.rig import Rig
from rig.skeleton import Skeleton, bone_frame
from solvers.transforms import matrix3_to_quat, normalize
from solvers.two_bone import pole_facing

LIMBS = (("arm", ("hand", "wrist"), "hand_ik", "elbow_pole"), ("leg", ("foot", "ankle"), "foot_ik", "knee_pole"))
STRAIGHT_POLE = {"arm": np.array([0.0, 0.0, -1.0]), "leg": np.array([0.0, 0.0, 1.0])}
POLE_DISTANCE = 0.6  # limb lengths from the elbow / knee
MIRROR_TOLERANCE = 0.05  # fraction of the figure's size
SIDES = ("L", "R")

_PREFIX = re.compile(r"^(?:[^:]*:)?(?:(?:DEF|ORG|MCH)-)?")
_SIDE_PATTERNS = (
    (re.compile(r"[._\- ]([LlRr])$"), lambda m: m.group(1).upper()),
    (re.compile(r"[._\- ]?(Left|Right|left|right|LEFT|RIGHT)$"), lambda m: m.group(1)[0].upper()),
    (re.compile(r"^(Left|Right|left|right|LEFT|RIGHT)[._\- ]?"), lambda m: m.group(1)[0].upper()),
    (re.compile(r"^([LlRr])[._\- ]"), lambda m: m.group(1).upper()),
    (re.compile(r"^([LR])(?=[A-Z])"), lambda m: m.group(1)),
)


@dataclass
class AutoRigReport:
    """What was recognised and made, for a panel to show. ``roles`` maps a role ("hips", "spine",
    "neck", "head", "arm.L", "leg.R", ...) to bone names (a limb: upper, lower, hand/foot);
    ``found_by`` maps a limb role to "names" or "hierarchy"; ``created`` lists the new bones and
    ``handles`` maps a limb role to its (IK handle, pole) bone names."""
    roles: dict = field(default_factory=dict)
    found_by: dict = field(default_factory=dict)
    created: list = field(default_factory=list)
    handles: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)


def split_name(name):
    """(side "L"/"R"/None, bare lower-case part name) of a bone name (see module doc)."""
    bare = _PREFIX.sub("", name)
    side = None
    for pattern, which in _SIDE_PATTERNS:
        match = pattern.search(bare)
        if match:
            side = which(match)
            bare = bare[:match.start()] + bare[match.end():]
            break
    return side, re.sub(r"[^a-z0-9]", "", bare.lower())


def _limb_by_names(skeleton, parts, words, side):
    """(upper, lower, end) indices of the first limb whose end bone is named one of ``words`` on
    ``side``; ``parts`` maps each (side, bare name) to its bones in order (see ``split_name``)."""
    for i in sorted(i for w in words for i in parts.get((side, w), ())):
        chain = [i] + skeleton.ancestors(i)[:2]
        if len(chain) == 3:
            return chain[::-1]
    return None


def _subtree_sums(skeleton, values):
    """Each bone's value plus those of all its descendants (bones are parents-first)."""
    sums = np.array(values, dtype=float)
    for i in range(len(skeleton) - 1, -1, -1):
        if skeleton.parents[i] >= 0:
            sums[skeleton.parents[i]] += sums[i]
    return sums


def _subtree_sizes(skeleton):
    return _subtree_sums(skeleton, np.ones(len(skeleton))).astype(int)


def _branch_points(skeleton, sizes):
    """[(bone, left child, right child)]: bones with at least three children, two of them a
    mirrored pair (subtrees of equal size whose centres mirror about X, off the centre line)."""
    heads = skeleton.rest_heads
    tolerance = MIRROR_TOLERANCE * max(float(np.ptp(heads, axis=0).max()), 1e-9)
    centres = _subtree_sums(skeleton, heads) / sizes[:, None]  # mean head of each subtree
    out = []
    for b in range(len(skeleton)):
        kids = [int(k) for k in skeleton.children(b) if sizes[k] > 1]
        if len(skeleton.children(b)) < 3:
            continue
        for left in kids:
            for right in kids:
                mirrored = centres[left] * [-1.0, 1.0, 1.0] - centres[right]
                if sizes[left] == sizes[right] and centres[left, 0] > tolerance \
                        and np.linalg.norm(mirrored) < tolerance:
                    out.append((b, left, right))
    return out


def _main_chain(skeleton, start, sizes):
    """``start`` and then, at each bone, its child with the largest subtree, down to a leaf."""
    chain = [start]
    while len(skeleton.children(chain[-1])):
        kids = skeleton.children(chain[-1])
        chain.append(int(kids[np.argmax(sizes[kids])]))
    return chain


def _limb_from_chain(skeleton, chain, kind):
    """(upper, lower, end) along a limb's chain of bones (module doc), or None."""
    rest = skeleton.rest_world
    for k in range(2, len(chain)):
        i = chain[k]
        if kind == "leg":
            along = rest[i, :3, 1]
            is_end = abs(along[1]) < np.linalg.norm(along[[0, 2]])
        else:
            is_end = len(skeleton.children(i)) >= 2 or k == len(chain) - 1
        if is_end:
            return chain[k - 2:k + 1]
    return None


def _limbs_by_hierarchy(skeleton):
    """{("arm"|"leg", side): (upper, lower, end)} from the two lowest branch points."""
    sizes = _subtree_sizes(skeleton)
    points = sorted(_branch_points(skeleton, sizes), key=lambda p: -sizes[p[0]])
    if len(points) < 2:
        return {}
    heads = skeleton.rest_heads
    hips = points[0]

    def inside_pair(b):
        return any(side == b or side in skeleton.ancestors(b) for side in hips[1:])
    chest = next((p for p in points[1:] if not inside_pair(p[0])), None)
    if chest is None:
        return {}
    if heads[hips[1], 1] > heads[chest[1], 1]:  # the legs' pair is the lower one
        hips, chest = chest, hips
    out = {}
    for kind, (_, left, right) in (("leg", hips), ("arm", chest)):
        for side, start in zip(SIDES, (left, right)):
            limb = _limb_from_chain(skeleton, _main_chain(skeleton, start, sizes), kind)
            if limb:
                out[(kind, side)] = limb
    return out


def _common_ancestor(skeleton, a, b):
    line = [a] + skeleton.ancestors(a)
    for c in [b] + skeleton.ancestors(b):
        if c in line:
            return c
    return None


def _torso(skeleton, report, legs, arms):
    """Hips, spine, neck and head from the limbs' attachment points and names."""
    names = skeleton.names
    hips = _common_ancestor(skeleton, *legs) if legs else None
    chest = _common_ancestor(skeleton, *arms) if arms else None
    if hips is None or chest is None or hips not in skeleton.ancestors(chest):
        return
    report.roles["hips"] = [names[hips]]
    spine = [chest] + skeleton.ancestors(chest)
    report.roles["spine"] = [names[i] for i in spine[:spine.index(hips)][::-1]]
    for side, upper in zip(SIDES, arms):
        if skeleton.parents[upper] != chest:
            report.roles[f"shoulder.{side}"] = [names[skeleton.parents[upper]]]
    sizes = _subtree_sizes(skeleton)
    above = [c for c in skeleton.children(chest) if not any(a == c or c in skeleton.ancestors(a) for a in arms)]
    if not above:
        return
    up = _main_chain(skeleton, int(max(above, key=lambda c: sizes[c])), sizes)
    named_head = [k for k, i in enumerate(up) if split_name(names[i])[1] == "head"]
    head = named_head[0] if named_head else len(up) - 1
    report.roles["neck"] = [names[i] for i in up[:head]]
    report.roles["head"] = [names[up[head]]]


def recognise(skeleton):
    """An AutoRigReport with the roles of ``skeleton``'s bones (no bones created yet)."""
    report = AutoRigReport()
    by_hierarchy = None
    parts = {}
    for i, name in enumerate(skeleton.names):  # split once: names are matched for every limb
        parts.setdefault(split_name(name), []).append(i)
    for kind, words, _, _ in LIMBS:
        for side in SIDES:
            limb = _limb_by_names(skeleton, parts, words, side)
            how = "names"
            if limb is None:
                by_hierarchy = _limbs_by_hierarchy(skeleton) if by_hierarchy is None else by_hierarchy
                limb, how = by_hierarchy.get((kind, side)), "hierarchy"
            if limb is None:
                report.warnings.append(f"no {kind} found on the {'left' if side == 'L' else 'right'}")
                continue
            report.roles[f"{kind}.{side}"] = [skeleton.names[i] for i in limb]
            report.found_by[f"{kind}.{side}"] = how
    index = skeleton.index
    legs = [index[report.roles[f"leg.{s}"][0]] for s in SIDES if f"leg.{s}" in report.roles]
    arms = [index[report.roles[f"arm.{s}"][0]] for s in SIDES if f"arm.{s}" in report.roles]
    _torso(skeleton, report, legs if len(legs) == 2 else None, arms if len(arms) == 2 else None)
    return report


def pole_angle(root_frame, tip, pole):
    """Blender pole angle that leaves a chain as it is: the angle a about the first bone's Y axis
    for which X cos a + Z sin a (of ``root_frame``, 4x4), made perpendicular to the line from the
    bone's head to ``tip``, faces ``pole`` (both (3,), armature space)."""
    head = root_frame[:3, 3]
    d = normalize(np.asarray(tip, dtype=float) - head)

    def perp(v):
        return v - d * np.dot(v, d)
    px, pz, toward = perp(root_frame[:3, 0]), perp(root_frame[:3, 2]), perp(np.asarray(pole, dtype=float) - head)
    (c, s), *_ = np.linalg.lstsq(np.column_stack([px, pz]), toward, rcond=None)
    return float(np.arctan2(s, c))


def _pole_point(root, mid, tip, toward, fallback, distance):
    """A pole ``distance`` from the root-to-tip line, level with ``mid``, in the direction of
    ``toward`` made perpendicular to that line (``fallback`` where ``toward`` is along it)."""
    axis = normalize(tip - root)
    level = root + axis * np.dot(mid - root, axis)
    for v in (toward, fallback, np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0])):
        side = v - axis * np.dot(v, axis)
        if np.linalg.norm(side) > 1e-3 * np.linalg.norm(v):
            return level + distance * normalize(side)
    return level


def _handle_parent(skeleton, report):
    """The master root bone handles hang from, or -1 where the root is part of the body."""
    roots = np.flatnonzero(skeleton.parents < 0)
    body = {name for names in report.roles.values() for name in names}
    if len(roots) == 1 and skeleton.names[roots[0]] not in body:
        return int(roots[0])
    return -1


def _free_name(taken, base):
    name, k = base, 1
    while name in taken:
        name, k = f"{base}.{k:03d}", k + 1
    taken.add(name)
    return name


def limb_ending_at(skeleton, end):
    """The limb (upper, lower, hand/foot bone names) whose last bone is ``end``, or None when
    ``end`` has no parent and grandparent."""
    lower = int(skeleton.parents[skeleton.index[end]])
    upper = int(skeleton.parents[lower]) if lower >= 0 else -1
    return None if upper < 0 else [skeleton.names[upper], skeleton.names[lower], end]


def auto_rig(rig, pose=None, recognised=None):
    """Recognise ``rig``'s limbs (or take ``recognised``, an AutoRigReport the user corrected) and
    add IK handles, poles and constraints (module doc). Returns (new Rig, AutoRigReport, pose):
    ``pose`` (for ``rig``) extended to the new bones with the handles snapped so it is the IK
    solution (None when no pose was given). ``rig`` is unchanged; limbs whose lower bone already
    has an IK constraint are left alone."""
    skel = rig.skeleton
    report = recognise(skel) if recognised is None else copy.deepcopy(recognised)
    anchor = _handle_parent(skel, report)
    taken, constrained = set(skel.names), {c.bone for c in rig.ik}
    names, parents, frames, lengths = list(skel.names), list(skel.parents), list(skel.rest_world), list(skel.lengths)
    ik, copy_rotation = list(rig.ik), list(rig.copy_rotation)
    heads, tails = skel.rest_heads, skel.rest_tails
    for kind, _, handle_base, pole_base in LIMBS:
        for side in SIDES:
            role = f"{kind}.{side}"
            if role not in report.roles:
                continue
            upper, lower, end = (skel.index[n] for n in report.roles[role])
            if names[lower] in constrained:
                report.warnings.append(f"{role}: '{names[lower]}' already has an IK constraint; left as it is")
                continue
            reach = lengths[upper] + lengths[lower]
            handle, pole = _free_name(taken, f"{handle_base}.{side}"), _free_name(taken, f"{pole_base}.{side}")
            handle_frame = skel.rest_world[end].copy()
            handle_frame[:3, 3] = tails[lower]
            # Out along the limb's bend (straight limbs: knees forward, elbows back).
            pole_head = _pole_point(heads[upper], heads[lower], tails[lower], heads[lower] - heads[upper],
                                    STRAIGHT_POLE[kind], POLE_DISTANCE * reach)
            pole_frame = bone_frame(pole_head, pole_head + [0.0, 0.1 * lengths[upper], 0.0], 0.0)
            names += [handle, pole]
            parents += [anchor, anchor]
            frames += [handle_frame, pole_frame]
            lengths += [lengths[end], 0.1 * lengths[upper]]
            ik.append(IKConstraint(bone=names[lower], target=handle, pole_target=pole, chain_count=2,
                                   pole_angle=pole_angle(skel.rest_world[upper], tails[lower], pole_head)))
            copy_rotation.append(CopyRotationConstraint(bone=names[end], target=handle))
            report.created += [handle, pole]
            report.handles[role] = (handle, pole)
    skeleton = Skeleton(names, parents, np.array(frames), np.array(lengths),
                        np.concatenate([skel.connected, np.zeros(len(names) - len(skel), dtype=bool)]))
    new_rig = Rig(rig.name, skeleton, ik, copy_rotation, dict(rig.bone_ik), rig.solver)
    return new_rig, report, None if pose is None else snap_handles(new_rig, report, extend_pose(pose, len(skeleton)))


def extend_pose(pose, bone_count):
    """``pose`` with rest channels appended for bones added after its last one."""
    extra = Pose.rest(bone_count - len(pose.rotations))
    return Pose(np.concatenate([pose.rotations, extra.rotations]), np.concatenate([pose.locations, extra.locations]),
                np.concatenate([pose.scales, extra.scales]))


def snap_handles(rig, report, pose):
    """A copy of ``pose`` whose IK handles sit on their hands/feet (same rotation) and whose poles
    lie in the limbs' bend planes, so evaluating the rig keeps the limbs' joints where they are."""
    skel, pose = rig.skeleton, pose.copy()
    world = world_matrices(skel, pose)
    for role, (handle, pole) in report.handles.items():
        upper, lower, end = (skel.index[n] for n in report.roles[role])
        h, p = skel.index[handle], skel.index[pole]
        root, mid = world[upper, :3, 3], world[lower, :3, 3]
        tip = mid + world[lower, :3, 1] * skel.lengths[lower]
        parent = world[skel.parents[h]] if skel.parents[h] >= 0 else np.eye(4)
        wanted = np.eye(4)
        wanted[:3, :3] = world[end, :3, :3] / np.linalg.norm(world[end, :3, :3], axis=0)
        wanted[:3, 3] = tip
        local = np.linalg.solve(parent @ skel.rest_local[h], wanted)
        pose.rotations[h] = matrix3_to_quat(local[:3, :3])
        pose.locations[h] = local[:3, 3]
        angle = next(c.pole_angle for c in rig.ik if c.pole_target == pole)
        faces = pole_facing(chain_arrays(skel, pose, world, [upper, lower]), pose.rotations[[upper, lower]], angle)
        reach = skel.lengths[upper] + skel.lengths[lower]
        # Where the solver's pole rule already holds for the pose, the solve leaves it as it is.
        point = _pole_point(root, mid, tip, faces, faces, POLE_DISTANCE * reach)
        pose.locations[p] = location_for_head(skel, pose, world, p, point)
    return pose
