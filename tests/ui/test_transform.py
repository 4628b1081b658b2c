"""Blender's modal G and R in pose mode: X / Y / Z lock to the global axis, then the bone's local
one, then none; a typed value replaces the pointer's; Enter or a click confirms as one undo step;
Escape or a right click restores the pose bit for bit."""
import numpy as np
import pytest
from pyglet.window import key, mouse

from solvers.transforms import quat_from_axis_angle, quat_to_matrix3
from ui.overlay import tool_text
from ui.status import tool_keys
from ui.viewport import begin_grab

from .conftest import SIZE, humanoid_state
from ui.transform_input import AxisLock

DIGITS = {c: getattr(key, f"_{c}") for c in "0123456789"} | {".": key.PERIOD, "-": key.MINUS}


def type_keys(driver, text):
    """Press X / Y / Z and digits as the user would: "X45" is X, 4, 5."""
    for char in text:
        driver.key(DIGITS.get(char) or getattr(key, char))


def bone_world(state, name):
    return state.world[state.rig.skeleton.index[name]].copy()


def select(driver, name):
    """Click the bone (its middle; a handle at its head) so it is selected and active."""
    driver.click(*(driver.pixel_of(name) if name.endswith("_ik.L") else driver.pixel_along(name, 0.5)))
    assert driver.state.view.active == name and driver.state.drag is None


def start(driver, name, tool):
    """Select ``name``, put the pointer beside it and press G or R."""
    select(driver, name)
    driver.move(*(driver.pixel_of(name) + (60.0, 10.0)))
    driver.key(tool)
    assert driver.state.drag is not None and driver.state.drag.modal


def turn(axis, degrees):
    return quat_to_matrix3(quat_from_axis_angle(np.asarray(axis, float), np.radians(degrees)))


def test_r_x_45_enter_turns_the_bone_45_degrees_about_world_x(driver):
    state = driver.state
    before = bone_world(state, "head")
    start(driver, "head", key.R)
    type_keys(driver, "X45")
    assert tool_text(state).startswith("Rot head: 45| deg about global X")
    driver.move(*(driver.pixel_of("head") + (-40.0, 70.0)))  # typed values ignore the pointer
    driver.key(key.ENTER)
    after = bone_world(state, "head")
    assert state.drag is None
    np.testing.assert_allclose(after[:3, :3], turn((1, 0, 0), 45) @ before[:3, :3], atol=1e-6)
    np.testing.assert_allclose(after[:3, 3], before[:3, 3], atol=1e-6)


def test_r_x_x_30_turns_about_the_bones_local_x(driver):
    state = driver.state
    before = bone_world(state, "spine.03")
    start(driver, "spine.03", key.R)
    type_keys(driver, "XX30")
    assert state.drag.lock == AxisLock(0, local=True)
    driver.key(key.ENTER)
    after = bone_world(state, "spine.03")
    np.testing.assert_allclose(after[:3, :3], before[:3, :3] @ turn((1, 0, 0), 30), atol=1e-6)
    np.testing.assert_allclose(after[:3, 3], before[:3, 3], atol=1e-6)


def test_g_z_0_1_enter_moves_the_handle_0_1_m_along_world_z(driver):
    state = driver.state
    before = bone_world(state, "hand_ik.L")
    start(driver, "hand_ik.L", key.G)
    type_keys(driver, "Z0.1")
    assert tool_text(state).startswith("Move hand_ik.L: 0.1| m along global Z")
    driver.key(key.ENTER)
    np.testing.assert_allclose(bone_world(state, "hand_ik.L")[:3, 3], before[:3, 3] + (0.0, 0.0, 0.1), atol=1e-9)


def test_typed_grab_without_an_axis_goes_along_x_and_minus_flips_it(driver):
    state = driver.state
    before = bone_world(state, "hand_ik.L")
    start(driver, "hand_ik.L", key.G)
    type_keys(driver, "0.05-")
    driver.click(*driver.pixel_of("hand_ik.L"))  # a left click confirms too
    assert state.drag is None
    np.testing.assert_allclose(bone_world(state, "hand_ik.L")[:3, 3], before[:3, 3] - (0.05, 0.0, 0.0), atol=1e-9)


