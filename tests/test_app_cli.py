"""The command line: headless screenshots and one-line errors for bad input."""
import json
import subprocess
import sys

import numpy as np
import pytest

from render.capture import load_png
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED


def run_app(*args):
    return subprocess.run([sys.executable, "app.py", *args], capture_output=True, text=True, timeout=120)


def test_headless_screenshot_is_repeatable_byte_for_byte(tmp_path):
    first, second = tmp_path / "a.png", tmp_path / "b.png"
    for out in (first, second):
        result = run_app("--headless", "--screenshot", str(out), "--size", "320x200")
        assert result.returncode == 0, result.stderr
    assert first.read_bytes() == second.read_bytes()
    image = load_png(first)
    assert image.shape == (200, 320, 3)
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 50  # a real picture, not a cleared buffer


def test_screenshot_applies_a_pose_file(tmp_path):
    pose = tmp_path / "pose.json"
    pose.write_text(json.dumps({"format": "posekit.pose", "version": 1,
                                "bones": {"spine.01": {"rotation": [0.0, 0.0, 0.3826834, 0.9238795]}}}))
    rest, posed = tmp_path / "rest.png", tmp_path / "posed.png"
    assert run_app("--headless", "--screenshot", str(rest), "--size", "320x200").returncode == 0
    result = run_app("--headless", "--screenshot", str(posed), "--size", "320x200", "--pose", str(pose))
    assert result.returncode == 0, result.stderr
    assert not np.array_equal(load_png(rest), load_png(posed))


def test_screenshot_of_a_skinned_glb_shows_its_mesh(tmp_path):
    json_rig, glb = tmp_path / "json.png", tmp_path / "glb.png"
    assert run_app("--headless", "--screenshot", str(json_rig), "--size", "800x600").returncode == 0
    result = run_app("--headless", "--screenshot", str(glb), "--size", "800x600", "assets/humanoid_skinned.glb")
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr
    rgb = load_png(glb).astype(int)
    mesh_pixels = ((rgb[..., 0] - rgb[..., 2] > 8) & (rgb[..., 0] > 60) & (abs(rgb[..., 0] - rgb[..., 1]) < 20)).sum()
    assert mesh_pixels > 5000  # the warm grey body beside the panel, absent from the bones-only rig
    assert not np.array_equal(load_png(json_rig), load_png(glb))


@pytest.mark.parametrize("args, message", [
    (["--headless", "--screenshot", "{tmp}/x.png", "--size", "big"], "expected WIDTHxHEIGHT"),
    (["--headless", "--screenshot", "{tmp}/x.png", "{tmp}/missing.json"], "missing.json: expected a readable file"),
    (["--headless", "--screenshot", "{tmp}/x.png", "{tmp}/broken.json"], "broken.json: expected valid UTF-8 JSON"),
    (["--headless", "--screenshot", "{tmp}/x.png", "--pose", "{tmp}/broken.json"], "expected valid UTF-8 JSON"),
    (["--headless", "--screenshot", "{tmp}/no/such/dir/x.png"], "cannot write"),
    (["--screenshot", "{tmp}/x.png"], "--screenshot needs --headless"),
    (["--headless", "--screenshot", "{tmp}/x.png", "{tmp}/broken.glb"], "broken.glb: expected a GLB file"),
])
def test_bad_arguments_exit_non_zero_with_one_line(tmp_path, args, message):
    (tmp_path / "broken.json").write_text("{")
    (tmp_path / "broken.glb").write_bytes(b"glTF\x02\x00\x00\x00")
    result = run_app(*[a.format(tmp=tmp_path) for a in args])
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert message in lines[-1]
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "x.png").exists()


@NEEDS_SHARED
def test_opens_a_bvh_file_showing_its_first_frame(tmp_path):
    out = tmp_path / "bvh.png"
    result = run_app("--headless", "--screenshot", str(out), "--size", "320x200", CMU_EXCERPT)
    assert result.returncode == 0, result.stderr
    assert "units guessed as CMU mocap units" in result.stderr
    assert len(np.unique(load_png(out).reshape(-1, 3), axis=0)) > 50
