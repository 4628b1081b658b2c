"""The timeline driven by its labels in replay files (tests/data/replays/timeline_*.json, the
``ui.replay`` format): keying with I and the Keying popover's button, the Pose tab's Pinned box
keying a pin, the transport buttons and Blender's arrow keys, Play and Pause, a scrub and a
marker click on the strip by its label, Delete, Alt+I and the popover's Delete key. Each file is a
scene played in order; after each the test asserts what the user would see: the frame, its
readout, the keys, the pins and the pose at that frame. The same files through ``app.py
--headless --replay`` in a larger window (another layout) end where the window does."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rig.formats.rigfile import load_pose
from rig.keys import PIN
from solvers.transforms import quat_angle
from ui import widgets
from ui.frame_dump import WIDGETS_ENV
from ui.replay import load_events
from ui.timeline import go_to_frame

REPLAYS = Path(__file__).parent.parent / "data" / "replays"
SCENES = sorted(REPLAYS.glob("timeline_*.json"))
SPINE = "spine.02"
ANGLE = 1e-9  # radians: a keyed rotation read back through the Pose tab's degrees and the keys


def play(driver, scene):
    driver.play(load_events(REPLAYS / f"timeline_{scene}.json"))
    driver.frames(1)
    return driver.state


def shown(label):
    return widgets.find(label).value


def assert_frame(state, frame):
    """The frame field and the readout show ``frame`` (the readout's seconds, in a window too
    narrow for them, in its tooltip)."""
    seconds, end = f"{frame / state.timeline.action.fps:.3f} s", state.timeline.action.end
    assert state.timeline.frame == frame and shown("##current_frame") == frame
    assert shown("frame_readout") in (f"/ {end}  {seconds}", f"/ {end}")
    assert state.timeline.summary().startswith(f"frame {frame} at {seconds}; ")


def spine_turn(state):
    """How far spine.02 is turned from rest (radians)."""
    return quat_angle(state.pose.rotations[state.rig.skeleton.index[SPINE]], np.array([0.0, 0.0, 0.0, 1.0]))


def assert_as_typed(driver, frame):
    """The frame shows what typing it into the frame field shows (the same frame gives the same
    pose however it was reached); leaves the app at that frame."""
    state = driver.state
    world, pins = state.world.copy(), dict(state.pins)
    driver.set_value("##current_frame", frame + 5)
    driver.set_value("##current_frame", frame)
    np.testing.assert_array_equal(state.world, world)
    assert state.pins == pins


def test_the_scenes_are_there_in_order():
    assert [p.stem for p in SCENES] == ["timeline_1_key", "timeline_2_step", "timeline_3_jump_to_keys",
                                        "timeline_4_keys_and_ends", "timeline_5_play", "timeline_6_scrub",
                                        "timeline_7_delete"]


def test_the_timeline_driven_by_its_labels_and_keys(driver):
    state = play(driver, "1_key")
    action = state.timeline.action
    assert action.key_frames.tolist() == [0, 12, 24] and state.message == "Keyed 1 bone at frame 24"
    assert len(action.channels) == 4 * len(state.rig.skeleton)
    assert action.channels[(SPINE, "rotation")].frames.tolist() == [0, 12, 24]
    assert action.channels[(SPINE, PIN)].values[:, 0].tolist() == [0.0, 0.0, 1.0]  # pinned at 24 only
    assert_frame(state, 24)
    assert spine_turn(state) == pytest.approx(np.radians(20), abs=ANGLE)

    state = play(driver, "2_step")
    assert_frame(state, 3)  # the start, three steps on, one back, two on, one back
    assert spine_turn(state) == pytest.approx(np.radians(30) * 3 / 12, abs=ANGLE)  # linear from 0 to 12
    assert SPINE not in state.pins
    state = play(driver, "3_jump_to_keys")
    assert_frame(state, 24)  # 12, 24, and no key after it
    assert state.message == "No key after frame 24" and SPINE in state.pins
    state = play(driver, "4_keys_and_ends")
    assert_frame(state, 12)  # 12, 0, the end (100), the key before it (24), the start, the next key
    assert SPINE not in state.pins  # keyed off at 12: the pin keyed at 24 holds from 24 only
    assert spine_turn(state) == pytest.approx(np.radians(30), abs=ANGLE)

    state = play(driver, "5_play")
    played = state.timeline.frame
    assert not state.timeline.playing and 5 <= played <= 20, played  # 24 fps against ImGui's 60 a replay
    assert_frame(state, played)
    assert_as_typed(driver, played)

    state = play(driver, "6_scrub")
    assert_frame(state, 9)
    assert spine_turn(state) == pytest.approx(np.radians(30) * 9 / 12, abs=ANGLE)  # linear from 0 to 12
    assert_as_typed(driver, 9)

    state = play(driver, "7_delete")
    action = state.timeline.action
    assert action.key_frames.tolist() == [24] and state.timeline.selected == frozenset()
    assert action.channels[(SPINE, PIN)].frames.tolist() == [24]
    assert state.message == "Deleted the keys at frame 0"
    assert_frame(state, 0)
    for _ in range(3):
        driver.key("Z", ["ctrl"])  # the popover's delete, Alt+I, the marker's Delete
    assert state.timeline.action.key_frames.tolist() == [0, 12, 24]


def test_a_scene_undone_step_by_step_comes_back_to_no_keys(driver):
    state = play(driver, "1_key")
    while state.history.can_undo():
        driver.key("Z", ["ctrl"])
    assert not state.timeline.action.has_keys() and not state.pins


def test_the_scenes_through_the_command_line_end_where_the_window_does(driver, tmp_path):
    for scene in SCENES:
        driver.play(load_events(scene))
    driver.frames(1)
    state = driver.state
    events = [event for scene in SCENES for event in json.loads(scene.read_text())["events"]]
    path = tmp_path / "timeline.json"
    path.write_text(json.dumps({"events": events}))
    result = subprocess.run([sys.executable, "app.py", "--headless", "--size", "1280x720", "--replay", str(path),
                             "--save-pose", str(tmp_path / "pose.json")], capture_output=True, text=True,
                            timeout=300, env={**os.environ, WIDGETS_ENV: str(tmp_path / "widgets.json")})
    assert result.returncode == 0, result.stderr
    pose, _ = load_pose(tmp_path / "pose.json", state.rig.skeleton)
    np.testing.assert_allclose(pose.rotations, state.pose.rotations, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pose.locations, state.pose.locations, rtol=0, atol=1e-12)
    dumped = json.loads((tmp_path / "widgets.json").read_text())
    values = {row["label"]: row["value"] for row in dumped["widgets"]}
    assert values["##current_frame"] == 0 and values["frame_readout"] == "/ 100  0.000 s"
    assert dumped["message"] == state.message == "Deleted the keys at frame 0"
    go_to_frame(state, 30)  # what is left: the keys at 24, the pin on there
    driver.frames(1)
    assert SPINE in state.pins
