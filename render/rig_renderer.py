"""Draws a posed rig Blender's way: octahedral bones, joint spheres, IK handles, pole lines, grid,
and over them the solver's state (``render.solver_overlay``) when the view state holds one, and
the pins' markers (``render.pin_markers``).

The renderer owns GPU objects only; what to draw comes from the rig and its world matrices, how
it looks from ``render.style.Style`` and what is highlighted from ``render.view_state.ViewState``.
"""
from functools import partial
from typing import NamedTuple

import moderngl
import numpy as np

from render import shaders, shapes
from render.ground_renderer import GroundRenderer
from render.mesh_renderer import MeshRenderer
from render.pin_markers import pin_marker_renderer
from render.tracker_markers import tracker_marker_renderer
from render.solver_overlay import SolverOverlayRenderer
from render.style import DEFAULT_STYLE
from rig.pose import heads_tails

INSTANCE_FLOATS = 16 + 3 + 3  # model matrix (column-major), fill colour, wire colour
LINE_FLOATS = 3 + 4 + 1  # position, RGBA, distance along the line
WIRE_PULL = 0.002


def _scale(s):
    """Diagonal 4x4 scale matrices, shape (N, 4, 4), from per-instance uniform scales (N,)."""
    m = np.zeros((len(s), 4, 4))
    m[:, 0, 0] = m[:, 1, 1] = m[:, 2, 2] = s
    m[:, 3, 3] = 1.0
    return m


def _translate_scale(points, s):
    """Matrices (N, 4, 4) placing a unit shape at ``points`` (N, 3) scaled by ``s`` (N,)."""
    m = _scale(s)
    m[:, :3, 3] = points
    return m


def _write(buffer, data):
    """Upload float data, growing the buffer in place (same GL name) when it is too small."""
    data = np.ascontiguousarray(data, dtype="f4")
    if data.nbytes > buffer.size:
        buffer.orphan(data.nbytes)
    buffer.write(data)


class _InstancedMesh:
    """One ``shapes.Mesh`` on the GPU, drawn once per instance: filled, then outlined.

    The shapes are closed and convex, so seen from outside an instance shows only front faces;
    then back faces are culled, which spares a software rasteriser half the tiny triangles."""

    def __init__(self, ctx, mesh, solid_program, wire_program):
        self.ctx = ctx
        self.vertex_count = len(mesh.triangles)
        self.reach = float(np.linalg.norm(mesh.triangles[:, :3], axis=1).max())  # from the shape's origin
        # Indexed: a software renderer shades each distinct corner once per instance, not once per
        # triangle using it (a joint sphere has 768 corners, 153 distinct); the triangles are the same.
        corners, index = np.unique(mesh.triangles, axis=0, return_inverse=True)
        self.vbo = ctx.buffer(corners.tobytes())
        self.ibo = ctx.buffer(index.reshape(-1).astype("i4").tobytes())
        self.instances = ctx.buffer(reserve=INSTANCE_FLOATS * 4 * 64)
        self.solid = ctx.vertex_array(solid_program, [
            (self.vbo, "3f 3f", "in_pos", "in_normal"),
            (self.instances, "16f 3f 12x/i", "in_model", "in_color")], index_buffer=self.ibo, index_element_size=4)
        self.edge_vbo = self.wire = None
        if len(mesh.edges):
            self.edge_vbo = ctx.buffer(mesh.edges.tobytes())
            self.wire = ctx.vertex_array(wire_program, [
                (self.edge_vbo, "3f", "in_pos"),
                (self.instances, "16f 12x 3f/i", "in_model", "in_color")])

    def draw(self, models, fills, wires, fronts_only):
        """``models`` (N, 4, 4) column-vector model-to-world matrices; ``fills``/``wires`` (N, 3);
        ``fronts_only``: whether only front faces can show (``fronts_only`` below), so back faces
        are culled."""
        n = len(models)
        if n == 0:
            return
        rows = np.empty((n, INSTANCE_FLOATS), "f4")  # filled in place: no float64 copy to convert
        rows[:, :16] = models.transpose(0, 2, 1).reshape(n, 16)
        rows[:, 16:19], rows[:, 19:] = fills, wires
        _write(self.instances, rows)
        if fronts_only:
            self.ctx.enable(moderngl.CULL_FACE)
        self.solid.render(moderngl.TRIANGLES, vertices=self.vertex_count, instances=n)
        if fronts_only:
            self.ctx.disable(moderngl.CULL_FACE)
        if self.wire is not None:
            self.wire.render(moderngl.LINES, instances=n)

    def fronts_only(self, view_start, upright, origins, sizes):
        """Whether only front faces show of instances at ``origins`` (N, 3) scaled by ``sizes``
        (N,) along their longest axis: none mirrored (``upright`` (N,) says which are not: a
        mirror turns faces inside out) and the view starting outside them all."""
        return bool(upright.all()) and view_start.clears_balls(origins, self.reach * sizes)

    def release(self):
        for obj in (self.solid, self.wire, self.vbo, self.ibo, self.edge_vbo, self.instances):
            if obj is not None:
                obj.release()


