"""The viewport's part no floating panel covers (no GL needed)."""
from hypothesis import assume, given, settings, strategies as st

from ui.free_space import MIN_UNCOVERED_SHARE, area, overlaps, uncovered

VIEWPORT = (0.0, 20.0, 540.0, 480.0)


def test_a_panel_over_the_right_half_leaves_the_left_half():
    assert uncovered(VIEWPORT, [(270.0, 20.0, 540.0, 480.0)]) == (0.0, 20.0, 270.0, 480.0)
    assert uncovered(VIEWPORT, [(300.0, 0.0, 700.0, 700.0)]) == (0.0, 20.0, 300.0, 480.0)  # reaching past it


def test_panels_off_the_viewport_or_over_too_much_of_it_leave_all_of_it():
    assert uncovered(VIEWPORT, []) == VIEWPORT
    assert uncovered(VIEWPORT, [(600.0, 0.0, 900.0, 400.0), (0.0, 480.0, 100.0, 500.0)]) == VIEWPORT  # touching
    assert uncovered(VIEWPORT, [(40.0, 60.0, 500.0, 440.0)]) == VIEWPORT  # the largest side left is under a quarter


def test_two_panels_leave_a_part_clear_of_both():
    free = uncovered(VIEWPORT, [(400.0, 20.0, 540.0, 480.0), (0.0, 300.0, 540.0, 480.0)])
    assert free == (0.0, 20.0, 400.0, 300.0)


coordinate = st.floats(-100.0, 700.0)


@settings(max_examples=300, derandomize=True)
@given(covers=st.lists(st.tuples(coordinate, coordinate, coordinate, coordinate), max_size=4))
def test_the_part_kept_is_inside_the_viewport_and_clear_of_every_panel_or_is_the_whole_viewport(covers):
    covers = [(min(a, c), min(b, d), max(a, c), max(b, d)) for a, b, c, d in covers]
    assume(all(area(cover) > 0.0 for cover in covers))
    free = uncovered(VIEWPORT, covers)
    if free == VIEWPORT:
        return
    assert VIEWPORT[0] <= free[0] < free[2] <= VIEWPORT[2] and VIEWPORT[1] <= free[1] < free[3] <= VIEWPORT[3]
    assert not any(overlaps(free, cover) for cover in covers)
    assert area(free) >= MIN_UNCOVERED_SHARE * area(VIEWPORT)
