"""Blender's Auto IK in the headless window: the dragged bone's tip follows the pointer, its
connected parents follow, and Ctrl+wheel / (Ctrl+)PageUp/PageDown change exactly which bones move."""
import numpy as np
import pytest
from pyglet.window import key

from rig.pose import heads_tails

from .conftest import plane_point_under

SPINE = ["head", "neck", "spine.03", "spine.02", "spine.01", "pelvis"]  # head's connected chain


def moved_bones(state, before, ignore=()):
    """Names whose rotation channel changed, leaving out ``ignore``."""
    changed = np.abs(state.pose.rotations - before.rotations).max(axis=1) > 1e-9
    return {n for n, c in zip(state.rig.skeleton.names, changed) if c} - set(ignore)


def rig_driven(rig):
    """Bones the rig's own constraints rotate (they re-solve when their parents move)."""
    driven = {rig.skeleton.names[i] for c in rig.ik for i in rig.ik_chain(c)}
    return driven | {c.bone for c in rig.copy_rotation}


def tip_of(state, bone):
    return heads_tails(state.rig.skeleton, state.world)[1][state.rig.skeleton.index[bone]]


def start_auto_ik(driver, bone, fraction=0.5):
    driver.state.auto_ik = True
    x, y = driver.pixel_along(bone, fraction)
    tip = tip_of(driver.state, bone).copy()
    grab = plane_point_under(driver.state, x, y, tip)
    driver.move(x, y)
    driver.press(x, y)
    assert driver.state.drag is not None and driver.state.drag.kind == "auto_ik"
    return x, y, tip - grab


def test_forearm_tip_follows_the_pointer_and_only_its_connected_chain_moves(driver):
    state = driver.state
    for constraint in state.rig.ik + state.rig.copy_rotation:  # a free arm, as Blender needs for Auto IK
        if constraint.bone in ("forearm.L", "hand.L"):
            constraint.enabled = False
    before = state.pose.copy()
    x, y, offset = start_auto_ik(driver, "forearm.L")
    assert state.view.active_chain == {"forearm.L", "upper_arm.L"}
    for step in range(1, 5):
        px, py = x - 5 * step, y - 8 * step
        driver.drag(px, py)
        wanted = plane_point_under(state, px, py, state.drag.plane_point) + offset
        assert np.linalg.norm(tip_of(state, "forearm.L") - wanted) < 1e-4, f"frame {step}"
    assert moved_bones(state, before) == {"forearm.L", "upper_arm.L"}
    heads, tails = heads_tails(state.rig.skeleton, state.world)
    np.testing.assert_allclose(np.linalg.norm(tails - heads, axis=1), state.rig.skeleton.lengths, rtol=1e-9)
    driver.release(px, py)
    assert state.drag is None and np.linalg.norm(tip_of(state, "forearm.L") - wanted) < 1e-4


def test_a_bone_with_its_own_ik_drags_that_constraints_target(driver):
    state = driver.state
    x, y = driver.pixel_along("forearm.L", 0.5)
    state.auto_ik = True
    driver.move(x, y)
    driver.press(x, y)
    assert state.drag.kind == "translate" and state.drag.bone == "hand_ik.L"
    handle = state.world[state.rig.skeleton.index["hand_ik.L"], :3, 3].copy()
    driver.drag(x - 20, y - 30)
    wanted = plane_point_under(state, x - 20, y - 30, handle) + handle - plane_point_under(state, x, y, handle)
    assert np.linalg.norm(tip_of(state, "forearm.L") - wanted) < 1e-4