def test_a_locked_grab_follows_the_pointer_along_the_axis_only(driver):
    state = driver.state
    before = bone_world(state, "hand_ik.L")[:3, 3]
    start(driver, "hand_ik.L", key.G)
    type_keys(driver, "Y")
    driver.move(*(driver.pixel_of("hand_ik.L") + (90.0, -50.0)))
    moved = bone_world(state, "hand_ik.L")[:3, 3] - before
    assert moved[1] > 0.01
    np.testing.assert_allclose(moved[[0, 2]], 0.0, atol=1e-12)
    line = state.view.constraint_line
    assert line.axis == 1 and np.allclose(line.point, before) and np.allclose(line.direction, (0, 1, 0))


def test_backspace_gives_the_pointer_back(driver):
    state = driver.state
    start(driver, "hand_ik.L", key.G)
    type_keys(driver, "Z5")
    typed = bone_world(state, "hand_ik.L")
    driver.key(key.BACKSPACE)
    assert state.drag.typed.values(1) is None and not np.allclose(bone_world(state, "hand_ik.L"), typed)


def test_a_third_press_of_the_axis_clears_the_lock(driver):
    state = driver.state
    start(driver, "head", key.R)
    type_keys(driver, "Z")
    assert state.drag.lock == AxisLock(2) and state.view.constraint_line.axis == 2
    type_keys(driver, "ZZ")
    assert state.drag.lock is None and state.view.constraint_line is None


def test_grab_with_auto_ik_moves_the_tip_through_the_chain(driver):
    state = driver.state
    state.auto_ik = True
    index = state.rig.skeleton.index["neck"]
    tail = lambda: state.world[index, :3, 3] + state.world[index, :3, 1] * state.rig.skeleton.lengths[index]
    before = tail()
    start(driver, "neck", key.G)
    assert state.drag.kind == "auto_ik"
    type_keys(driver, "X0.03")
    driver.key(key.ENTER)
    np.testing.assert_allclose(tail(), before + (0.03, 0.0, 0.0), atol=1e-3)


@pytest.mark.parametrize("tool, keys", [(key.G, "Z0.2"), (key.R, "Y-20"), (key.R, "XX")])
@pytest.mark.parametrize("cancel", ["escape", "right_click"])
def test_cancel_restores_the_pose_bit_for_bit(driver, tool, keys, cancel):
    state = driver.state
    name = "hand_ik.L" if tool == key.G else "spine.03"  # spine.03 moves the arms: their IK re-solves
    select(driver, name)
    pose, world, steps = state.pose.copy(), state.world.copy(), len(state.history.undo_stack)
    start(driver, name, tool)
    driver.move(*(driver.pixel_of(name) + (-30.0, -50.0)))
    type_keys(driver, keys)
    assert state.pose != pose
    if cancel == "escape":
        driver.key(key.ESCAPE)
    else:
        driver.press(*driver.pixel_of(name), button=mouse.RIGHT)
    assert state.drag is None and state.pose == pose
    np.testing.assert_array_equal(state.world, world)
    assert len(state.history.undo_stack) == steps


def test_one_undo_takes_back_a_confirmed_transform(driver):
    state = driver.state
    select(driver, "hand_ik.L")
    pose, world = state.pose.copy(), state.world.copy()
    start(driver, "hand_ik.L", key.G)
    for x in range(3):
        driver.move(*(driver.pixel_of("hand_ik.L") + (10.0 * x, 5.0)))
    type_keys(driver, "Z0.1")
    driver.key(key.ENTER)
    moved = state.pose.copy()
    driver.key(key.Z, mods=("ctrl",))
    assert state.pose == pose
    np.testing.assert_array_equal(state.world, world)
    driver.key(key.Z, mods=("ctrl", "shift"))
    assert state.pose == moved


