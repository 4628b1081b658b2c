"""How the window spares a software renderer work without changing the picture: ImGui's
textures sampled nearest, and the scene drawn only where no panel covers it."""
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
    # Only anti-aliased edges drawn from the texture (tabs' round corners, check marks) shift a little.
    difference = np.abs(nearest.astype(int) - bilinear.astype(int)).max(axis=2)
    assert difference.max() <= 32
    assert np.count_nonzero(difference) < difference.size / 1000


def test_the_scene_is_drawn_only_where_no_panel_covers_it(driver, monkeypatch):
    app = driver.app
    width, height = app.window.get_framebuffer_size()
    x, y, w, h = app.scene_region(width, height)
    assert w * h < 0.7 * width * height
    in_region = app.read_rgb()
    monkeypatch.setattr(app, "scene_region", lambda width, height: (0, 0, width, height))
    app.frame()
    app.frame()  # the still scene, multisampled, as in_region's
    whole = app.read_rgb()
    # Only the see-through splitters between panels away from the viewport show what is under them.
    difference = np.abs(in_region.astype(int) - whole.astype(int)).max(axis=2)
    assert np.count_nonzero(difference > 16) < 10
    assert np.count_nonzero(difference) < 0.01 * width * height
