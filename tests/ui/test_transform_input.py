"""The axis lock and typed value a running G or R reads (no GL needed)."""
from ui.transform_input import AxisLock, TypedInput, next_lock, type_into, typed_axes, typed_count, typed_value


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


def test_tab_steps_through_the_free_axes_and_wraps_both_ways():
    typed = TypedInput()
    for char, step in (("1", 1), ("2", 1), ("3", 1)):
        typed = typed.type(char).step(3, step)
    assert typed.values(3) == (1.0, 2.0, 3.0) and typed.active == 0  # wrapped round to the first
    assert typed.step(3, -1).active == 2 and typed.step(2, -1).active == 1


def test_minus_and_backspace_edit_only_the_active_component():
    typed = TypedInput().type("4").step(3, 1).type("5").type("-").type("\b")
    assert typed.texts == ("4", "-", "") and typed.values(3) == (4.0, 0.0, 0.0)
    assert typed.label(3) == "4  [-|]  0"


def test_only_the_components_a_lock_leaves_count():
    typed = TypedInput().step(3, 1).step(3, 1).type("7")  # typed into Z, then a lock leaves one
    assert typed.values(3) == (0.0, 0.0, 7.0) and typed.values(1) is None
    assert typed.within(1).active == 0 and typed.label(1) == "|"


def test_a_grab_types_along_the_world_axes_or_the_locks_free_ones():
    assert typed_axes(None) == (AxisLock(0), AxisLock(1), AxisLock(2))
    assert typed_axes(AxisLock(1, True, True)) == (AxisLock(0, True), AxisLock(2, True))
    assert typed_axes(AxisLock(2)) == (AxisLock(2),)
    assert typed_count(None, rotation=True) == 1 and typed_count(AxisLock(0, plane=True)) == 2