def test_chain_length_follows_blenders_counter(driver):
    state = driver.state
    before = state.pose.copy()
    ignore = rig_driven(state.rig)
    x, y, offset = start_auto_ik(driver, "head", 0.6)
    driver.drag(x + 25, y + 12)
    wanted = plane_point_under(state, x + 25, y + 12, state.drag.plane_point) + offset
    assert np.linalg.norm(tip_of(state, "head") - wanted) < 1e-4
    assert moved_bones(state, before, ignore) == set(SPINE)
    driver.hold(key.LCTRL)
    # Ctrl+wheel down lengthens (0 -> 1: the head alone), up shortens; at 0 up does nothing.
    for clicks, length, bones in ((-1, 1, 1), (-1, 2, 2), (1, 1, 1), (1, 0, 6), (1, 0, 6)):
        driver.scroll(x + 25, y + 12, clicks)
        assert state.auto_ik_length == length
        assert state.drag.goal.chain_count == bones
        assert moved_bones(state, before, ignore) == set(SPINE[:bones]), f"length {length}"
        assert state.view.active_chain == set(SPINE[:bones])
    driver.let_go(key.LCTRL)
    # Ctrl+PageUp/PageDown do the same; beyond the connected chain it acts as the whole chain.
    for symbol, length, bones in [(key.PAGEUP, k, min(k, 6)) for k in range(1, 8)] + [(key.PAGEDOWN, 6, 6),
                                                                                    (key.PAGEDOWN, 5, 5)]:
        driver.key(symbol, key.MOD_CTRL)
        assert (state.auto_ik_length, state.drag.goal.chain_count) == (length, bones)
        assert moved_bones(state, before, ignore) == set(SPINE[:bones])
    driver.release(x + 25, y + 12)
    assert state.auto_ik_length == 5  # kept for the next drag, as Blender keeps it


def test_plain_wheel_during_a_drag_zooms_and_leaves_the_chain(driver):
    state = driver.state
    x, y, _ = start_auto_ik(driver, "head", 0.6)
    distance = state.camera.distance
    driver.scroll(x, y, 1)
    assert state.auto_ik_length == 0 and state.camera.distance < distance


@pytest.mark.parametrize("cancel", ["escape", "right_click"])
def test_cancelling_an_auto_ik_drag_restores_the_pose_exactly(driver, cancel):
    state = driver.state
    before, world = state.pose.copy(), state.world.copy()
    x, y, _ = start_auto_ik(driver, "head", 0.6)
    driver.drag(x + 30, y - 10)
    assert state.pose != before
    if cancel == "escape":
        driver.key(key.ESCAPE)
    else:
        driver.press(x + 30, y - 10, button=4)
    assert state.drag is None and state.pose == before
    np.testing.assert_array_equal(state.world, world)


def test_without_auto_ik_a_connected_bone_only_selects(driver):
    state = driver.state
    before = state.pose.copy()
    x, y = driver.pixel_along("neck", 0.5)
    driver.move(x, y)
    driver.press(x, y)
    driver.drag(x + 40, y + 40)
    driver.release(x + 40, y + 40)
    assert state.view.selected == {"neck"} and state.drag is None and state.pose == before


def test_a_drag_from_a_panel_across_a_bone_moves_nothing(driver):
    state = driver.state
    state.auto_ik = True
    before = state.pose.copy()
    driver.move(150, 300)  # on the side panel's body
    driver.press(150, 300)
    for point in (driver.pixel_along("head", 0.5), driver.pixel_along("neck", 0.5)):
        driver.drag(*point)
    driver.release(*point)
    assert state.drag is None and state.pose == before and state.view.selected == set()


def test_plain_pageup_and_pagedown_change_the_chain_as_ctrl_does(driver):
    state = driver.state
    before = state.pose.copy()
    ignore = rig_driven(state.rig)
    x, y, _ = start_auto_ik(driver, "head", 0.6)
    driver.drag(x + 25, y + 12)
    for symbol, length in ((key.PAGEUP, 1), (key.PAGEUP, 2), (key.PAGEUP, 3), (key.PAGEDOWN, 2)):
        driver.key(symbol)
        assert (state.auto_ik_length, state.drag.goal.chain_count) == (length, length)
        assert moved_bones(state, before, ignore) == set(SPINE[:length])
    driver.release(x + 25, y + 12)
    driver.key(key.PAGEUP)  # without a drag it changes nothing
    assert state.auto_ik_length == 2
