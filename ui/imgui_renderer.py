"""ImGui's draw data over the scene into the window's frame, redrawing only what changed outside it.

The docked panels are opaque and the scene is drawn only in the region they leave free
(``PosekitWindow.scene_region``); outside it the scene's target holds its clear colour. So the
picture splits exactly in two: inside the region it is the scene with every ImGui command drawn
over it, clipped to the region (a moving scene's own target drawn on, a still one's copied out
first: it is reused); outside it the frame keeps the panels' pixels from the last frame, and only
rectangles where a draw list changed (its old and new bounds) get the clear colour copied back and
every list redrawn, clipped to them. While a handle is dragged only the Pose tab's values and the
viewport's labels change, so a software renderer shades and copies a fraction of the ~550,000
panel pixels it redrew each frame. Each pixel gets the same fragments in the same order as one
whole draw, so the picture is the same bit for bit. (A texture whose pixels changed under an
unchanged list would need it redrawn: the app draws only ImGui's own, whose updates redraw all.)
"""
import ctypes
import functools
import math

import numpy as np
import OpenGL.GL as gl
from imgui_bundle import imgui
from imgui_bundle.python_backends import pyglet_backend
from imgui_bundle.python_backends.opengl_base_backend import get_common_gl_state, restore_common_gl_state


FLOATS_PER_VERTEX = imgui.VERTEX_SIZE // 4  # position x, y, uv, colour: four-byte fields
INDEX_TYPE = gl.GL_UNSIGNED_SHORT if imgui.INDEX_SIZE == 2 else gl.GL_UNSIGNED_INT
INDEX_DTYPE = np.uint16 if imgui.INDEX_SIZE == 2 else np.uint32
# Pixels around the scene's region drawn afresh with it: a multisampled still scene, scissored to
# the region, resolves into the row and column just outside it on llvmpipe.
SCENE_BLEED = 1


def sample_nearest(texture_id):
    """Nearest filtering for the GL 2D texture ``texture_id``, leaving the bound texture bound."""
    previous = gl.glGetIntegerv(gl.GL_TEXTURE_BINDING_2D)
    gl.glBindTexture(gl.GL_TEXTURE_2D, texture_id)
    for parameter in (gl.GL_TEXTURE_MIN_FILTER, gl.GL_TEXTURE_MAG_FILTER):
        gl.glTexParameteri(gl.GL_TEXTURE_2D, parameter, gl.GL_NEAREST)
    gl.glBindTexture(gl.GL_TEXTURE_2D, previous)


