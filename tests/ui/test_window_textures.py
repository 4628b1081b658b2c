"""ImGui's textures are sampled nearest, which a software renderer draws faster, with panels that
look the same as bilinear sampling's."""
import numpy as np
import OpenGL.GL as gl
from imgui_bundle import imgui


def imgui_textures():
    return [tex.tex_id for tex in imgui.get_platform_io().textures if tex.tex_id]


def set_filter(texture_ids, mode):
    for texture_id in texture_ids:
        gl.glBindTexture(gl.GL_TEXTURE_2D, texture_id)
        gl.glTexParameteri(gl.GL_TEXTURE_2D, gl.GL_TEXTURE_MIN_FILTER, mode)
        gl.glTexParameteri(gl.GL_TEXTURE_2D, gl.GL_TEXTURE_MAG_FILTER, mode)
    gl.glBindTexture(gl.GL_TEXTURE_2D, 0)


def filters(texture_id):
    gl.glBindTexture(gl.GL_TEXTURE_2D, texture_id)
    modes = [gl.glGetTexParameteriv(gl.GL_TEXTURE_2D, p) for p in (gl.GL_TEXTURE_MIN_FILTER, gl.GL_TEXTURE_MAG_FILTER)]
    gl.glBindTexture(gl.GL_TEXTURE_2D, 0)
    return [int(m) for m in modes]


def test_imgui_textures_are_sampled_nearest(driver):
    textures = imgui_textures()
    assert textures
    assert all(filters(t) == [gl.GL_NEAREST, gl.GL_NEAREST] for t in textures)


def test_nearest_panels_match_bilinear_ones(driver):
    app = driver.app
    nearest = app.read_rgb()
    set_filter(imgui_textures(), gl.GL_LINEAR)
    app.frame()
    bilinear = app.read_rgb()
    # Only the anti-aliased edges of texture-drawn round corners (the tabs') may shift a little.
    difference = np.abs(nearest.astype(int) - bilinear.astype(int)).max(axis=2)
    assert difference.max() <= 32
    assert np.count_nonzero(difference) < 100
