"""The solver's state over the scene: residual lines, limit rings and reach shells drawn where
their records say, over everything, and nothing without a record."""
import numpy as np
import pytest

from render.camera import OrbitCamera
from render.capture import render_image
from render.solver_overlay import LimitMark, ReachShell, ResidualLine, SolverOverlay, sphere_outline
from render.view_state import ViewState
from rig.formats.rigfile import load_rig
from rig.pose import Pose, world_matrices
from tests.render.kept_state import assert_kept_state_is_fresh

W, H = 640, 480


def rest_scene():
    """The humanoid at rest, framed from the front."""
    rig = load_rig("assets/humanoid.json")
    camera = OrbitCamera()
    camera.frame_points(np.r_[rig.skeleton.rest_heads, rig.skeleton.rest_tails], aspect=W / H)
    return rig, world_matrices(rig.skeleton, Pose.rest(len(rig.skeleton))), camera


def render(ctx, renderer, rig, world, camera, view_state):
    return render_image(ctx, lambda w, h: renderer.draw(rig, world, view_state, camera, w, h), W, H)


def differs(a, b, pixels):
    """Whether pictures ``a`` and ``b`` differ at any of the window ``pixels`` (N, 2)."""
    cols, rows = np.clip(np.round(pixels - 0.5).astype(int).T, 0, [[W - 1], [H - 1]])
    return np.abs(a[rows, cols].astype(int) - b[rows, cols].astype(int)).max(axis=1) > 40


def test_a_residual_line_is_drawn_from_tip_to_target_over_the_bones(ctx, renderer):
    rig, world, camera = rest_scene()
    tip, target = np.array([0.6, 1.0, 0.0]), np.array([0.9, 1.6, 0.0])
    line = SolverOverlay(residuals=(ResidualLine("forearm.L", tip, target, 0.67, "670 mm"),))
    plain = render(ctx, renderer, rig, world, camera, ViewState())
    drawn = render(ctx, renderer, rig, world, camera, ViewState(solver_overlay=line))
    ends = camera.world_to_window(np.array([tip, target]), W, H)
    along = ends[0] + np.linspace(0.05, 0.95, 20)[:, None] * (ends[1] - ends[0])
    assert differs(drawn, plain, along).all()
    away = along + np.array([0.0, 25.0])
    assert not differs(drawn, plain, away).any()
    np.testing.assert_array_equal(render(ctx, renderer, rig, world, camera, ViewState(solver_overlay=SolverOverlay())),
                                  plain)


def test_a_limit_ring_circles_the_joint(ctx, renderer):
    rig, world, camera = rest_scene()
    head = world[rig.skeleton.index["forearm.L"], :3, 3]
    ring = SolverOverlay(limits=(LimitMark("forearm.L", head, 0.02),))
    plain = render(ctx, renderer, rig, world, camera, ViewState())
    drawn = render(ctx, renderer, rig, world, camera, ViewState(solver_overlay=ring))
    centre = camera.world_to_window(head[None], W, H)[0]
    changed = np.argwhere(np.abs(drawn.astype(int) - plain.astype(int)).max(axis=2) > 40)[:, ::-1] + 0.5
    distance = np.linalg.norm(changed - centre, axis=1)
    assert len(changed) > 20 and distance.max() < 20.0 and distance.min() > 3.0  # a ring, not a dot


def test_a_reach_shell_outlines_the_sphere_it_stands_for(ctx, renderer):
    rig, world, camera = rest_scene()
    centre = world[rig.skeleton.index["upper_arm.L"], :3, 3]
    shell = SolverOverlay(reach=(ReachShell("forearm.L", centre, 0.5),))
    plain = render(ctx, renderer, rig, world, camera, ViewState(show_grid=False, show_axes=False))
    drawn = render(ctx, renderer, rig, world, camera, ViewState(show_grid=False, show_axes=False, solver_overlay=shell))
    outline = camera.world_to_window(sphere_outline(camera, centre, 0.5), W, H)
    inside = outline[np.all((outline > 2) & (outline < [W - 2, H - 2]), axis=1)]
    assert len(inside) > 10 and differs(drawn, plain, inside).mean() > 0.8


@pytest.mark.parametrize("orthographic", [False, True])
def test_the_sphere_outline_is_where_view_rays_graze_the_sphere(orthographic):
    camera = OrbitCamera(target=np.zeros(3), distance=3.0, yaw=0.4, pitch=0.3, orthographic=orthographic)
    centre, radius = np.array([0.3, -0.2, 0.1]), 0.8
    for point in sphere_outline(camera, centre, radius):
        origin, direction = camera.window_ray(*camera.world_to_window(point[None], W, H)[0], W, H)
        offset = centre - origin
        grazing = np.linalg.norm(offset - direction * (offset @ direction))
        assert grazing == pytest.approx(radius, abs=1e-6)
    inside = OrbitCamera(target=np.zeros(3), distance=0.5)
    assert sphere_outline(inside, np.zeros(3), 1.0) is None


def test_the_kept_reach_shell_follows_the_shell_and_the_camera(ctx, renderer):
    """The reach shell's outline is kept while nothing it depends on changes: after a shell or a
    camera change, each picture is the one a renderer that never drew a shell draws."""
    rig, world, camera = rest_scene()
    head = world[rig.skeleton.index["upper_arm.L"], :3, 3]
    turned = OrbitCamera(target=camera.target, distance=camera.distance, yaw=0.7, pitch=0.3)
    scenes = [(camera, head, 0.5), (camera, head + [0.05, 0.0, 0.0], 0.5), (camera, head, 0.4), (turned, head, 0.4)]

    def picture(rig_renderer, view, centre, radius):
        shell = SolverOverlay(reach=(ReachShell("forearm.L", centre, radius),))
        return render(ctx, rig_renderer, rig, world, view, ViewState(solver_overlay=shell))

    assert_kept_state_is_fresh(ctx, renderer, picture, scenes)
