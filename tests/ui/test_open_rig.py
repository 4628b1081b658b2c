"""Opening rigs in the app: File > Open Rig (the in-app file dialog), a dropped file, File > Open Recent."""
import json
import os

import numpy as np
import pytest

from rig.formats.reader import open_rig
from rig.pose import heads_tails, world_matrices
from tests.ui.conftest import Driver, humanoid_state, start_app
from ui.autosave import STATE_DIR_ENV
from ui.recent import MAX_RECENT, RecentFiles
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED

BVH = CMU_EXCERPT
GLB = "assets/humanoid_skinned.glb"


@pytest.fixture
def app(posekit_window, tmp_path, monkeypatch):
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    start_app(posekit_window, humanoid_state())  # a new editor reads the (empty) recent list
    return posekit_window


def open_through_dialog(driver, path):
    """File > Open Rig (Ctrl+Shift+O) in the in-app file dialog: type the folder, Enter, click the
    file, Open."""
    driver.key("O", ["ctrl", "shift"])
    assert driver.app.editor.files.active
    driver.frames(1)  # the dialog settles where it is shown a frame after it opens
    driver.set_value("##folder", os.path.dirname(path))
    driver.click_item(os.path.basename(path))
    driver.click_item("Open##accept")
    driver.frames(2)
    assert not driver.app.editor.files.active


def assert_shows(app, path):
    document = open_rig(path)
    state = app.state
    assert state.rig_path == str(path) and state.rig.skeleton.names == document.rig.skeleton.names
    heads = heads_tails(state.rig.skeleton, state.world)[0]
    skeleton = document.rig.skeleton
    expected = heads_tails(skeleton, world_matrices(skeleton, document.pose))[0]  # the file's own pose
    np.testing.assert_allclose(heads, expected, atol=1e-6)
    assert state.message.startswith(f"Opened {path}")
    assert state.deterministic and not state.history.can_undo()
    # Framed: every joint is inside the window.
    pixels = state.camera.world_to_window(heads, app.window.width, app.window.height)
    assert np.all((pixels >= 0) & (pixels <= [app.window.width, app.window.height]))


@pytest.mark.parametrize("path", [pytest.param(BVH, marks=NEEDS_SHARED), GLB])
def test_open_rig_through_the_file_dialog_replaces_the_scene(app, path):
    driver, path = Driver(app), os.path.abspath(path)  # the dialog answers with whole paths
    app.state.history.commit(app.state)
    open_through_dialog(driver, path)
    assert_shows(app, path)
    assert (app.state.mesh is not None) == path.endswith(".glb")


def test_a_broken_file_leaves_the_scene_and_says_why(app, tmp_path):
    broken = tmp_path / "broken.bvh"
    broken.write_text("HIERARCHY\nROOT hips\n{\n")
    before, pose = app.state, app.state.pose.copy()
    open_through_dialog(Driver(app), str(broken))
    assert app.state is before and app.state.pose == pose
    assert "broken.bvh" in app.state.message and "Opened" not in app.state.message
    assert RecentFiles().paths == []


@NEEDS_SHARED
def test_a_dropped_file_opens(app):
    app.window.dispatch_event("on_file_drop", 10, 10, [BVH, GLB])  # queued, as the OS's events are
    app.window.dispatch_events()
    app.frame()
    assert_shows(app, BVH)


@NEEDS_SHARED
def test_recent_list_keeps_the_last_five_newest_first_and_persists(app, tmp_path):
    copies = []
    for k in range(MAX_RECENT + 1):
        copy = tmp_path / f"rig{k}.bvh"
        copy.write_text(open(BVH).read())
        copies.append(str(copy))
    for path in copies + [copies[2]]:
        assert app.editor.load_rig(path)
    expected = [copies[2], copies[5], copies[4], copies[3], copies[1]]
    assert app.editor.recent.paths == expected
    assert RecentFiles().paths == expected  # a later start reads the same list
    stored = json.loads((tmp_path / "state" / "recent.json").read_text())
    assert stored["format"] == "posekit.recent" and stored["rigs"] == expected


def test_a_damaged_recent_list_reads_as_empty(tmp_path):
    path = tmp_path / "recent.json"
    for text in ("{", "[1, 2]", '{"format": "posekit.recent", "version": 1, "rigs": 3}'):
        path.write_text(text)
        assert RecentFiles(str(path)).paths == []
