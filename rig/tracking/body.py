"""The body a tracker stream drives: which bone each tracker role sits on (found by the automatic
IK set-up's recognition, so any rig we read works, names or not), the limbs, the tree the solve
moves, and the rest measures the pelvis estimate and the stepping feet use."""
from dataclasses import dataclass

import numpy as np

from rig.formats.tracks import ROLES
from rig.limb_roles import UP, recognise
from rig.whole_body import solved_root
from solvers.transforms import cross, matrix3_to_quat, normalize

SIDES = ("L", "R")
LIMB_OF = {"hand.L": "arm.L", "hand.R": "arm.R", "foot.L": "leg.L", "foot.R": "leg.R"}


@dataclass(frozen=True)
class Arm:
    """An arm's rest measures the pelvis estimate reads the trunk's lean from: ``shoulder_from_head``
    the rest shoulder (the upper arm's head) from the rest head, in the facing frame (x left, y up,
    z forward); ``forearm`` the rest wrist from the rest elbow (3,); ``upper_length`` the upper arm's."""
    shoulder_from_head: np.ndarray
    forearm: np.ndarray
    upper_length: float


@dataclass(frozen=True)
class Body:
    """``bones`` {role: bone index} for every role of ``rig.formats.tracks.ROLES``; ``limbs``
    {role: (upper, lower, end)} for the hands and feet; ``tree`` the bones the solve holds
    (ascending; the first is the body's top bone), ``lower`` the hips and legs (for measures);
    ``rest_rotations`` {role: the bone's rest world rotation, xyzw}; ``forward`` the figure's
    facing; ``standing`` the rest head's height above the rest pose's lowest point; ``pelvis_below_head``
    the rest pelvis from the rest head, in the facing frame (x left, y up, z forward);
    ``hips_from_pelvis`` {foot role: the rest hip joint (the thigh's head) from the rest pelvis};
    ``leg_drop`` the rest ankles' mean depth below their hips; ``pelvis_links`` the bones between
    the pelvis and a thigh (CMU's LHipJoint: part of the rigid pelvis, never turned by the solve);
    ``ankle_height`` above the rest lowest point; ``leg_length`` (thigh + shin, the longer side);
    ``arms`` {hand role: Arm}."""
    bones: dict
    limbs: dict
    tree: list
    lower: np.ndarray
    rest_rotations: dict
    forward: np.ndarray
    standing: float
    pelvis_below_head: np.ndarray
    hips_from_pelvis: dict
    leg_drop: float
    ankle_height: float
    leg_length: float
    pelvis_links: tuple
    arms: dict


def facing_frame(forward):
    """(3, 3) columns left, up, forward for a horizontal ``forward``."""
    forward = normalize(forward - UP * np.dot(forward, UP), fallback=(0.0, 0.0, 1.0))
    return np.column_stack([cross(UP, forward), UP, forward])


def trunk_joints(skeleton, body):
    """The bones between the pelvis and what the trunk carries (the head and the upper arms):
    spine, neck and clavicles, ascending; the solve turns them to meet the trackers, and nothing
    but the trackers says where they are."""
    hung = [body.bones["head"]] + [limb[0] for limb in body.limbs.values()]
    kept = {body.tree[0], body.bones["pelvis"], *body.pelvis_links, *hung}
    kept |= {b for limb in body.limbs.values() for b in limb}
    return sorted({a for e in hung for a in skeleton.ancestors(e) if a in body.tree} - kept)


def find_body(rig):
    """The Body of ``rig``; ValueError naming what the recognition could not find."""
    skeleton = rig.skeleton
    report = recognise(skeleton)
    needed = ["head", "hips"] + [f"{kind}.{s}" for kind in ("arm", "leg") for s in SIDES]
    missing = [role for role in needed if role not in report.roles]
    if missing:
        raise ValueError(f"cannot drive '{rig.name}' from trackers: no {', '.join(missing)} found "
                         f"({'; '.join(report.warnings) or 'the automatic IK set-up found no humanoid'})")
    index = skeleton.index
    limbs = {role: tuple(index[n] for n in report.roles[limb]) for role, limb in LIMB_OF.items()}
    bones = {"head": index[report.roles["head"][0]], "pelvis": index[report.roles["hips"][0]]}
    bones.update({role: limb[2] for role, limb in limbs.items()})
    root = solved_root(rig, [bones[r] for r in ROLES])
    tree = sorted(skeleton.subtree(root).tolist())
    pelvis = bones["pelvis"]
    links = [a for role in ("foot.L", "foot.R") for a in skeleton.ancestors(limbs[role][0])[
        :skeleton.ancestors(limbs[role][0]).index(pelvis)]]
    lower = [pelvis] + links + [b for role in ("foot.L", "foot.R") for b in skeleton.subtree(limbs[role][0]).tolist()]
    heads, lowest = skeleton.rest_heads, float(min(skeleton.rest_heads[:, 1].min(), skeleton.rest_tails[:, 1].min()))
    frame = facing_frame(np.asarray(report.facing, dtype=float))
    arms = {}
    for role in ("hand.L", "hand.R"):
        shoulder, elbow, wrist = (heads[b] for b in limbs[role])
        arms[role] = Arm(frame.T @ (shoulder - heads[bones["head"]]), wrist - elbow,
                         float(np.linalg.norm(elbow - shoulder)))
    return Body(
        bones, limbs, tree, np.array(sorted(set(lower))),
        {role: matrix3_to_quat(skeleton.rest_world[b, :3, :3]) for role, b in bones.items()},
        frame[:, 2], float(heads[bones["head"], 1] - lowest), frame.T @ (heads[pelvis] - heads[bones["head"]]),
        {role: frame.T @ (heads[limbs[role][0]] - heads[pelvis]) for role in ("foot.L", "foot.R")},
        float(np.mean([heads[limbs[r][0], 1] - heads[limbs[r][2], 1] for r in ("foot.L", "foot.R")])),
        float(np.mean([heads[bones[r], 1] for r in ("foot.L", "foot.R")]) - lowest),
        float(max(skeleton.lengths[list(limbs[r][:2])].sum() for r in ("foot.L", "foot.R"))), tuple(sorted(links)),
        arms)
