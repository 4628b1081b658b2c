"""Reconstruction from trackers (``rig.tracking``): error bounds on a short clip of our humanoid and
of CMU mocap, lost and found trackers without pops, calibration, planted feet that never skate, and
a trunk that does not zigzag from frame to frame."""
from dataclasses import replace

import numpy as np
import pytest

from rig.formats.rigfile import load_rig
from rig.formats.tracks import Sample, TrackStream
from rig.pose import Pose, world_matrices
from rig.tracking.body import find_body, trunk_joints
from rig.tracking.calibration import calibrate
from rig.tracking.continuity import bone_placement
from rig.tracking.frame_solve import TRACKED, FrameSolver, Goal
from rig.tracking.from_clip import samples, stream_from_clip
from rig.tracking.measures import jitter, joint_paths, measure
from rig.tracking.plant import RELEASE_DISTANCE
from rig.tracking.reconstruct import reconstruct
from solvers.transforms import quat_from_axis_angle, quat_mul, quat_rotate
from tests.shared_data import CMU_LONG, NEEDS_SHARED
from tests.tools.humanoid_walk import FPS, walk_poses

ALL = ("head", "hand.L", "hand.R", "pelvis", "foot.L", "foot.R")
HEAD_HANDS = ALL[:3]
# Error bounds (metres) a reconstruction of these short clips stays within; the bench measures the
# full clips against issue 23's aims.
ALL_TRACKERS_MPJPE = 0.03
HEAD_HANDS_MPJPE = 0.12
TRACKED_JOINT = 1e-3  # a tracked bone's head from its tracker
LOCKED_FOOT = 2.0 * RELEASE_DISTANCE  # a tracked foot from its tracker: locked while it stands, then catching up
FOUND_JUMP = 0.1  # metres the found hand's arm moves in a frame (30 fps) as its tracker comes back 36 cm away
# Jitter bounds, as multiples of the truth's own: a trunk joint's mean acceleration (the walk's
# reached 3.0x and CMU's 8.1x while the spine zigzagged, 1.6x and 2.5x since), the whole body's on
# CMU (2.7x then, 1.5x since).
TRUNK_JITTER = 2.0
CMU_TRUNK_JITTER = 3.0
CMU_JITTER = 1.7
ROUNDING_APART = 1e-9  # rotation components: poses solved from trackers a rounding apart


@pytest.fixture(scope="module")
def walk():
    rig = load_rig("assets/humanoid.json")
    return rig, walk_poses(rig, 2.0)


def errors(rig, tracked, truth_poses, roles):
    """The Measures, and the farthest a tracked bone other than a foot, and a tracked foot, is from its tracker."""
    paths, truth = joint_paths(rig.skeleton, tracked.poses), joint_paths(rig.skeleton, truth_poses)
    body = tracked.body
    off = {r: np.linalg.norm(paths[:, body.bones[r]] - truth[:, body.bones[r]], axis=1).max() for r in roles}
    feet = [off.pop(r) for r in ("foot.L", "foot.R") if r in off]
    return measure(body, paths, truth, tracked.fps), max(off.values()), max(feet, default=0.0)


def test_the_walk_is_rebuilt_from_all_six_trackers(walk):
    rig, poses = walk
    tracked = reconstruct(rig, stream_from_clip(rig, poses, FPS, ALL))
    assert len(tracked.poses) == len(poses) and all(p.is_finite() for p in tracked.poses)
    got, at_trackers, at_feet = errors(rig, tracked, poses, ALL)
    assert got.mpjpe <= ALL_TRACKERS_MPJPE, got
    assert at_trackers <= TRACKED_JOINT and at_feet <= LOCKED_FOOT


def test_the_walk_from_head_and_hands_holds_them_and_steps(walk):
    rig, poses = walk
    tracked = reconstruct(rig, stream_from_clip(rig, poses, FPS, HEAD_HANDS))
    got, at_trackers, _ = errors(rig, tracked, poses, HEAD_HANDS)
    assert got.mpjpe <= HEAD_HANDS_MPJPE, got
    assert at_trackers <= TRACKED_JOINT
    feet = joint_paths(rig.skeleton, tracked.poses)[:, [tracked.body.bones["foot.L"], tracked.body.bones["foot.R"]]]
    assert np.ptp(feet[:, :, 2], axis=0).min() > 1.0  # both feet walked along with the body (2 s at 1 m/s)


