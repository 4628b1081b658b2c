"""Where the tool text goes: beside the pointer, flipped and pushed to stay inside the viewport's
free rectangle (the panels' text over it would collide)."""
from ui.overlay import POINTER_OFFSET, text_position

FREE = (0.0, 19.0, 538.0, 483.0)  # the default layout's viewport in a 960x600 window


def test_text_sits_beside_the_pointer_and_flips_at_the_edges():
    assert text_position((100, 100), (200, 14), FREE) == (100 + POINTER_OFFSET[0], 100 + POINTER_OFFSET[1])
    x, y = text_position((500, 475), (200, 14), FREE)
    assert x + 200 <= 500 and y + 14 <= 475


def test_text_stays_inside_the_free_rectangle_whatever_the_pointer():
    for pointer in [(-50, -50), (0, 19), (530, 25), (900, 590), (10, 480), (269, 300)]:
        x, y = text_position(pointer, (200, 28), FREE)
        assert FREE[0] <= x and x + 200 <= FREE[2] and FREE[1] <= y and y + 28 <= FREE[3], pointer
