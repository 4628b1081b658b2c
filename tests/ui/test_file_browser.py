"""The in-app file dialog (no desktop dialog in tests), driven by clicks and keys in the real window:
filtering, walking folders, opening a rig, saving a pose (new name, overwrite asked both ways),
an unreadable folder, and Escape."""
import os

import pytest

from rig.formats.rigfile import load_pose
from tests.rig.test_bvh import SMALL as WALK_BVH
from tests.ui.conftest import Driver, humanoid_state, start_app
from ui import widgets
from ui.autosave import STATE_DIR_ENV

RIG_FILES = ["a.json", "b.bvh", "c.glb", "e.gltf"]


@pytest.fixture
def folder(tmp_path):
    """Sub-folders and files of several extensions, some hidden."""
    for name in ("rigs", "poses", ".hidden"):
        (tmp_path / name).mkdir()
    for name in RIG_FILES + ["d.txt", ".secret.json"]:
        (tmp_path / name).write_text("x")
    (tmp_path / "rigs" / "walk.bvh").write_text(WALK_BVH)  # a real BVH, made here: no ../shared needed
    return tmp_path


@pytest.fixture
def driver(posekit_window, tmp_path, monkeypatch):
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))  # Open Recent lists opened rigs there
    start_app(posekit_window, humanoid_state())
    return Driver(posekit_window)


def open_dialog(driver, key, mods, where):
    """Open a file question by its shortcut and type ``where`` into its folder field."""
    driver.key(key, mods)
    driver.frames(1)  # the dialog settles where it is shown a frame after it opens
    driver.set_value("##folder", str(where))


def rows():
    """The rows the dialog's list shows."""
    return [item.name for item in widgets.drawn() if item.kind == "selectable"]


def double_click(driver, label):
    driver.click_item(label)
    driver.click_item(label)


def browser(driver):
    return driver.app.editor.files.browser


def test_the_filter_hides_other_files_and_hidden_ones_until_asked(driver, folder):
    open_dialog(driver, "O", ["ctrl", "shift"], folder)
    assert rows() == ["poses/", "rigs/"] + RIG_FILES  # folders first; no d.txt, no dot-names
    driver.set_value("##filter", "All files")
    driver.frames(1)  # the list was drawn before the filter changed
    assert rows() == ["poses/", "rigs/"] + sorted(RIG_FILES + ["d.txt"])
    driver.set_value("Show hidden", True)
    driver.frames(1)
    assert rows() == [".hidden/", "poses/", "rigs/", ".secret.json"] + sorted(RIG_FILES + ["d.txt"])


def test_entering_a_folder_and_going_up(driver, folder):
    open_dialog(driver, "O", ["ctrl", "shift"], folder)
    double_click(driver, "rigs/")
    assert browser(driver).folder == str(folder / "rigs") and rows() == ["walk.bvh"]
    driver.click_item("Parent folder")
    assert browser(driver).folder == str(folder) and "rigs/" in rows()
    for key in ("DOWN", "DOWN", "ENTER"):  # rows: poses/, rigs/
        driver.key(key)
        driver.frames(1)  # ImGui takes one change of a key a frame: the release, before it is pressed again
    assert browser(driver).folder == str(folder / "rigs")
    driver.key("BACKSPACE")  # the name field is not being typed in: Backspace goes up
    driver.frames(1)
    assert browser(driver).folder == str(folder)
    assert driver.app.editor.files.active


def test_file_open_rig_opens_the_rig_double_clicked(driver, folder):
    driver.click_item("File")
    driver.click_item("Open rig...")
    driver.frames(1)
    driver.set_value("##folder", str(folder / "rigs"))
    double_click(driver, "walk.bvh")
    driver.frames(2)
    state = driver.app.state
    assert not driver.app.editor.files.active
    assert state.rig_path == str(folder / "rigs" / "walk.bvh") and "Hips" in state.rig.skeleton.names
    assert state.message.startswith(f"Opened {folder / 'rigs' / 'walk.bvh'}")