# Bones and joints smaller than this on screen are not drawn: they would cover no pixel centre, and a
# rig of 100,000 bones framed whole would otherwise send 50 million sphere triangles to the rasteriser.
MIN_PIXELS = 0.5


# A bone's head is on its parent's tail when they are closer than this fraction of the largest joint radius.
SAME_JOINT = 1e-6


def _outermost_joints(skeleton, index, heads, tails, radii):
    """Which joint spheres of bones ``index`` show, as a mask over their heads' then their tails'
    (``radii`` (N,) per bone): where a head sits on its parent's tail, one sphere mesh is scaled
    about one centre twice and only the larger shows (of equal ones the first drawn, the head,
    which the depth test keeps), so the smaller need not reach the rasteriser: a third of a
    humanoid's joints."""
    count = len(index)
    slot = np.full(len(skeleton.names), -1)
    slot[index] = np.arange(count)
    parents = skeleton.parents[index]
    parent = np.where(parents >= 0, slot[parents], -1)  # -1: a root, or a parent not drawn
    child = np.flatnonzero(parent >= 0)
    parent = parent[child]
    gap = np.linalg.norm(heads[index[child]] - tails[index[parent]], axis=1)
    meets = gap <= SAME_JOINT * radii.max(initial=0.0)
    child, parent = child[meets], parent[meets]
    shows = np.ones(2 * count, bool)
    shows[child[radii[child] < radii[parent]]] = False
    shows[count + parent[radii[parent] <= radii[child]]] = False
    return shows


def _pixel_size(view, projection, height, centres, sizes):
    """How many pixels ``sizes`` (N,) metres span on screen at ``centres`` (N, 3), seen by the camera
    with ``view`` and ``projection`` matrices in a framebuffer ``height`` pixels tall."""
    eye = centres @ view[:3, :3].T + view[:3, 3]
    w = eye @ projection[3, :3] + projection[3, 3]  # clip w: the depth in perspective, 1 in orthographic
    return sizes * projection[1, 1] * height / 2.0 / np.maximum(np.abs(w), 1e-9)


class _Frames(NamedTuple):
    """What the back-face culling needs of bone world matrices (N, 4, 4), once a frame: which are
    not mirrored (``upright`` (N,)), and each one's largest scale (``stretch`` (N,))."""
    upright: np.ndarray
    stretch: np.ndarray

    @classmethod
    def of(cls, world):
        linear = world[:, :3, :3]
        return cls(np.linalg.det(linear) > 0.0, np.sqrt(np.einsum("nij,nij->nj", linear, linear).max(axis=1)))


def _flush():
    """Send what was drawn to the GL to work on now, without waiting for it: a software renderer's
    threads then rasterise the scene while this thread goes on (the app makes its panels' draw
    calls), where it would otherwise wait for them all at the frame's end. moderngl has no flush."""
    from pyglet import gl  # here, not at import: pyglet picks its GL platform when the app says
    gl.glFlush()


