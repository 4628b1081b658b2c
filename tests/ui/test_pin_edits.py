"""Moving a pinned bone itself takes its pin along (``ui.pins``): G, R, the rotate gizmo, a value
typed in the Pose tab, Alt+R and Reset pose, an Auto IK drag of the bone and a drag of the IK handle that pulls it. The
moved bone ends where the edit put it, its pin records that place, the other pins hold, one Ctrl+Z
undoes the edit and the pin move together; a cancelled edit leaves the pins as they were."""
import numpy as np
import pytest

from rig.pins import pin_where_it_is
from rig.pose import world_matrices
from solvers.tolerances import PIN_POSITION, PIN_ROTATION
from solvers.transforms import quat_from_axis_angle, quat_to_matrix3
from tests.ui.test_gizmo import gizmo_on, turn_by_the_ring
from tests.ui.test_pinned_drags import FEET, pin, slip
from tests.ui.test_pins import select
from tests.ui.test_typed_values import click, play, set_value

GOAL_REACHED = 1e-3  # m: a dragged goal below the pins ends this near where it was dragged (in reach)


def matrix(state, name):
    return state.world[state.rig.skeleton.index[name]].copy()


def basis(world):
    return world[:3, :3] / np.linalg.norm(world[:3, :3], axis=0)


def pinned_with_feet(driver, name):
    """Pin ``name`` and both feet; returns (pose, world, pins) before the edit, for undo."""
    pin(driver, (name, *FEET))
    return driver.state.pose.copy(), driver.state.world.copy(), dict(driver.state.pins)


def assert_moved_pin_records_its_bone(state, name, before):
    """``name``'s pin moved and stands on its bone; the other pins are as they were and hold."""
    assert state.pins[name] != before[name]
    moved, turned = slip(state, name)
    assert moved <= PIN_POSITION and turned <= PIN_ROTATION, (name, moved, turned)
    for other in set(before) - {name}:
        assert state.pins[other] == before[other]
        moved, turned = slip(state, other)
        assert moved <= PIN_POSITION and turned <= PIN_ROTATION, (other, moved, turned)


def assert_one_undo_restores(driver, before):
    driver.key("Z", ["ctrl"])
    pose, world, pins = before
    assert driver.state.pins == pins and driver.state.pose == pose and np.array_equal(driver.state.world, world)


def type_keys(driver, *names):
    for name in names:
        driver.key(name)


def test_g_moves_a_pinned_bone_where_typed_and_its_pin_with_it_while_the_feet_hold(driver):
    state = driver.state
    before = pinned_with_feet(driver, "pelvis")
    select(driver, "pelvis")
    start = matrix(state, "pelvis")[:3, 3]
    type_keys(driver, "G", "Y", "MINUS", "0", "PERIOD", "1")
    wanted = start + [0.0, -0.1, 0.0]
    assert state.drag is not None and state.pins == before[2]  # the pins change when the edit ends
    marker = next(mark for mark in state.view.pins if mark.bone == "pelvis")
    np.testing.assert_allclose(marker.position, wanted, atol=1e-12)  # its marker goes with it meanwhile
    driver.key("RETURN")
    np.testing.assert_allclose(matrix(state, "pelvis")[:3, 3], wanted, atol=PIN_POSITION)
    np.testing.assert_allclose(state.pins["pelvis"].position, wanted, atol=1e-12)
    assert_moved_pin_records_its_bone(state, "pelvis", before[2])
    assert state.message == "Pin moved with pelvis"
    assert_one_undo_restores(driver, before)


def test_a_cancelled_grab_of_a_pinned_bone_leaves_its_pin(driver):
    state = driver.state
    before = pinned_with_feet(driver, "pelvis")
    select(driver, "pelvis")
    type_keys(driver, "G", "Y", "1")
    driver.key("ESCAPE")
    assert state.drag is None and state.pins == before[2] and state.pose == before[0]


def test_r_turns_a_pinned_bone_by_the_typed_angle_and_its_pin_with_it(driver):
    state = driver.state
    before = pinned_with_feet(driver, "head")
    select(driver, "head")
    start = matrix(state, "head")
    type_keys(driver, "R", "X", "3", "0", "RETURN")
    now = matrix(state, "head")
    np.testing.assert_allclose(now[:3, 3], start[:3, 3], atol=PIN_POSITION)
    turned = quat_to_matrix3(quat_from_axis_angle(np.array([1.0, 0.0, 0.0]), np.radians(30.0))) @ basis(start)
    np.testing.assert_allclose(basis(now), turned, atol=PIN_ROTATION)
    assert_moved_pin_records_its_bone(state, "head", before[2])
    assert_one_undo_restores(driver, before)


