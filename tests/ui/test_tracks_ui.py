"""File > Open Tracks: a tracker stream played on the timeline as keys, with the trackers drawn."""
import json

import numpy as np

from rig.formats.tracks import write_tracks
from rig.tracking.from_clip import stream_from_clip
from tests.golden import assert_matches_golden
from tests.tools.humanoid_walk import FPS, walk_poses
from ui.editor import COMMANDS
from ui.timeline import go_to_frame
from ui.tracks import open_tracks

TRACKED = 1e-3  # metres: a tracked bone's head from its tracker


def walk_tracks(state, tmp_path, roles=("head", "hand.L", "hand.R", "pelvis", "foot.L", "foot.R")):
    path = tmp_path / "walk.tracks.json"
    write_tracks(path, stream_from_clip(state.rig, walk_poses(state.rig, 1.0), FPS, roles))
    return path


def test_open_tracks_is_in_the_file_menu():
    assert any(c.label == "Open Tracks..." and c.menu == "File" for c in COMMANDS)


def test_a_stream_plays_as_keys_with_its_trackers_drawn(driver, tmp_path):
    state = driver.state
    path = walk_tracks(state, tmp_path)
    assert open_tracks(state, str(path))
    stream = json.loads(path.read_text())
    action = state.timeline.action
    assert (action.start, action.end, action.fps) == (0, len(stream["frames"]) - 1, FPS)
    go_to_frame(state, 20)
    driver.move(480, 300)
    driver.frames(2)
    assert {mark.role for mark in state.view.trackers} == set(stream["frames"][20])
    for role, bone in (("hand.L", "hand.L"), ("foot.R", "foot.R"), ("head", "head")):
        seen = np.array(stream["frames"][20][role]["position"])
        assert np.linalg.norm(state.world[state.rig.skeleton.index[bone], :3, 3] - seen) <= TRACKED
    assert_matches_golden(driver.app.read_rgb(), "app_tracks_frame")


def test_a_bad_stream_leaves_the_keys_and_says_why(driver, tmp_path):
    state = driver.state
    before = state.timeline.action
    path = tmp_path / "bad.json"
    path.write_text('{"format": "posekit.tracks", "version": 1, "fps": 30, "frames": [{"head": {}}]}')
    assert not open_tracks(state, str(path))
    assert state.timeline.action is before and state.tracks is None
    assert "bad.json" in state.message and "frames[0].head.position" in state.message
