"""The viewport gizmo (ImGuizmo), driven by synthetic pointer events through the real window:
move an IK handle along the gizmo's X arrow, turn the active bone, cancel, one undo step."""
import numpy as np
from pyglet.window import key

from rig.pose import rotation_for_world, world_matrices
from solvers.transforms import quat_from_axis_angle, quat_to_matrix3
from ui.selection import pick_bone

from .conftest import SIZE


def head(state, name):
    return state.world[state.rig.skeleton.index[name], :3, 3].copy()


def gizmo_on(driver, name, mode):
    state = driver.state
    state.view.selected, state.view.active = {name}, name
    state.gizmo.mode = mode
    driver.frames(2)


def grab_x_arrow(driver, name):
    """Press on the move gizmo's X arrow (40 px right of the handle, front view) and drag right."""
    x, y = driver.pixel_of(name)
    driver.move(x + 40, y)
    driver.frames(1)  # ImGuizmo hit-tests the pointer as of the frame before
    assert driver.state.gizmo.over
    driver.press(x + 40, y)
    driver.drag(x + 70, y)
    driver.drag(x + 100, y)
    return x + 100, y


def turn_by_the_ring(driver, name):
    """Press on the rotate gizmo's view-facing ring (ImGuizmo draws its outer circle around the
    head of ``name``) and drag round it; returns where the pointer is, still pressed."""
    x, y = driver.pixel_of(name)
    for radius in range(30, 90, 4):
        driver.move(x + radius, y)
        driver.frames(1)
        if driver.state.gizmo.over:
            break
    assert driver.state.gizmo.over
    driver.press(x + radius, y)
    driver.drag(x + radius, y - 40)
    driver.drag(x + radius - 20, y - 70)
    return x + radius - 20, y - 70


def test_move_gizmo_moves_the_handle_along_x_and_the_hand_follows(driver):
    state = driver.state
    gizmo_on(driver, "hand_ik.L", "translate")
    handle, hand = head(state, "hand_ik.L"), head(state, "hand.L")
    steps = len(state.history.undo_stack)
    end = grab_x_arrow(driver, "hand_ik.L")
    assert state.drag is not None and state.drag.kind == "gizmo"
    moved = head(state, "hand_ik.L") - handle
    assert moved[0] > 0.05 and np.abs(moved[1:]).max() < 1e-6  # along world X only
    assert head(state, "hand.L")[0] - hand[0] > 0.03  # the IK chain follows the handle
    driver.release(*end)
    driver.frames(1)
    assert state.drag is None and len(state.history.undo_stack) == steps + 1  # one undo step
    driver.key(key.Z, ("ctrl",))
    np.testing.assert_array_equal(head(state, "hand_ik.L"), handle)


def test_a_press_on_the_gizmo_does_not_pick_or_drag_in_the_viewport(driver):
    state = driver.state
    gizmo_on(driver, "hand_ik.L", "translate")
    grab_x_arrow(driver, "hand_ik.L")
    assert state.view.selected == {"hand_ik.L"} and state.drag.kind == "gizmo"


def test_escape_and_right_click_cancel_a_gizmo_drag_bit_for_bit(driver):
    state = driver.state
    gizmo_on(driver, "hand_ik.L", "translate")
    pose, world = state.pose.copy(), state.world.copy()
    for cancel in (lambda: driver.key(key.ESCAPE), lambda: driver.press(*end, "right")):
        end = grab_x_arrow(driver, "hand_ik.L")
        assert not np.array_equal(state.world, world)
        cancel()
        assert state.drag is None and state.pose == pose and np.array_equal(state.world, world)
        driver.drag(end[0] + 30, end[1])  # the rest of that press moves nothing
        assert np.array_equal(state.world, world)
        driver.release(end[0] + 30, end[1])
        driver.frames(1)
        assert state.pose == pose


def test_rotate_gizmo_turns_the_active_bone(driver):
    state = driver.state
    gizmo_on(driver, "spine.03", "rotate")
    i = state.rig.skeleton.index["spine.03"]
    before = state.world[i, :3, :3].copy()
    end = turn_by_the_ring(driver, "spine.03")
    assert state.drag is not None and state.drag.kind == "gizmo"
    turn = before.T @ state.world[i, :3, :3]  # whichever ring was hit, the bone turned about its head
    assert np.arccos(np.clip((np.trace(turn) - 1) / 2, -1, 1)) > 0.05
    np.testing.assert_allclose(turn @ turn.T, np.eye(3), atol=1e-9)
    np.testing.assert_allclose(head(state, "spine.03"), state.drag.world_before[i, :3, 3], atol=1e-9)
    driver.release(*end)


def test_rotation_for_world_inverts_fk(driver):
    """The rig-side helper the rotate gizmo writes through: a world orientation in, the pose
    channel that reproduces it out."""
    state = driver.state
    skeleton = state.rig.skeleton
    i = skeleton.index["forearm.L"]
    wanted = quat_to_matrix3(quat_from_axis_angle(np.array([0.3, 0.8, 0.5]), 0.7)) @ state.world[i, :3, :3]
    state.pose.rotations[i] = rotation_for_world(skeleton, state.world, i, wanted)
    np.testing.assert_allclose(world_matrices(skeleton, state.pose)[i, :3, :3], wanted, atol=1e-9)


def test_a_press_just_off_the_rotate_ring_grabs_the_gizmo_not_an_auto_ik_drag(driver):
    """ImGuizmo's hover band around its outer ring is narrow; 3 px beyond it, over the shoulder,
    the press still turns the bone instead of picking one (with Auto IK on, dragging a chain)."""
    state = driver.state
    state.auto_ik = True
    gizmo_on(driver, "spine.03", "rotate")
    x, y = driver.pixel_of("spine.03")
    direction = np.array([np.cos(-0.32), -np.sin(-0.32)])  # down and right: the ring crosses the upper arm
    on_ring = []
    for radius in range(40, 90):
        driver.move(*(np.array([x, y]) + radius * direction))
        driver.frames(1)
        if state.gizmo.over:
            on_ring.append(radius)
    assert on_ring  # the outermost is the view-facing ring's band
    near = np.array([x, y]) + (on_ring[-1] + 3) * direction
    driver.move(*near)
    driver.frames(1)
    assert not state.gizmo.over  # ImGuizmo alone would not take it
    assert pick_bone(state, *near, *SIZE) is not None  # but a bone lies under it
    before = state.world[state.rig.skeleton.index["spine.03"], :3, :3].copy()
    driver.press(*near)
    driver.drag(*(near + [-30.0, 25.0]))
    driver.drag(*(near + [-50.0, 50.0]))
    assert state.drag is not None and state.drag.kind == "gizmo" and state.drag.bone == "spine.03"
    assert state.view.selected == {"spine.03"}
    assert not np.allclose(state.world[state.rig.skeleton.index["spine.03"], :3, :3], before)
    driver.release(*(near + [-50.0, 50.0]))
