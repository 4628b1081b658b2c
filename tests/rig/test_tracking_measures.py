"""The reconstruction measures split by where the truth stands (``rig.tracking.measures``): frames
on the floor and frames raised above it (on something), each with its own MPJPE."""
import numpy as np
import pytest

from rig.formats.rigfile import load_rig
from rig.tracking.body import find_body
from rig.tracking.measures import RAISED, joint_paths, measure, raised
from tests.tools.humanoid_walk import FPS, walk_poses


@pytest.fixture(scope="module")
def walk():
    rig = load_rig("assets/humanoid.json")
    return find_body(rig), joint_paths(rig.skeleton, walk_poses(rig, 2.0))


def test_a_walk_on_the_floor_has_no_raised_frames(walk):
    body, truth = walk
    assert not raised(body, truth).any()
    got = measure(body, truth + np.array([0.0, 0.0, 0.03]), truth, FPS)
    assert got.raised_mpjpe is None
    assert got.floor_mpjpe == pytest.approx(got.mpjpe) == pytest.approx(0.03)


def test_frames_standing_on_something_are_measured_apart(walk):
    body, truth = walk
    half = len(truth) // 2
    climbed = truth.copy()
    climbed[half:, :, 1] += 2.0 * RAISED  # the second half stands on a step
    assert np.array_equal(raised(body, climbed), np.arange(len(truth)) >= half)
    paths = climbed.copy()
    paths[:half, :, 0] += 0.01
    paths[half:, :, 0] += 0.05
    got = measure(body, paths, climbed, FPS)
    assert got.floor_mpjpe == pytest.approx(0.01)
    assert got.raised_mpjpe == pytest.approx(0.05)