def test_the_rotate_gizmo_turns_a_pinned_bone_and_its_pin_with_it(driver):
    state = driver.state
    before = pinned_with_feet(driver, "spine.03")
    gizmo_on(driver, "spine.03", "rotate")
    start = matrix(state, "spine.03")
    driver.release(*turn_by_the_ring(driver, "spine.03"))
    driver.frames(1)
    turn = basis(start).T @ basis(matrix(state, "spine.03"))
    assert np.arccos(np.clip((np.trace(turn) - 1) / 2, -1, 1)) > 0.05
    assert_moved_pin_records_its_bone(state, "spine.03", before[2])
    assert_one_undo_restores(driver, before)


def test_a_location_typed_in_the_pose_tab_moves_a_pinned_bone_and_its_pin(driver):
    state = driver.state
    before = pinned_with_feet(driver, "pelvis")
    select(driver, "pelvis")
    index = state.rig.skeleton.index["pelvis"]
    typed = state.pose.copy()
    typed.locations[index, 0] = 0.05
    wanted = world_matrices(state.rig.skeleton, typed)[index, :3, 3]
    play(driver, click("Pose"), set_value("X", 0.05, 0))
    driver.frames(1)
    assert not np.allclose(wanted, before[1][index, :3, 3], atol=0.01)
    np.testing.assert_allclose(matrix(state, "pelvis")[:3, 3], wanted, atol=PIN_POSITION)
    assert_moved_pin_records_its_bone(state, "pelvis", before[2])
    assert_one_undo_restores(driver, before)


def drag_to(driver, start, offset):
    """Press at ``start``, drag by ``offset`` pixels in four steps; returns the drag's target (the
    point it last moved, before the release) and releases."""
    driver.move(*start)
    driver.press(*start)
    for k in range(1, 5):
        driver.drag(start[0] + offset[0] * k / 4, start[1] + offset[1] * k / 4)
    drag = driver.state.drag
    point = drag.plane_point + drag.moved
    driver.release(start[0] + offset[0], start[1] + offset[1])
    driver.frames(1)
    return point


def tail(state, name):
    world = matrix(state, name)
    return world[:3, 3] + world[:3, 1] * state.rig.skeleton.lengths[state.rig.skeleton.index[name]]


def test_an_auto_ik_drag_of_a_pinned_bone_takes_its_pin_along(driver):
    state = driver.state
    before = pinned_with_feet(driver, "head")
    state.auto_ik = True
    point = drag_to(driver, driver.pixel_along("head", 0.9), (-25, 15))
    assert np.linalg.norm(tail(state, "head") - point) <= GOAL_REACHED
    assert_moved_pin_records_its_bone(state, "head", before[2])
    assert_one_undo_restores(driver, before)


@pytest.mark.parametrize("handle, pulled, at_tail", [("hand_ik.L", "forearm.L", True), ("foot_ik.L", "foot.L", False)])
def test_dragging_the_handle_that_pulls_a_pinned_bone_takes_its_pin_along(driver, handle, pulled, at_tail):
    """The arm's handle pulls the pinned forearm's tail (its chain's last bone); the leg's handle
    pulls the pinned foot at the ankle, where the shin's tail meets it. The other foot holds."""
    state = driver.state
    before = pinned_with_feet(driver, pulled)
    point = drag_to(driver, driver.pixel_of(handle), (25, -20))
    np.testing.assert_allclose(matrix(state, handle)[:3, 3], point, atol=1e-12)
    reached = tail(state, pulled) if at_tail else matrix(state, pulled)[:3, 3]
    assert np.linalg.norm(reached - point) <= GOAL_REACHED
    assert_moved_pin_records_its_bone(state, pulled, before[2])
    assert_one_undo_restores(driver, before)


def test_alt_r_clears_a_pinned_bones_rotation_and_its_pin_goes_with_it(driver):
    state = driver.state
    pin(driver, ("head", *FEET))
    select(driver, "head")
    rest = matrix(state, "head")
    type_keys(driver, "R", "X", "3", "0", "RETURN")
    before = state.pose.copy(), state.world.copy(), dict(state.pins)
    driver.key("R", ["alt"])
    assert state.message == "Rotation cleared"
    np.testing.assert_allclose(state.pose.rotations[state.rig.skeleton.index["head"]], [0.0, 0.0, 0.0, 1.0])
    np.testing.assert_allclose(basis(matrix(state, "head")), basis(rest), atol=PIN_ROTATION)
    assert_moved_pin_records_its_bone(state, "head", before[2])
    assert_one_undo_restores(driver, before)


def test_reset_pose_takes_every_pin_to_the_rest_pose(driver):
    state = driver.state
    rest = state.world.copy()
    pin(driver, ("hand.L", *FEET))  # hand.L stays the selection
    type_keys(driver, "R", "Z", "4", "5", "RETURN")
    before = state.pose.copy(), state.world.copy(), dict(state.pins)
    driver.app.editor.reset_pose()
    driver.frames(1)
    np.testing.assert_allclose(state.world, rest, atol=PIN_POSITION)
    for name in before[2]:
        moved, turned = slip(state, name)
        assert moved <= PIN_POSITION and turned <= PIN_ROTATION, (name, moved, turned)
    assert state.pins["hand.L"] != before[2]["hand.L"]
    assert_one_undo_restores(driver, before)
