"""Editing through the keyboard and menus of the real (headless) window: undo / redo of drags,
copy / paste (flipped), mirror, clear, pose files and export through the file dialog."""
import os

import numpy as np

from rig.formats.reader import open_rig
from rig.pose import heads_tails, world_matrices
from rig.pose_ops import REFLECT_X, mirror_map
from tests.gltf_validator import assert_valid

from .test_drag import hand_and_lengths


def drag_hand(driver, dx=-50, dy=-40, steps=5):
    start = driver.pixel_of("hand_ik.L")
    driver.move(*start)
    driver.press(*start)
    for k in range(1, steps + 1):
        driver.drag(start[0] + dx * k / steps, start[1] + dy * k / steps)
    driver.release(start[0] + dx, start[1] + dy)


def test_a_drag_is_one_undo_step_restored_bit_for_bit_and_redone(driver):
    state = driver.state
    before, world_before = state.pose.copy(), state.world.copy()
    drag_hand(driver)
    after, world_after = state.pose.copy(), state.world.copy()
    assert not np.array_equal(after.locations, before.locations)
    assert len(state.history.undo_stack) == 1  # five drag frames, one step
    driver.key("Z", ["ctrl"])
    assert state.pose == before
    np.testing.assert_array_equal(state.world, world_before)
    driver.key("Z", ["ctrl", "shift"])
    assert state.pose == after
    np.testing.assert_array_equal(state.world, world_after)
    driver.key("Z", ["ctrl"])
    driver.key("Y", ["ctrl"])
    assert state.pose == after


def test_undo_brings_back_a_setting_change(driver):
    state = driver.state
    state.rig.ik[0].pole_angle = 0.5  # as the panel's slider writes it
    state.resolve()
    driver.frames(1)
    driver.key("Z", ["ctrl"])
    assert state.rig.ik[0].pole_angle == -1.977993


def left_right_hands(state):
    skel = state.rig.skeleton
    _, tails = heads_tails(skel, state.world)
    return tails[skel.index["forearm.L"]], tails[skel.index["forearm.R"]]


def test_copy_clear_paste_and_paste_flipped(driver):
    state = driver.state
    drag_hand(driver)
    posed_left, rest_right = left_right_hands(state)
    driver.key("C", ["ctrl"])
    driver.key("G", ["alt"])  # clears the selected handle's location: the hand goes home
    home_left, _ = left_right_hands(state)
    assert np.linalg.norm(home_left - posed_left) > 0.05
    driver.key("V", ["ctrl"])
    np.testing.assert_allclose(left_right_hands(state)[0], posed_left, atol=1e-9)
    driver.key("V", ["ctrl", "shift"])
    flipped_left, flipped_right = left_right_hands(state)
    np.testing.assert_allclose(flipped_right, posed_left @ REFLECT_X, atol=1e-6)
    np.testing.assert_allclose(flipped_left, rest_right @ REFLECT_X, atol=1e-6)


def test_mirror_puts_every_joint_at_its_partners_reflection(driver):
    state = driver.state
    drag_hand(driver)
    heads_before = state.world[:, :3, 3].copy()
    driver.key("M", ["ctrl"])
    np.testing.assert_allclose(state.world[mirror_map(state.rig.skeleton), :3, 3], heads_before @ REFLECT_X,
                               atol=1e-6)
    driver.key("Z", ["ctrl"])
    np.testing.assert_array_equal(state.world[:, :3, 3], heads_before)


def test_clear_rotation_of_everything_keeps_the_hand_on_its_handle(driver):
    state = driver.state
    drag_hand(driver)
    hand, _ = hand_and_lengths(state)
    state.view.selected = set()
    driver.key("R", ["alt"])
    np.testing.assert_allclose(hand_and_lengths(state)[0], hand, atol=1e-6)


def test_save_then_open_a_pose_through_the_file_dialog(driver, tmp_path):
    state = driver.state
    drag_hand(driver)
    posed = state.pose.copy()
    driver.app.editor.pose_path = str(tmp_path / "pose.json")
    driver.key("S", ["ctrl"])  # a known path saves without asking
    assert (tmp_path / "pose.json").exists()
    driver.app.editor.reset_pose()
    driver.frames(1)
    assert state.pose != posed
    driver.key("O", ["ctrl"])  # asks, the path prefilled; Enter accepts
    assert driver.app.editor.files.active
    driver.key("ENTER")
    driver.frames(2)
    assert not driver.app.editor.files.active
    np.testing.assert_allclose(state.pose.rotations, posed.rotations, atol=1e-12)
    np.testing.assert_array_equal(state.pose.locations, posed.locations)


def test_opening_a_broken_pose_keeps_the_pose_and_says_why(driver, tmp_path):
    state = driver.state
    (tmp_path / "broken.json").write_text("{")
    before = state.pose.copy()
    assert not driver.app.editor.read_pose(str(tmp_path / "broken.json"))
    assert state.pose == before
    assert "broken.json: expected valid UTF-8 JSON" in state.message


def test_shortcuts_wait_while_dragging(driver):
    state = driver.state
    start = driver.pixel_of("hand_ik.L")
    driver.move(*start)
    driver.press(*start)
    driver.drag(start[0] - 30, start[1])
    dragged = state.pose.copy()
    driver.key("Z", ["ctrl"])
    assert state.drag is not None and state.pose == dragged
    driver.release(start[0] - 30, start[1])


def test_escape_cancels_the_file_dialog_without_touching_the_pose(driver, tmp_path):
    state = driver.state
    drag_hand(driver)
    posed = state.pose.copy()
    driver.key("S", ["ctrl", "shift"])
    assert driver.app.editor.files.active
    driver.frames(1)  # the dialog opens during a frame; ImGui claims the keyboard from the next
    driver.key("ESCAPE")
    driver.frames(1)
    assert not driver.app.editor.files.active
    assert state.pose == posed and driver.app.editor.pose_path == ""


def test_export_writes_the_posed_rig_through_the_file_dialog(driver, tmp_path):
    """Ctrl+E asks for a path (prefilled with a .glb beside the rig); the file written reads
    back with the dragged pose's bones as shown (the hand turned by Copy Rotation too, which
    is not in its pose channel). A .json export writes the rig alone and says so."""
    state = driver.state
    drag_hand(driver)
    driver.key("E", ["ctrl"])
    driver.frames(1)  # the dialog settles where it is shown a frame after it opens
    files = driver.app.editor.files
    assert files.active and files.browser.name.endswith("_posed.glb")
    assert files.browser.folder == os.path.abspath(os.path.dirname(state.rig_path))
    driver.set_value("##name", str(tmp_path / "posed.glb"))  # Enter in the name field takes it
    driver.frames(2)
    assert state.message.startswith(f"Exported {tmp_path / 'posed.glb'}")
    assert_valid(tmp_path / "posed.glb")
    back = open_rig(tmp_path / "posed.glb")
    index = [back.rig.skeleton.index[n] for n in state.rig.skeleton.names]
    np.testing.assert_allclose(world_matrices(back.rig.skeleton, back.pose)[index], state.world, atol=1e-6)
    driver.key("E", ["ctrl"])
    driver.frames(1)
    assert files.browser.folder == str(tmp_path)  # where the last dialog was
    driver.set_value("##name", "rig.json")
    driver.frames(2)
    assert "the rig; .json holds no pose" in state.message and (tmp_path / "rig.json").exists()