def test_saving_a_pose_to_a_new_name_writes_it(driver, folder):
    open_dialog(driver, "S", ["ctrl", "shift"], folder / "poses")
    driver.set_value("##name", "new.json")  # Enter in the field saves
    driver.frames(2)
    assert not driver.app.editor.files.active
    assert driver.app.editor.pose_path == str(folder / "poses" / "new.json")
    pose, _ = load_pose(folder / "poses" / "new.json", driver.app.state.rig.skeleton)
    assert pose == driver.app.state.pose


def test_saving_over_a_file_asks_first(driver, folder):
    open_dialog(driver, "S", ["ctrl", "shift"], folder)
    driver.click_item("a.json")  # its name goes into the name field
    driver.click_item("Save##accept")
    driver.frames(1)  # the question shows from the next frame
    assert widgets.find("a.json exists. Overwrite it?").kind == "text"
    driver.key("ESCAPE")  # no: back to the dialog, the file as it was
    assert driver.app.editor.files.active and browser(driver).overwrite is None
    assert (folder / "a.json").read_text() == "x"
    driver.key("ENTER")  # Save again; asked again
    assert browser(driver).overwrite == str(folder / "a.json")
    driver.key("ENTER")  # yes
    driver.frames(2)
    assert not driver.app.editor.files.active
    assert load_pose(folder / "a.json", driver.app.state.rig.skeleton)[0] == driver.app.state.pose
    assert driver.app.editor.pose_path == str(folder / "a.json")


def assert_says_cannot_read(driver, where):
    texts = [item.name for item in widgets.drawn() if item.kind == "text"]
    assert [t for t in texts if t.startswith(f"Cannot read {where}: ") and "\n" not in t]
    assert rows() == [] and driver.app.editor.files.active


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder: chmod cannot deny it")
def test_an_unreadable_folder_says_so(driver, folder):
    locked = folder / "rigs"
    locked.chmod(0)
    try:
        open_dialog(driver, "O", ["ctrl", "shift"], folder)
        double_click(driver, "rigs/")
        assert_says_cannot_read(driver, locked)
    finally:
        locked.chmod(0o755)


def test_a_missing_folder_says_so(driver, folder):
    open_dialog(driver, "O", ["ctrl", "shift"], folder / "gone")
    assert_says_cannot_read(driver, folder / "gone")


@pytest.mark.parametrize("typing", [False, True])
def test_escape_cancels_and_nothing_changes(driver, folder, typing):
    state, pose = driver.app.state, driver.app.state.pose.copy()
    open_dialog(driver, "O", ["ctrl", "shift"], folder)
    driver.click_item("b.bvh")
    if typing:
        driver.click_item("##name")  # the field takes Escape for itself; it still cancels
    driver.key("ESCAPE")
    driver.frames(1)
    assert not driver.app.editor.files.active
    assert driver.app.state is state and state.pose == pose and state.rig_path == "assets/humanoid.json"
    driver.key("O", ["ctrl", "shift"])
    driver.frames(1)
    assert browser(driver).folder == str(folder)  # the next dialog starts where this one was


def ask(driver, key, mods):
    """Open a file question by its shortcut; the name field it shows."""
    driver.key(key, mods)
    driver.frames(1)
    return widgets.find("##name").value


def cancel(driver):
    driver.key("ESCAPE")
    driver.frames(1)


def test_opening_prefills_only_a_file_the_folder_shown_holds(driver, folder, monkeypatch):
    """Open pose offered "pose.json" where there was none, and Open rig the rig's name in the
    folder the last dialog left off in."""
    assert ask(driver, "O", ["ctrl", "shift"]) == "humanoid.json"  # the rig's own folder holds it
    driver.set_value("##folder", str(folder / "rigs"))
    cancel(driver)
    assert ask(driver, "O", ["ctrl", "shift"]) == ""  # starts where the last one left off, which lacks it
    assert browser(driver).folder == str(folder / "rigs")
    cancel(driver)
    monkeypatch.chdir(folder)  # where the default pose file, pose.json, would be: it is not
    driver.app.editor.files.folder = ""
    assert ask(driver, "O", ["ctrl"]) == "" and browser(driver).folder == str(folder)
    cancel(driver)
    assert ask(driver, "S", ["ctrl", "shift"]) == "pose.json"  # saving offers a name to write
