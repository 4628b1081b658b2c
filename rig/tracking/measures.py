"""How close a reconstruction is to the truth, the measures issue 23 names: MPJPE over all the
body's joints (bone heads of the body's tree: IK handles and other bones beside it left out) and
over the lower body, foot skating and jitter; MPJPE apart over the frames the truth stands on its
floor and those it stands raised above it (on something: climbing), where the trackers say least;
and the naive baseline they are quoted beside (the rest pose hung under the head tracker)."""
from dataclasses import dataclass

import numpy as np

from rig.pose import Pose, location_for_head, world_matrices
from rig.tracking.body import Body
from rig.tracking.steps import FEET

# Foot contact is read from the truth: a foot is in contact while its ankle is near the truth's
# ground and still there; speeds are taken over a window, as mocap's frame-to-frame noise alone
# (a 120 fps ankle shakes ~0.5 mm a frame) reads as several cm/s.
CONTACT_HEIGHT = 0.05  # metres above the truth ankle's ground (its 1st percentile height over the clip)
CONTACT_SPEED = 0.02  # metres a second: the truth ankle's horizontal speed at most, in contact
GROUND_PERCENTILE = 1
SPEED_WINDOW = 0.1  # seconds a speed is measured over (centred)
RAISED = 0.15  # metres: a frame whose truth's lower ankle is this far above the ankles' ground stands raised


@dataclass(frozen=True)
class Measures:
    """``mpjpe`` and ``lower_mpjpe`` (metres, mean over frames and joints), ``skating`` (metres a
    second a foot slides while its truth stands on the ground: ``skating``), ``jitter`` (mean joint
    acceleration, m/s^2), ``floor_mpjpe`` and ``raised_mpjpe`` over the frames the truth stands on
    its floor and raised (``raised``; None where there are none)."""
    mpjpe: float
    lower_mpjpe: float
    skating: float
    jitter: float
    floor_mpjpe: float
    raised_mpjpe: float


def joint_paths(skeleton, poses, shown=world_matrices):
    """Every bone head, every frame: (frames, bones, 3); ``shown(skeleton, pose)`` gives world matrices."""
    return np.array([shown(skeleton, pose)[:, :3, 3] for pose in poses])


def horizontal_speeds(path, fps):
    """Horizontal speed (m/s) of ``path`` (frames, 3) over ``SPEED_WINDOW`` centred on each frame
    (the window's half at the clip's ends: those frames get none, NaN)."""
    half = max(1, int(round(SPEED_WINDOW * fps / 2.0)))
    speeds = np.full(len(path), np.nan)
    if len(path) > 2 * half:
        speeds[half:-half] = np.linalg.norm((path[2 * half:] - path[:-2 * half])[:, [0, 2]], axis=1) * fps / (2 * half)
    return speeds


def skating(body, paths, truth, fps):
    """Mean horizontal speed (m/s) of the feet of ``paths`` over the frames their truth's are in
    contact (module's contact note); 0 when the truth never stands."""
    slides = []
    for role in FEET:
        bone = body.bones[role]
        ground = np.percentile(truth[:, bone, 1], GROUND_PERCENTILE)
        still = horizontal_speeds(truth[:, bone], fps) <= CONTACT_SPEED  # NaN compares False
        contact = still & (truth[:, bone, 1] <= ground + CONTACT_HEIGHT)
        slides.append(horizontal_speeds(paths[:, bone], fps)[contact])
    slides = np.concatenate(slides)
    return float(slides.mean()) if len(slides) else 0.0


def raised(body, truth):
    """(frames,) bool: the truth's lower ankle ``RAISED`` above the ankles' ground (their
    ``GROUND_PERCENTILE`` height over the clip)."""
    ankles = truth[:, [body.bones[role] for role in FEET], 1]
    return ankles.min(axis=1) > np.percentile(ankles, GROUND_PERCENTILE) + RAISED


def jitter(paths, fps):
    """Mean joint acceleration magnitude (m/s^2) of ``paths`` (frames, joints, 3)."""
    if len(paths) < 3:
        return 0.0
    return float(np.linalg.norm(paths[2:] - 2.0 * paths[1:-1] + paths[:-2], axis=2).mean() * fps * fps)


def measure(body: Body, paths, truth, fps):
    """Measures of ``paths`` against ``truth`` (both (frames, bones, 3))."""
    error = np.linalg.norm(paths - truth, axis=2)
    up = raised(body, truth)
    parts = [float(error[frames][:, body.tree].mean()) if frames.any() else None for frames in (~up, up)]
    return Measures(float(error[:, body.tree].mean()), float(error[:, body.lower].mean()),
                    skating(body, paths, truth, fps), jitter(paths, fps), *parts)


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
