"""RigRenderer screenshots against goldens (rest pose, fixed camera and size), plus checks that
need no golden: repeatability, toggles, and agreement between camera projection and pixels."""
from pathlib import Path

import numpy as np
import pytest

from tests.golden import assert_matches_golden
from render.camera import OrbitCamera
from render.capture import render_image, save_png
from render import rig_renderer
from render.view_state import ViewState
from rig.pose import Pose, world_matrices
from rig.formats.rigfile import load_rig
from tests.render.kept_state import assert_kept_state_is_fresh

ASSETS = Path(__file__).resolve().parents[2] / "assets"
W, H = 640, 480


def rest_scene(rig_name, yaw, pitch, margin=1.2):
    """Rig, its rest-pose world matrices and a camera framing its rest bones."""
    rig = load_rig(ASSETS / f"{rig_name}.json")
    skeleton = rig.skeleton
    camera = OrbitCamera(yaw=yaw, pitch=pitch)
    camera.frame_points(np.r_[skeleton.rest_heads, skeleton.rest_tails], aspect=W / H, margin=margin)
    return rig, world_matrices(skeleton, Pose.rest(len(skeleton))), camera


def render(ctx, renderer, rig, world, camera, view_state):
    return render_image(ctx, lambda w, h: renderer.draw(rig, world, view_state, camera, w, h), W, H)


def test_humanoid_front(ctx, renderer):
    rig, world, camera = rest_scene("humanoid", 0.0, 0.0)
    assert_matches_golden(render(ctx, renderer, rig, world, camera, ViewState()), "humanoid_front")


def test_humanoid_three_quarter_with_selection(ctx, renderer):
    """Left hand handle selected while its arm chain is active, head selected, right thigh hovered."""
    rig, world, camera = rest_scene("humanoid", np.pi / 4, np.radians(20.0))
    arm = next(c for c in rig.ik if c.target == "hand_ik.L")
    view_state = ViewState(selected={"hand_ik.L", "head"}, hovered="thigh.R",
                           active_chain={rig.skeleton.names[i] for i in rig.ik_chain(arm)})
    assert_matches_golden(render(ctx, renderer, rig, world, camera, view_state), "humanoid_three_quarter")


def test_robot_arm(ctx, renderer):
    rig, world, camera = rest_scene("robot_arm", 1.1, np.radians(20.0), margin=1.4)  # close up: big joints
    assert_matches_golden(render(ctx, renderer, rig, world, camera, ViewState()), "robot_arm")


def test_rendering_twice_gives_identical_png_bytes(ctx, renderer, tmp_path):
    rig, world, camera = rest_scene("humanoid", np.pi / 4, np.radians(20.0))
    paths = [tmp_path / "first.png", tmp_path / "second.png"]
    for path in paths:
        save_png(render(ctx, renderer, rig, world, camera, ViewState(selected={"head"})), path)
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_everything_hidden_leaves_only_the_background_gradient(ctx, renderer):
    rig, world, camera = rest_scene("humanoid", 0.3, 0.3)
    hidden = ViewState(show_bones=False, show_handles=False, show_grid=False, show_axes=False)
    image = render(ctx, renderer, rig, world, camera, hidden).astype(int)
    assert (image == image[:, :1]).all()  # every row is one colour
    assert image[0, 0].sum() > image[-1, 0].sum()  # lighter at the top


def test_hidden_bones_are_not_drawn(ctx, renderer):
    """Hiding every bone draws what turning bones and handles off draws; hiding one takes only it away."""
    rig, world, camera = rest_scene("humanoid", 0.3, 0.3)
    names = set(rig.skeleton.names)
    off = render(ctx, renderer, rig, world, camera, ViewState(show_bones=False, show_handles=False))
    np.testing.assert_array_equal(render(ctx, renderer, rig, world, camera, ViewState(hidden=names)), off)
    shown, one_hidden = (render(ctx, renderer, rig, world, camera, ViewState(hidden=hidden)).astype(int)
                         for hidden in (set(), {"head"}))
    i = rig.skeleton.index["head"]
    x, y = camera.world_to_window(world[i, :3, 3] + world[i, :3, 1] * rig.skeleton.lengths[i] * 0.5, W, H)[0]
    patch = (slice(int(y) - 2, int(y) + 3), slice(int(x) - 2, int(x) + 3))
    assert np.abs(shown[patch] - off[patch]).max() > 40 and np.abs(one_hidden[patch] - off[patch]).max() <= 4
    assert np.abs(one_hidden - shown).max(axis=2).astype(bool).mean() < 0.01  # the rest is drawn as before


