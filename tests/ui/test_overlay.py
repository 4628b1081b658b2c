"""Where the tool text goes: beside the pointer, flipped to stay inside the window."""
from ui.overlay import POINTER_OFFSET, text_position


def test_text_sits_beside_the_pointer_and_flips_at_the_edges():
    assert text_position((100, 100), (200, 14), 960, 600) == (100 + POINTER_OFFSET[0], 100 + POINTER_OFFSET[1])
    x, y = text_position((900, 590), (200, 14), 960, 600)
    assert x + 200 <= 900 and y + 14 <= 590
