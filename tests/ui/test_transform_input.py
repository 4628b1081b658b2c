"""The axis lock and typed value a running G or R reads (no GL needed)."""
from ui.transform_input import AxisLock, next_lock, type_into, typed_value


def test_axis_presses_cycle_global_local_none():
    lock = None
    for expected in (AxisLock(1), AxisLock(1, True), None, AxisLock(1)):
        lock = next_lock(lock, 1)
        assert lock == expected
    assert next_lock(AxisLock(0, True), 2) == AxisLock(2)


def test_typing_builds_the_value_as_blender_numinput_does():
    text = ""
    for char in "1.2.5-\b":
        text = type_into(text, char)
    assert text == "-1.2"
    assert typed_value(text) == -1.2 and typed_value("") is None and typed_value("-") == 0.0