class RigRenderer:
    """Draws rigs into the framebuffer currently in use (an ``OffscreenTarget`` for 4x MSAA).

    Holds programs and buffers for one moderngl context; call ``release()`` when done.
    """

    def __init__(self, ctx, style=DEFAULT_STYLE):
        self.ctx = ctx
        self.style = style
        self.solid_program = ctx.program(vertex_shader=shaders.SOLID_VERTEX, fragment_shader=shaders.SOLID_FRAGMENT)
        self.wire_program = ctx.program(vertex_shader=shaders.WIRE_VERTEX, fragment_shader=shaders.WIRE_FRAGMENT)
        self.line_program = ctx.program(vertex_shader=shaders.LINE_VERTEX, fragment_shader=shaders.LINE_FRAGMENT)
        self.background_program = ctx.program(vertex_shader=shaders.BACKGROUND_VERTEX,
                                              fragment_shader=shaders.BACKGROUND_FRAGMENT)
        self.background_program["u_top"].value = style.background_top
        self.background_program["u_bottom"].value = style.background_bottom
        self.background = ctx.vertex_array(self.background_program, [])
        self.wire_program["u_pull"].value = WIRE_PULL
        self.bones = self._mesh(shapes.octahedral_bone(style.bone_waist))
        self.joints = self._mesh(shapes.uv_sphere())
        self.handles = self._mesh(shapes.cube())
        self.poles = self._mesh(shapes.diamond())
        self.ground_vbo, self.grid_count, self.axes_count = self._ground_lines(ctx, style)
        self.ground = self._line_array(self.ground_vbo)
        self.dash_vbo = ctx.buffer(reserve=LINE_FLOATS * 4 * 16)
        self.dashes = self._line_array(self.dash_vbo)
        self.constraint_vbo = ctx.buffer(reserve=LINE_FLOATS * 4 * 2)
        self.constraint = self._line_array(self.constraint_vbo)
        self.mesh_renderer = MeshRenderer(ctx, style)
        self.ground_renderer = GroundRenderer(ctx, style)
        self.scene_ground = None  # the ground scene the backdrop draws (``draw``'s ``ground``)
        self.solver_overlay = SolverOverlayRenderer(ctx, style)
        self.pin_markers = pin_marker_renderer(ctx, style)
        self.tracker_markers = tracker_marker_renderer(ctx, style)
        self.backdrop = self.backdrop_depth = self.backdrop_fbo = self.backdrop_colour_fbo = self.backdrop_key = None
        self.target_colour = None  # (a target's colour buffer, a framebuffer of it alone): the backdrop's copy
        self.camera_bytes = None  # the view and projection the programs hold

    def _mesh(self, mesh):
        return _InstancedMesh(self.ctx, mesh, self.solid_program, self.wire_program)

    def _line_array(self, vbo):
        return self.ctx.vertex_array(self.line_program, [(vbo, "3f 4f 1f", "in_pos", "in_color", "in_dist")])

    @staticmethod
    def _ground_lines(ctx, style):
        """Static buffer: grid lines, then the X, Z and Y axis lines. Returns (vbo, grid, axes)."""
        points, major = shapes.grid_lines(style.grid_half_extent, style.grid_spacing, style.grid_major_every)
        colours = np.where(major[:, None], style.grid_major, style.grid_minor)
        e, y = style.grid_half_extent, style.axis_y_length
        axes = np.array([(-e, 0, 0), (e, 0, 0), (0, 0, -e), (0, 0, e), (0, 0, 0), (0, y, 0)])
        axis_colours = np.repeat([style.axis_x, style.axis_z, style.axis_y], 2, axis=0)
        rows = np.c_[np.r_[points, axes], np.r_[colours, axis_colours], np.zeros(len(points) + 6)]
        return ctx.buffer(rows.astype("f4").tobytes()), len(points), len(axes)

    def draw(self, rig, world, view_state, camera, width, height, mesh=None, region=None, ground=None):
        """Clear and draw one frame of ``rig`` posed by ``world`` (N, 4, 4) bone matrices, with
        its skinned ``mesh`` (a ``rig.skinned_mesh.SkinnedMesh``) when given, standing on
        ``ground`` (a ``rig.ground_mesh.MeshGround`` is drawn; the grid's plane is the grid).

        ``camera`` is a ``render.camera.OrbitCamera``; ``width``/``height`` are the framebuffer's
        size in pixels. With a ``region`` (x, y, width, height pixels from the bottom left), only
        that part is drawn and the rest just cleared to the background's middle colour: the app
        leaves out what its panels cover, ~45% of the pixels a software renderer would shade.
        Leaves depth test and blending disabled, and the drawing sent to the GL (``_flush``).
        """
        ctx, style = self.ctx, self.style
        ctx.viewport = (0, 0, width, height)
        view, projection = camera.view_matrix(), camera.projection_matrix(width / height)
        self.scene_ground = ground
        camera_bytes = view.T.astype("f4").tobytes(), projection.T.astype("f4").tobytes()
        if camera_bytes != self.camera_bytes:  # the same all through a drag
            for program in (self.solid_program, self.wire_program, self.line_program, self.mesh_renderer.program):
                program["u_view"].write(camera_bytes[0])
                program["u_proj"].write(camera_bytes[1])
            self.camera_bytes = camera_bytes
        if ctx.fbo.samples:
            self._draw_backdrop(view_state, region, (view, projection))
        else:
            self._copy_backdrop(view_state, width, height, region, (view, projection))
        ctx.scissor = region
        # The mesh, bones and joints are opaque (alpha 1): blending them would change no pixel, but a
        # software renderer would read every one back. Lines and handles after them blend.
        ctx.enable(moderngl.DEPTH_TEST)
        ctx.disable(moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        view_start = camera.view_start(width / height)
        if mesh is not None and view_state.show_mesh:
            self.mesh_renderer.draw(mesh, world, view_start)
            if view_state.xray_bones:
                self._clear_depth()  # bones over the mesh
        skeleton = rig.skeleton
        heads, tails = heads_tails(skeleton, world)
        frames = _Frames.of(world)
        targets, poles = rig.handle_bones()
        hidden = view_state.hidden
        if view_state.show_bones:
            special = targets | poles | hidden
            regular = np.array([i for i, n in enumerate(skeleton.names) if n not in special], int)
            self._draw_bones(skeleton, world, heads, tails, regular, view_state,
                             partial(_pixel_size, view, projection, height), view_start, frames)
        ctx.enable(moderngl.BLEND)
        if view_state.show_handles:
            rest = np.r_[skeleton.rest_heads, skeleton.rest_tails]
            extent = float(np.linalg.norm(rest.max(axis=0) - rest.min(axis=0)))
            self._draw_pole_lines(rig, heads, hidden)
            for names, mesh, size, colour, selected in (
                    (targets, self.handles, style.handle_size, style.handle, style.handle_selected),
                    (poles, self.poles, style.pole_size, style.pole, style.pole_selected)):
                index = np.array(sorted(skeleton.index[n] for n in names - hidden), int)
                fills, wires = self._colours(skeleton, index, view_state, colour, selected)
                sizes = np.full(len(index), size * extent)
                fronts_only = mesh.fronts_only(view_start, frames.upright[index], heads[index],
                                               frames.stretch[index] * sizes)
                mesh.draw(world[index] @ _scale(sizes), fills, wires, fronts_only)
        if view_state.constraint_line is not None:
            self._draw_constraint_line(view_state.constraint_line)
        if view_state.solver_overlay is not None:
            self.solver_overlay.draw(view_state.solver_overlay, camera, width, height)
        self.pin_markers.draw(view_state.pins, camera, width, height)
        self.tracker_markers.draw(view_state.trackers, camera, width, height)
        ctx.disable(moderngl.DEPTH_TEST | moderngl.BLEND)
        ctx.scissor = None
        _flush()

    def _draw_backdrop(self, view_state, region, matrices):
        """Clear the framebuffer in use, then draw the background, the ground scene (camera
        ``matrices``: view, projection) and the grid within ``region`` (all of it when None).
        The depth is cleared after: bones and meshes show over the ground, as they do over the
        cached copy of the backdrop. Leaves no scissor."""
        ctx, style = self.ctx, self.style
        ctx.clear(*np.add(style.background_top, style.background_bottom) / 2.0, 1.0, depth=1.0)
        ctx.scissor = region
        ctx.disable(moderngl.DEPTH_TEST | moderngl.BLEND)
        self.background.render(moderngl.TRIANGLES, vertices=3)
        ctx.enable(moderngl.DEPTH_TEST | moderngl.BLEND)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        drawn = self.ground_renderer.draw(self.scene_ground, *matrices)
        self._draw_ground(view_state)
        if drawn:
            self._clear_depth()
        ctx.scissor = None

    def _copy_backdrop(self, view_state, width, height, region, matrices):
        """The backdrop into the single-sample framebuffer in use as a copy of a cached picture,
        redrawn only when the camera, ``region`` or the ground's toggles change (never while a
        handle is dragged): a software renderer copies it in ~0.1 ms where shading it took ~1.5
        ms at 1280x720. Only its colour is copied: the depth is cleared to the far plane, which it
        is in the backdrop too. Copying both cost this thread ~0.63 ms at 1280x720, the colour
        alone ~0.34 ms; the clear is llvmpipe's threads' work, done while this thread goes on
        (``_flush``)."""
        target = self.ctx.fbo
        key = (width, height, region, tuple(m.tobytes() for m in matrices), view_state.show_grid,
               view_state.show_axes, self.scene_ground)  # the object: an id could be reused
        if key != self.backdrop_key:
            self._size_backdrop(width, height)
            self.backdrop_fbo.use()
            self._draw_backdrop(view_state, region, matrices)  # leaves the depth at the far plane
            target.use()
            self.backdrop_key = key
        colour = self._colour_view(target)
        if colour is None:  # a framebuffer moderngl did not make: its attachments are unknown
            self.ctx.copy_framebuffer(target, self.backdrop_fbo)
            return
        self.ctx.copy_framebuffer(colour, self.backdrop_colour_fbo)
        target.use()
        self._clear_depth()

    def _colour_view(self, target):
        """A framebuffer of ``target``'s colour alone (made once per colour buffer), or None."""
        attachments = target.color_attachments
        if not attachments:
            return None
        if self.target_colour is None or self.target_colour[0] is not attachments[0]:
            if self.target_colour is not None:
                self.target_colour[1].release()
            self.target_colour = attachments[0], self.ctx.framebuffer(color_attachments=attachments[:1])
        return self.target_colour[1]

    def _size_backdrop(self, width, height):
        if self.backdrop_fbo is not None and self.backdrop_fbo.size == (width, height):
            return
        self._release_backdrop()
        self.backdrop = self.ctx.renderbuffer((width, height), components=4)
        self.backdrop_depth = self.ctx.depth_renderbuffer((width, height))
        self.backdrop_fbo = self.ctx.framebuffer(color_attachments=[self.backdrop], depth_attachment=self.backdrop_depth)
        self.backdrop_colour_fbo = self.ctx.framebuffer(color_attachments=[self.backdrop])

    def _release_backdrop(self):
        for obj in (self.backdrop_fbo, self.backdrop_colour_fbo, self.backdrop, self.backdrop_depth):
            if obj is not None:
                obj.release()
        self.backdrop = self.backdrop_depth = self.backdrop_fbo = self.backdrop_colour_fbo = self.backdrop_key = None

    def _draw_ground(self, view_state):
        """Grid and axes lie in the XZ plane: depth-tested, but never hiding bones drawn later."""
        fbo = self.ctx.fbo
        fbo.depth_mask = False
        self.line_program["u_dash"].value = 0.0
        self.line_program["u_fade_radius"].value = self.style.grid_half_extent
        if view_state.show_grid:
            self.ground.render(moderngl.LINES, vertices=self.grid_count)
        if view_state.show_axes:
            self.ground.render(moderngl.LINES, vertices=self.axes_count, first=self.grid_count)
        fbo.depth_mask = True

    def _clear_depth(self):
        """Depth back to the far plane, colours untouched: a depth-only clear, which a software
        renderer does per tile, where a full-screen pass shades every pixel. moderngl applies a
        framebuffer's colour mask when the framebuffer is bound."""
        fbo = self.ctx.fbo
        fbo.color_mask = False, False, False, False
        self.ctx.clear(depth=1.0)
        fbo.color_mask = True, True, True, True
        fbo.use()

    def _draw_bones(self, skeleton, world, heads, tails, index, view_state, pixels_per_metre, view_start, frames):
        lengths = skeleton.lengths[index]
        fills, wires = self._colours(skeleton, index, view_state, self.style.bone, self.style.bone_selected,
                                     self.style.bone_chain)
        shown = pixels_per_metre(heads[index], lengths) >= MIN_PIXELS
        drawn, lengths = index[shown], lengths[shown]
        self.bones.draw(world[drawn] @ _scale(lengths), fills[shown], wires[shown],
                        self.bones.fronts_only(view_start, frames.upright[drawn], heads[drawn],
                                               frames.stretch[drawn] * lengths))
        radii = self.style.joint_radius * np.linalg.norm(tails[index] - heads[index], axis=1)
        outermost = _outermost_joints(skeleton, index, heads, tails, radii)
        centres, radii = np.concatenate((heads[index], tails[index])), np.concatenate((radii, radii))
        shown = outermost & (pixels_per_metre(centres, radii) >= MIN_PIXELS)
        centres, radii = centres[shown], radii[shown]  # positive: a sphere is never mirrored
        self.joints.draw(_translate_scale(centres, radii), np.concatenate((fills, fills))[shown],
                         np.concatenate((wires, wires))[shown],
                         self.joints.fronts_only(view_start, np.ones(len(radii), bool), centres, radii))

    def _draw_pole_lines(self, rig, heads, hidden):
        """Dashed line from each constrained bone's head (the chain's middle joint) to its pole,
        unless either end is hidden."""
        pairs = [(rig.skeleton.index[c.bone], rig.skeleton.index[c.pole_target]) for c in rig.ik
                 if c.pole_target and not {c.bone, c.pole_target} & hidden]
        if not pairs:
            return
        starts, ends = heads[[a for a, _ in pairs]], heads[[b for _, b in pairs]]
        points, distance = shapes.dashed_segments(starts, ends)
        rows = np.empty((len(points), LINE_FLOATS), "f4")
        rows[:, :3], rows[:, 3:7], rows[:, 7] = points, self.style.pole_line, distance
        _write(self.dash_vbo, rows)
        self.line_program["u_dash"].value = self.style.dash_length
        self.line_program["u_fade_radius"].value = 0.0
        self.dashes.render(moderngl.LINES, vertices=len(points))

    def _draw_constraint_line(self, line):
        """A transform's locked axis: a solid line in that axis' colour, over everything (as
        Blender draws it), long enough to cross the view."""
        style = self.style
        colour = (style.axis_x, style.axis_y, style.axis_z)[line.axis]
        reach = style.constraint_line_length * np.asarray(line.direction, float)
        ends = np.array([line.point - reach, line.point + reach])
        _write(self.constraint_vbo, np.c_[ends, np.tile(colour, (2, 1)), np.zeros(2)])
        self.line_program["u_dash"].value = 0.0
        self.line_program["u_fade_radius"].value = 0.0
        self.ctx.disable(moderngl.DEPTH_TEST)
        self.constraint.render(moderngl.LINES, vertices=2)
        self.ctx.enable(moderngl.DEPTH_TEST)

    def _colours(self, skeleton, index, view_state, base, selected, chain=None):
        """Fill and wire colours (N, 3) each for bones ``index`` from their state: ``base``,
        ``chain`` (if given) in the active chain, ``selected`` when selected, lighter when hovered."""
        names = [skeleton.names[i] for i in index]
        fills = np.tile(np.asarray(base, float), (len(names), 1))
        wires = np.tile(np.asarray(self.style.wire, float), (len(names), 1))
        for k, name in enumerate(names):
            if chain is not None and name in view_state.active_chain:
                fills[k] = chain
            if name in view_state.selected:
                fills[k] = selected
                wires[k] = self.style.wire_selected
            if name == view_state.hovered:
                fills[k] += (1.0 - fills[k]) * self.style.hover_mix
        return fills, wires

    def release(self):
        self._release_backdrop()
        if self.target_colour is not None:
            self.target_colour[1].release()
        for mesh in (self.bones, self.joints, self.handles, self.poles, self.mesh_renderer, self.ground_renderer,
                     self.solver_overlay, self.pin_markers, self.tracker_markers):
            mesh.release()
        for obj in (self.ground, self.ground_vbo, self.dashes, self.dash_vbo, self.constraint, self.constraint_vbo,
                    self.background, self.solid_program, self.wire_program, self.line_program, self.background_program):
            obj.release()
