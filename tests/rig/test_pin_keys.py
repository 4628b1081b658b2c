"""Keyed pins as data (rig/pin_keys.py): on / off stepped at its keys, the target moving only
within a run of on keys, unkeyed pins left as they are, edits, and the strict file form."""
import numpy as np
import pytest
from hypothesis import assume, given, seed, settings, strategies as st

from rig.formats.jsonfields import FileFormatError
from rig.formats.keysfile import action_from_dict, action_to_dict
from rig.formats.rigfile import load_rig
from rig.keys import PIN, Action, moved_keys, with_interpolation, without_keys
from rig.pin_keys import keyed_pins, pin_at, with_pin_keys
from rig.pins import Pin
from rig.pose import Pose
from solvers.transforms import quat_angle, quat_from_axis_angle

SKELETON = load_rig("assets/humanoid.json").skeleton
FOOT = "foot.L"
EMPTY = Action.empty(Pose.rest(len(SKELETON)))


def turn(angle):
    return tuple(float(v) for v in quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), angle))


def keyed(*keys, interpolation="linear"):
    """An action keying FOOT's pin at (frame, Pin or None) pairs."""
    action = EMPTY
    for frame, pin in keys:
        action = with_pin_keys(action, {FOOT: pin} if pin is not None else {}, [FOOT], frame, interpolation)
    return action


def at(action, frame):
    return pin_at(action.channels[(FOOT, PIN)], frame)


A = Pin((0.1, 0.0, 0.05), turn(0.2))
B = Pin((0.3, 0.1, 0.05), turn(0.8))
C = Pin((0.6, 0.0, 0.05), turn(-0.4))


def test_a_pin_keyed_on_then_off_holds_on_its_frames_and_lets_go_at_the_off_key():
    action = keyed((0, None), (10, A), (30, None))
    assert at(action, 9.99) is None and at(action, 30) is None and at(action, 45) is None
    for frame in (10, 17.5, 29, 29.999):
        assert at(action, frame) == A  # held still: a planted foot does not slide toward the off key


def test_a_channel_holds_its_first_key_before_it_and_its_last_after_it():
    action = keyed((10, A))
    assert at(action, -5) == A and at(action, 1e5) == A  # Blender's constant extrapolation


def test_the_target_moves_between_two_on_keys_as_the_key_it_leaves_says():
    linear = keyed((0, A), (10, B))
    middle = at(linear, 5)
    np.testing.assert_allclose(middle.position, (np.array(A.position) + B.position) / 2, atol=1e-15)
    assert quat_angle(middle.rotation, A.rotation) == pytest.approx(0.3, abs=1e-12)
    constant = with_interpolation(linear, [0], "constant")
    assert at(constant, 9.9) == A and at(constant, 10) == B
    smooth = keyed((0, A), (10, B), (20, C), interpolation="smooth")
    assert at(smooth, 10) == B
    eased = at(smooth, 2.5)
    assert quat_angle(eased.rotation, A.rotation) == pytest.approx(0.6 * (3 - 2 * 0.25) * 0.25**2, abs=1e-12)


def test_separate_plants_never_slide_toward_each_other():
    """On at 10 (A), off at 30, on at 50 (C): frames 10-29 hold A exactly, smooth or not."""
    for interpolation in ("linear", "smooth"):
        action = keyed((0, None), (10, A), (20, A), (30, None), (50, C), (60, B), interpolation=interpolation)
        for frame in np.linspace(10, 29.99, 41):
            assert at(action, frame) == A  # two keys planting it in one place: held bit for bit
        assert at(action, 40) is None and at(action, 50) == C


def test_a_position_only_pin_holds_no_rotation_and_rotation_moves_only_between_two_keys_holding_it():
    loose = Pin(B.position)
    action = keyed((0, A), (10, loose), (20, C))
    assert at(action, 10) == loose and at(action, 15).rotation is None
    half = at(action, 5)
    np.testing.assert_allclose(half.position, (np.array(A.position) + loose.position) / 2, atol=1e-15)
    assert half.rotation == A.rotation  # its next key holds none: the rotation stays as pinned


