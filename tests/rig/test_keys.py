"""Keys as data (rig/keys.py, rig/formats/keysfile.py): interpolation, never the long way round,
edits as values, and the strict file form."""
import numpy as np
import pytest
from hypothesis import assume, given, seed, settings, strategies as st

from rig.formats.jsonfields import FileFormatError
from rig.formats.keysfile import action_from_dict, action_to_dict
from rig.formats.rigfile import load_rig
from rig.keys import Action, action_from_poses, frame_range, moved_keys, with_interpolation, with_keys, without_keys
from rig.pose import Pose
from solvers.transforms import quat_angle, quat_from_axis_angle

SKELETON = load_rig("assets/humanoid.json").skeleton
BONE = 3
NAME = SKELETON.names[BONE]
STEPS = 60  # samples a segment is checked at


def turned(angle, axis=(0.0, 1.0, 0.0), location=(0.0, 0.0, 0.0)):
    pose = Pose.rest(len(SKELETON))
    pose.rotations[BONE] = quat_from_axis_angle(np.asarray(axis), angle)
    pose.locations[BONE] = location
    return pose


def keyed(*keys, interpolation="linear"):
    """An action keying BONE at (frame, Pose) pairs."""
    action = Action.empty(Pose.rest(len(SKELETON)))
    for frame, pose in keys:
        action = with_keys(action, pose, SKELETON, [BONE], frame, interpolation)
    return action


def rotation_at(action, frame):
    return action.pose_at(frame, SKELETON).rotations[BONE]


@pytest.mark.parametrize("interpolation", ["linear", "smooth"])
def test_a_half_turn_between_keys_never_goes_the_long_way(interpolation):
    """Keys at 170 and 190 degrees turn 20 degrees between them, not 340; sampled densely, no step
    jumps (a flip would show as a step near 180 degrees)."""
    action = keyed((0, turned(np.radians(170))), (10, turned(np.radians(190))), interpolation=interpolation)
    samples = [rotation_at(action, f) for f in np.linspace(0, 10, STEPS + 1)]
    steps = [quat_angle(a, b) for a, b in zip(samples, samples[1:])]
    assert sum(steps) == pytest.approx(np.radians(20), abs=1e-9)
    assert max(steps) < np.radians(20) / STEPS * 1.6


@seed(22)
@settings(max_examples=120, deadline=None)
@given(st.floats(-3.1, 3.1), st.floats(-3.1, 3.1), st.sampled_from(["linear", "smooth"]),
       st.tuples(st.floats(-1, 1), st.floats(-1, 1), st.floats(-1, 1)))
def test_rotations_between_keys_take_the_short_arc_continuously(a, b, interpolation, axis):
    axis = np.asarray(axis)
    assume(np.linalg.norm(axis) > 0.1)
    first, second = turned(a, axis / np.linalg.norm(axis)), turned(b, axis / np.linalg.norm(axis))
    arc = quat_angle(first.rotations[BONE], second.rotations[BONE])
    assume(1e-3 < arc < np.pi - 1e-3)  # exactly half a turn has no shorter way; acos blurs tiny arcs
    action = keyed((0, first), (7, second), interpolation=interpolation)
    samples = [rotation_at(action, f) for f in np.linspace(0, 7, STEPS + 1)]
    travelled = sum(quat_angle(p, q) for p, q in zip(samples, samples[1:]))
    assert travelled == pytest.approx(arc, abs=1e-7)  # on the short arc, never past it and back
    np.testing.assert_allclose(np.abs(np.dot(samples[-1], second.rotations[BONE])), 1.0, atol=1e-12)