def test_typing_with_no_transform_running_changes_nothing(driver):
    state = driver.state
    select(driver, "head")
    pose, world, steps = state.pose.copy(), state.world.copy(), len(state.history.undo_stack)
    for symbol in (key.X, key.Y, key.Z, key._4, key.PERIOD, key.MINUS, key.BACKSPACE, key.ENTER):
        driver.key(symbol)
    assert state.drag is None and state.pose == pose and len(state.history.undo_stack) == steps
    np.testing.assert_array_equal(state.world, world)


def test_g_on_a_bone_that_cannot_move_starts_nothing(driver):
    select(driver, "forearm.L")  # connected, and Auto IK is off
    driver.key(key.G)
    assert driver.state.drag is None


def test_the_locked_axis_is_drawn_in_its_colour(driver):
    state = driver.state

    def reddest_beside_the_head():
        driver.frames(2)  # the still, multisampled picture
        point = bone_world(state, "head")[:3, 3] + (0.4, 0.0, 0.0)
        x, y = np.round(state.camera.world_to_window(point[None], *driver.app.window.get_size())[0]).astype(int)
        patch = driver.app.read_rgb()[y - 3:y + 4, x - 1:x + 2].reshape(-1, 3) / 255.0
        return np.max(patch[:, 0] - patch[:, 1:].max(axis=1))

    start(driver, "head", key.R)
    assert reddest_beside_the_head() < 0.05
    type_keys(driver, "X")
    assert reddest_beside_the_head() > 0.2  # a 1 px line: its shade depends on where it falls in the pixels


def test_g_moves_every_selected_handle_by_the_same_offset(driver):
    state = driver.state
    select(driver, "hand_ik.L")
    driver.click(*driver.pixel_of("foot_ik.L"), mods=("shift",))
    assert state.view.selected == {"hand_ik.L", "foot_ik.L"} and state.view.active == "foot_ik.L"
    before = {name: bone_world(state, name)[:3, 3] for name in state.view.selected}
    driver.move(*(driver.pixel_of("foot_ik.L") + (60.0, 10.0)))
    driver.key(key.G)
    type_keys(driver, "Y0.15")
    driver.key(key.ENTER)
    for name, head in before.items():
        np.testing.assert_allclose(bone_world(state, name)[:3, 3], head + (0.0, 0.15, 0.0), atol=1e-9)


def test_g_leaves_out_bones_whose_parent_it_moves():
    state = humanoid_state()
    state.view.selected, state.view.active = {"root", "hand_ik.L", "foot_ik.R"}, "foot_ik.R"
    assert begin_grab(state, 400.0, 300.0, *SIZE) and state.drag.followers == ("hand_ik.L",)  # root is above
    state.drag = None
    state.view.active = "root"  # the handles are the root's children: they follow it
    assert begin_grab(state, 400.0, 300.0, *SIZE) and state.drag.followers == ()


def test_shift_z_keeps_a_grab_in_the_plane_across_z(driver):
    """Blender's Shift+Z: the handle follows the pointer in world X and Y, its Z stays."""
    state = driver.state
    before = bone_world(state, "hand_ik.L")[:3, 3]
    start(driver, "hand_ik.L", key.G)
    driver.key(key.Z, ["shift"])
    assert state.drag.lock == AxisLock(2, plane=True) and state.view.constraint_line is None
    driver.move(*(driver.pixel_of("hand_ik.L") + (90.0, -50.0)))
    moved = bone_world(state, "hand_ik.L")[:3, 3] - before
    assert abs(moved[2]) < 1e-9 and np.linalg.norm(moved[:2]) > 0.01
    assert "global XY plane" in tool_text(state)
    type_keys(driver, "0.1")  # a typed value goes along the plane's first axis, X
    driver.key(key.ENTER)
    np.testing.assert_allclose(bone_world(state, "hand_ik.L")[:3, 3], before + (0.1, 0.0, 0.0), atol=1e-9)


