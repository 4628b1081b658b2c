"""Clicks through the real window (BVH excerpt open), on widgets found by their labels, on what was
otherwise only tested through its functions: the "Set up IK automatically" button, File > Open
Recent, and File > BVH import (Z-up, units) with Reopen."""
import numpy as np
import pytest

from tests.rig.test_bvh_options import z_up_text
from tests.ui.conftest import Driver, humanoid_state, start_app
from ui.autosave import STATE_DIR_ENV
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED

BVH = CMU_EXCERPT


@pytest.fixture
def bvh_app(posekit_window, tmp_path, monkeypatch):
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    start_app(posekit_window, humanoid_state())
    return posekit_window


def open_file(app, path):
    assert app.editor.load_rig(str(path))
    app.frame()
    app.frame()
    return Driver(app)


def menu_item(driver, submenu, item):
    """File > ``submenu`` > ``item``: open the menu, hover the submenu until it opens, click."""
    driver.click_item("File")
    driver.hover_item(submenu)
    driver.frames(2)
    driver.click_item(item)
    driver.frames(2)


def height(state, top="Head", bottom="LeftFoot"):
    index, world = state.rig.skeleton.index, state.world
    return world[index[top], :3, 3] - world[index[bottom], :3, 3]


@NEEDS_SHARED
def test_clicking_set_up_ik_adds_the_handles_as_one_undo_step(bvh_app):
    driver = open_file(bvh_app, BVH)
    state = driver.state
    joints = state.world[:, :3, 3].copy()
    old_rig = state.rig
    driver.click_item("Set up IK automatically")  # offered open for the BVH figure
    driver.frames(1)
    state = driver.app.state
    assert {"hand_ik.L", "hand_ik.R", "foot_ik.L", "foot_ik.R", "knee_pole.L"} <= set(state.rig.skeleton.names)
    assert len(state.rig.ik) == 4
    np.testing.assert_allclose(state.world[:len(joints), :3, 3], joints, atol=1e-6)  # nothing moved
    driver.key("Z", ["ctrl"])
    assert state.rig is old_rig and not state.history.can_undo()


@NEEDS_SHARED
def test_open_recent_reopens_the_clicked_file(bvh_app, tmp_path):
    older, newer = tmp_path / "older.bvh", tmp_path / "newer.bvh"
    for path in (older, newer):
        path.write_text(open(BVH).read())
    bvh_app.editor.load_rig(str(older))
    driver = open_file(bvh_app, newer)
    assert bvh_app.editor.recent.paths[:2] == [str(newer), str(older)]
    bvh_app.editor.load_rig("assets/humanoid.json")
    bvh_app.frame()
    menu_item(driver, "Open Recent", str(newer))
    assert bvh_app.state.rig_path == str(newer)
    assert "LeftFoot" in bvh_app.state.rig.skeleton.names
    assert bvh_app.state.message.startswith(f"Opened {newer}")


@NEEDS_SHARED
def test_bvh_import_menu_reopens_a_z_up_file_standing_and_in_given_units(bvh_app, tmp_path):
    path = tmp_path / "zup.bvh"
    path.write_text(z_up_text(open(BVH).read()))
    driver = open_file(bvh_app, path)
    assert abs(height(bvh_app.state)[1]) < 0.3  # read as Y-up, the figure lies along Z
    menu_item(driver, "BVH import", "Z-up file")
    assert bvh_app.editor.import_options.bvh_up == "z"
    menu_item(driver, "BVH import", "Reopen with these options")
    standing = height(bvh_app.state)
    assert standing[1] > 1.2 and bvh_app.state.rig_path == str(path)
    menu_item(driver, "BVH import", "Guess units")  # off: centimetres until changed
    assert bvh_app.editor.import_options.bvh_scale == 0.01
    menu_item(driver, "BVH import", "Reopen with these options")  # a row lower, under the scale field
    ratio = height(bvh_app.state)[1] / standing[1]
    assert ratio == pytest.approx(0.01 / (0.0254 / 0.45))  # centimetres instead of the guessed CMU unit


def test_skin_menu_reads_another_skin_of_the_open_file(bvh_app, tmp_path):
    from tests.rig import gltf_builder as gb
    path = gb.write_glb(tmp_path, *gb.document(second_skin=True))
    driver = open_file(bvh_app, path)
    assert driver.state.skins == ("skin 0", "skin 1") and "File > Skin" in driver.state.message
    menu_item(driver, "Skin", "1: skin 1")  # shown only for files with several skins
    state = bvh_app.state
    assert state.skin == 1 and state.rig.skeleton.names == ["lower", "hand"] and state.rig_path == str(path)
    assert bvh_app.editor.import_options.gltf_skin == 0  # the choice is for this file only


@NEEDS_SHARED
def test_fix_limbs_combo_moves_where_a_limb_ends(bvh_app):
    driver = open_file(bvh_app, BVH)
    driver.click_item("Fix limbs")  # opens the tree node under the set-up button
    driver.frames(2)
    driver.set_value("arm.L ends at", "LeftForeArm")
    driver.frames(2)
    report = bvh_app.state.auto_setup.report
    assert report.roles["arm.L"] == ["LeftShoulder", "LeftArm", "LeftForeArm"]
    assert report.roles["arm.R"][2] == "RightHand"


def test_the_edit_menu_holds_edit_commands_only(driver, monkeypatch):
    """Open Recent, BVH import and Skin belong to File; the Edit menu used to draw them too."""
    drawn = []
    for name in ("_recent_menu", "_bvh_import_menu", "_skin_menu"):
        monkeypatch.setattr(driver.app.editor, name, lambda name=name: drawn.append(name))
    driver.click_item("Edit")
    driver.frames(2)
    assert drawn == []
    driver.key("ESCAPE")
    driver.click_item("File")
    driver.frames(2)
    assert {"_recent_menu", "_bvh_import_menu", "_skin_menu"} <= set(drawn)


def test_escape_closes_an_open_menu(driver, monkeypatch):
    menus = []
    monkeypatch.setattr(driver.app.editor, "_menu_items", lambda menu: menus.append(menu))
    driver.click_item("Edit")
    driver.frames(2)
    assert menus[-1] == "Edit"
    driver.key("ESCAPE")
    driver.frames(2)
    menus.clear()
    driver.frames(2)
    assert menus == []