def intersect(a, b):
    """The overlap of two (x0, y0, x1, y1) pixel rectangles, or None."""
    x0, y0, x1, y1 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return (x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None


def union(a, b):
    """The smallest (x0, y0, x1, y1) rectangle holding both (either may be None)."""
    if a is None or b is None:
        return a or b
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def outside(region, width, height):
    """The frame minus ``region`` (x0, y0, x1, y1), as up to four (x0, y0, x1, y1) rectangles."""
    x0, y0, x1, y1 = region
    rects = ((0, 0, x0, height), (x1, 0, width, height), (x0, 0, x1, y0), (x0, y1, x1, height))
    return [r for r in rects if r[0] < r[2] and r[1] < r[3]]


class DrawList:
    """One ImGui draw list as drawn this frame: its buffers' bytes, its commands (texture,
    scissor as the stock backend rounds it, index count and offset, all framebuffer pixels from
    the bottom left), ``clip`` (their scissors' union) and ``bounds``, a rectangle holding every
    pixel it can touch."""

    def __init__(self, draw_list, fb_height, scale):
        self.name = draw_list._owner_name
        self.fb_height, self.scale = fb_height, scale
        self.vertices = ctypes.string_at(draw_list.vtx_buffer.data_address(),
                                         draw_list.vtx_buffer.size() * imgui.VERTEX_SIZE)
        self.indices = ctypes.string_at(draw_list.idx_buffer.data_address(),
                                        draw_list.idx_buffer.size() * imgui.INDEX_SIZE)
        commands, clip = [], None
        for command in draw_list.cmd_buffer:
            x, y, z, w = command.clip_rect
            scissor = (int(x), int(fb_height - w), int(x) + int(z - x), int(fb_height - w) + int(w - y))
            commands.append((command.tex_ref.get_tex_id(), scissor, command.elem_count, command.idx_offset))
            clip = union(clip, scissor)
        self.commands, self.clip = commands, clip

    @functools.cached_property
    def bounds(self):
        """The clip's overlap with the vertices' bounding box (with a pixel to spare), or None.
        Worked out only for lists that changed or may show in a redrawn rectangle."""
        if self.clip is None or not self.vertices:
            return None
        return self._pixels_around(self._positions())

    def _positions(self):
        """The vertices' (x, y) window pixels, top-left origin."""
        return np.frombuffer(self.vertices, np.float32).reshape(-1, FLOATS_PER_VERTEX)[:, :2]

    def _pixels_around(self, xy):
        """The clip's overlap with the bounding box of window points ``xy`` (a pixel to spare)."""
        (left, top), (right, bottom) = xy.min(axis=0) * self.scale, xy.max(axis=0) * self.scale
        return intersect(self.clip, (math.floor(left) - 1, math.floor(self.fb_height - bottom) - 1,
                                     math.ceil(right) + 1, math.ceil(self.fb_height - top) + 1))

    def changed_since(self, old):
        """A rectangle holding every pixel whose fragments from this list may differ from those
        of ``old`` (the same window's list a frame earlier), or None. With the same indices and
        commands only the triangles with a changed vertex (their corners then and now) count: a
        dragged bone's values change a few digits of the Pose tab, not its frames and labels."""
        if self.indices != old.indices or self.commands != old.commands or len(self.vertices) != len(old.vertices):
            return union(self.bounds, old.bounds)
        if self.vertices == old.vertices:
            return None
        words = np.frombuffer(self.vertices, np.uint32).reshape(-1, FLOATS_PER_VERTEX)
        moved = np.any(words != np.frombuffer(old.vertices, np.uint32).reshape(-1, FLOATS_PER_VERTEX), axis=1)
        triangles = np.frombuffer(self.indices, INDEX_DTYPE).reshape(-1, 3)
        corners = triangles[moved[triangles].any(axis=1)].ravel()
        if not len(corners):  # only vertices no triangle uses
            return None
        return self._pixels_around(np.concatenate([self._positions()[corners], old._positions()[corners]]))

    def touches(self, rect):
        """Whether any of its pixels may lie in ``rect``."""
        return self.clip is not None and intersect(self.clip, rect) is not None and self.bounds is not None \
            and intersect(self.bounds, rect) is not None


class NearestImGuiRenderer(pyglet_backend.PygletProgrammablePipelineRenderer):
    """The ImGui backend with its textures sampled nearest, not bilinear, which cost a software
    renderer about 1 ms a frame at 1280x720. ImGui puts glyphs and the white pixel of its fills
    on whole texels, so panels come out the same; only the anti-aliased edges of texture-drawn
    corners, check marks and rings at fractional positions move by up to 32/255.

    ``render_over`` draws a frame as the module doc says, ``present`` copies it out."""

    def __init__(self, window):
        super().__init__(window)
        self.cached = None  # what the frame's panels show: (size, region, [DrawList])
        self.shown = None  # where the last picture's region is: (target, (x0, y0, x1, y1))

    def _update_texture(self, tex):
        created = tex.status == imgui.ImTextureStatus.want_create
        super()._update_texture(tex)
        if created:
            sample_nearest(tex.tex_id)

    def render_over(self, draw_data, scene, region, frame, on_scene=False):
        """Draw ``draw_data`` over ``scene`` (an ``OffscreenTarget`` holding the scene drawn in
        ``region``, x, y, width, height pixels from the bottom left, and its clear colour
        elsewhere) and into ``frame`` (one of the same size, which keeps the panels' pixels from
        the last call). The region's commands go over the scene copied into ``frame``, or, with
        ``on_scene`` (a scene drawn afresh each frame), straight over ``scene``, saving the copy:
        the picture is then ``scene``'s within the region and ``frame``'s around it
        (``present`` puts it together). Leaves ``frame`` bound."""
        textures_changed = any(t.status != imgui.ImTextureStatus.ok for t in imgui.get_platform_io().textures)
        self._update_textures()
        width, height = frame.size
        scale = self.io.display_framebuffer_scale
        draw_data.scale_clip_rects(scale)
        lists = [DrawList(d, height, tuple(scale)) for d in draw_data.cmd_lists]
        x, y, w, h = region
        inside = (max(x - SCENE_BLEED, 0), max(y - SCENE_BLEED, 0), min(x + w + SCENE_BLEED, width),
                  min(y + h + SCENE_BLEED, height))
        stale = self._damage(lists, (width, height), inside, textures_changed)
        self.cached = ((width, height), inside, lists)
        self.shown = (scene if on_scene else frame, inside)
        saved = (get_common_gl_state(), gl.glGetIntegerv(gl.GL_CURRENT_PROGRAM),
                 gl.glGetIntegerv(gl.GL_VERTEX_ARRAY_BINDING))
        if not on_scene:
            self._copy(scene.colour_fbo, frame.fbo, inside)
        # The region first: over a moving scene its commands join the scene's own pass, which a
        # copy out of it would end (llvmpipe finishes a target's drawing before it is read).
        self._draw(lists, self.shown[0].fbo, inside, width, height)
        for rect in stale:  # the clear colour under the panels
            self._copy(scene.colour_fbo, frame.fbo, rect)
        for rect in stale:  # then every list over it
            self._draw(lists, frame.fbo, rect, width, height)
        state, program, vertex_array = saved
        restore_common_gl_state(state)
        gl.glUseProgram(program)
        gl.glBindVertexArray(vertex_array)
        frame.use()
        self._handle_mouse_cursor()

    def present(self, frame, destination):
        """Copy the last picture ``render_over`` drew with ``frame`` into the framebuffer
        ``destination`` (of the same size; ``frame``'s own is fine)."""
        if self.shown is None:
            return
        target, inside = self.shown
        parts = [(target, inside)] + [(frame, rect) for rect in outside(inside, *frame.size)]
        if target is frame:
            parts = [(frame, (0, 0, *frame.size))]
        saved = gl.glIsEnabled(gl.GL_SCISSOR_TEST)
        for source, rect in parts:
            if source.colour_fbo.glo != destination.glo:
                self._copy(source.colour_fbo, destination, rect)
        if saved:
            gl.glEnable(gl.GL_SCISSOR_TEST)
        frame.use()

    def _damage(self, lists, size, inside, textures_changed):
        """The frame's rectangles outside ``inside`` whose pixels are stale: at most one within
        each of ``outside``'s, so that none overlaps another (their lists would blend twice)."""
        around = outside(inside, *size)
        if self.cached is None or textures_changed:
            return around
        cached_size, cached_inside, cached_lists = self.cached
        if (cached_size, cached_inside) != (size, inside) or [d.name for d in cached_lists] != [d.name for d in lists]:
            return around
        stale = [new.changed_since(old) for new, old in zip(lists, cached_lists)]
        rects = []
        for part in around:
            rect = None
            for changed in stale:
                rect = union(rect, changed and intersect(changed, part))
            if rect is not None:
                rects.append(rect)
        return rects

    @staticmethod
    def _copy(source, destination, rect):
        """Copy ``rect`` of one framebuffer's colour into the same pixels of another."""
        gl.glDisable(gl.GL_SCISSOR_TEST)  # a blit is scissored too
        gl.glBindFramebuffer(gl.GL_READ_FRAMEBUFFER, source.glo)
        gl.glBindFramebuffer(gl.GL_DRAW_FRAMEBUFFER, destination.glo)
        gl.glBlitFramebuffer(*rect, *rect, gl.GL_COLOR_BUFFER_BIT, gl.GL_NEAREST)

    def _draw(self, lists, target, rect, width, height):
        """Every command of ``lists`` into ``target``, clipped to ``rect`` as well as its own
        clip rectangle, with the stock backend's GL state."""
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, target.glo)
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendEquation(gl.GL_FUNC_ADD)
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
        gl.glDisable(gl.GL_CULL_FACE)
        gl.glDisable(gl.GL_DEPTH_TEST)
        gl.glEnable(gl.GL_SCISSOR_TEST)
        gl.glActiveTexture(gl.GL_TEXTURE0)
        gl.glPolygonMode(gl.GL_FRONT_AND_BACK, gl.GL_FILL)
        gl.glViewport(0, 0, width, height)
        display_width, display_height = self.io.display_size
        projection = (ctypes.c_float * 16)(2.0 / display_width, 0, 0, 0, 0, -2.0 / display_height, 0, 0,
                                           0, 0, -1.0, 0, -1.0, 1.0, 0, 1.0)
        gl.glUseProgram(self._shader_handle)
        gl.glUniform1i(self._attrib_location_tex, 0)
        gl.glUniformMatrix4fv(self._attrib_proj_mtx, 1, gl.GL_FALSE, projection)
        gl.glBindVertexArray(self._vao_handle)
        for draw_list in lists:
            if not draw_list.touches(rect):
                continue
            commands = [(texture, clip, count, offset) for texture, scissor, count, offset in draw_list.commands
                        if (clip := intersect(scissor, rect)) is not None]
            if not commands:
                continue
            gl.glBindBuffer(gl.GL_ARRAY_BUFFER, self._vbo_handle)
            gl.glBufferData(gl.GL_ARRAY_BUFFER, len(draw_list.vertices), draw_list.vertices, gl.GL_STREAM_DRAW)
            gl.glBindBuffer(gl.GL_ELEMENT_ARRAY_BUFFER, self._elements_handle)
            gl.glBufferData(gl.GL_ELEMENT_ARRAY_BUFFER, len(draw_list.indices), draw_list.indices, gl.GL_STREAM_DRAW)
            for texture, (x0, y0, x1, y1), count, offset in commands:
                gl.glBindTexture(gl.GL_TEXTURE_2D, texture)
                gl.glScissor(x0, y0, x1 - x0, y1 - y0)
                gl.glDrawElements(gl.GL_TRIANGLES, count, INDEX_TYPE, ctypes.c_void_p(offset * imgui.INDEX_SIZE))
