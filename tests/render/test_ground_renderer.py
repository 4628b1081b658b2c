"""The ground scene in the viewport: goldens of the skinned humanoid planted on the 35° slope and on
the stairs, the grid's plane drawing nothing of its own, and the GPU copy freed."""
from pathlib import Path

import numpy as np
import pytest

from render.camera import OrbitCamera
from render.capture import render_image
from render.ground_renderer import GroundRenderer, flat_vertices
from render.view_state import ViewState
from rig.feet import find_legs
from rig.formats.ground_file import read_ground
from rig.formats.reader import open_rig
from rig.ground import PlaneGround
from rig.planting import plant
from rig.pose import Pose, heads_tails, world_matrices
from tests.golden import assert_matches_golden
from tests.rig.test_planting import PARTS, standing_over

ASSETS = Path(__file__).resolve().parents[2] / "assets"
W, H = 640, 480


@pytest.fixture(scope="module")
def scene():
    document = open_rig(ASSETS / "humanoid_skinned.glb")
    return document, read_ground(ASSETS / "ground_test.glb").ground


def planted_view(ctx, renderer, scene, name, stride=False):
    """The skinned humanoid planted on ``name``'s block, seen from its front left and a little above."""
    document, ground = scene
    rig = document.rig
    world = plant(rig, standing_over(rig, PARTS[name], stride=stride), ground, find_legs(rig)).evaluation.world
    camera = OrbitCamera(yaw=np.pi / 2 + 0.5, pitch=np.radians(10.0))
    x = PARTS[name].x
    heads, tails = heads_tails(rig.skeleton, world)
    camera.frame_points(np.r_[heads, tails, [[x, -0.1, -0.5], [x, 0.3, 0.5]]], aspect=W / H, margin=1.3)
    view = ViewState(show_handles=False)
    return render_image(ctx, lambda w, h: renderer.draw(rig, world, view, camera, w, h, mesh=document.mesh,
                                                         ground=ground), W, H)


def test_planted_on_the_35_degree_slope(ctx, renderer, scene):
    assert_matches_golden(planted_view(ctx, renderer, scene, "slope_35"), "ground_planted_slope")


def test_planted_one_foot_per_step_on_the_stairs(ctx, renderer, scene):
    assert_matches_golden(planted_view(ctx, renderer, scene, "stairs", stride=True), "ground_planted_stairs")


def test_the_grids_plane_draws_as_no_ground_and_a_mesh_ground_shows(ctx, renderer, scene):
    document, ground = scene
    rig = document.rig
    world = world_matrices(rig.skeleton, Pose.rest(len(rig.skeleton)))
    camera = OrbitCamera(yaw=0.4, pitch=np.radians(20.0))
    camera.frame_points(ground.corners.reshape(-1, 3), aspect=W / H)

    def picture(ground_drawn):
        return render_image(ctx, lambda w, h: renderer.draw(rig, world, ViewState(), camera, w, h,
                                                             ground=ground_drawn), W, H)
    bare, plane, mesh = picture(None), picture(PlaneGround()), picture(ground)
    assert np.array_equal(bare, plane)
    changed = (np.abs(mesh.astype(int) - bare.astype(int)).max(axis=2) > 16).mean()
    assert changed > 0.05  # the blocks cover ~12% of this view


def test_each_triangle_is_drawn_flat_and_its_gpu_copy_is_freed(ctx, scene):
    corners = np.array([[[0, 0, 0], [0, 0, 1], [1, 0, 0]]], dtype=float)
    rows = flat_vertices(corners)
    assert rows.shape == (3, 6) and np.allclose(rows[:, 3:], [0, 1, 0])
    renderer = GroundRenderer(ctx)
    renderer.draw(scene[1], np.eye(4), np.eye(4))
    vbo = renderer.vbo
    assert vbo is not None
    renderer.draw(PlaneGround(), np.eye(4), np.eye(4))  # the plane has no triangles: the copy goes
    assert renderer.vbo is None and renderer.ground is None
    renderer.release()
