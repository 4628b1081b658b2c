"""Draws a ground scene's triangles (a ``rig.ground_mesh.MeshGround``) under the figure.

The renderer owns the GPU copy of one ground: uploaded when a different ground is drawn, freed by
``release()`` or when the ground goes. Each triangle gets its own three vertices and its face's
normal, so steps and facets shade flat. A ground with no triangles (the grid's plane) draws nothing.
"""
import moderngl
import numpy as np

from render import shaders
from render.style import DEFAULT_STYLE


def flat_vertices(corners):
    """Rows (3T, 6) of position and face normal for triangles ``corners`` (T, 3, 3), float32."""
    corners = np.asarray(corners, dtype=float)
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
    return np.concatenate([corners, np.repeat(normals[:, None, :], 3, axis=1)], axis=2).reshape(-1, 6).astype("f4")


class GroundRenderer:
    def __init__(self, ctx, style=DEFAULT_STYLE):
        self.ctx = ctx
        self.program = ctx.program(vertex_shader=shaders.GROUND_VERTEX, fragment_shader=shaders.GROUND_FRAGMENT)
        self.program["u_color"].value = style.ground_mesh
        self.program["u_cell"].value = style.ground_cell
        self.ground = self.vbo = self.vao = None

    def draw(self, ground, view, projection):
        """Draw ``ground`` (anything; only one with ``corners`` has triangles to draw) with the
        camera's ``view`` and ``projection`` matrices (4, 4), depth-tested and writing depth,
        two-sided, into the framebuffer in use. Returns whether anything was drawn."""
        corners = getattr(ground, "corners", None)
        if corners is None or not len(corners):
            self._release_ground()
            return False
        if ground is not self.ground:
            self._upload(ground, corners)
        self.program["u_view"].write(view.T.astype("f4").tobytes())
        self.program["u_proj"].write(projection.T.astype("f4").tobytes())
        self.vao.render(moderngl.TRIANGLES)
        return True

    def _upload(self, ground, corners):
        self._release_ground()
        self.vbo = self.ctx.buffer(flat_vertices(corners).tobytes())
        self.vao = self.ctx.vertex_array(self.program, [(self.vbo, "3f 3f", "in_pos", "in_normal")])
        self.ground = ground

    def _release_ground(self):
        for obj in (self.vao, self.vbo):
            if obj is not None:
                obj.release()
        self.ground = self.vbo = self.vao = None

    def release(self):
        self._release_ground()
        self.program.release()
