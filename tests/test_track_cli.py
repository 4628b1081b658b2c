"""`app.py tracks-from` and `app.py track`: the round trip on our humanoid walking, and bad input."""
import json

import numpy as np
import pytest

import app
from rig.formats.reader import open_rig
from rig.pose import world_matrices
from tests.tools.humanoid_walk import main as write_walk

ROUND_TRIP_MPJPE = 0.03  # metres: the walk rebuilt from all six of its trackers


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    path = tmp_path_factory.mktemp("walk") / "walk.glb"
    write_walk([str(path), "1.5"])
    return path


def run(argv, capsys):
    code = app.main(argv)
    return code, capsys.readouterr().err


def test_tracks_from_then_track_gives_back_the_walk(walk, tmp_path, capsys):
    tracks, out = tmp_path / "walk.tracks.json", tmp_path / "out.json"
    assert run(["tracks-from", str(walk), "--roles", "head,hands,pelvis,feet", "-o", str(tracks)], capsys) == (0, "")
    stream = json.loads(tracks.read_text())
    assert stream["format"] == "posekit.tracks" and set(stream["frames"][0]) == {
        "head", "hand.L", "hand.R", "pelvis", "foot.L", "foot.R"}
    assert run(["track", str(walk), str(tracks), "-o", str(out)], capsys)[0] == 0
    result = json.loads(out.read_text())
    document = open_rig(walk)
    truth = document.clips["walk"]
    assert result["fps"] == pytest.approx(30.0) and len(result["frames"]) == len(truth) == len(stream["frames"])
    body_bones = ["pelvis", "spine.03", "head", "forearm.L", "hand.R", "shin.L", "foot.R", "toe.L"]
    skeleton = document.rig.skeleton
    errors = [np.linalg.norm(np.array(frame["bones"][name]["head"])
                             - world_matrices(skeleton, pose)[skeleton.index[name], :3, 3])
              for frame, pose in zip(result["frames"], truth) for name in body_bones]
    assert np.mean(errors) <= ROUND_TRIP_MPJPE
    for extension in (".glb", ".bvh"):
        written = tmp_path / f"out{extension}"
        assert run(["track", str(walk), str(tracks), "-o", str(written)], capsys)[0] == 0
        again = open_rig(written)
        assert len(next(iter(again.clips.values()))) == len(truth)


def test_track_on_the_humanoid_rig_file_keeps_its_ik_on_the_tracked_limbs(walk, tmp_path, capsys):
    """The humanoid's own IK handles are snapped onto the tracked limbs, so its IK evaluated in the
    output leaves the hands where the trackers put them."""
    tracks, out = tmp_path / "t.json", tmp_path / "out.json"
    run(["tracks-from", str(walk), "-o", str(tracks)], capsys)
    assert run(["track", "assets/humanoid.json", str(tracks), "-o", str(out)], capsys)[0] == 0
    stream, result = json.loads(tracks.read_text()), json.loads(out.read_text())
    for frame, tracked in zip(stream["frames"], result["frames"]):
        assert np.linalg.norm(np.array(frame["hand.L"]["position"])
                              - tracked["bones"]["hand.L"]["head"]) <= 1e-3


@pytest.mark.parametrize("argv, message", [
    (["track", "assets/humanoid.json", "missing.json", "-o", "{tmp}/o.json"], "missing.json"),
    (["track", "assets/humanoid.json", "{tracks}", "-o", "{tmp}/o.txt"], "o.txt: expected an output ending in"),
    (["track", "assets/humanoid.json", "{tracks}", "--calibrate", "500", "-o", "{tmp}/o.json"],
     "no frame 500 to calibrate"),
    (["track", "assets/robot_arm.json", "{tracks}", "-o", "{tmp}/o.json"], "cannot drive"),
    (["tracks-from", "assets/humanoid.json", "-o", "{tmp}/t.json"], "has no motion"),
    (["tracks-from", "{walk}", "--clip", "run", "-o", "{tmp}/t.json"], "no animation clip 'run'"),
    (["track", "assets/humanoid.json", "{tracks}", "-o", "{tmp}/no/such/folder/o.json"], "cannot write"),
])
def test_bad_input_gets_one_line(walk, tmp_path, capsys, argv, message):
    tracks = tmp_path / "t.json"
    run(["tracks-from", str(walk), "-o", str(tracks)], capsys)
    argv = [a.format(tmp=tmp_path, tracks=tracks, walk=walk) for a in argv]
    code, err = run(argv, capsys)
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_bad_roles_are_a_usage_error(walk, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        app.main(["tracks-from", str(walk), "--roles", "head,knees", "-o", str(tmp_path / "t.json")])
    assert stop.value.code == 2 and "unknown tracker group 'knees'" in capsys.readouterr().err
