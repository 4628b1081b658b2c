"""iTaSC's Simulation mode in the window: the Solver tab's iTaSC section driven by its labels,
saved with the rig and the session; the arm moving toward a moved handle at a bounded velocity
on the app's clock (and settling with no further input); playback stepping by the timeline's
frame time, the IK chain keeping its simulated rotations over the keys."""
import numpy as np
import pytest

from rig.formats.rigfile import rig_from_dict, rig_to_dict, settings_from_dict, settings_to_dict
from solvers.simulation import turn_angle
from solvers.tolerances import VELOCITY_BOUND
from ui import widgets
from ui.timeline import go_to_frame, insert_key, toggle_play
from ui.window import FIXED_DT

HAND = "hand_ik.L"
ARM = ("upper_arm.L", "forearm.L")


def simulate(driver, max_velocity=2.0, feedback=20.0, reiteration="initial"):
    """Turn the Simulation mode on through the Solver tab's iTaSC section, as a user does."""
    driver.click(*driver.pixel_along("forearm.L", 0.5))
    driver.click_item("Solver")
    driver.click_item("iTaSC##solver")
    driver.set_value("Mode##itasc", "simulation")
    driver.set_value("Max velocity", max_velocity)
    driver.set_value("Feedback", feedback)
    driver.set_value("Reiteration", reiteration)
    driver.frames(2)


def move_handle(state, offset):
    """Move the left hand's IK handle by ``offset`` (world metres), as a drag leaves it."""
    hand = state.rig.skeleton.index[HAND]
    state.pose.locations[hand] += state.world[hand, :3, :3].T @ np.array(offset)
    state.mark_dirty()


def arm_rotations(state):
    index = state.rig.skeleton.index
    return [state.pose.rotations[index[b]].tolist() for b in ARM]


def fastest_turn(before, after):
    return max(map(turn_angle, before, after))


def tip_gap(state):
    index = state.rig.skeleton.index
    tip = state.world[index["forearm.L"]]
    tail = tip[:3, 3] + tip[:3, 1] * state.rig.skeleton.lengths[index["forearm.L"]]
    return float(np.linalg.norm(tail - state.world[index[HAND], :3, 3]))


def test_the_itasc_section_sets_the_mode_and_its_settings_by_their_labels(driver):
    simulate(driver, max_velocity=3.5, feedback=40.0, reiteration="never")
    solver = driver.state.rig.solver
    assert (solver.itasc_mode, solver.reiteration) == ("simulation", "never")
    assert solver.max_velocity == pytest.approx(3.5, abs=1e-3) and solver.feedback == pytest.approx(40.0, abs=1e-3)
    driver.set_value("Max velocity", 1e9)  # held to the range the loaders take
    assert solver.max_velocity == 100.0
    # Saved with the rig file and with the session's settings, and read back.
    assert rig_from_dict(rig_to_dict(driver.state.rig)).solver == solver
    names = set(driver.state.rig.skeleton.names)
    assert settings_from_dict(settings_to_dict(driver.state.rig), names).solver == solver
    driver.set_value("Mode##itasc", "animation")
    assert not [i for i in widgets.drawn() if i.label == "Max velocity"]  # only the Simulation mode has them


def test_a_forced_geometric_solver_marks_the_mode_not_honoured(driver):
    simulate(driver)
    driver.set_value("Solver##solver_type", "fabrik")
    driver.frames(2)
    assert [i for i in widgets.drawn() if i.label == "(not honoured)" and i.visible]
    assert any("simulation: fabrik jumps" in n for r in driver.state.reports for n in r.notes)


def test_a_moved_handle_is_followed_at_the_max_velocity_and_settles_without_input(driver):
    state = driver.state
    simulate(driver, max_velocity=2.0)
    move_handle(state, (-0.1, 0.2, 0.15))
    bound = 2.0 * FIXED_DT + VELOCITY_BOUND  # the app's clock: 1/60 s a frame when deterministic
    turns = []
    for _ in range(90):
        before = arm_rotations(state)
        driver.frames(1)
        turns.append(fastest_turn(before, arm_rotations(state)))
    assert max(turns) <= bound
    assert max(turns) > 0.5 * bound  # it did move at the bound, not jump and sit
    assert tip_gap(state) < 1e-4  # it got there with no further input
    assert not state.simulation_clock.moving  # and stopped asking for solves
    settled = arm_rotations(state)
    driver.frames(2)
    assert not state.solve_pending and arm_rotations(state) == settled
    driver.key("Z", ["ctrl"])  # one undo takes the edit back, not a frame of the settling
    assert np.allclose(state.pose.locations[state.rig.skeleton.index[HAND]], 0.0)


def test_playback_steps_by_frame_time_and_keeps_the_simulated_chain_over_keys(driver):
    state = driver.state
    simulate(driver, max_velocity=3.0)
    every_bone = list(range(len(state.rig.skeleton)))
    insert_key(state, every_bone)  # every bone keyed at frame 0
    go_to_frame(state, 1)
    move_handle(state, (-0.1, 0.2, 0.15))  # the handle jumps at frame 1
    driver.frames(1)
    insert_key(state, every_bone)
    go_to_frame(state, 0)
    for _ in range(120):  # let the arm settle on frame 0's handle
        driver.frames(1)
    toggle_play(state)
    fps = state.timeline.action.fps
    steps = []
    for _ in range(12):
        before, frame = arm_rotations(state), state.timeline.frame
        driver.frames(1)
        steps.append((state.timeline.frame - frame, fastest_turn(before, arm_rotations(state))))
    toggle_play(state)
    assert any(moved for moved, _ in steps)
    for moved, turn in steps:
        # a frame the timeline did not move takes no step; one it moved k frames (looping back:
        # a first frame, which converges) steps k / fps
        if moved == 0:
            assert turn <= VELOCITY_BOUND
        elif moved > 0:
            assert turn <= 3.0 * moved / fps + VELOCITY_BOUND
    assert max(turn for moved, turn in steps if moved > 0) > 0.0
