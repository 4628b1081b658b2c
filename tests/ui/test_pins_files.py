"""A pose with pins leaving the window: exported from the window (Ctrl+E) and from ``app.py export``
as the window shows it, copied and pasted (flipped too) with its pins, and a pose file whose pin
names a bone the rig lacks opened with a warning."""
import json

import numpy as np

import app
from rig.evaluate import evaluation
from rig.formats.reader import open_rig
from rig.pose import world_matrices
from rig.pose_ops import REFLECT_X, mirror_map
from solvers.tolerances import PIN_POSITION, PIN_ROTATION
from tests.ui.test_pin_edits import type_keys
from tests.ui.test_pinned_drags import FEET, pin, slip
from tests.ui.test_pins import select
from tests.ui.test_typed_values import click, play, set_value


def pins_keep_the_hand_short(driver):
    """The upper arm and the feet pinned, the hand's handle typed out of the forearm's reach: what
    the window draws is not what the rig's IK alone would make of the pose's channels."""
    pin(driver, ("upper_arm.L", *FEET))
    select(driver, "hand_ik.L")
    play(driver, click("Pose"), set_value("X", 0.15, 0), set_value("Y", 0.1, 0))
    driver.frames(1)
    state = driver.state
    assert np.abs(evaluation(state.rig, state.pose).world - state.world).max() > 0.01


def read_back(state, path):
    """The world matrices of an exported file, in the order of ``state``'s bones."""
    back = open_rig(path)
    index = [back.rig.skeleton.index[name] for name in state.rig.skeleton.names]
    return world_matrices(back.rig.skeleton, back.pose)[index]


def test_ctrl_e_exports_a_pinned_pose_as_the_window_draws_it(driver, tmp_path):
    state = driver.state
    pins_keep_the_hand_short(driver)
    driver.key("E", ["ctrl"])
    driver.frames(1)
    driver.set_value("##name", str(tmp_path / "pinned.glb"))
    driver.frames(2)
    assert state.message.startswith(f"Exported {tmp_path / 'pinned.glb'}")
    np.testing.assert_allclose(read_back(state, tmp_path / "pinned.glb"), state.world, atol=1e-6)


def test_the_export_command_holds_a_pose_files_pins_as_the_window_opening_it_does(driver, tmp_path):
    state, editor = driver.state, driver.app.editor
    pins_keep_the_hand_short(driver)
    assert editor.write_pose(str(tmp_path / "pinned.json"))
    assert editor.read_pose(str(tmp_path / "pinned.json"))
    driver.frames(1)
    app.main(["export", state.rig_path, "--pose", str(tmp_path / "pinned.json"), "-o", str(tmp_path / "out.glb")])
    np.testing.assert_allclose(read_back(state, tmp_path / "out.glb"), state.world, atol=1e-6)


def asymmetric_pinned_pose(driver):
    """Both feet and the left hand pinned, the hips grabbed 5 cm to the left: the legs and the
    left arm bend to keep the pins."""
    pin(driver, (*FEET, "hand.L"))
    select(driver, "pelvis")
    type_keys(driver, "G", "X", "0", "PERIOD", "0", "5", "RETURN")
    driver.click(40, 60)  # on nothing: deselects all


def test_copy_and_paste_carry_the_pins_with_the_pose(driver):
    state = driver.state
    asymmetric_pinned_pose(driver)
    pins, world = dict(state.pins), state.world.copy()
    driver.key("C", ["ctrl"])
    driver.key("P", ["alt"])
    driver.key("R", ["alt"])
    assert not state.pins
    driver.key("V", ["ctrl"])
    assert state.pins == pins and state.message == "Pose pasted"
    np.testing.assert_allclose(state.world, world, atol=1e-6)
    driver.key("Z", ["ctrl"])
    assert not state.pins  # one step with the pose


def test_paste_flipped_mirrors_the_pins_with_the_pose(driver):
    state = driver.state
    asymmetric_pinned_pose(driver)
    heads = state.world[:, :3, 3].copy()
    driver.key("C", ["ctrl"])
    driver.key("V", ["ctrl", "shift"])
    assert set(state.pins) == {*FEET, "hand.R"}
    np.testing.assert_allclose(state.world[mirror_map(state.rig.skeleton), :3, 3], heads @ REFLECT_X, atol=1e-5)
    for name in state.pins:
        moved, turned = slip(state, name)
        assert moved <= PIN_POSITION and turned <= PIN_ROTATION, (name, moved, turned)


def test_a_pose_files_pin_on_a_bone_the_rig_lacks_is_skipped_with_a_warning(driver, tmp_path):
    state = driver.state
    path = tmp_path / "other_rig.json"
    path.write_text(json.dumps({"format": "posekit.pose", "version": 1, "rig": "other", "bones": {},
                                "pins": {"tail.01": {"position": [0.0, 1.0, -0.2]},
                                         "foot.L": {"position": [0.11, 0.09, -0.02]}}}))
    assert driver.app.editor.read_pose(str(path))
    driver.frames(1)
    assert set(state.pins) == {"foot.L"} and not state.error
    assert f"{path}: the pin on bone 'tail.01' is not in the rig; skipped" in state.message
    foot = state.world[state.rig.skeleton.index["foot.L"], :3, 3]
    np.testing.assert_allclose(foot, state.pins["foot.L"].position, atol=PIN_POSITION)
