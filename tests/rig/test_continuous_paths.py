"""Continuous mode is path independent where the chain has no redundancy: the humanoid's arm with its
pole, dragged to a target, through the shoulder (inside the arm's inner reach, where the limb folds
and its bend plane is undefined) and out the other side, then back, ends as it began. A soak once saw
the forearm keep a roll of 2.07 rad and the hand 2.1 cm off after such a pass."""
import numpy as np
import pytest

from rig.evaluate import evaluate
from rig.formats.rigfile import load_rig
from rig.pose import Pose, world_matrices
from solvers.transforms import quat_angle, quat_from_euler_xyz, swing_twist

SKELETON = load_rig("assets/humanoid.json").skeleton
HANDLE, FOREARM, UPPER = (SKELETON.index[n] for n in ("hand_ik.L", "forearm.L", "upper_arm.L"))


def drag_to(rig, pose, target):
    """The pose with the hand's IK handle moved to world ``target``, solved as a frame of the app."""
    parent = SKELETON.parents[HANDLE]
    frame = (world_matrices(SKELETON, pose)[parent] if parent >= 0 else np.eye(4)) @ SKELETON.rest_local[HANDLE]
    pose = pose.copy()
    pose.locations[HANDLE] = frame[:3, :3].T @ (np.asarray(target) - frame[:3, 3])
    solved, world, _ = evaluate(rig, pose)
    return solved, world


def tip(world):
    return world[FOREARM, :3, 3] + world[FOREARM, :3, 1] * SKELETON.lengths[FOREARM]


@pytest.mark.parametrize("solver, metres, radians", [("auto", 1e-9, 1e-9), ("fabrik", 1e-4, 1e-3), ("ccd", 1e-4, 1e-3),
                                                     ("dls", 1e-4, 1e-3)])
def test_a_pass_through_the_shoulder_and_back_leaves_the_arm_as_it_was(solver, metres, radians):
    rig = load_rig("assets/humanoid.json")
    rig.solver.mode, rig.solver.type = "continuous", solver
    rest = world_matrices(SKELETON, Pose.rest(len(SKELETON)))
    shoulder, hand = rest[UPPER, :3, 3], rest[HANDLE, :3, 3]
    start = hand + np.array([0.05, 0.1, 0.15])
    rng = np.random.default_rng(7)
    for _ in range(6):
        pose, world = drag_to(rig, Pose.rest(len(SKELETON)), start)
        before = pose.rotations[[UPPER, FOREARM]].copy()
        near = shoulder + rng.normal(size=3) * 0.006  # within about a centimetre: the arm folds
        beyond = shoulder + (shoulder - start) * rng.uniform(0.05, 0.5) + rng.normal(size=3) * 0.05
        path = [start + (near - start) * t for t in np.linspace(0, 1, 20)]
        path += [near + (beyond - near) * t for t in np.linspace(0, 1, 8)]
        path += [beyond + (start - beyond) * t for t in np.linspace(0, 1, 20)]
        for target in path:
            pose, world = drag_to(rig, pose, target)
        assert np.linalg.norm(tip(world) - start) < metres
        assert quat_angle(before, pose.rotations[[UPPER, FOREARM]]).max() < radians


@pytest.mark.parametrize("seed", range(4))
def test_a_posed_forearm_keeps_its_twist_through_the_shoulder_and_back(seed):
    """The soak's drift: an arm posed by hand first (forearm twisted and bent out of its rest
    plane), then dragged with its pole through the shoulder (it folds, and its bend plane falls
    back to the rest one) and back. The forearm's twist about its own axis must not wind up on
    the way: it ends as the first frame had it (the old composition of each frame's turn left
    it off by up to a radian here)."""
    rig = load_rig("assets/humanoid.json")
    rig.solver.mode, rig.solver.type = "continuous", "two_bone"
    rng = np.random.default_rng(seed)
    posed = Pose.rest(len(SKELETON))
    posed.rotations[[UPPER, FOREARM]] = [quat_from_euler_xyz(rng.uniform(-1.5, 1.5, 3)) for _ in range(2)]
    rest = world_matrices(SKELETON, Pose.rest(len(SKELETON)))
    shoulder, hand = rest[UPPER, :3, 3], rest[HANDLE, :3, 3]
    start = hand + np.array([0.05, 0.1, 0.15])
    pose, world = drag_to(rig, posed, start)
    first = swing_twist(pose.rotations[FOREARM], [0.0, 1.0, 0.0])[1]
    near = shoulder + rng.normal(size=3) * 0.006  # inside the arm's inner reach: it folds
    beyond = shoulder + (shoulder - start) * 0.3
    path = [start + (near - start) * t for t in np.linspace(0, 1, 20)]
    path += [near + (beyond - near) * t for t in np.linspace(0, 1, 8)]
    path += [beyond + (start - beyond) * t for t in np.linspace(0, 1, 20)]
    for target in path:
        pose, world = drag_to(rig, pose, target)
    assert np.linalg.norm(tip(world) - start) < 1e-9
    assert quat_angle(first, swing_twist(pose.rotations[FOREARM], [0.0, 1.0, 0.0])[1]) < 1e-6  # acos resolution
