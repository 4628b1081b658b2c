"""Screen-space picking: pixel distance to projected segments and drawn shapes, near-ties to the
nearer and smaller, priorities."""
import numpy as np
import pytest

from render.camera import OrbitCamera
from render.picking import PickItems, item_hits, pick, segment_hits

W, H = 800, 600


def items(starts, ends, radius=8.0, bias=None, start_radius=0.0, end_radius=0.0, size=None):
    starts, ends = np.asarray(starts, float), np.asarray(ends, float)
    n = len(starts)
    length = np.linalg.norm(ends - starts, axis=1)
    return PickItems(starts, ends, np.full(n, radius), np.zeros(n) if bias is None else np.asarray(bias, float),
                     np.broadcast_to(np.asarray(start_radius, float), n), np.broadcast_to(np.asarray(end_radius, float), n),
                     length if size is None else np.asarray(size, float))


@pytest.fixture(params=[False, True], ids=["perspective", "orthographic"])
def cam(request):
    return OrbitCamera(target=np.zeros(3), distance=4.0, orthographic=request.param, ortho_scale=3.0)


def test_distance_to_a_projected_segment_is_in_pixels(cam):
    segment = items([[-0.5, 0.0, 0.0]], [[0.5, 0.0, 0.0]])
    a, b = cam.world_to_window(np.array([[-0.5, 0, 0], [0.5, 0, 0]]), W, H)
    distance, depth, _ = segment_hits(cam, segment, (a[0] + b[0]) / 2, a[1] + 5.0, W, H)
    assert distance[0] == pytest.approx(5.0, abs=1e-9)
    assert depth[0] == pytest.approx(4.0, abs=1e-9)
    distance, _, _ = segment_hits(cam, segment, b[0] + 3.0, b[1] + 4.0, W, H)  # beyond the end: to the end point
    assert distance[0] == pytest.approx(5.0, abs=1e-9)


def test_depth_is_perspective_correct_along_a_slanted_segment():
    cam = OrbitCamera(target=np.zeros(3), distance=4.0)
    segment = items([[0.0, 0.0, 1.0]], [[0.0, 0.5, -1.0]])
    middle = cam.world_to_window(np.array([[0.0, 0.25, 0.0]]), W, H)[0]
    _, depth, _ = segment_hits(cam, segment, *middle, W, H)
    assert depth[0] == pytest.approx(4.0, abs=1e-9)


def test_the_shape_nearest_on_screen_wins_and_depth_breaks_ties(cam):
    near_far = items([[0.03, 0.0, 1.0], [0.0, 0.0, -1.0]], [[0.03, 0.0, 1.0], [0.0, 0.0, -1.0]], radius=20.0)
    pixels = cam.world_to_window(np.array([[0.03, 0.0, 1.0], [0.0, 0.0, -1.0]]), W, H)
    assert 3.0 < np.linalg.norm(pixels[0] - pixels[1]) < 20.0
    assert pick(cam, near_far, *pixels[1], W, H, depth_slack=0.01) == 1  # on the far one, off the near one
    assert pick(cam, near_far, *pixels[0], W, H, depth_slack=0.01) == 0
    middle = (pixels[0] + pixels[1]) / 2.0
    assert pick(cam, near_far, *middle, W, H, depth_slack=0.01) == 0  # as near on screen: the nearer in depth
    assert pick(cam, near_far, middle[0], middle[1] - 25.0, W, H, depth_slack=0.01) is None


def test_distance_to_the_drawn_shape_takes_its_width_off(cam):
    bone = items([[0.0, 0.0, 0.0]], [[1.0, 0.0, 0.0]], start_radius=0.1, end_radius=0.05)
    a, b = cam.world_to_window(np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]), W, H)
    per_metre = np.linalg.norm(b - a)  # the segment lies across the view at the target's depth
    for fraction, half_width in ((0.0, 0.1), (0.5, 0.075), (1.0, 0.05)):
        x = a[0] + fraction * (b[0] - a[0])
        found = item_hits(cam, bone, x, a[1] - 30.0, W, H)
        assert found.distance[0] == pytest.approx(30.0, abs=1e-6)
        assert found.shape[0] == pytest.approx(30.0 - half_width * per_metre, abs=1e-6)
    inside = item_hits(cam, bone, a[0] + 0.5 * (b[0] - a[0]), a[1] - 0.05 * per_metre, W, H)
    assert inside.shape[0] == 0.0


def test_inside_a_big_shape_beyond_the_pick_radius_is_a_hit(cam):
    ball = items([[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]], radius=5.0, start_radius=0.3, end_radius=0.3)
    x, y = cam.world_to_window(np.zeros((1, 3)), W, H)[0]
    assert pick(cam, ball, x + 20.0, y, W, H, depth_slack=0.01) == 0


def test_a_near_tie_goes_to_the_smaller_item(cam):
    """A finger starting inside the hand's tail sphere: the pointer on both shapes picks the finger."""
    hand_finger = items([[-0.4, 0.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.1, 0.0, 0.0]],
                        start_radius=[0.04, 0.01], end_radius=[0.03, 0.007])
    x, y = cam.world_to_window(np.array([[0.02, 0.0, 0.0]]), W, H)[0]
    found = item_hits(cam, hand_finger, x, y, W, H)
    assert (found.shape == 0.0).all()
    assert pick(cam, hand_finger, x, y, W, H, depth_slack=0.05) == 1
def test_bias_decides_among_items_at_the_same_depth(cam):
    bone_then_handle = items([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.5, 0.0], [0.0, 0.0, 0.0]],
                             radius=20.0, bias=[0.0, 3.0])
    x, y = cam.world_to_window(np.zeros((1, 3)), W, H)[0]
    assert pick(cam, bone_then_handle, x, y - 2.0, W, H, depth_slack=0.05) == 1
    assert pick(cam, bone_then_handle, x, y - 3.5, W, H, depth_slack=0.05) == 1  # a near-tie: the smaller
    assert pick(cam, bone_then_handle, x, y - 5.0, W, H, depth_slack=0.05) == 0
    top = cam.world_to_window(np.array([[0.0, 0.5, 0.0]]), W, H)[0]
    assert pick(cam, bone_then_handle, *top, W, H, depth_slack=0.05) == 0


def test_nothing_near_and_points_behind_the_camera_are_not_picked():
    cam = OrbitCamera(target=np.zeros(3), distance=4.0)
    behind = items([[0.0, 0.0, 6.0]], [[0.0, 0.0, 6.0]], radius=1e6)
    assert pick(cam, behind, W / 2, H / 2, W, H, 0.01) is None
    assert pick(cam, items(np.zeros((0, 3)), np.zeros((0, 3))), 1.0, 1.0, W, H, 0.01) is None