def test_unkeyed_pins_stay_as_they_are_and_keyed_ones_follow_the_frame():
    action = keyed((0, A), (10, None))
    hand = Pin((0.0, 1.0, 0.3))
    assert keyed_pins(action, 5, {"hand.L": hand}) == {FOOT: A, "hand.L": hand}
    assert keyed_pins(action, 12, {"hand.L": hand, FOOT: B}) == {"hand.L": hand}
    assert keyed_pins(EMPTY, 12, {FOOT: B}) == {FOOT: B}


def test_rekeying_a_frame_keeps_its_interpolation_and_edits_carry_the_pin_keys():
    action = with_interpolation(keyed((0, A), (10, B)), [0], "smooth")
    again = with_pin_keys(action, {FOOT: C}, [FOOT], 0, "linear")
    assert at(again, 0) == C and again.interpolation_at(0) == "smooth"
    assert without_keys(action, [10]).channels[(FOOT, PIN)].frames.tolist() == [0]
    assert moved_keys(action, [10], 5).channels[(FOOT, PIN)].frames.tolist() == [0, 15]
    assert at(moved_keys(action, [10], 5), 15) == B


@seed(22)
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.floats(-1, 1), st.floats(-3, 3)), min_size=1, max_size=6),
       st.sampled_from(["constant", "linear", "smooth"]))
def test_at_a_key_the_pin_is_that_keys_and_keys_read_back_bit_for_bit(keys, interpolation):
    pins = [Pin((x, 0.5, -x), turn(angle) if holds else None) if on else None for on, holds, x, angle in keys]
    action = keyed(*((5 * k, pin) for k, pin in enumerate(pins)), interpolation=interpolation)
    back = action_from_dict(action_to_dict(action, SKELETON), SKELETON)
    for k, pin in enumerate(pins):
        assert at(action, 5 * k) == pin and at(back, 5 * k) == pin


@seed(22)
@settings(max_examples=60, deadline=None)
@given(st.floats(-1, 1), st.floats(-1, 1), st.floats(-3, 3), st.floats(-3, 3), st.floats(0, 1))
def test_between_two_on_keys_the_target_stays_between_them_on_the_short_arc(x0, x1, a0, a1, u):
    first, second = Pin((x0, 0.5, -x0), turn(a0)), Pin((x1, 0.5, -x1), turn(a1))
    arc = quat_angle(first.rotation, second.rotation)
    assume(arc < np.pi - 1e-3)  # exactly half a turn has no shorter way
    pin = at(keyed((0, first), (10, second)), 10 * u)
    assert min(x0, x1) - 1e-12 <= pin.position[0] <= max(x0, x1) + 1e-12
    turned = quat_angle(first.rotation, pin.rotation)
    assert turned <= arc + 1e-9 and quat_angle(pin.rotation, second.rotation) <= arc + 1e-9


def pin_channel_data(values):
    data = action_to_dict(keyed((0, A)), SKELETON)
    data["channels"][0]["values"] = values
    return data


@pytest.mark.parametrize("values, expected", [
    ([0.5, 1, 0, 0, 0, 0, 0, 0, 1], "on and hold-rotation flags of 0 or 1"),
    ([0, 1, 0, 0, 0, 0, 0, 0, 1], "no rotation held by an off key"),
    ([1, 1, 0, 0, 0, 0, 0, 0, 0], "non-zero quaternions"),
    ([1, 1, 0, 0, 0, 0, 0, 1], "a list of 9 finite numbers"),
    ([1, 1, float("nan"), 0, 0, 0, 0, 0, 1], "a list of 9 finite numbers"),
])
def test_bad_pin_keys_fail_naming_the_file_and_field(values, expected):
    with pytest.raises(FileFormatError, match=r"session\.json: field 'action\.channels\[0\]\.values'.*" + expected):
        action_from_dict(pin_channel_data(values), SKELETON, "session.json", "action.")


def test_a_pin_channel_with_an_unknown_field_is_refused():
    data = pin_channel_data([1, 1, 0, 0, 0, 0, 0, 0, 1])
    data["channels"][0]["target"] = [0, 0, 0]
    with pytest.raises(FileFormatError, match=r"session\.json: unknown field 'action\.channels\[0\]\.target'"):
        action_from_dict(data, SKELETON, "session.json", "action.")
