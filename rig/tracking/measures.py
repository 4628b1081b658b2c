"""How close a reconstruction is to the truth, the measures issue 23 names: MPJPE over all the body's
joints (bone heads of the body's tree: IK handles and other bones beside it left out) and over the
lower body, foot skating (beside it the steps taken while the truth stands) and jitter; MPJPE apart
over the frames the truth stands on its floor and those it stands raised above it (on something:
climbing), where the trackers say least; and the naive baseline they are quoted beside (the rest
pose hung under the head tracker)."""
from dataclasses import dataclass

import numpy as np

from rig.pose import Pose, location_for_head, world_matrices
from rig.tracking.body import Body
from rig.tracking.steps import FEET

# Foot contact is read from the truth: a foot stands while its ankle is near its ground and still
# there; speeds are taken over a window, as mocap's frame-to-frame noise alone (a 120 fps ankle
# shakes ~0.5 mm a frame) reads as several cm/s. A foot's ground is the lowest its ankle is within
# ``GROUND_TIME`` either side, not one floor for the clip: CMU 01_03's subject stands on a platform
# 0.75 m up, and a clip-wide floor left those stances (over half the still-foot frames) unmeasured.
# While the truth's foot stands, the reconstruction's foot moving is split in two by its own
# height: near its own ground it slides (``skating``), higher up it is stepping through the air at
# another time than the truth's (``stepping``: a timing error, not a slide; the two add up to the
# foot's whole speed there).
CONTACT_HEIGHT = 0.05  # metres above its ground an ankle is on it (the truth's and the reconstruction's)
CONTACT_SPEED = 0.02  # metres a second: the truth ankle's horizontal speed at most, in contact
GROUND_TIME = 0.5  # seconds either side of a frame its ground is the lowest ankle height of
SPEED_WINDOW = 0.1  # seconds a speed is measured over (centred)
RAISED_FLOOR_PERCENTILE = 1  # the ankles' clip-wide floor a raised frame is measured from
RAISED = 0.15  # metres: a frame whose truth's lower ankle is this far above the ankles' ground stands raised


@dataclass(frozen=True)
class Measures:
    """``mpjpe`` and ``lower_mpjpe`` (metres, mean over frames and joints), ``skating`` and
    ``stepping`` (metres a second a foot slides on the ground, and moves above it, while its truth
    stands: ``stance_speeds``), ``jitter`` (mean joint acceleration, m/s^2), ``floor_mpjpe`` and
    ``raised_mpjpe`` over the frames the truth stands on its floor and raised (``raised``; None
    where there are none)."""
    mpjpe: float
    lower_mpjpe: float
    skating: float
    stepping: float
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


def on_ground(heights, fps):
    """Whether each frame's ankle height (frames,) is within ``CONTACT_HEIGHT`` of its ground (module note)."""
    reach = max(1, int(round(GROUND_TIME * fps)))
    padded = np.pad(heights, reach, mode="edge")
    return heights <= np.lib.stride_tricks.sliding_window_view(padded, 2 * reach + 1).min(axis=1) + CONTACT_HEIGHT


def stance_speeds(body, paths, truth, fps):
    """The horizontal speeds (m/s) of the feet of ``paths`` over the frames their truth's stand
    (module note), and whether each is on its own ground there: two (n,) arrays, both feet's frames."""
    speeds, grounded = [], []
    for role in FEET:
        bone = body.bones[role]
        still = horizontal_speeds(truth[:, bone], fps) <= CONTACT_SPEED  # NaN compares False
        stands = still & on_ground(truth[:, bone, 1], fps)
        speeds.append(horizontal_speeds(paths[:, bone], fps)[stands])
        grounded.append(on_ground(paths[:, bone, 1], fps)[stands])
    return np.concatenate(speeds), np.concatenate(grounded)


def skating(body, paths, truth, fps):
    """Mean speed (m/s) a foot of ``paths`` slides on its ground while its truth stands (a foot
    above its ground counts as still); 0 when the truth never stands."""
    speeds, grounded = stance_speeds(body, paths, truth, fps)
    return float(np.where(grounded, speeds, 0.0).mean()) if len(speeds) else 0.0


def stepping(body, paths, truth, fps):
    """Mean speed (m/s) a foot of ``paths`` moves above its ground while its truth stands: steps
    taken at another time than the truth's; 0 when the truth never stands."""
    speeds, grounded = stance_speeds(body, paths, truth, fps)
    return float(np.where(grounded, 0.0, speeds).mean()) if len(speeds) else 0.0


def raised(body, truth):
    """(frames,) bool: the truth's lower ankle ``RAISED`` above the ankles' ground (their
    ``RAISED_FLOOR_PERCENTILE`` height over the clip)."""
    ankles = truth[:, [body.bones[role] for role in FEET], 1]
    return ankles.min(axis=1) > np.percentile(ankles, RAISED_FLOOR_PERCENTILE) + RAISED


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
                    skating(body, paths, truth, fps), stepping(body, paths, truth, fps), jitter(paths, fps),
                    *parts)


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