def test_trackers_a_rounding_apart_rebuild_the_same_walk(walk):
    """Trackers one ulp apart (as another numpy's or CPU's rounding puts them) give the same poses.
    A body-level row the tracker level already spans left only rounding outside it, and the priority
    solve took that noise as a new direction: the walk's frame 0 parted by 5e-4 and frame 20 by 0.16
    between numpy 2.4 and 2.5, moving a knee's pole goal in the app_tracks_frame screenshot."""
    rig, poses = walk
    stream = stream_from_clip(rig, poses[:21], FPS, ALL)
    nudged = TrackStream(FPS, [{role: Sample(np.nextafter(s.position, np.inf), s.rotation) for role, s in f.items()}
                               for f in stream.frames])
    one, other = reconstruct(rig, stream).poses, reconstruct(rig, nudged).poses
    assert max(np.abs(a.rotations - b.rotations).max() for a, b in zip(one, other)) <= ROUNDING_APART


def trunk_jitter(rig, body, paths, truth, fps):
    """Each trunk joint's mean acceleration in ``paths`` over the truth's (``rig.tracking.body.trunk_joints``)."""
    return np.array([jitter(paths[:, [j]], fps) / jitter(truth[:, [j]], fps) for j in trunk_joints(rig.skeleton, body)])


def test_the_walks_trunk_from_head_and_hands_does_not_zigzag(walk):
    rig, poses = walk
    tracked = reconstruct(rig, stream_from_clip(rig, poses, FPS, HEAD_HANDS))
    paths, truth = joint_paths(rig.skeleton, tracked.poses), joint_paths(rig.skeleton, poses)
    assert trunk_jitter(rig, tracked.body, paths, truth, FPS).max() <= TRUNK_JITTER


def test_standing_still_the_feet_stay_exactly_planted(walk):
    rig, poses = walk
    still = TrackStream(FPS, [stream_from_clip(rig, poses[:1], FPS, HEAD_HANDS).frames[0]] * 30)
    tracked = reconstruct(rig, still)
    feet = joint_paths(rig.skeleton, tracked.poses[5:])[:, [tracked.body.bones[r] for r in ("foot.L", "foot.R")]]
    assert np.abs(feet - feet[0]).max() <= TRACKED_JOINT


def test_a_hand_lost_and_found_eases_back_without_a_pop(walk):
    rig, poses = walk
    stream = stream_from_clip(rig, poses, FPS, HEAD_HANDS)
    frames = [dict(f) for f in stream.frames]
    for k in range(10, 30):  # the left hand's tracker is lost for 20 frames
        del frames[k]["hand.L"]
    moved_away = {**frames[30], "hand.L": Sample(frames[30]["hand.L"].position + [0.0, 0.3, 0.2],
                                                  frames[30]["hand.L"].rotation)}
    frames[30:] = [moved_away] * 20  # and comes back 36 cm from where it was held
    tracked = reconstruct(rig, TrackStream(FPS, frames))
    paths = joint_paths(rig.skeleton, tracked.poses)
    body = tracked.body
    arm = list(body.limbs["hand.L"])  # (the feet step meanwhile: a step is fast, and no pop)
    assert np.linalg.norm(np.diff(paths[29:, arm], axis=0), axis=2).max() <= FOUND_JUMP  # from the find on
    hand = paths[:, body.bones["hand.L"]]
    assert np.linalg.norm(hand[-1] - moved_away["hand.L"].position) <= TRACKED_JOINT  # and reaches it


