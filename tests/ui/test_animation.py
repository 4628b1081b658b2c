"""Taking the starting pose from a frame of the file's animation: the Animation panel driven by
clicks on its widgets (the animated glTF humanoid), undo, automatic IK set-up on a BVH frame."""
import numpy as np
import pytest

from rig.formats.reader import open_rig
from rig.pose import heads_tails, world_matrices
from tests.golden import assert_matches_golden
from tests.ui.animated import CLIP, FRAMES, write_animated_glb
from tests.ui.conftest import SIZE, Driver, start_app
from ui import widgets
from ui.animation import Animation, choose_frame
from ui.auto_setup import apply_auto_setup
from ui.autosave import STATE_DIR_ENV
from ui.state import AppState
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED

BVH = CMU_EXCERPT


def joints(skeleton, world):
    heads, tails = heads_tails(skeleton, world)
    return np.vstack([heads, tails])


def sampled_joints(document, frame):
    """Joint positions of the clip's pose at frame ``frame`` sampled from the file's own clip."""
    pose = document.source.sample(CLIP, frame / 30.0)
    skeleton = document.rig.skeleton
    return joints(skeleton, world_matrices(skeleton, pose))


def open_state(path):
    state = AppState.for_document(open_rig(path), size=SIZE)
    state.deterministic = True
    return state


@pytest.fixture(scope="module")
def animated(tmp_path_factory):
    return write_animated_glb(tmp_path_factory.mktemp("clip") / "animated.glb")


@pytest.fixture
def clip_driver(posekit_window, animated, tmp_path, monkeypatch):
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    start_app(posekit_window, open_state(animated))
    return Driver(posekit_window)


def frame_slider():
    """The Frame slider's left end, right end (frames 0 and 2 lie 4 pixels inside) and middle row."""
    left, top, right, bottom = widgets.find("Frame").rect
    return left + 4, right - 4, (top + bottom) / 2


def shown_joints(state):
    return joints(state.rig.skeleton, state.world)


@pytest.mark.parametrize("frame, at", [(2, 1.0), (1, 0.5)])
def test_clicking_the_frame_slider_poses_the_rig_as_that_frame_in_one_undo_step(clip_driver, animated, frame, at):
    state = clip_driver.state
    start = shown_joints(state)
    assert state.animation.clip == CLIP and state.animation.frame_count() == FRAMES
    left, right, y = frame_slider()
    clip_driver.click(left + (right - left) * at, y)
    clip_driver.frames(1)
    assert state.animation.frame == frame
    np.testing.assert_allclose(shown_joints(state), sampled_joints(open_rig(animated), frame), atol=1e-4)
    assert np.abs(shown_joints(state) - start).max() > 0.1  # a real change, not the file's pose
    assert f"frame {frame}" in state.message
    clip_driver.key("Z", ["ctrl"])
    np.testing.assert_allclose(shown_joints(state), start, atol=1e-9)
    assert not state.history.can_undo()


def test_dragging_the_slider_through_every_frame_is_one_undo_step(clip_driver):
    state = clip_driver.state
    start = shown_joints(state)
    left, right, y = frame_slider()
    clip_driver.move(left, y)
    clip_driver.press(left, y)
    for x in np.arange(left, right + 1, 10):
        clip_driver.drag(x, y)
    clip_driver.release(right, y)
    clip_driver.frames(1)
    assert state.animation.frame == FRAMES - 1
    assert len(state.history.undo_stack) == 1
    clip_driver.key("Z", ["ctrl"])
    np.testing.assert_allclose(shown_joints(state), start, atol=1e-9)


def test_reapply_puts_the_chosen_frame_back_after_an_edit(clip_driver, animated):
    state = clip_driver.state
    clip_driver.set_value("Frame", FRAMES - 1)
    clip_driver.app.editor.reset_pose()
    clip_driver.frames(1)
    expected = sampled_joints(open_rig(animated), FRAMES - 1)
    assert np.abs(shown_joints(state) - expected).max() > 0.1
    clip_driver.click_item("Re-apply")
    clip_driver.frames(1)
    np.testing.assert_allclose(shown_joints(state), expected, atol=1e-4)


def test_screenshot_of_a_clip_frame(clip_driver):
    left, right, y = frame_slider()
    clip_driver.click(right, y)
    clip_driver.move(480, 560)  # off the slider: no hover highlight in the picture
    clip_driver.frames(2)
    assert_matches_golden(clip_driver.app.read_rgb(), "app_clip_frame")


@NEEDS_SHARED
def test_a_wrong_choice_leaves_the_pose_and_says_why():
    state = open_state(BVH)
    pose = state.pose.copy()
    assert not choose_frame(state, "motion", 4)
    assert "frames 0 to 3" in state.message and state.pose == pose
    assert not choose_frame(state, "walk", 0)
    assert "no animation clip 'walk'" in state.message and state.pose == pose


def test_a_json_rig_has_no_animation():
    assert open_state("assets/humanoid.json").animation is None


@NEEDS_SHARED
def test_a_frame_after_automatic_ik_set_up_keeps_the_frames_joints():
    """Handles added by the set-up snap onto the frame's hands and feet, so the solve leaves it."""
    state = open_state(BVH)
    frames = open_rig(BVH).clips["motion"]
    assert apply_auto_setup(state)
    count = len(frames[0].rotations)
    assert len(state.rig.skeleton) > count
    assert choose_frame(state, "motion", 3)
    state.solve_if_pending()  # what the frame does after its input
    skeleton = open_rig(BVH).rig.skeleton
    expected = joints(skeleton, world_matrices(skeleton, frames[3]))
    np.testing.assert_allclose(joints(skeleton, state.world[:count]), expected, atol=1e-4)


@NEEDS_SHARED
def test_animation_lists_only_clips_with_frames():
    document = open_rig(BVH)
    document.clips["empty"] = []
    animation = Animation.of(document)
    assert list(animation.clips) == ["motion"] and animation.frame_count() == 4


def test_the_timeline_gives_a_clips_length_in_seconds(animated):
    """A 38-frame glTF clip read "38 frames, 0.000 s": the time of the frame shown (frame 0), not
    how long the clip plays."""
    animation = Animation.of(open_rig(animated))
    assert animation.summary(CLIP, 0) == f"{FRAMES} frames, {FRAMES / 30:.3f} s; frame 0 at 0.000 s"
    animation.clips["long"], animation.frame_times["long"] = [animation.clips[CLIP][0]] * 38, 1 / 30
    assert animation.summary("long", 37) == "38 frames, 1.267 s; frame 37 at 1.233 s"
