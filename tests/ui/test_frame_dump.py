"""The POSEKIT_WIDGETS hook (ui.frame_dump): each frame the file says where the labelled widgets
and the bones are, as the tests driving a real window (tests/xvfb) read it; unset, nothing is written."""
import json

import numpy as np
import pytest

from tests.ui.conftest import SIZE
from ui import widgets
from ui.frame_dump import WIDGETS_ENV, FrameDump, dump_path


def test_the_hook_is_off_unless_the_variable_names_a_file(monkeypatch, tmp_path):
    monkeypatch.delenv(WIDGETS_ENV, raising=False)
    assert dump_path() is None
    monkeypatch.setenv(WIDGETS_ENV, "")
    assert dump_path() is None
    monkeypatch.setenv(WIDGETS_ENV, str(tmp_path / "w.json"))
    assert dump_path() == str(tmp_path / "w.json")


def test_each_frame_writes_the_widgets_and_the_bones_where_they_are_drawn(driver, tmp_path):
    path = tmp_path / "w.json"
    driver.app.dump = FrameDump(str(path))
    driver.app.frame()
    driver.app.frame()
    data = json.loads(path.read_text())
    assert data["frame"] == 2 and data["size"] == list(SIZE) and data["rig"] == "assets/humanoid.json"
    rows = {row["label"]: row for row in data["widgets"]}
    pose_tab = widgets.find("Pose")
    assert rows["Pose"]["rect"] == pytest.approx(pose_tab.rect) and rows["Pose"]["visible"]
    assert rows["Auto IK"]["value"] is driver.state.auto_ik  # what a checkbox or field shows
    hand = driver.state.world[driver.state.rig.skeleton.index["hand_ik.L"], :3, 3]
    expected = driver.state.camera.world_to_window(hand[None], *SIZE)[0]
    assert np.allclose(data["scene"]["handles"]["hand_ik.L"]["px"], expected)
    left, top, right, bottom = data["free"]
    assert 0 <= left < expected[0] < right and top < expected[1] < bottom  # the hand is in the open


def test_a_file_that_cannot_be_written_is_reported_once_and_the_hook_stops(driver, tmp_path):
    driver.app.dump = FrameDump(str(tmp_path / "missing" / "w.json"))
    driver.app.frame()
    assert "Cannot write" in driver.state.error
    assert driver.app.dump.path is None
    driver.app.frame()  # and the app goes on
