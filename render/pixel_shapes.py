"""Flat shapes in window pixels drawn over the scene (the solver's helpers, pin markers): no depth
test, so no bone or mesh hides them, and they keep their size at any zoom."""
import moderngl
import numpy as np

from render import shaders

SHAPE_FLOATS = 2 + 4  # window pixel position, RGBA


def shape_rows(parts):
    """Vertex rows (N, 6): window pixel x, y and RGBA, of (triangles (M, 2), RGBA) ``parts`` in order."""
    rows = np.empty((sum(len(triangles) for triangles, _ in parts), SHAPE_FLOATS))
    start = 0
    for triangles, colour in parts:
        rows[start:start + len(triangles), :2] = triangles
        rows[start:start + len(triangles), 2:] = colour
        start += len(triangles)
    return rows


class PixelShapes:
    """GPU objects drawing (triangles (N, 2) window pixels, RGBA) pairs on one moderngl context;
    ``release()`` frees them."""

    def __init__(self, ctx, reserve=1024):
        self.ctx = ctx
        self.program = ctx.program(vertex_shader=shaders.OVERLAY_VERTEX, fragment_shader=shaders.OVERLAY_FRAGMENT)
        self.vbo = ctx.buffer(reserve=SHAPE_FLOATS * 4 * reserve)
        self.vao = ctx.vertex_array(self.program, [(self.vbo, "2f 4f", "in_pos", "in_color")])

    def draw(self, parts, width, height):
        """Draw ``parts`` in order over the framebuffer in use (blended, no depth test)."""
        self.draw_rows(shape_rows(parts), width, height)

    def draw_rows(self, rows, width, height):
        """Draw ``rows`` (``shape_rows``' vertices, 3 a triangle) over the framebuffer in use."""
        if not len(rows):
            return
        data = np.ascontiguousarray(rows, dtype="f4")
        if data.nbytes > self.vbo.size:
            self.vbo.orphan(data.nbytes)
        self.vbo.write(data.tobytes())
        self.program["u_size"].value = (float(width), float(height))
        self.ctx.disable(moderngl.DEPTH_TEST)
        self.ctx.enable(moderngl.BLEND)
        self.ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        self.vao.render(moderngl.TRIANGLES, vertices=len(data))

    def release(self):
        for obj in (self.vao, self.vbo, self.program):
            obj.release()


class MarkerRenderer:
    """Glyphs in window pixels over the scene, one per mark at its world ``position``: a mark's
    glyph is ``glyph(shape_of(mark), style)``, parts (as ``PixelShapes.draw`` takes them) around
    window pixel (0, 0), built once per shape and moved to each mark's point; a mark behind the
    eye has no glyph. ``release()`` frees the GPU objects."""

    def __init__(self, ctx, shape_of, glyph, style):
        self.shape_of, self.glyph, self.style = shape_of, glyph, style
        self.glyph_rows = {}  # shape -> shape_rows of its glyph at the origin
        self.shapes = PixelShapes(ctx, reserve=256)

    def draw(self, marks, camera, width, height):
        if not marks:
            return
        points = camera.world_to_window(np.array([mark.position for mark in marks], dtype=float), width, height)
        rows = [self._rows(self.shape_of(mark)) + (*point, 0.0, 0.0, 0.0, 0.0)
                for mark, point in zip(marks, points) if np.isfinite(point).all()]
        if rows:
            self.shapes.draw_rows(np.concatenate(rows), width, height)

    def _rows(self, shape):
        if shape not in self.glyph_rows:
            self.glyph_rows[shape] = shape_rows(self.glyph(shape, self.style))
        return self.glyph_rows[shape]

    def release(self):
        self.shapes.release()
