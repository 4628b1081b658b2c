"""How close a reconstruction is to the truth, the measures issue 23 names: MPJPE over all the
body's joints (bone heads of the body's tree: IK handles and other bones beside it left out) and
over the lower body, foot skating and jitter; and the naive baseline they are quoted beside (the
rest pose hung under the head tracker)."""
from dataclasses import dataclass

import numpy as np

from rig.pose import Pose, location_for_head, world_matrices
from rig.tracking.body import Body
from rig.tracking.steps import FEET

GROUNDED = 0.02  # metres: a foot whose ankle is within this of its contact height is on the ground
CONTACT_PERCENTILE = 5  # a foot's contact height: this percentile of its ankle's height over the clip


@dataclass(frozen=True)
class Measures:
    """``mpjpe`` and ``lower_mpjpe`` (metres, mean over frames and joints), ``skating`` (metres a
    second a grounded foot slides), ``jitter`` (mean joint acceleration, m/s^2)."""
    mpjpe: float
    lower_mpjpe: float
    skating: float
    jitter: float


def joint_paths(skeleton, poses, shown=world_matrices):
    """Every bone head, every frame: (frames, bones, 3); ``shown(skeleton, pose)`` gives world matrices."""
    return np.array([shown(skeleton, pose)[:, :3, 3] for pose in poses])


def skating(body, paths, fps):
    """Metres a second the feet of ``paths`` slide horizontally while grounded (ankle within
    ``GROUNDED`` of the foot's contact height in both frames of a step), over grounded steps;
    each clip's own contact height, so a rig whose ankle stands higher than its rest says is fair."""
    slides, count = 0.0, 0
    for role in FEET:
        ankle = paths[:, body.bones[role]]
        down = ankle[:, 1] <= np.percentile(ankle[:, 1], CONTACT_PERCENTILE) + GROUNDED
        both = down[1:] & down[:-1]
        step = np.linalg.norm((ankle[1:] - ankle[:-1])[:, [0, 2]], axis=1)
        slides += float(step[both].sum())
        count += int(both.sum())
    return slides * fps / count if count else 0.0


def jitter(paths, fps):
    """Mean joint acceleration magnitude (m/s^2) of ``paths`` (frames, joints, 3)."""
    if len(paths) < 3:
        return 0.0
    return float(np.linalg.norm(paths[2:] - 2.0 * paths[1:-1] + paths[:-2], axis=2).mean() * fps * fps)


def measure(body: Body, paths, truth, fps):
    """Measures of ``paths`` against ``truth`` (both (frames, bones, 3))."""
    error = np.linalg.norm(paths - truth, axis=2)
    return Measures(float(error[:, body.tree].mean()), float(error[:, body.lower].mean()), skating(body, paths, fps),
                    jitter(paths, fps))


def hung_under_head(skeleton, body, stream):
    """The baseline: per frame the rest pose moved so its head bone's head is at the head tracker."""
    poses = []
    rest = Pose.rest(len(skeleton))
    world = world_matrices(skeleton, rest)
    top, head = body.tree[0], world[body.bones["head"], :3, 3]
    for frame in stream.frames:
        pose = rest.copy()
        seen = frame.get("head")
        if seen is not None:
            pose.locations[top] = location_for_head(skeleton, rest, world, top, world[top, :3, 3] + seen.position - head)
        elif poses:
            pose = poses[-1].copy()
        poses.append(pose)
    return poses
