"""Replayed input through the command line: drags, undo / redo, and the scene dump that aims them."""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from rig.formats.jsonfields import FileFormatError
from rig.pose import heads_tails, world_matrices
from rig.formats.rigfile import load_pose, load_rig
from ui.frame_dump import WIDGETS_ENV
from ui.replay import events_from_dict
from ui.state import DEFAULT_INSETS

SIZE = (960, 600)
HUMANOID = load_rig("assets/humanoid.json")


def run_app(*args):
    result = subprocess.run([sys.executable, "app.py", "--headless", "--size", "x".join(map(str, SIZE)), *args],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result


def replay(tmp_path, name, events, *outputs):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"events": events}))
    run_app("--replay", str(path), *outputs)


def window_pixel(camera, point):
    """Project a world point with the dumped camera matrices to top-left window pixels."""
    clip = np.array(camera["projection"]) @ np.array(camera["view"]) @ np.append(point, 1.0)
    width, height = camera["viewport"]
    ndc = clip[:2] / clip[3]
    return [(ndc[0] + 1.0) * 0.5 * width, (1.0 - ndc[1]) * 0.5 * height]


def drag_events(start, end, steps=4):
    path = [start + (np.asarray(end) - start) * (k / steps) for k in range(1, steps + 1)]
    return ([{"type": "move", "x": start[0], "y": start[1]}, {"type": "press", "x": start[0], "y": start[1]}]
            + [{"type": "drag", "x": float(p[0]), "y": float(p[1])} for p in path]
            + [{"type": "release", "x": float(end[0]), "y": float(end[1])}])


@pytest.fixture(scope="module")
def rest(tmp_path_factory):
    """The scene and pose of the app as it opens."""
    tmp = tmp_path_factory.mktemp("rest")
    run_app("--dump-scene", str(tmp / "scene.json"), "--save-pose", str(tmp / "pose.json"))
    return json.loads((tmp / "scene.json").read_text()), (tmp / "pose.json").read_text()


def hand_target(scene):
    """A reachable point 12 cm right and 8 cm up of the left hand's handle, in the plane through
    the handle facing the camera (the plane a drag moves it in)."""
    view = np.array(scene["camera"]["view"])
    right, up = view[0, :3], view[1, :3]
    return np.array(scene["handles"]["hand_ik.L"]["position"]) - 0.12 * right + 0.08 * up


def test_scene_dump_gives_camera_and_every_bone_in_pixels(rest):
    scene, _ = rest
    assert scene["camera"]["viewport"] == list(SIZE)
    assert set(scene["bones"]) == set(HUMANOID.skeleton.names)
    assert set(scene["handles"]) == {"hand_ik.L", "hand_ik.R", "foot_ik.L", "foot_ik.R",
                                     "elbow_pole.L", "elbow_pole.R", "knee_pole.L", "knee_pole.R"}
    for bone in scene["bones"].values():
        for end in ("head", "tail"):
            np.testing.assert_allclose(window_pixel(scene["camera"], bone[end]), bone[f"{end}_px"], atol=1e-6)
    left, right = scene["handles"]["hand_ik.L"]["px"], scene["handles"]["hand_ik.R"]["px"]
    middle = (DEFAULT_INSETS[0] + SIZE[0] - DEFAULT_INSETS[2]) / 2  # of the viewport, left of the panels
    assert left[0] > middle > right[0]  # facing the camera, the character's left is screen right
    assert scene["solver"] == {"residuals": [], "limits": [], "reach": []}  # every chain reaches at rest


def test_scene_dump_lists_the_residual_line_of_a_hand_dragged_out_of_reach(rest, tmp_path):
    scene, _ = rest
    start = np.array(scene["handles"]["hand_ik.L"]["px"])
    replay(tmp_path, "far", drag_events(start, start + [40, 170]), "--dump-scene", str(tmp_path / "scene.json"))
    dumped = json.loads((tmp_path / "scene.json").read_text())
    [line] = dumped["solver"]["residuals"]
    assert line["bone"] == "forearm.L" and line["error"] > 0.1 and line["label"].endswith(" mm")
    np.testing.assert_allclose(line["target"], dumped["handles"]["hand_ik.L"]["position"], atol=1e-12)
    np.testing.assert_allclose(line["tip"], dumped["bones"]["forearm.L"]["tail"], atol=1e-12)
    assert dumped["solver"]["reach"] == []  # the drag is over


def test_replayed_drag_puts_the_hand_on_the_target_then_undo_and_redo(rest, tmp_path):
    scene, rest_pose = rest
    start = np.array(scene["handles"]["hand_ik.L"]["px"])
    target = hand_target(scene)
    drag = drag_events(start, window_pixel(scene["camera"], target))
    replay(tmp_path, "drag", drag, "--save-pose", str(tmp_path / "dragged.json"),
           "--dump-scene", str(tmp_path / "scene.json"))
    pose, _ = load_pose(tmp_path / "dragged.json", HUMANOID.skeleton)
    _, tails = heads_tails(HUMANOID.skeleton, world_matrices(HUMANOID.skeleton, pose))
    hand = tails[HUMANOID.skeleton.index["forearm.L"]]
    assert np.linalg.norm(hand - target) < 1e-4, f"hand at {hand}, target {target}"
    dumped = json.loads((tmp_path / "scene.json").read_text())
    np.testing.assert_allclose(dumped["bones"]["hand.L"]["head"], hand, atol=1e-9)

    undo = [{"type": "key", "key": "Z", "mods": ["ctrl"]}]
    replay(tmp_path, "undo", drag + undo, "--save-pose", str(tmp_path / "undone.json"))
    assert (tmp_path / "undone.json").read_text() == rest_pose
    redo = [{"type": "key", "key": "Z", "mods": ["ctrl", "shift"]}]
    replay(tmp_path, "redo", drag + undo + redo, "--save-pose", str(tmp_path / "redone.json"))
    assert (tmp_path / "redone.json").read_text() == (tmp_path / "dragged.json").read_text()


