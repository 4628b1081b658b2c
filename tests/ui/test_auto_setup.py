"""Automatic IK set-up in the app: a BVH opened without IK gets hand/foot handles that drag."""
import json

import numpy as np
import pytest

from tests.ui.conftest import Driver, humanoid_state, start_app
from tests.ui.test_editing import drag_hand
from ui.auto_setup import apply_auto_setup, choose_limb_end, should_offer, show_auto_setup
from ui.autosave import STATE_DIR_ENV
from tests.rig.gltf_builder import figure_document
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED

BVH = CMU_EXCERPT


@pytest.fixture
def bvh_driver(posekit_window, tmp_path, monkeypatch):
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    start_app(posekit_window, humanoid_state())
    assert posekit_window.editor.load_rig(BVH)
    posekit_window.frame()
    return Driver(posekit_window)


def hand_tip(state):
    skeleton = state.rig.skeleton
    hand = skeleton.index[state.auto_setup.report.roles["arm.L"][2]]
    return state.world[hand, :3, 3].copy()


@NEEDS_SHARED
def test_set_up_then_dragging_the_hand_handle_moves_the_hand_and_undo_takes_it_back(bvh_driver):
    state = bvh_driver.state
    old_rig, joints_before = state.rig, state.world[:, :3, 3].copy()
    assert should_offer(state) and show_auto_setup(state)
    assert apply_auto_setup(state)
    bvh_driver.frames(1)
    assert {"hand_ik.L", "foot_ik.R", "elbow_pole.L"} <= set(state.rig.skeleton.names)
    assert not should_offer(state) and show_auto_setup(state)
    # Snapped handles: setting up does not move the figure.
    np.testing.assert_allclose(state.world[:len(joints_before), :3, 3], joints_before, atol=1e-6)
    hand = hand_tip(state)
    lengths = state.rig.skeleton.lengths.copy()
    drag_hand(bvh_driver)
    moved = hand_tip(state)
    assert np.linalg.norm(moved - hand) > 0.05
    handle = state.world[state.rig.skeleton.index["hand_ik.L"], :3, 3]
    np.testing.assert_allclose(moved, handle, atol=1e-3)  # the hand sits on its dragged handle
    np.testing.assert_allclose(state.rig.skeleton.lengths, lengths)
    bvh_driver.key("Z", ["ctrl"])  # the drag
    bvh_driver.key("Z", ["ctrl"])  # the set-up
    assert state.rig is old_rig and len(state.pose.rotations) == len(old_rig.skeleton)
    np.testing.assert_allclose(state.world[:, :3, 3], joints_before, atol=1e-6)
    bvh_driver.key("Z", ["ctrl", "shift"])
    assert "hand_ik.L" in state.rig.skeleton.names


def test_nothing_is_offered_for_a_rig_that_has_its_ik():
    state = humanoid_state()
    assert not should_offer(state) and not show_auto_setup(state)


@NEEDS_SHARED
def test_fixing_the_recognised_limbs_changes_what_is_set_up(bvh_driver):
    """The panel's "Fix limbs" combos: a limb ending at another bone, or no limb at all."""
    state = bvh_driver.state
    choose_limb_end(state, "leg.L", None)
    choose_limb_end(state, "arm.L", "LeftForeArm")
    assert state.auto_setup.report.roles["arm.L"] == ["LeftShoulder", "LeftArm", "LeftForeArm"]
    assert state.auto_setup.report.found_by["arm.L"] == "chosen"
    joints_before = state.world[:, :3, 3].copy()
    assert apply_auto_setup(state)
    bvh_driver.frames(1)
    constrained = {c.bone for c in state.rig.ik}
    assert constrained == {"LeftArm", "RightForeArm", "RightLeg"}  # each limb's lower bone
    assert "foot_ik.L" not in state.rig.skeleton.names
    np.testing.assert_allclose(state.world[:len(joints_before), :3, 3], joints_before, atol=1e-6)
    choose_limb_end(state, "arm.R", "Hips")  # a root has no limb above it: the role goes
    assert "arm.R" not in state.auto_setup.report.roles


def test_set_up_on_a_skinned_file_draws_the_mesh_through_set_up_undo_and_redo(posekit_window, tmp_path, monkeypatch):
    """The set-up adds bones the skin has no bind matrices for; the mesh is drawn all along (the
    app used to exit with a broadcast error in the skinned-mesh drawing)."""
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    start_app(posekit_window, humanoid_state())
    assert posekit_window.editor.load_rig("assets/humanoid_skinned.glb")
    driver = Driver(posekit_window)
    state = driver.state
    state.rig.ik.clear()  # as a file from another tool: a skinned figure with no IK
    bones, vertices = len(state.rig.skeleton), state.mesh.skinned_positions(state.world).copy()
    assert state.view.show_mesh and apply_auto_setup(state)
    driver.frames(2)
    assert len(state.rig.skeleton) > bones
    np.testing.assert_allclose(state.mesh.skinned_positions(state.world), vertices, atol=1e-6)  # nothing moved
    drag_hand(driver)
    assert not np.allclose(state.mesh.skinned_positions(state.world), vertices, atol=1e-3)  # the skin follows
    for keys in (["ctrl"], ["ctrl"], ["ctrl", "shift"], ["ctrl", "shift"]):  # undo twice, redo twice
        driver.key("Z", keys)
        assert np.isfinite(state.mesh.skinned_positions(state.world)).all()


def test_a_figure_with_unnamed_joints_is_set_up_and_its_guess_fixed(posekit_window, tmp_path, monkeypatch):
    """RiggedFigure-like: joints node_N, mid-stride. The set-up finds all four limbs by geometry
    and says so; the "Fix limbs" choice works on the guess as on a named one."""
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    gltf, node_of = figure_document()
    path = tmp_path / "figure.gltf"
    path.write_text(json.dumps(gltf))
    start_app(posekit_window, humanoid_state())
    assert posekit_window.editor.load_rig(str(path))
    state = posekit_window.state
    node = {name: f"node_{n}" for name, n in node_of.items()}
    assert should_offer(state)
    choose_limb_end(state, "arm.R", node["forearm.R"])  # a wrong end on purpose: the elbow
    assert state.auto_setup.report.roles["arm.R"] == [node["chest"], node["upper_arm.R"], node["forearm.R"]]
    choose_limb_end(state, "arm.R", node["hand.R"])  # and back
    assert apply_auto_setup(state)
    assert state.message == "IK set up for arm.L, arm.R, leg.L, leg.R: found arms (node_7 by geometry, node_10 " \
                            "chosen), legs (node_13, node_17) by geometry, spine, head (facing +Z from the feet)"
    assert {c.bone for c in state.rig.ik} == {node[b] for b in ("forearm.L", "forearm.R", "shin.L", "shin.R")}
