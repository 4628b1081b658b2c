"""The real app in a real X window (on Xvfb), driven by xdotool as a user would drive it: drag
the left hand's handle and quit with Ctrl+Q (asked to save first: Escape cancels, D does not save);
the pose the app writes on exit has the hand where the pointer went. Skipped only when Xvfb or xdotool is missing or Xvfb cannot start."""
import os
import random
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

from rig.pose import heads_tails, world_matrices
from rig.formats.rigfile import load_pose, load_rig
from ui.state import AppState

SIZE = (960, 600)  # wide enough that the docked panels leave the hands in the open
RIG = "assets/humanoid.json"


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


@pytest.fixture
def display():
    """A fresh Xvfb display, ":N"."""
    if not (shutil.which("Xvfb") and shutil.which("xdotool")):
        pytest.skip("Xvfb or xdotool is not installed (bash .ci/setup installs both)")
    number = random.SystemRandom().randrange(200, 900)
    server = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    socket = f"/tmp/.X11-unix/X{number}"
    try:
        wait_for(lambda: os.path.exists(socket) or server.poll() is not None, 5, "Xvfb")
        if server.poll() is not None:
            pytest.skip(f"Xvfb could not start: {server.stderr.read().decode(errors='replace').strip()[-200:]}")
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(5)


def xdotool(env, *args):
    result = subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True, timeout=10)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def plane_point(camera, x, y, through):
    origin, direction = camera.window_ray(x, y, *SIZE)
    normal = camera.target - camera.eye()
    return origin + direction * np.dot(through - origin, normal) / np.dot(direction, normal)


def test_dragging_the_hand_handle_in_a_real_window(display, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYOPENGL_PLATFORM"}  # GLX here, not EGL
    env.update(DISPLAY=display, POSEKIT_STATE_DIR=str(tmp_path / "state"))
    out = tmp_path / "pose.json"
    app = subprocess.Popen([sys.executable, "app.py", "--size", "x".join(map(str, SIZE)), "--save-pose", str(out),
                            RIG], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        window = xdotool(env, "search", "--sync", "--onlyvisible", "--name", "^Posekit$").split()[0]
        rig = load_rig(RIG)
        state = AppState.for_rig(rig, RIG, size=SIZE)  # what the app shows at start
        handle = state.world[rig.skeleton.index["hand_ik.L"], :3, 3]
        start = np.round(state.camera.world_to_window(handle[None], *SIZE)[0]).astype(int)
        end = start + (-60, -45)
        time.sleep(0.3)  # let the first frames draw, so ImGui knows where its panel is
        xdotool(env, "mousemove", "--window", window, *map(str, start))
        xdotool(env, "mousedown", "1")
        for k in range(1, 6):
            xdotool(env, "mousemove", "--window", window, *map(str, start + (end - start) * k // 5))
            time.sleep(0.03)
        xdotool(env, "mouseup", "1")
        xdotool(env, "key", "--window", window, "ctrl+q")  # the drag is unsaved: the app asks first
        time.sleep(0.5)
        assert app.poll() is None
        xdotool(env, "key", "--window", window, "Escape")  # Cancel: the work stays
        time.sleep(0.3)
        xdotool(env, "key", "--window", window, "ctrl+q")
        time.sleep(0.3)
        assert app.poll() is None
        xdotool(env, "key", "--window", window, "d")  # Don't save
        app.wait(10)
    finally:
        if app.poll() is None:
            app.kill()
    stdout, stderr = app.communicate()
    assert app.returncode == 0, stderr
    pose, _ = load_pose(out, rig.skeleton)
    _, tails = heads_tails(rig.skeleton, world_matrices(rig.skeleton, pose))
    grab_offset = handle - plane_point(state.camera, *(start + 0.5), handle)  # pixel centres
    wanted = plane_point(state.camera, *(end + 0.5), handle) + grab_offset
    hand = tails[rig.skeleton.index["forearm.L"]]
    assert np.linalg.norm(hand - wanted) < 1e-4, f"hand {hand}, pointer point {wanted}"
    assert not (tmp_path / "state" / "recovery.json").exists()  # a clean exit leaves nothing to recover