@pytest.mark.parametrize("orthographic", [False, True])
def test_bones_appear_where_the_camera_projects_them(ctx, renderer, orthographic):
    rig, world, camera = rest_scene("humanoid", 0.0, 0.0)
    camera.orthographic = orthographic
    camera.frame_points(np.r_[rig.skeleton.rest_heads, rig.skeleton.rest_tails], aspect=W / H)
    hidden_ground = ViewState(show_grid=False, show_axes=False, show_handles=False)
    image = render(ctx, renderer, rig, world, camera, hidden_ground).astype(int)
    background = image[:, 0]  # the left column is empty: background colour of each row
    skeleton = rig.skeleton
    for name in ("head", "thigh.L", "shin.R", "upper_arm.R"):
        i = skeleton.index[name]
        middle = world[i][:3, 3] + world[i][:3, 1] * skeleton.lengths[i] * 0.3
        x, y = camera.world_to_window(middle, W, H)[0].astype(int)
        patch = image[y - 2:y + 3, x - 2:x + 3]  # 5x5: the centre pixel may lie on a dark outline
        assert (np.abs(patch - background[y]).max(axis=2) > 40).sum() >= 8, f"{name} not drawn at ({x}, {y})"


def test_bone_y_scale_stretches_the_drawn_bone(ctx, renderer):
    """The octahedron follows the world matrix, pose scale included: a head bone scaled 1.6x
    along Y reaches pixels above the rest pose's skull."""
    rig, _, camera = rest_scene("humanoid", 0.0, 0.0, margin=1.5)
    skeleton = rig.skeleton
    pose = Pose.rest(len(skeleton))
    head = skeleton.index["head"]
    pose.scales[head] = [1.0, 1.6, 1.0]
    above = skeleton.rest_heads[head] + [0.0, 1.3 * skeleton.lengths[head], 0.0]
    x, y = camera.world_to_window(above, W, H)[0].astype(int)
    view_state = ViewState(show_grid=False, show_axes=False)
    pictures = [render(ctx, renderer, rig, world_matrices(skeleton, p), camera, view_state).astype(int)
                for p in (Pose.rest(len(skeleton)), pose)]
    rest_patch, scaled_patch = (p[y - 1:y + 2, x - 1:x + 2] for p in pictures)
    background = pictures[0][y, 0]
    assert np.abs(rest_patch - background).max() <= 4
    assert np.abs(scaled_patch - background).max() > 40


def test_shapes_stay_solid_when_mirrored_or_seen_from_inside(ctx, renderer):
    """Back faces are culled only where they cannot show: a mirrored bone (faces turned inside
    out) is still filled, and an eye inside a handle sees the handle's colour all around."""
    rig, world, camera = rest_scene("humanoid", 0.0, 0.0, margin=1.5)
    skeleton = rig.skeleton
    head = skeleton.index["head"]
    view_state = ViewState(show_grid=False, show_axes=False)
    mirrored = world.copy()
    mirrored[head, :3, 0] *= -1.0  # the bone's shape is symmetric across its X: the same picture
    plain, flipped = (render(ctx, renderer, rig, matrices, camera, view_state).astype(int)
                      for matrices in (world, mirrored))
    assert np.count_nonzero(np.abs(plain - flipped).max(axis=2) > 16) < 20

    hand = skeleton.index["hand_ik.L"]
    inside = OrbitCamera(target=world[hand, :3, 3], distance=0.005)
    image = render(ctx, renderer, rig, world, inside, ViewState(show_grid=False, show_axes=False, show_bones=False))
    orange = (image[..., 0].astype(int) - image[..., 2] > 80).mean()
    assert orange > 0.9


