"""Skinned mesh drawing: goldens of the skinned humanoid at rest and posed, GPU skinning against
the CPU reference, and the mesh / bones / X-ray toggles."""
from pathlib import Path

import numpy as np
import pytest

from render.camera import OrbitCamera
from render.capture import render_image
from render.mesh_renderer import MeshRenderer, is_closed_surface
from render.shapes import cube
from render.view_state import ViewState
from rig.formats.gltf import read_gltf
from rig.pose import Pose, world_matrices
from rig.skinned_mesh import SkinnedMesh
from solvers.transforms import quat_from_axis_angle
from tests.golden import assert_matches_golden

ASSET = Path(__file__).resolve().parents[2] / "assets" / "humanoid_skinned.glb"
W, H = 640, 480


@pytest.fixture(scope="module")
def character():
    document = read_gltf(ASSET)
    camera = OrbitCamera(yaw=0.5, pitch=np.radians(12.0))
    camera.frame_points(document.mesh.positions, aspect=W / H, margin=1.1)
    return document, camera


def raised_arm_pose(skeleton):
    """Left arm lifted sideways above the shoulder, forearm bent forward."""
    pose = Pose.rest(len(skeleton))
    pose.rotations[skeleton.index["upper_arm.L"]] = quat_from_axis_angle([0, 0, 1], 1.0)
    pose.rotations[skeleton.index["forearm.L"]] = quat_from_axis_angle([1, 0, 0], -0.8)
    return pose


def render(ctx, renderer, document, camera, pose, view_state=None, mesh=None):
    world = world_matrices(document.rig.skeleton, pose)
    mesh = document.mesh if mesh is None else mesh
    view_state = ViewState() if view_state is None else view_state
    return render_image(ctx, lambda w, h: renderer.draw(document.rig, world, view_state, camera, w, h, mesh=mesh),
                        W, H)


def test_skinned_humanoid_rest(ctx, renderer, character):
    document, camera = character
    image = render(ctx, renderer, document, camera, Pose.rest(len(document.rig.skeleton)))
    assert_matches_golden(image, "humanoid_skinned_rest")


def test_skinned_humanoid_with_a_raised_arm(ctx, renderer, character):
    document, camera = character
    image = render(ctx, renderer, document, camera, raised_arm_pose(document.rig.skeleton))
    assert_matches_golden(image, "humanoid_skinned_posed")


def _mesh_mask(image):
    """Pixels of the mesh's warm grey (the background, grid and bones are neutral or coloured)."""
    rgb = image.astype(int)
    return (rgb[..., 0] - rgb[..., 2] > 8) & (rgb[..., 0] > 60) & (np.abs(rgb[..., 0] - rgb[..., 1]) < 20)


def test_gpu_skinning_matches_the_cpu_reference(ctx, renderer, character):
    """The posed mesh drawn by the GPU covers the same pixels as the same mesh skinned on the CPU
    and drawn at rest."""
    document, camera = character
    skeleton = document.rig.skeleton
    pose = raised_arm_pose(skeleton)
    mesh = document.mesh
    cpu = SkinnedMesh.for_skeleton(skeleton, mesh.skinned_positions(world_matrices(skeleton, pose)), mesh.normals,
                                   mesh.indices, mesh.joints, mesh.weights)
    hidden = ViewState(show_bones=False, show_handles=False, show_grid=False, show_axes=False)
    gpu_mask = _mesh_mask(render(ctx, renderer, document, camera, pose, hidden))
    cpu_mask = _mesh_mask(render(ctx, renderer, document, camera, Pose.rest(len(skeleton)), hidden, mesh=cpu))
    rest_mask = _mesh_mask(render(ctx, renderer, document, camera, Pose.rest(len(skeleton)), hidden))
    assert gpu_mask.sum() > 5000
    assert (gpu_mask != cpu_mask).sum() < 0.01 * gpu_mask.sum()
    assert (gpu_mask != rest_mask).sum() > 1000  # the arm really moved


def test_toggles_hide_the_mesh_or_draw_bones_over_it(ctx, renderer, character):
    document, camera = character
    pose = Pose.rest(len(document.rig.skeleton))
    both = render(ctx, renderer, document, camera, pose)
    no_mesh = render(ctx, renderer, document, camera, pose, ViewState(show_mesh=False))
    mesh_only = render(ctx, renderer, document, camera, pose, ViewState(show_bones=False, show_handles=False))
    inside = render(ctx, renderer, document, camera, pose, ViewState(xray_bones=False))
    assert _mesh_mask(no_mesh).sum() < 50 and _mesh_mask(mesh_only).sum() > 5000  # a few orange handle edges
    # X-ray: bones hide more of the mesh than when they are drawn inside it.
    assert _mesh_mask(both).sum() < _mesh_mask(inside).sum() - 2000
    assert _mesh_mask(inside).sum() <= _mesh_mask(mesh_only).sum()


