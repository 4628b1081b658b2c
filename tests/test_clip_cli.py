"""``app.py RIG --clip NAME --frame N``: start from a frame of the file's animation, in headless
runs (screenshot, saved pose) as in the window; bad choices exit 2 with one line."""
import numpy as np
import pytest

from render.capture import load_png
from rig.formats.reader import open_rig
from rig.pose import heads_tails, world_matrices
from rig.formats.rigfile import load_pose
from tests.test_app_cli import run_app
from tests.ui.animated import CLIP, write_animated_glb
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED

BVH = CMU_EXCERPT


def joints(skeleton, pose):
    return np.vstack(heads_tails(skeleton, world_matrices(skeleton, pose)))


@NEEDS_SHARED
def test_a_bvh_frame_is_the_saved_pose(tmp_path):
    out = tmp_path / "pose.json"
    result = run_app("--headless", "--save-pose", str(out), "--frame", "3", BVH)
    assert result.returncode == 0, result.stderr
    document = open_rig(BVH)
    skeleton = document.rig.skeleton
    saved, _ = load_pose(out, skeleton)
    np.testing.assert_allclose(joints(skeleton, saved), joints(skeleton, document.clips["motion"][3]), atol=1e-6)
    assert np.abs(joints(skeleton, saved) - joints(skeleton, document.clips["motion"][0])).max() > 1e-3


def test_a_gltf_clip_frame_is_the_screenshot_and_the_saved_pose(tmp_path):
    glb = write_animated_glb(tmp_path / "animated.glb")
    first, last, pose = tmp_path / "first.png", tmp_path / "last.png", tmp_path / "pose.json"
    for frame, shot in (("0", first), ("2", last)):
        result = run_app("--headless", "--screenshot", str(shot), "--save-pose", str(pose), "--size", "320x200",
                         "--clip", CLIP, "--frame", frame, glb)
        assert result.returncode == 0, result.stderr
    assert not np.array_equal(load_png(first), load_png(last))
    document = open_rig(glb)
    skeleton = document.rig.skeleton
    saved, _ = load_pose(pose, skeleton)  # frame 2's
    np.testing.assert_allclose(joints(skeleton, saved), joints(skeleton, document.source.sample(CLIP, 2 / 30.0)),
                               atol=1e-4)


@pytest.mark.parametrize("args, message", [
    pytest.param(["--clip", "walk", BVH], "no animation clip 'walk'; the file has 'motion'", marks=NEEDS_SHARED),
    pytest.param(["--frame", "4", BVH], "frame 4 is out of range: clip 'motion' has frames 0 to 3",
                 marks=NEEDS_SHARED),
    pytest.param(["--frame", "-1", BVH], "frame -1 is out of range", marks=NEEDS_SHARED),
    (["--frame", "0", "assets/humanoid.json"], "has no animation to take --clip / --frame from"),
    (["--frame", "x", BVH], "invalid int value"),
    (["--frame", "0", "--pose", "{tmp}/p.json", BVH], "--pose cannot be combined with --clip or --frame"),
])
def test_bad_clip_choices_exit_non_zero_with_one_line(tmp_path, args, message):
    out = tmp_path / "x.png"
    result = run_app("--headless", "--screenshot", str(out), *[a.format(tmp=tmp_path) for a in args])
    assert result.returncode == 2
    assert message in result.stderr.strip().splitlines()[-1]
    assert "Traceback" not in result.stderr and not out.exists()