def test_a_region_is_drawn_as_the_whole_picture_and_the_rest_only_cleared(ctx, renderer):
    """The window draws only the part no panel covers: there the picture is the full one; the
    rest holds the background's middle colour (the panels paint over it)."""
    rig, world, camera = rest_scene("humanoid", 0.3, 0.3)
    view_state = ViewState()
    full = render(ctx, renderer, rig, world, camera, view_state)
    x, y, w, h = 40, 100, 400, 300  # from the bottom left
    scissors = []

    def draw(width, height):
        renderer.draw(rig, world, view_state, camera, width, height, region=(x, y, w, h))
        scissors.append(tuple(ctx.scissor))

    part = render_image(ctx, draw, W, H)
    assert scissors == [(0, 0, W, H)]  # what follows may draw anywhere
    rows = slice(H - y - h, H - y)
    np.testing.assert_array_equal(part[rows, x:x + w], full[rows, x:x + w])
    middle = np.round(np.add(renderer.style.background_top, renderer.style.background_bottom) / 2 * 255)
    outside = np.ones((H, W), bool)
    outside[H - y - h - 1:H - y + 1, x - 1:x + w + 1] = False  # llvmpipe's multisampled scissor blurs a 1 px ring
    assert np.abs(part[outside].astype(int) - middle).max() <= 1


def test_the_cached_backdrop_follows_the_camera_and_the_ground_toggles(ctx, renderer):
    """Single-sample frames copy the background and ground from a cache: whatever changed since,
    each frame is the one a renderer with no cache draws."""
    rig, world, camera = rest_scene("humanoid", 0.3, 0.3)
    skeleton = rig.skeleton
    pose = Pose.rest(len(skeleton))
    pose.rotations[skeleton.index["upper_arm.L"]] = [0.0, 0.0, 0.38268343, 0.92387953]
    turned = OrbitCamera(target=camera.target, distance=camera.distance, yaw=0.8, pitch=0.2)
    frames = [(world, camera, ViewState()), (world_matrices(skeleton, pose), camera, ViewState()),
              (world, turned, ViewState()), (world, turned, ViewState(show_grid=False)),
              (world, turned, ViewState(show_axes=False))]

    def picture(rig_renderer, matrices, view, view_state):
        return render_image(ctx, lambda w, h: rig_renderer.draw(rig, matrices, view_state, view, w, h), W, H, samples=0)

    assert_kept_state_is_fresh(ctx, renderer, picture, frames)


def joint_counts_and_pictures(ctx, renderer, monkeypatch, rig_name, view_state):
    """(spheres drawn, picture) with hidden joints left out, then with every joint drawn."""
    rig, world, camera = rest_scene(rig_name, np.pi / 4, np.radians(20.0))
    counts = []
    draw = renderer.joints.draw
    monkeypatch.setattr(renderer.joints, "draw", lambda models, *rest: (counts.append(len(models)), draw(models, *rest)))
    fewer = render(ctx, renderer, rig, world, camera, view_state(rig.skeleton.names))
    monkeypatch.setattr(rig_renderer, "_outermost_joints", lambda skeleton, index, *_: np.ones(2 * len(index), bool))
    every = render(ctx, renderer, rig, world, camera, view_state(rig.skeleton.names))
    return counts, fewer, every


def test_joint_spheres_inside_larger_ones_are_left_out_unseen(ctx, renderer, monkeypatch):
    """Where a bone's head sits on its parent's tail only the larger of the two spheres is drawn:
    fewer spheres reach the rasteriser, and the picture is the same although the bones on either
    side of each joint have different colours."""
    counts, fewer, every = joint_counts_and_pictures(
        ctx, renderer, monkeypatch, "robot_arm", lambda names: ViewState(selected={names[0], names[2]}, hovered=names[1]))
    assert counts[0] < counts[1]
    np.testing.assert_array_equal(fewer, every)


def test_equal_joint_spheres_keep_the_first_drawn(ctx, renderer, monkeypatch):
    """Equal spheres at one joint (the humanoid's spine bones are equally long) z-fought: the one
    left is the first drawn, which the depth test showed; in one colour the pictures agree."""
    counts, fewer, every = joint_counts_and_pictures(ctx, renderer, monkeypatch, "humanoid", lambda names: ViewState())
    assert counts[0] < counts[1]
    difference = np.abs(fewer.astype(int) - every.astype(int)).max(axis=2)
    assert difference.max() <= 2 and np.count_nonzero(difference) <= 10
