"""OrbitCamera: projection conventions, picking rays, framing and navigation."""
import numpy as np
import pytest

from render.camera import OrbitCamera

W, H = 640, 480
POINTS = np.array([[0.0, 0.0, 0.0], [0.3, 1.7, 0.1], [-0.5, 0.9, -0.2], [0.5, 1.0, 0.3], [0.1, 0.05, 0.4]])


def cameras():
    out = []
    for ortho in (False, True):
        for view in ("front", "side", "top", "three_quarter"):
            cam = OrbitCamera(target=[0.0, 0.9, 0.0], distance=3.0, orthographic=ortho, ortho_scale=2.5)
            cam.set_view(view)
            out.append(pytest.param(cam, id=f"{view}-{'ortho' if ortho else 'persp'}"))
    return out


def test_view_matrix_puts_eye_at_origin_and_target_ahead():
    cam = OrbitCamera(target=[1.0, 2.0, 3.0], distance=5.0, yaw=0.7, pitch=0.3)
    view = cam.view_matrix()
    np.testing.assert_allclose(view @ np.r_[cam.eye(), 1.0], [0, 0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(view @ np.r_[cam.target, 1.0], [0, 0, -5.0, 1], atol=1e-12)


def test_front_view_origin_is_top_left_and_character_left_is_screen_right():
    cam = OrbitCamera(target=[0.0, 1.0, 0.0], distance=4.0)
    cam.set_view("front")
    centre, left_hand, head = cam.world_to_window([[0, 1, 0], [0.5, 1, 0], [0, 1.5, 0]], W, H)
    np.testing.assert_allclose(centre, [W / 2, H / 2], atol=1e-9)
    assert left_hand[0] > W / 2 and abs(left_hand[1] - H / 2) < 1e-9  # .L side (+X) on screen right
    assert head[1] < H / 2  # higher in the world = smaller y (rows count down from the top)


def test_ndc_corner_maps_to_pixel_zero():
    cam = OrbitCamera(orthographic=True, ortho_scale=2.0)
    corner = cam.world_to_window([[-W / H, 1.0, 0.0]], W, H)[0]
    np.testing.assert_allclose(corner, [0.0, 0.0], atol=1e-9)


@pytest.mark.parametrize("cam", cameras())
def test_window_ray_passes_through_projected_point(cam):
    for point in POINTS:
        pixel = cam.world_to_window(point, W, H)[0]
        origin, direction = cam.window_ray(*pixel, W, H)
        assert np.linalg.norm(direction) == pytest.approx(1.0)
        t = np.dot(point - origin, direction)
        assert t > 0
        np.testing.assert_allclose(origin + t * direction, point, atol=1e-7)


@pytest.mark.parametrize("cam", cameras())
def test_window_ray_round_trip_from_pixels(cam):
    for x, y in [(0.5, 0.5), (320, 240), (600.25, 17.0)]:
        origin, direction = cam.window_ray(x, y, W, H)
        back = cam.world_to_window(origin + 2.0 * direction, W, H)[0]
        np.testing.assert_allclose(back, [x, y], atol=1e-6)


def test_points_behind_camera_are_nan():
    cam = OrbitCamera(distance=2.0)
    out = cam.world_to_window([[0, 0, 5.0], [0, 0, 0]], W, H)
    assert np.isnan(out[0]).all() and np.isfinite(out[1]).all()


@pytest.mark.parametrize("cam", cameras())
def test_frame_points_fits_and_centres_all_points(cam):
    cam.frame_points(POINTS, aspect=W / H, margin=1.1)
    pixels = cam.world_to_window(POINTS, W, H)
    assert (pixels >= 0).all() and (pixels[:, 0] <= W).all() and (pixels[:, 1] <= H).all()
    # snug: the farthest point from the centre reaches at least 60% of the way to an edge
    reach = np.abs(pixels - [W / 2, H / 2]) / [W / 2, H / 2]
    assert reach.max() > 0.6
    np.testing.assert_allclose((pixels.min(axis=0) + pixels.max(axis=0)) / 2, [W / 2, H / 2], atol=2.0)


@pytest.mark.parametrize("orthographic", [False, True])
def test_framing_a_segment_seen_end_on_shows_it_whole_from_outside(orthographic):
    cam = OrbitCamera(orthographic=orthographic)  # the front view looks along -Z
    ends = np.array([[0.0, 1.0, 0.2], [0.0, 1.0, -0.2]])
    cam.frame_points(ends, aspect=W / H, size=0.4)
    tan = np.tan(cam.fov_y / 2)
    if orthographic:
        assert cam.ortho_scale >= 0.4
    else:
        assert cam.eye()[2] - 0.2 >= 0.2 / tan  # a ball 0.4 across at the near end fits the view's height
    np.testing.assert_allclose(cam.world_to_window(ends, W, H), [[W / 2, H / 2]] * 2, atol=1e-6)


def test_orbit_clamps_pitch_and_turns_yaw():
    cam = OrbitCamera()
    cam.orbit(100, 10_000)
    assert cam.pitch == pytest.approx(np.pi / 2)
    assert cam.yaw == pytest.approx(-1.0)


@pytest.mark.parametrize("ortho", [False, True])
def test_pan_moves_scene_with_the_mouse(ortho):
    cam = OrbitCamera(target=[0.0, 1.0, 0.0], distance=3.0, yaw=0.4, pitch=0.2, orthographic=ortho)
    old_target = cam.target.copy()
    cam.pan(40, -25, H)
    np.testing.assert_allclose(cam.world_to_window(old_target, W, H)[0], [W / 2 + 40, H / 2 - 25], atol=1e-6)


def test_zoom_scales_distance_and_ortho_scale():
    cam = OrbitCamera(distance=4.0, ortho_scale=2.0)
    cam.zoom(2)
    assert cam.distance == pytest.approx(4.0 * 0.81) and cam.ortho_scale == pytest.approx(2.0 * 0.81)
    cam.zoom(-2)
    assert cam.distance == pytest.approx(4.0)


def test_named_views_place_the_eye():
    cam = OrbitCamera(distance=2.0)
    cam.set_view("side")
    np.testing.assert_allclose(cam.eye(), [2.0, 0, 0], atol=1e-12)
    cam.set_view("top")
    np.testing.assert_allclose(cam.eye(), [0, 2.0, 0], atol=1e-12)
    behind = cam.world_to_window([[0, 0, -1.0]], W, H)[0]
    assert behind[1] < H / 2  # looking down, -Z (the character's back) is at the top of the screen


RECT = (0.3, 0.05, 0.75, 0.9)  # left, top, right, bottom: what docked panels leave free


@pytest.mark.parametrize("cam", cameras())
def test_frame_points_into_a_rectangle_fits_and_centres_them_there(cam):
    cam.frame_points(POINTS, aspect=W / H, margin=1.1, rect=RECT)
    pixels = cam.world_to_window(POINTS, W, H)
    lo, hi = np.array(RECT[:2]) * [W, H], np.array(RECT[2:]) * [W, H]
    assert (pixels >= lo - 1e-6).all() and (pixels <= hi + 1e-6).all()
    reach = np.abs(pixels - (lo + hi) / 2) / ((hi - lo) / 2)
    assert reach.max() > 0.6
    np.testing.assert_allclose((pixels.min(axis=0) + pixels.max(axis=0)) / 2, (lo + hi) / 2, atol=2.0)
    np.testing.assert_allclose(cam.world_to_window(cam.target, W, H)[0], (lo + hi) / 2, atol=1e-6)


@pytest.mark.parametrize("cam", cameras())
def test_shifted_projection_keeps_window_ray_and_projection_inverse(cam):
    cam.frame_points(POINTS, aspect=W / H, rect=RECT)
    assert np.abs(cam.shift).min() > 0.01
    for point in POINTS:
        origin, direction = cam.window_ray(*cam.world_to_window(point, W, H)[0], W, H)
        np.testing.assert_allclose(origin + np.dot(point - origin, direction) * direction, point, atol=1e-7)
    for x, y in [(0.5, 0.5), (320, 240), (600.25, 17.0)]:
        origin, direction = cam.window_ray(x, y, W, H)
        np.testing.assert_allclose(cam.world_to_window(origin + 2.0 * direction, W, H)[0], [x, y], atol=1e-6)


def test_frame_points_without_rectangle_clears_the_shift():
    cam = OrbitCamera()
    cam.frame_points(POINTS, aspect=W / H, rect=RECT)
    cam.frame_points(POINTS, aspect=W / H)
    np.testing.assert_array_equal(cam.shift, [0.0, 0.0])


@pytest.mark.parametrize("orthographic", [False, True])
def test_the_view_clears_balls_and_boxes_only_when_it_starts_outside_them(orthographic):
    """Culling back faces is safe only for shapes wholly in front of where the view starts."""
    camera = OrbitCamera(target=np.zeros(3), distance=4.0, orthographic=orthographic)
    start, eye, back = camera.view_start(1.5), camera.eye(), camera.rotation()[:, 2]
    assert start.clears_balls([[0, 0, 0], [1, 0, 0]], [0.5, 0.5])
    assert start.clears_box([-1, -1, -1], [1, 1, 1])
    assert start.clears_balls([eye + 3.0 * back], [0.5])  # behind the eye
    if orthographic:  # its volume starts ``far`` behind the eye: around the eye is still in front
        assert start.clears_balls([eye], [0.5])
        assert not start.clears_balls([eye + camera.far * back], [0.5])
        assert not start.clears_box(eye - 1.0, eye + camera.far * 2)
    else:
        assert not start.clears_balls([eye], [0.5])
        assert not start.clears_balls([eye + [0.0, 0.0, -0.505]], [0.5])  # the near plane reaches it
        assert not start.clears_box(eye - 0.1, eye + 0.1)
        assert not start.clears_box(eye + [-1.0, -1.0, -0.5], eye + [1.0, 1.0, -camera.near / 2])