def cube_surface():
    """A closed cube with every corner repeated per face, as glTF splits vertices along seams."""
    triangles = cube().triangles[:, :3]
    return triangles, np.arange(len(triangles))


def test_closed_surfaces_are_told_from_open_or_inside_out_ones(character):
    positions, indices = cube_surface()
    assert is_closed_surface(positions, indices)
    assert not is_closed_surface(positions, indices[3:])  # a hole
    assert not is_closed_surface(positions, indices[::-1])  # wound inside out
    flipped = indices.reshape(-1, 3).copy()
    flipped[0] = flipped[0, ::-1]
    assert not is_closed_surface(positions, flipped.ravel())  # one face against the others
    mesh = character[0].mesh
    assert is_closed_surface(mesh.positions, mesh.indices)


def test_back_faces_are_culled_from_outside_only(ctx, renderer, character, monkeypatch):
    """From outside the closed body only front faces can show, so culling the back ones keeps the
    picture; with the eye inside the chest the body is still drawn around it."""
    document, camera = character
    skeleton = document.rig.skeleton
    pose = raised_arm_pose(skeleton)
    world = world_matrices(skeleton, pose)
    matrices = document.mesh.skinning_matrices(world)
    hidden = ViewState(show_bones=False, show_handles=False, show_grid=False, show_axes=False)
    outside = render(ctx, renderer, document, camera, pose, hidden)
    assert renderer.mesh_renderer.only_fronts_show(matrices, camera.view_start(W / H))
    with monkeypatch.context() as patch:
        patch.setattr(renderer.mesh_renderer, "only_fronts_show", lambda *_: False)
        two_sided = render(ctx, renderer, document, camera, pose, hidden)
    assert np.count_nonzero(np.abs(outside.astype(int) - two_sided).max(axis=2) > 16) < 10

    chest = world[skeleton.index["spine.03"], :3, 3]
    inside = OrbitCamera(target=chest, distance=0.02, yaw=0.5)
    assert not renderer.mesh_renderer.only_fronts_show(matrices, inside.view_start(W / H))
    seen_from_inside = render(ctx, renderer, document, inside, pose, hidden)
    assert _mesh_mask(seen_from_inside).mean() > 0.99  # back faces culled: about 0.4
    orthographic = OrbitCamera(target=chest, distance=0.02, yaw=0.5, orthographic=True)
    assert renderer.mesh_renderer.only_fronts_show(matrices, orthographic.view_start(W / H))  # its volume starts far behind


def test_mesh_renderer_frees_its_gpu_objects(ctx, character):
    document, _ = character
    skeleton = document.rig.skeleton
    mesh_renderer = MeshRenderer(ctx)
    mesh_renderer.draw(document.mesh, world_matrices(skeleton, Pose.rest(len(skeleton))))
    other = SkinnedMesh.for_skeleton(skeleton, document.mesh.positions[:3], document.mesh.normals[:3],
                                     [0, 1, 2], document.mesh.joints[:3], document.mesh.weights[:3])
    first_vbo = mesh_renderer.vbo
    mesh_renderer.draw(other, world_matrices(skeleton, Pose.rest(len(skeleton))))  # a new mesh replaces the old
    assert mesh_renderer.vbo is not first_vbo and mesh_renderer.mesh is other
    mesh_renderer.release()
    assert mesh_renderer.vbo is None and mesh_renderer.joints is None


from tests.shared_data import BLENDER_CYLINDER, NEEDS_SHARED


@pytest.mark.parametrize("pose_name", ["bind", "file"])
@NEEDS_SHARED
def test_blender_exported_cylinder(ctx, renderer, pose_name):
    """The skinned cylinder from Blender's glTF exporter, in its bind pose and bent as its nodes
    hold it (see tests/rig/test_gltf_blender_io.py)."""
    document = read_gltf(BLENDER_CYLINDER)
    camera = OrbitCamera(yaw=1.2, pitch=np.radians(12.0))
    camera.frame_points(document.mesh.positions, aspect=W / H, margin=1.1)
    pose = Pose.rest(len(document.rig.skeleton)) if pose_name == "bind" else document.pose
    image = render(ctx, renderer, document, camera, pose)
    assert_matches_golden(image, f"blender_cylinder_{pose_name}")
