"""Undo / redo of pose and settings changes, restored bit for bit (no GL needed)."""
import numpy as np

from rig.pose_ops import clear_channels
from ui.history import History

from .conftest import humanoid_state


def move_hand(state, dx):
    state.pose.locations[state.rig.skeleton.index["hand_ik.L"], 0] += dx
    state.resolve()


def test_undo_and_redo_restore_poses_and_settings_bit_for_bit():
    state = humanoid_state()
    history = History(state)
    rest_pose, rest_world = state.pose.copy(), state.world.copy()
    move_hand(state, 0.1)
    assert history.commit(state)
    moved_pose, moved_world = state.pose.copy(), state.world.copy()
    state.rig.solver.iterations = 7
    state.rig.ik[0].pole_angle = 0.25
    assert history.commit(state)
    assert not history.commit(state)  # nothing new

    assert history.undo(state)
    assert state.rig.solver.iterations != 7 and state.rig.ik[0].pole_angle != 0.25
    assert state.pose == moved_pose
    assert history.undo(state)
    assert state.pose == rest_pose
    np.testing.assert_array_equal(state.world, rest_world)
    assert not history.undo(state)

    assert history.redo(state)
    assert state.pose == moved_pose
    np.testing.assert_array_equal(state.world, moved_world)
    assert history.redo(state)
    assert state.rig.solver.iterations == 7 and state.rig.ik[0].pole_angle == 0.25
    assert not history.redo(state)


def test_later_edits_do_not_leak_into_recorded_steps():
    state = humanoid_state()
    history = History(state)
    state.rig.ik[1].chain_count = 1
    history.commit(state)
    state.rig.ik[1].chain_count = 2  # edited in place, as panels do
    state.pose.rotations[3] = (0.0, 0.0, 0.6, 0.8)
    history.commit(state)
    history.undo(state)
    assert state.rig.ik[1].chain_count == 1
    assert np.array_equal(state.pose.rotations[3], (0.0, 0.0, 0.0, 1.0))
    state.rig.ik[1].chain_count = 5
    history.commit(state)  # a new step drops the redo branch
    assert not history.can_redo()
    history.undo(state)
    assert state.rig.ik[1].chain_count == 1


def test_undo_first_records_an_uncommitted_edit_so_redo_can_bring_it_back():
    state = humanoid_state()
    history = History(state)
    edited = clear_channels(state.pose, [2], location=True)
    edited.locations[2] = (0.0, 0.01, 0.0)
    state.pose = edited
    assert history.undo(state)
    assert np.array_equal(state.pose.locations[2], (0.0, 0.0, 0.0))
    assert history.redo(state)
    assert np.array_equal(state.pose.locations[2], (0.0, 0.01, 0.0))


def test_history_keeps_at_most_its_limit():
    state = humanoid_state()
    history = History(state, limit=3)
    for step in range(6):
        move_hand(state, 0.01)
        history.commit(state)
    assert len(history.undo_stack) == 3
