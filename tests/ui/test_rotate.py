"""Blender's R on the active bone: the pointer's angle around the bone's head turns it about the
view axis; a click or Enter confirms, Escape or a right click restores the pose bit for bit."""
import numpy as np
import pytest
from pyglet.window import key, mouse

from solvers.transforms import quat_from_axis_angle, quat_to_matrix3


def bone_axis(state, name):
    return state.world[state.rig.skeleton.index[name], :3, 1].copy()


def start_rotation(driver, name="head"):
    state = driver.state
    driver.click(*driver.pixel_along(name, 0.5))
    pivot = driver.pixel_of(name)
    start = pivot + np.array([60.0, 0.0])
    driver.move(*start)
    driver.key(key.R)
    assert state.drag is not None and state.drag.kind == "rotate"
    return pivot


@pytest.mark.parametrize("degrees", [30.0, -75.0])
def test_pointer_angle_turns_the_bone_about_the_view_axis(driver, degrees):
    state = driver.state
    axis_before = bone_axis(state, "head")
    pivot = start_rotation(driver)
    angle = np.radians(degrees)
    # Counter-clockwise on screen (y grows downward in window pixels).
    driver.move(*(pivot + 60.0 * np.array([np.cos(angle), -np.sin(angle)])))
    toward_viewer = state.camera.rotation()[:, 2]
    expected = quat_to_matrix3(quat_from_axis_angle(toward_viewer, angle)) @ axis_before
    np.testing.assert_allclose(bone_axis(state, "head"), expected, atol=1e-9)
    driver.key(key.ENTER)
    assert state.drag is None
    np.testing.assert_allclose(bone_axis(state, "head"), expected, atol=1e-9)


def test_a_left_click_confirms_the_rotation(driver):
    state = driver.state
    pivot = start_rotation(driver)
    driver.move(*(pivot + np.array([0.0, -60.0])))
    rotated = state.pose.copy()
    driver.press(*(pivot + np.array([0.0, -60.0])))
    assert state.drag is None and state.pose == rotated and state.view.selected == {"head"}


@pytest.mark.parametrize("cancel", ["escape", "right_click"])
def test_cancel_restores_the_pose_bit_for_bit(driver, cancel):
    state = driver.state
    before, world = state.pose.copy(), state.world.copy()
    pivot = start_rotation(driver, "spine.03")  # moves arms and head, re-solves the arm IK
    driver.move(*(pivot + np.array([-30.0, -50.0])))
    assert state.pose != before
    if cancel == "escape":
        driver.key(key.ESCAPE)
    else:
        driver.press(*(pivot + np.array([-30.0, -50.0])), button=mouse.RIGHT)
    assert state.drag is None and state.pose == before
    np.testing.assert_array_equal(state.world, world)


def test_r_without_an_active_bone_does_nothing(driver):
    driver.move(400, 300)
    driver.key(key.R)
    assert driver.state.drag is None