def test_calibration_takes_the_trackers_offsets_from_the_rest_pose(walk):
    """Trackers worn off their bones (shifted and turned) with a rest-pose frame first: calibrated
    there, the walk is rebuilt as well as from trackers on their bones."""
    rig, poses = walk
    body = reconstruct(rig, stream_from_clip(rig, poses[:1], FPS, ALL)).body
    turn = quat_from_axis_angle([0.3, 1.0, 0.2], 0.7)
    shift = np.array([0.03, 0.05, -0.04])
    # The headset straight above the head's joint at rest: calibration stands the rig under it.
    shifts = {role: shift for role in ALL} | {"head": quat_rotate(quat_from_axis_angle([0.3, 1.0, 0.2], -0.7),
                                                                   [0.0, 0.08, 0.0])}
    rest = rig.skeleton
    frames = []
    for pose in [type(poses[0]).rest(len(rest))] + poses:
        worn = {}
        for role, s in samples(body, world_matrices(rest, pose), ALL).items():
            rotation = quat_mul(s.rotation, turn)  # the tracker turned on its bone
            worn[role] = Sample(s.position + quat_rotate(rotation, shifts[role]), rotation)
        frames.append(worn)
    stream = TrackStream(FPS, frames)
    offsets = calibrate(rest, body, frames[0])
    assert np.allclose(offsets["hand.L"].position, -shift, atol=1e-9)
    tracked = reconstruct(rig, stream, calibrate_frame=0)
    got, _, _ = errors(rig, replace(tracked, poses=tracked.poses[1:]), poses, ALL)
    assert got.mpjpe <= ALL_TRACKERS_MPJPE, got
    with pytest.raises(ValueError, match="no frame 99 to calibrate"):
        reconstruct(rig, stream, calibrate_frame=99)


@NEEDS_SHARED
def test_cmu_mocap_is_rebuilt_from_its_trackers():
    from rig.formats.bvh import load_bvh
    document = load_bvh(CMU_LONG)
    rig, poses = document.rig, document.clips["motion"][:120]
    tracked = reconstruct(rig, stream_from_clip(rig, poses, 120.0, ALL))
    got, at_trackers, at_feet = errors(rig, tracked, poses, ALL)
    assert got.mpjpe <= ALL_TRACKERS_MPJPE and at_trackers <= TRACKED_JOINT and at_feet <= LOCKED_FOOT, got


@NEEDS_SHARED
def test_cmu_mocap_from_head_and_hands_moves_nearly_as_smoothly_as_the_truth():
    """Mocap's trackers shake (the head's path bends ~5 mm a frame at 120 fps): the trunk between
    the head and the pelvis must not amplify it."""
    from rig.formats.bvh import load_bvh
    document = load_bvh(CMU_LONG)
    rig, poses = document.rig, document.clips["motion"][:240]
    tracked = reconstruct(rig, stream_from_clip(rig, poses, 120.0, HEAD_HANDS))
    paths, truth = joint_paths(rig.skeleton, tracked.poses), joint_paths(rig.skeleton, poses)
    assert trunk_jitter(rig, tracked.body, paths, truth, 120.0).max() <= CMU_TRUNK_JITTER
    body = tracked.body.tree
    assert jitter(paths[:, body], 120.0) <= CMU_JITTER * jitter(truth[:, body], 120.0)



def test_a_frame_solver_keeps_its_plan_only_while_the_goals_ask_the_same(walk):
    """FrameSolver keeps the plan's task fields between frames: a solve after one with other goals
    (a pelvis tracker found) or with the same goals moved is the solve a fresh solver makes."""
    rig, poses = walk
    body = find_body(rig)
    kept = FrameSolver(rig, body)
    pose = Pose.rest(len(rig.skeleton))
    world = world_matrices(rig.skeleton, pose)
    for truth, roles in ((poses[0], HEAD_HANDS), (poses[3], ALL[:4]), (poses[6], ALL[:4])):
        placed = world_matrices(rig.skeleton, truth)
        goals = []
        for role in roles:
            target = bone_placement(placed, body.bones[role])
            goals.append(Goal(body.bones[role], TRACKED, target.position, target.rotation))
        start, start_world = pose.copy(), world.copy()
        got = kept.solve(pose, world, goals)
        fresh = FrameSolver(rig, body).solve(start, start_world, goals)
        assert np.array_equal(got.rotations, fresh.rotations) and np.array_equal(got.shift, fresh.shift)
        assert pose == start and np.array_equal(world, start_world)