@pytest.mark.parametrize("events, message", [
    ({"events": [{"type": "move", "x": 1}]}, "'events[0].y': expected a value"),
    ({"events": [{"type": "frame"}, {"type": "jump", "x": 1, "y": 2}]}, "'events[1].type': expected one of"),
    ({"events": [{"type": "key", "key": "NOSUCHKEY"}]}, "'events[0].key': expected one of pyglet's key names"),
    ({"events": [{"type": "press", "x": 1, "y": 2, "button": "left", "mods": ["meta"]}]}, "'events[0].mods'"),
    ({"events": [{"type": "drag", "x": 1, "y": 2, "button": "thumb"}]}, "'events[0].button': expected one of"),
    ({"events": [{"type": "scroll", "x": 1, "y": 2, "dy": float("nan")}]}, "'events[0].dy': expected a finite"),
    ({"moves": []}, "'events': expected a value"),
    ({"events": [{"type": "press", "label": "timeline_strip", "at": [1.5, 0]}]}, "'events[0].at': expected a list of 2"),
    ({"events": [{"type": "drag", "label": "timeline_strip", "at": [-0.1, 0.5]}]}, "'events[0].at': expected fractions"),
    ({"events": [{"type": "move", "label": "timeline_strip", "x": 3}]}, "unknown field 'events[0].x'"),
])
def test_bad_events_name_the_event_and_field(events, message):
    with pytest.raises(FileFormatError, match=re.escape(message)):
        events_from_dict(events, "events.json")


def test_a_bad_event_file_exits_2_before_writing_anything(tmp_path):
    path = tmp_path / "events.json"
    path.write_text(json.dumps({"events": [{"type": "frame", "count": 0}]}))
    result = subprocess.run([sys.executable, "app.py", "--headless", "--replay", str(path), "--save-pose",
                             str(tmp_path / "pose.json")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "events.json: field 'events[0].count': expected an integer" in result.stderr.strip().splitlines()[-1]
    assert not (tmp_path / "pose.json").exists()


def test_headless_needs_an_output():
    result = subprocess.run([sys.executable, "app.py", "--headless"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "--headless needs something to write" in result.stderr


def test_an_unknown_widget_label_exits_2_naming_the_file_event_and_label(tmp_path):
    path = tmp_path / "events.json"
    path.write_text(json.dumps({"events": [{"type": "click_item", "label": "Solver"},
                                           {"type": "set_value", "label": "No such setting", "value": 3}]}))
    result = subprocess.run([sys.executable, "app.py", "--headless", "--replay", str(path), "--save-pose",
                             str(tmp_path / "pose.json")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip() == f"posekit: error: {path}: events[1]: no widget labelled 'No such setting' is drawn " \
                                    "(none is under a closed header)"
    assert not (tmp_path / "pose.json").exists()


def field_text(label, *keys):
    """Events that Ctrl+click the field ``label`` (a slider takes text), select its text, press
    each of ``keys`` with Ctrl, then Enter."""
    return ([{"type": "click_item", "label": label, "mods": ["ctrl"]}, {"type": "key", "key": "A", "mods": ["ctrl"]}]
            + [{"type": "key", "key": k, "mods": ["ctrl"]} for k in keys] + [{"type": "key", "key": "RETURN"},
                                                                              {"type": "frame", "count": 2}])


def test_copy_and_paste_in_a_field_of_a_headless_replay_use_the_apps_own_clipboard(tmp_path):
    """pyglet's headless window has no clipboard: ImGui's Ctrl+C used to print "Exception ignored
    ... NotImplementedError" and Ctrl+V pasted nothing."""
    events = ([{"type": "click_item", "label": "Solver"}, {"type": "set_value", "label": "Iterations", "value": 37}]
              + field_text("Iterations", "C") + [{"type": "set_value", "label": "Iterations", "value": 5}]
              + field_text("Iterations", "V"))
    path, widgets_file = tmp_path / "events.json", tmp_path / "widgets.json"
    path.write_text(json.dumps({"events": events}))
    result = subprocess.run([sys.executable, "app.py", "--headless", "--replay", str(path), "--save-pose",
                             str(tmp_path / "pose.json")], capture_output=True, text=True, timeout=120,
                            env={**os.environ, WIDGETS_ENV: str(widgets_file)})
    assert result.returncode == 0, result.stderr
    assert "Exception ignored" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    shown = {row["label"]: row["value"] for row in json.loads(widgets_file.read_text())["widgets"]}
    assert shown["Iterations"] == 37  # pasted back over the 5