def test_constant_holds_linear_lerps_smooth_passes_the_keys_smoothly():
    poses = [turned(0.0, location=(0, 0, 0)), turned(0.0, location=(1, 0, 0)), turned(0.0, location=(1, 1, 0))]
    frames = (0, 10, 20)
    location = lambda action, f: action.pose_at(f, SKELETON).locations[BONE]
    constant = keyed(*zip(frames, poses), interpolation="constant")
    np.testing.assert_array_equal(location(constant, 9.9), [0, 0, 0])
    linear = keyed(*zip(frames, poses))
    np.testing.assert_allclose(location(linear, 5), [0.5, 0, 0])
    smooth = keyed(*zip(frames, poses), interpolation="smooth")
    for f, pose in zip(frames, poses):
        np.testing.assert_allclose(location(smooth, f), pose.locations[BONE], atol=1e-12)
    # Catmull-Rom: the slope at the middle key is the same from either side (linear has a corner)
    h = 1e-4
    left = (location(smooth, 10) - location(smooth, 10 - h)) / h
    right = (location(smooth, 10 + h) - location(smooth, 10)) / h
    np.testing.assert_allclose(left, right, atol=1e-3)
    assert np.abs(left - [0.05, 0.05, 0]).max() < 1e-3


def test_the_same_frame_gives_the_same_pose_whatever_came_before():
    action = keyed((0, turned(0.3)), (5, turned(-1.0)), (12, turned(2.5)), interpolation="smooth")
    order = [7.0, 0.0, 11.5, 7.0, 3.25, 7.0]
    poses = [action.pose_at(f, SKELETON) for f in order]
    assert poses[0] == poses[3] == poses[5]


def test_unkeyed_channels_take_the_base_and_edits_are_values():
    base = turned(0.7)
    base.locations[0] = (0.1, 0.2, 0.3)
    action = with_keys(Action.empty(base), turned(0.1), SKELETON, [BONE], 4)
    assert action.pose_at(100, SKELETON).locations[0].tolist() == [0.1, 0.2, 0.3]
    moved = moved_keys(action, [4], 6)
    assert action.key_frames.tolist() == [4] and moved.key_frames.tolist() == [10]
    assert without_keys(moved, [10]).channels == {}
    assert with_interpolation(action, [4], "constant").interpolation_at(4) == "constant"
    assert action.interpolation_at(4) == "linear"


def test_keys_dragged_onto_others_replace_them():
    action = keyed((0, turned(0.1)), (5, turned(0.2)), (9, turned(0.3)))
    moved = moved_keys(action, [0], 5)
    assert moved.key_frames.tolist() == [5, 9]
    np.testing.assert_allclose(rotation_at(moved, 5), turned(0.1).rotations[BONE])


def test_a_clip_becomes_keys_only_on_channels_that_move_and_resamples_with_its_timing():
    poses = [turned(0.1 * k) for k in range(5)]
    action = action_from_poses("walk", poses, 24.0, SKELETON)
    assert list(action.channels) == [(NAME, "rotation")] and (action.start, action.end, action.fps) == (0, 4, 24.0)
    for k, pose in enumerate(poses):
        assert action.pose_at(k, SKELETON) == pose
    frames = frame_range(action, 48.0)
    assert len(frames) == 9 and frames[-1] == 4.0  # twice the frames, the same two-sixths of a second


def test_an_action_reads_back_from_its_file_form_exactly():
    action = keyed((0, turned(0.3, location=(0, 1, 0))), (5, turned(-1.0)), interpolation="smooth")
    back = action_from_dict(action_to_dict(action, SKELETON), SKELETON)
    assert (back.name, back.fps, back.start, back.end, back.base) == (action.name, action.fps, action.start,
                                                                       action.end, action.base)
    for f in np.linspace(0, 5, 11):
        assert back.pose_at(f, SKELETON) == action.pose_at(f, SKELETON)


@pytest.mark.parametrize("change, field", [
    (lambda d: d["channels"][0].update(bone="nobody"), "channels[0].bone"),
    (lambda d: d["channels"][0].update(frames=[3, 1]), "channels[0].frames"),
    (lambda d: d["channels"][0].update(values=[float("nan")] * 8), "channels[0].values"),
    (lambda d: d["channels"][0].update(interpolation=["bezier", "linear"]), "channels[0].interpolation"),
    (lambda d: d.update(fps=0), "fps"),
    (lambda d: d.update(end=-5), "end"),
    (lambda d: d.update(tempo=3), "tempo"),
])
def test_a_bad_action_fails_naming_the_field(change, field):
    data = action_to_dict(keyed((0, turned(0.3)), (5, turned(-1.0))), SKELETON)
    change(data)
    with pytest.raises(FileFormatError, match=field.replace("[", r"\[").replace("]", r"\]")):
        action_from_dict(data, SKELETON, "session.json")
