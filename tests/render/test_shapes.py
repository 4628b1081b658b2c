"""Unit meshes: closed convex solids with outward unit normals and the expected outlines."""
import numpy as np
import pytest

from render import shapes


@pytest.mark.parametrize("mesh, edges", [(shapes.octahedral_bone(), 12), (shapes.cube(), 12), (shapes.diamond(), 12)])
def test_flat_solids_have_outward_normals_and_outline(mesh, edges):
    tris = mesh.triangles.reshape(-1, 3, 6)
    normals = tris[:, 0, 3:]
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, rtol=1e-6)
    centre = np.unique(tris[:, :, :3].reshape(-1, 3), axis=0).mean(axis=0)
    assert (np.einsum("ij,ij->i", normals, tris[:, :, :3].mean(axis=1) - centre) > 0).all()
    winding = np.cross(tris[:, 1, :3] - tris[:, 0, :3], tris[:, 2, :3] - tris[:, 0, :3])
    assert (np.einsum("ij,ij->i", winding, normals) > 0).all()  # counter-clockwise from outside
    assert len(mesh.edges) == 2 * edges


def test_octahedral_bone_spans_head_to_tail():
    points = shapes.octahedral_bone(0.1).triangles[:, :3]
    np.testing.assert_allclose(points.min(axis=0), [-0.1, 0.0, -0.1], atol=1e-7)
    np.testing.assert_allclose(points.max(axis=0), [0.1, 1.0, 0.1], atol=1e-7)


def test_sphere_is_unit_with_normals_equal_to_positions():
    tris = shapes.uv_sphere().triangles
    np.testing.assert_allclose(np.linalg.norm(tris[:, :3], axis=1), 1.0, atol=1e-6)
    np.testing.assert_array_equal(tris[:, :3], tris[:, 3:])


def test_grid_skips_axis_lines_and_marks_majors():
    points, major = shapes.grid_lines(1.0, 0.25, 4)
    assert len(points) == 2 * 2 * 8  # 8 lines each way (-4..4 without 0), two endpoints each
    assert not np.any(np.all(np.abs(points[:, [0]]) < 1e-9, axis=1) & np.all(np.abs(points[:, [2]]) < 1e-9, axis=1))
    np.testing.assert_array_equal(np.abs(points[major][:, [0, 2]]).max(axis=1), 1.0)


def test_dashed_segments_measure_from_each_start():
    points, distance = shapes.dashed_segments([[0, 0, 0], [1, 1, 1]], [[0, 3, 4], [1, 1, 2]])
    np.testing.assert_allclose(distance, [0, 5, 0, 1])
    np.testing.assert_allclose(points[1], [0, 3, 4])


def test_sphere_is_wound_counter_clockwise_from_outside():
    """The renderer culls the back faces of instanced shapes, so each must face outward."""
    tris = shapes.uv_sphere().triangles[:, :3].reshape(-1, 3, 3).astype(float)
    winding = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    area = np.linalg.norm(winding, axis=1)
    outward = np.einsum("ij,ij->i", winding, tris.mean(axis=1))
    assert (outward[area > 1e-9] > 0).all()