def test_shift_axis_during_r_turns_about_the_axis(driver):
    start(driver, "head", key.R)
    driver.key(key.X, ["shift"])
    assert driver.state.drag.lock == AxisLock(0)  # a rotation has no plane to keep to


def test_shift_axis_presses_cycle_the_plane_lock_global_local_none():
    from ui.transform_input import next_lock
    assert next_lock(None, 0, plane=True) == AxisLock(0, plane=True)
    assert next_lock(AxisLock(0, plane=True), 0, plane=True) == AxisLock(0, True, True)
    assert next_lock(AxisLock(0, True, True), 0, plane=True) is None
    assert next_lock(AxisLock(0), 0, plane=True) == AxisLock(0, plane=True)  # switching kind starts global


def test_g_1_tab_2_tab_3_enter_moves_by_each_typed_component(driver):
    """Blender's NumInput: with no lock a grab takes X, Y and Z typed, Tab going to the next."""
    state = driver.state
    before = bone_world(state, "hand_ik.L")[:3, 3]
    start(driver, "hand_ik.L", key.G)
    type_keys(driver, "0.1")
    driver.key(key.TAB)
    type_keys(driver, "0.2")
    assert tool_text(state).startswith("Move hand_ik.L: D 0.1  [0.2|]  0 m along global X Y Z")
    assert "Tab/Shift+Tab next/previous axis" in tool_keys(state)  # the status bar says how
    driver.key(key.TAB)
    type_keys(driver, "0.3")
    driver.move(*(driver.pixel_of("hand_ik.L") + (-70.0, 40.0)))  # typed values ignore the pointer
    driver.key(key.ENTER)
    assert state.drag is None
    np.testing.assert_allclose(bone_world(state, "hand_ik.L")[:3, 3], before + (0.1, 0.2, 0.3), atol=1e-9)


def test_shift_tab_goes_back_wrapping_and_backspace_and_minus_edit_the_active_value(driver):
    state = driver.state
    before = bone_world(state, "hand_ik.L")[:3, 3]
    start(driver, "hand_ik.L", key.G)
    type_keys(driver, "0.1")
    driver.key(key.TAB, ["shift"])  # from X back round to Z
    type_keys(driver, "0.25")
    driver.key(key.BACKSPACE)
    type_keys(driver, "-")
    assert tool_text(state).startswith("Move hand_ik.L: D 0.1  0  [-0.2|] m")
    driver.key(key.ENTER)
    np.testing.assert_allclose(bone_world(state, "hand_ik.L")[:3, 3], before + (0.1, 0.0, -0.2), atol=1e-9)


def test_tab_in_a_plane_lock_steps_between_the_planes_two_axes(driver):
    state = driver.state
    before = bone_world(state, "hand_ik.L")[:3, 3]
    start(driver, "hand_ik.L", key.G)
    driver.key(key.Y, ["shift"])  # the XZ plane
    type_keys(driver, "0.1")
    driver.key(key.TAB)
    type_keys(driver, "0.2")
    driver.key(key.TAB)  # two values: back to X
    assert tool_text(state).startswith("Move hand_ik.L: D [0.1|]  0.2 m along global XZ plane")
    driver.key(key.ENTER)
    np.testing.assert_allclose(bone_world(state, "hand_ik.L")[:3, 3], before + (0.1, 0.0, 0.2), atol=1e-9)


def test_tab_during_r_leaves_its_one_angle_as_blender_does(driver):
    state = driver.state
    before = bone_world(state, "head")
    start(driver, "head", key.R)
    type_keys(driver, "X4")
    driver.key(key.TAB)
    type_keys(driver, "5")
    assert tool_text(state).startswith("Rot head: 45| deg about global X")
    driver.key(key.ENTER)
    np.testing.assert_allclose(bone_world(state, "head")[:3, :3], turn((1, 0, 0), 45) @ before[:3, :3], atol=1e-6)
