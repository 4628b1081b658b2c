"""Offscreen targets: orientation of read-back pictures and byte-identical PNGs."""
import numpy as np

from render.capture import OffscreenTarget, load_png, render_png


def test_read_rgb_has_top_row_first(ctx):
    target = OffscreenTarget(ctx, 32, 16)
    target.use()
    ctx.clear(0.0, 0.0, 1.0)
    ctx.clear(1.0, 0.0, 0.0, viewport=(0, 8, 32, 8))  # GL counts rows from the bottom: the top half
    image = target.read_rgb()
    target.release()
    assert image.shape == (16, 32, 3) and image.dtype == np.uint8
    assert (image[:8] == [255, 0, 0]).all() and (image[8:] == [0, 0, 255]).all()


def test_png_round_trip_without_metadata(ctx, tmp_path):
    path = tmp_path / "grey.png"
    image = render_png(ctx, lambda w, h: ctx.clear(0.5, 0.25, 0.75), 8, 4, path)
    np.testing.assert_array_equal(load_png(path), image)
    assert b"tEXt" not in path.read_bytes() and b"tIME" not in path.read_bytes()
