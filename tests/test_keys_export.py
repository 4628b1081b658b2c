"""Keyed motion exported with its real timing (.glb clip, BVH frames) reads back as the same poses at
every frame and the same rate; `app.py export --clip NAME --fps N` and its bad input."""
import numpy as np
import pytest

import app
from rig.evaluate import evaluation
from rig.formats.document import RigDocument
from rig.formats.export import Timing, clip_frames, export_rig
from rig.formats.reader import open_rig
from rig.formats.rigfile import load_rig
from rig.keys import Action, frame_range, with_keys
from rig.pose import Pose, heads_tails, world_matrices
from tests.gltf_validator import assert_valid
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED
from tests.ui.animated import GLB

ROUND_TRIP = 1e-5  # metres: every joint of every frame, written and read back
RIG = "assets/humanoid.json"


def keyed_humanoid(fps):
    """The humanoid with its left hand handle and spine keyed at three frames, smooth in between."""
    rig = load_rig(RIG)
    skeleton = rig.skeleton
    action = Action.empty(Pose.rest(len(skeleton)), name="reach", fps=fps, end=24)
    bones = [skeleton.index[n] for n in ("hand_ik.L", "spine.02")]
    for frame, (lift, bend) in ((0, (0.0, 0.0)), (12, (0.25, 0.4)), (24, (0.05, -0.2))):
        pose = Pose.rest(len(skeleton))
        pose.locations[bones[0]] = (0.0, lift, lift / 2)
        pose.rotations[bones[1]] = (np.sin(bend / 2), 0.0, 0.0, np.cos(bend / 2))
        action = with_keys(action, pose, skeleton, bones, frame, "smooth")
    return rig, action


def shown_joints(skeleton, world):
    return np.vstack(heads_tails(skeleton, world))[:, :]


@pytest.mark.parametrize("extension", [".glb", ".bvh"])
@pytest.mark.parametrize("fps", [24.0, 60.0])
def test_keys_round_trip_at_every_frame_with_their_timing(extension, fps, tmp_path):
    rig, action = keyed_humanoid(fps)
    frames = frame_range(action)
    poses = [action.pose_at(f, rig.skeleton) for f in frames]
    out = tmp_path / f"keys{extension}"
    export_rig(RigDocument(rig, RIG), out, poses, Timing(fps, action.name))
    back = open_rig(out)
    (name, read), = back.clips.items()
    assert len(read) == len(frames) == 25
    assert 1.0 / back.frame_times[name] == pytest.approx(fps, rel=1e-6)
    order = [back.rig.skeleton.index[n] for n in rig.skeleton.names]
    for pose, frame in zip(poses, read):
        expected = heads_tails(rig.skeleton, evaluation(rig, pose).world)[0]  # IK on top, as the window shows it
        got = heads_tails(back.rig.skeleton, world_matrices(back.rig.skeleton, frame))[0][order]
        np.testing.assert_allclose(got, expected, atol=ROUND_TRIP)
    if extension == ".glb":
        assert name == "reach"
        assert_valid(out)


@NEEDS_SHARED
@pytest.mark.parametrize("extension", [".glb", ".bvh"])
def test_a_bvh_clip_exports_from_the_command_line_at_its_rate_or_another(extension, tmp_path):
    document = open_rig(CMU_EXCERPT)
    out = tmp_path / f"clip{extension}"
    assert app.main(["export", CMU_EXCERPT, "--clip", "motion", "-o", str(out)]) == 0
    back = open_rig(out)
    frames = next(iter(back.clips.values()))
    assert len(frames) == len(document.clips["motion"])
    assert next(iter(back.frame_times.values())) == pytest.approx(document.frame_times["motion"], rel=1e-6)
    skeleton, order = document.rig.skeleton, [back.rig.skeleton.index[n] for n in document.rig.skeleton.names]
    for pose, frame in zip(document.clips["motion"], frames):
        np.testing.assert_allclose(heads_tails(back.rig.skeleton, world_matrices(back.rig.skeleton, frame))[0][order],
                                   heads_tails(skeleton, world_matrices(skeleton, pose))[0], atol=ROUND_TRIP)
    faster = tmp_path / f"fast{extension}"
    assert app.main(["export", CMU_EXCERPT, "--clip", "motion", "--fps", "240", "-o", str(faster)]) == 0
    fast = open_rig(faster)
    rate = 1.0 / next(iter(fast.frame_times.values()))
    assert rate == pytest.approx(240, rel=1e-6)
    duration = (len(document.clips["motion"]) - 1) * document.frame_times["motion"]
    assert (len(next(iter(fast.clips.values()))) - 1) / rate == pytest.approx(duration, abs=1 / 240)
    if extension == ".glb":
        assert_valid(faster)


def test_a_glb_clip_exports_with_its_name_and_timing(tmp_path):
    document = open_rig(GLB)
    poses = [Pose.rest(len(document.rig.skeleton))] * 3
    export_rig(document, tmp_path / "three.glb", poses, Timing(12.0, "idle"))
    back = open_rig(tmp_path / "three.glb")
    assert list(back.clips) == ["idle"] and back.frame_times["idle"] == pytest.approx(1 / 12)
    poses, timing = clip_frames(back, "idle", 24.0)
    assert len(poses) == 5 and timing == Timing(24.0, "idle")


@pytest.mark.parametrize("args, message", [
    (["--clip", "walk"], "no animation clip 'walk'"),
    (["--fps", "0", "--clip", "wave"], "--fps: expected frames a second"),
    (["--fps", "nan", "--clip", "wave"], "--fps: expected frames a second"),
    (["--fps", "24"], "--fps needs frames"),
    (["--pose", "p.json", "--clip", "wave"], "--pose cannot be combined with --clip"),
])
def test_bad_export_flags_fail_in_one_line(args, message, tmp_path, capsys):
    out = tmp_path / "out.glb"
    try:
        status = app.main(["export", GLB, *args, "-o", str(out)])
    except SystemExit as stop:  # argparse's own refusals
        status = stop.code
    err = capsys.readouterr().err
    assert status == 2 and message in err and not out.exists()
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("posekit")
