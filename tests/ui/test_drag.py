"""Dragging the left hand's IK handle in a headless window: the arm follows every frame."""
import numpy as np
from pyglet.window import key, mouse

from rig.pose import heads_tails
from solvers.transforms import normalize

from .conftest import plane_point_under


def hand_and_lengths(state):
    heads, tails = heads_tails(state.rig.skeleton, state.world)
    forearm = state.rig.skeleton.index["forearm.L"]
    return tails[forearm], np.linalg.norm(tails - heads, axis=1)


def test_hand_follows_the_dragged_handle_each_frame(driver):
    state = driver.state
    rest_lengths = state.rig.skeleton.lengths.copy()
    start = driver.pixel_of("hand_ik.L")
    start_head = state.world[state.rig.skeleton.index["hand_ik.L"], :3, 3].copy()
    driver.move(*start)
    driver.press(*start)
    assert state.drag is not None and state.drag.bone == "hand_ik.L"
    for step in range(1, 6):
        x, y = start[0] - 12 * step, start[1] - 10 * step
        driver.drag(x, y)
        wanted = plane_point_under(state, x, y, start_head)
        hand, lengths = hand_and_lengths(state)
        assert np.linalg.norm(hand - wanted) < 1e-4, f"frame {step}: hand {hand} vs pointer point {wanted}"
        np.testing.assert_allclose(lengths, rest_lengths, rtol=1e-9)
    driver.release(x, y)
    assert state.drag is None
    assert np.linalg.norm(hand_and_lengths(state)[0] - wanted) < 1e-4


def test_unreachable_drag_straightens_the_arm_toward_the_pointer(driver):
    state = driver.state
    skel = state.rig.skeleton
    start = driver.pixel_of("hand_ik.L")
    driver.move(*start)
    driver.press(*start)
    driver.drag(start[0] + 300, start[1] - 150)
    heads, tails = heads_tails(skel, state.world)
    upper, forearm = skel.index["upper_arm.L"], skel.index["forearm.L"]
    handle = state.world[skel.index["hand_ik.L"], :3, 3]
    toward = normalize(handle - heads[upper])
    np.testing.assert_allclose(normalize(tails[upper] - heads[upper]), toward, atol=1e-9)
    np.testing.assert_allclose(normalize(tails[forearm] - heads[forearm]), toward, atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(tails - heads, axis=1), skel.lengths, rtol=1e-9)


def test_escape_and_right_click_cancel_the_drag_exactly(driver):
    state = driver.state
    before = state.pose.copy()
    start = driver.pixel_of("hand_ik.L")
    for cancel in (lambda: driver.key(key.ESCAPE), lambda: driver.press(start[0] - 60, start[1], mouse.RIGHT)):
        driver.move(*start)
        driver.press(*start)
        driver.drag(start[0] - 60, start[1] - 40)
        assert not np.array_equal(state.pose.rotations, before.rotations)
        cancel()
        driver.release(start[0] - 60, start[1])
        assert state.drag is None
        assert state.pose == before


def test_a_drag_that_starts_on_the_panel_does_not_move_the_rig(driver):
    state = driver.state
    before = state.pose.copy()
    driver.move(60, 40)
    driver.press(60, 40)
    driver.drag(400, 300)
    driver.release(400, 300)
    assert state.drag is None
    assert state.pose == before


def test_pole_drag_swings_the_elbow_and_keeps_the_hand(driver):
    state = driver.state
    skel = state.rig.skeleton
    hand_before, _ = hand_and_lengths(state)
    elbow_before = state.world[skel.index["forearm.L"], :3, 3].copy()
    start = driver.pixel_of("elbow_pole.L")
    driver.move(*start)
    driver.press(*start)
    driver.drag(start[0] + 80, start[1] + 20)
    driver.release(start[0] + 80, start[1] + 20)
    hand_after, _ = hand_and_lengths(state)
    elbow_after = state.world[skel.index["forearm.L"], :3, 3]
    np.testing.assert_allclose(hand_after, hand_before, atol=1e-9)
    assert np.linalg.norm(elbow_after - elbow_before) > 0.01
