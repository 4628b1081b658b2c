"""A file's animation as the timeline's keys: going to a frame poses the rig as that frame (the
animated glTF humanoid), undo, automatic IK set-up on a BVH frame."""
import numpy as np
import pytest

from rig.formats.reader import open_rig
from rig.pose import heads_tails, world_matrices
from tests.golden import assert_matches_golden
from tests.ui.animated import CLIP, FRAMES, write_animated_glb
from tests.ui.conftest import SIZE, Driver, start_app
from ui.animation import Animation
from ui.timeline import go_to_frame
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


def frame_field():
    return "##current_frame"


def shown_joints(state):
    return joints(state.rig.skeleton, state.world)


@pytest.mark.parametrize("frame", [2, 1])
def test_going_to_a_frame_poses_the_rig_as_that_frame_without_an_undo_step(clip_driver, animated, frame):
    """The file's clip is the keys: a frame change is a view, as Blender's current frame is."""
    state = clip_driver.state
    start = shown_joints(state)
    assert state.animation.clip == CLIP and state.timeline.action.end == FRAMES - 1
    clip_driver.set_value(frame_field(), frame)
    clip_driver.frames(1)
    assert state.timeline.frame == frame
    np.testing.assert_allclose(shown_joints(state), sampled_joints(open_rig(animated), frame), atol=1e-4)
    assert np.abs(shown_joints(state) - start).max() > 0.1  # a real change, not the file's pose
    assert not state.history.can_undo()


def test_an_edit_at_a_frame_is_an_undo_step_and_a_frame_change_puts_the_keys_back(clip_driver, animated):
    state = clip_driver.state
    clip_driver.set_value(frame_field(), FRAMES - 1)
    clip_driver.app.editor.reset_pose()
    clip_driver.frames(1)
    expected = sampled_joints(open_rig(animated), FRAMES - 1)
    assert np.abs(shown_joints(state) - expected).max() > 0.1
    clip_driver.key("LEFT")
    clip_driver.key("RIGHT")
    np.testing.assert_allclose(shown_joints(state), expected, atol=1e-4)
    assert len(state.history.undo_stack) == 1  # the reset, reachable by Ctrl+Z


def test_screenshot_of_a_clip_frame(clip_driver):
    clip_driver.key("RIGHT", ["shift"])
    clip_driver.move(480, 560)  # off the strip: no hover highlight in the picture
    clip_driver.frames(2)
    assert clip_driver.state.timeline.frame == FRAMES - 1
    assert_matches_golden(clip_driver.app.read_rgb(), "app_clip_frame")


@NEEDS_SHARED
def test_a_wrong_choice_says_why():
    animation = open_state(BVH).animation
    with pytest.raises(ValueError, match="frames 0 to 3"):
        animation.select("motion", 4)
    with pytest.raises(ValueError, match="no animation clip 'walk'"):
        animation.select("walk", 0)


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
    go_to_frame(state, 3)
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
