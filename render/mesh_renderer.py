"""Draws a ``rig.skinned_mesh.SkinnedMesh`` deformed by a pose, skinned on the GPU.

Vertices carry four bone indices and weights; the bones' skinning matrices go to the GPU as a
float texture each frame (``render.shaders.SKIN_VERTEX``). The mesh's buffers are uploaded once and
kept until a different mesh is drawn or ``release()`` is called.
"""
import moderngl
import numpy as np

from render import shaders
from render.style import DEFAULT_STYLE

VERTEX_FORMAT = "3f 3f 4f 4f"
VERTEX_ATTRIBUTES = ("in_pos", "in_normal", "in_joints", "in_weights")


class MeshRenderer:
    """GPU objects for skinned meshes on one moderngl context; ``program`` takes the camera's
    ``u_view``/``u_proj`` like the rig renderer's programs."""

    def __init__(self, ctx, style=DEFAULT_STYLE):
        self.ctx = ctx
        self.program = ctx.program(vertex_shader=shaders.SKIN_VERTEX, fragment_shader=shaders.SKIN_FRAGMENT)
        self.program["u_color"].value = style.mesh
        self.program["u_joints"].value = 0
        self.mesh = None
        self.vbo = self.ibo = self.vao = self.joints = None

    def draw(self, mesh, world):
        """Draw ``mesh`` posed by the bones' world matrices ``world`` (N, 4, 4); depth-tested,
        writing depth, into the framebuffer in use."""
        if mesh is not self.mesh:
            self._upload(mesh)
        skin = mesh.skinning_matrices(world).transpose(0, 2, 1).astype("f4")  # rows = columns
        if self.joints is None or self.joints.size != (4, len(skin)):
            if self.joints is not None:
                self.joints.release()
            self.joints = self.ctx.texture((4, len(skin)), 4, dtype="f4")
            self.joints.filter = moderngl.NEAREST, moderngl.NEAREST
        self.joints.write(np.ascontiguousarray(skin).tobytes())
        self.joints.use(0)
        self.vao.render(moderngl.TRIANGLES)

    def _upload(self, mesh):
        self._release_mesh()
        rows = np.concatenate([mesh.positions, mesh.normals, mesh.joints, mesh.weights], axis=1).astype("f4")
        self.vbo = self.ctx.buffer(rows.tobytes())
        self.ibo = self.ctx.buffer(mesh.indices.astype("u4").tobytes())
        self.vao = self.ctx.vertex_array(self.program, [(self.vbo, VERTEX_FORMAT, *VERTEX_ATTRIBUTES)],
                                         index_buffer=self.ibo, index_element_size=4)
        self.mesh = mesh

    def _release_mesh(self):
        for obj in (self.vao, self.vbo, self.ibo):
            if obj is not None:
                obj.release()
        self.vao = self.vbo = self.ibo = self.mesh = None

    def release(self):
        self._release_mesh()
        if self.joints is not None:
            self.joints.release()
            self.joints = None
        self.program.release()
