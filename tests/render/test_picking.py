"""Screen-space picking: pixel distance to projected segments, nearest in depth, priorities."""
import numpy as np
import pytest

from render.camera import OrbitCamera
from render.picking import PickItems, pick, segment_hits

W, H = 800, 600


def items(starts, ends, radius=8.0, bias=None):
    starts, ends = np.asarray(starts, float), np.asarray(ends, float)
    n = len(starts)
    return PickItems(starts, ends, np.full(n, radius), np.zeros(n) if bias is None else np.asarray(bias, float))


@pytest.fixture(params=[False, True], ids=["perspective", "orthographic"])
def cam(request):
    return OrbitCamera(target=np.zeros(3), distance=4.0, orthographic=request.param, ortho_scale=3.0)


def test_distance_to_a_projected_segment_is_in_pixels(cam):
    segment = items([[-0.5, 0.0, 0.0]], [[0.5, 0.0, 0.0]])
    a, b = cam.world_to_window(np.array([[-0.5, 0, 0], [0.5, 0, 0]]), W, H)
    distance, depth = segment_hits(cam, segment, (a[0] + b[0]) / 2, a[1] + 5.0, W, H)
    assert distance[0] == pytest.approx(5.0, abs=1e-9)
    assert depth[0] == pytest.approx(4.0, abs=1e-9)
    distance, _ = segment_hits(cam, segment, b[0] + 3.0, b[1] + 4.0, W, H)  # beyond the end: to the end point
    assert distance[0] == pytest.approx(5.0, abs=1e-9)


def test_depth_is_perspective_correct_along_a_slanted_segment():
    cam = OrbitCamera(target=np.zeros(3), distance=4.0)
    segment = items([[0.0, 0.0, 1.0]], [[0.0, 0.5, -1.0]])
    middle = cam.world_to_window(np.array([[0.0, 0.25, 0.0]]), W, H)[0]
    _, depth = segment_hits(cam, segment, *middle, W, H)
    assert depth[0] == pytest.approx(4.0, abs=1e-9)


def test_nearest_in_depth_wins_over_nearest_in_pixels(cam):
    near_far = items([[0.03, 0.0, 1.0], [0.0, 0.0, -1.0]], [[0.03, 0.0, 1.0], [0.0, 0.0, -1.0]], radius=20.0)
    pixels = cam.world_to_window(np.array([[0.03, 0.0, 1.0], [0.0, 0.0, -1.0]]), W, H)
    x, y = pixels[1]
    assert 0 < np.linalg.norm(pixels[0] - pixels[1]) < 20.0
    assert pick(cam, near_far, x, y, W, H, depth_slack=0.01) == 0
    assert pick(cam, near_far, x - 25.0, y, W, H, depth_slack=0.01) is None


def test_bias_decides_among_items_at_the_same_depth(cam):
    bone_then_handle = items([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.5, 0.0], [0.0, 0.0, 0.0]],
                             radius=20.0, bias=[0.0, 3.0])
    x, y = cam.world_to_window(np.zeros((1, 3)), W, H)[0]
    assert pick(cam, bone_then_handle, x, y - 2.0, W, H, depth_slack=0.05) == 1
    assert pick(cam, bone_then_handle, x, y - 4.0, W, H, depth_slack=0.05) == 0
    top = cam.world_to_window(np.array([[0.0, 0.5, 0.0]]), W, H)[0]
    assert pick(cam, bone_then_handle, *top, W, H, depth_slack=0.05) == 0


def test_nothing_near_and_points_behind_the_camera_are_not_picked():
    cam = OrbitCamera(target=np.zeros(3), distance=4.0)
    behind = items([[0.0, 0.0, 6.0]], [[0.0, 0.0, 6.0]], radius=1e6)
    assert pick(cam, behind, W / 2, H / 2, W, H, 0.01) is None
    assert pick(cam, items(np.zeros((0, 3)), np.zeros((0, 3))), 1.0, 1.0, W, H, 0.01) is None
