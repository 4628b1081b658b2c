"""Clicks pick Blender's way on a hand seen nearly end-on: the finger the pointer is on, though
the hand's joint sphere is nearer the camera and within the pick radius; the hand where its
sphere is drawn over the fingers."""
import numpy as np
import pytest

from render.camera import OrbitCamera
from render.style import DEFAULT_STYLE
from rig.formats.rigfile import rig_from_dict
from ui.state import AppState

from .conftest import SIZE, start_app

HAND_HEAD, HAND_TAIL = np.array([0.0, 1.0, 0.0]), np.array([0.02, 1.0, -0.1])
FINGER_SPREAD = (-0.012, 0.0, 0.012)  # metres in Y between the fingers' heads


def hand_rig():
    """A forearm, then a hand pointing away from a camera on +Z, then three short fingers from
    the hand's tail back across behind its head (as a curled hand shows them)."""
    bones = [{"name": "forearm", "parent": None, "head": [0.0, 0.75, 0.0], "tail": HAND_HEAD.tolist()},
             {"name": "hand", "parent": "forearm", "head": HAND_HEAD.tolist(), "tail": HAND_TAIL.tolist(),
              "connected": True}]
    for k, dy in enumerate(FINGER_SPREAD):
        head = HAND_TAIL + [0.0, dy, 0.0]
        bones.append({"name": f"finger.{k}", "parent": "hand", "head": head.tolist(),
                      "tail": (head + [-0.06, 0.0, 0.0]).tolist()})
    return rig_from_dict({"format": "posekit.rig", "version": 1, "name": "hand", "bones": bones})


@pytest.fixture
def hand_driver(driver):
    """The app on the hand rig, the hand's head in the middle of the window at about 3 px a
    centimetre, so the hand's whole finger span lies within a bone's pick radius of its head."""
    state = AppState.for_rig(hand_rig(), "hand.json", size=SIZE)
    state.camera = OrbitCamera(target=HAND_HEAD, distance=2.75)
    state.deterministic = True
    start_app(driver.app, state)
    driver.state = state
    return driver


def pixel(state, point):
    return state.camera.world_to_window(np.asarray(point, float)[None], *SIZE)[0]


def test_a_finger_beside_the_nearer_hand_head_is_picked(hand_driver):
    state = hand_driver.state
    on_finger = HAND_TAIL + [-0.045, FINGER_SPREAD[1], 0.0]  # three quarters along the middle finger
    x, y = pixel(state, on_finger)
    head = pixel(state, HAND_HEAD)
    hand_px = DEFAULT_STYLE.bone_waist * 0.1 * (pixel(state, HAND_HEAD + [0.1, 0.0, 0.0]) - head)[0]
    assert hand_px < np.linalg.norm([x, y] - head) < 9.0  # off the hand's shape, within its pick radius
    hand_driver.click(x, y)
    assert state.view.selected == {"finger.1"}


def test_the_hand_head_drawn_over_the_fingers_picks_the_hand(hand_driver):
    state = hand_driver.state
    hand_driver.click(*pixel(state, HAND_HEAD))
    assert state.view.selected == {"hand"}


def test_each_finger_is_picked_where_it_shows(hand_driver):
    state = hand_driver.state
    for k, dy in enumerate(FINGER_SPREAD):
        hand_driver.click(*pixel(state, HAND_TAIL + [-0.05, dy, 0.0]))
        assert state.view.selected == {f"finger.{k}"}
