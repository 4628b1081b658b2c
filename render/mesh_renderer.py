"""Draws a ``rig.skinned_mesh.SkinnedMesh`` deformed by a pose, skinned on the GPU.

Vertices carry four bone indices and weights; the bones' skinning matrices go to the GPU as a
float texture each frame (``render.shaders.SKIN_VERTEX``). The mesh's buffers are uploaded once and
kept until a different mesh is drawn or ``release()`` is called.

A closed mesh seen from outside shows only its front faces, so then its back faces are culled,
which halves what a software rasteriser sets up and shades; open meshes, and closed ones with
the eye inside or the near plane cutting them, are drawn two-sided.
"""
import moderngl
import numpy as np

from render import shaders
from render.style import DEFAULT_STYLE

VERTEX_FORMAT = "3f 3f 4f 4f"
VERTEX_ATTRIBUTES = ("in_pos", "in_normal", "in_joints", "in_weights")


def is_closed_surface(positions, indices):
    """Whether triangles ``indices`` (T*3,) over ``positions`` (V, 3) close up into surfaces
    wound counter-clockwise seen from outside: with corners at the same place welded (glTF splits
    vertices along seams), every edge is run once each way, and the enclosed volume is positive."""
    _, weld = np.unique(np.asarray(positions, np.float32), axis=0, return_inverse=True)
    triangles = weld.reshape(-1)[np.asarray(indices, np.int64)].reshape(-1, 3)
    edges = np.concatenate([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]])
    edges = edges[edges[:, 0] != edges[:, 1]]  # degenerate corners
    forward = np.unique(edges, axis=0)
    if len(forward) != len(edges):
        return False  # an edge run twice the same way: inconsistent winding or more than 2 faces
    backward = np.unique(edges[:, ::-1], axis=0)
    if not np.array_equal(forward, backward):
        return False  # an edge with a face on one side only: a hole
    corners = np.asarray(positions, float)[np.asarray(indices, np.int64).reshape(-1, 3)]
    return float(np.einsum("ij,ij->", corners[:, 0], np.cross(corners[:, 1], corners[:, 2]))) > 0.0


def bone_boxes(mesh):
    """Rest-pose corners (B, 8, 4), homogeneous, of the box around the vertices each weighted bone
    moves, and those bones' indices (B,). A skinned vertex is a weighted mean of its bones' moves
    of it, so the moved boxes of all bones together bound the posed mesh."""
    joints, positions = mesh.joints.astype(np.int64), mesh.positions.astype(float)
    count = len(mesh.bind_matrices)
    low, high = np.full((count, 3), np.inf), np.full((count, 3), -np.inf)
    for k in range(joints.shape[1]):
        weighted = mesh.weights[:, k] > 0.0
        np.minimum.at(low, joints[weighted, k], positions[weighted])
        np.maximum.at(high, joints[weighted, k], positions[weighted])
    bones = np.flatnonzero(np.isfinite(low[:, 0]))
    pick = np.array([(i, j, k) for i in (0, 1) for j in (0, 1) for k in (0, 1)])
    corners = np.where(pick[None, :, :] == 0, low[bones, None, :], high[bones, None, :])
    return np.concatenate([corners, np.ones((len(bones), 8, 1))], axis=2), bones


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
        self.closed, self.boxes, self.boxed_bones = False, None, None

    def draw(self, mesh, world, view_start=None):
        """Draw ``mesh`` posed by the bones' world matrices ``world`` (N, 4, 4); depth-tested,
        writing depth, into the framebuffer in use. Given where the view starts (a
        ``render.camera.ViewStart``), back faces that cannot show are culled."""
        if mesh is not self.mesh:
            self._upload(mesh)
        matrices = mesh.skinning_matrices(world)
        self._write_joints(matrices.transpose(0, 2, 1).astype("f4"))  # rows = columns
        cull = view_start is not None and self.only_fronts_show(matrices, view_start)
        if cull:
            self.ctx.enable(moderngl.CULL_FACE)
        self.vao.render(moderngl.TRIANGLES)
        if cull:
            self.ctx.disable(moderngl.CULL_FACE)

    def only_fronts_show(self, matrices, view_start):
        """Whether the mesh last drawn, posed by its skinning ``matrices`` (N, 4, 4), is closed and
        seen from outside, wholly beyond the near plane: then every ray meets a front face first."""
        if not self.closed:
            return False
        posed = np.einsum("bij,bkj->bki", matrices[self.boxed_bones], self.boxes)[..., :3].reshape(-1, 3)
        return view_start.clears_box(posed.min(axis=0), posed.max(axis=0))

    def _write_joints(self, skin):
        """Upload the skinning matrices (N, 4, 4), each as its columns, and bind them to unit 0."""
        if self.joints is None or self.joints.size != (4, len(skin)):
            if self.joints is not None:
                self.joints.release()
            self.joints = self.ctx.texture((4, len(skin)), 4, dtype="f4")
            self.joints.filter = moderngl.NEAREST, moderngl.NEAREST
        self.joints.write(np.ascontiguousarray(skin).tobytes())
        self.joints.use(0)

    def _upload(self, mesh):
        self._release_mesh()
        rows = np.concatenate([mesh.positions, mesh.normals, mesh.joints, mesh.weights], axis=1).astype("f4")
        self.vbo = self.ctx.buffer(rows.tobytes())
        self.ibo = self.ctx.buffer(mesh.indices.astype("u4").tobytes())
        self.vao = self.ctx.vertex_array(self.program, [(self.vbo, VERTEX_FORMAT, *VERTEX_ATTRIBUTES)],
                                         index_buffer=self.ibo, index_element_size=4)
        self.closed = is_closed_surface(mesh.positions, mesh.indices)
        self.boxes, self.boxed_bones = bone_boxes(mesh)
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
