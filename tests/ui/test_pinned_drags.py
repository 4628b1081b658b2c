"""The body follows while the pins hold: replayed drags with both feet pinned, on our humanoid
(its hand's IK handle, and Auto IK), a glTF figure and an imported BVH figure (Auto IK, no IK set
up); every frame of every drag keeps the feet within ``PIN_POSITION`` / ``PIN_ROTATION`` of their pins."""
import numpy as np
import pytest

from rig.pins import pin_where_it_is
from solvers.tolerances import PIN_POSITION, PIN_ROTATION
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED
from tests.ui.conftest import Driver

FEET = ("foot.L", "foot.R")


def pin(driver, names):
    driver.state.view.selected, driver.state.view.active = set(names), names[0]
    driver.key("P")
    assert set(driver.state.pins) == set(names) and driver.state.body_follows


def slip(state, name):
    """How far (m, rad) bone ``name`` is from its pin."""
    pin = state.pins[name]
    now = pin_where_it_is(state.world, state.rig.skeleton.index[name])
    turn = 2.0 * np.arccos(min(abs(float(np.dot(now.rotation, pin.rotation))), 1.0))
    return float(np.linalg.norm(np.subtract(now.position, pin.position))), turn


def drag_far(driver, start, offset, steps=8):
    """Press at ``start`` and drag to ``start + offset`` pixels; yields after each frame of it."""
    driver.move(*start)
    driver.press(*start)
    for k in range(1, steps + 1):
        driver.drag(start[0] + offset[0] * k / steps, start[1] + offset[1] * k / steps)
        yield
    driver.release(start[0] + offset[0], start[1] + offset[1])
    yield


def drag_there(driver, start, offset, quick, steps=4):
    """Drag from ``start`` by ``offset`` pixels; ``quick``: the last motion and the release come in
    one frame. Returns the world matrices after."""
    driver.move(*start)
    driver.press(*start)
    for k in range(1, steps):
        driver.drag(start[0] + offset[0] * k / steps, start[1] + offset[1] * k / steps)
    end = (start[0] + offset[0], start[1] + offset[1])
    if quick:
        driver.drag_and_release(*end)
    else:
        driver.drag(*end)
        driver.release(*end)
    driver.frames(1)
    return driver.state.world.copy()


@pytest.mark.parametrize("auto_ik, dragged", [(False, "hand_ik.L"), (True, "head")])
def test_a_quick_release_ends_the_drag_where_a_slow_one_does(driver, auto_ik, dragged):
    """The drag's last move is solved as part of the drag though the release comes in the same
    frame: the solve after a release knows no dragged goal (with pins, the hand no longer ahead of
    the other goals: it stopped 13 cm short in the real window; Auto IK's goal gone: the pose
    snapped back to where the drag began)."""
    pin(driver, FEET)
    driver.state.auto_ik = auto_ik
    start = driver.pixel_along(dragged, 0.6 if auto_ik else 0.0)
    slow = drag_there(driver, start, (110, -25), quick=False)
    driver.key("Z", ["ctrl"])
    quick = drag_there(driver, start, (110, -25), quick=True)
    assert driver.state.drag is None
    np.testing.assert_allclose(quick, slow, atol=1e-9)


def assert_pins_hold_through(driver, start, offset, feet):
    state = driver.state
    for _ in drag_far(driver, start, offset):
        for name in feet:
            moved, turned = slip(state, name)
            assert moved <= PIN_POSITION and turned <= PIN_ROTATION, (name, moved, turned)


def hand_error(state):
    """How far the left arm's chain ends from its IK handle (m), as its solve reported."""
    return next(r for r in state.reports if r.bone == "forearm.L").error


def test_a_hand_dragged_past_reach_pulls_the_body_along_while_the_pinned_feet_stay(driver):
    """The same drag of the hand's handle past the arm's reach three times: the arm alone (no
    pins) falls short; with the feet pinned and the whole body following, the hips move and the
    hand gets at least five times nearer; with whole body off the hips stay. The feet hold throughout."""
    state = driver.state
    start, offset = driver.pixel_of("hand_ik.L"), (100, 40)
    for _ in drag_far(driver, start, offset):
        pass
    alone = hand_error(state)
    driver.key("Z", ["ctrl"])
    pin(driver, FEET)
    pelvis = state.rig.skeleton.index["pelvis"]
    hips_before = state.world[pelvis, :3, 3].copy()
    assert_pins_hold_through(driver, start, offset, FEET)
    assert np.linalg.norm(state.world[pelvis, :3, 3] - hips_before) > 0.02
    assert hand_error(state) <= 0.2 * alone
    driver.key("Z", ["ctrl"])
    driver.click_item("Whole body")
    assert not state.body_follows
    assert_pins_hold_through(driver, start, offset, FEET)
    np.testing.assert_allclose(state.world[pelvis, :3, 3], hips_before, atol=PIN_POSITION)


@pytest.mark.parametrize("path, feet, dragged", [
    (None, FEET, "head"),
    ("assets/humanoid_skinned.glb", FEET, "forearm.R"),
    pytest.param(CMU_EXCERPT, ("LeftFoot", "RightFoot"), "LeftHand", marks=NEEDS_SHARED),
])
def test_an_auto_ik_drag_keeps_the_pinned_feet_on_any_rig(driver, path, feet, dragged):
    """Auto IK on our humanoid, a glTF figure and an imported BVH figure (no IK set up)."""
    if path is not None:
        assert driver.app.editor.load_rig(path)
        driver.frames(2)
        driver = Driver(driver.app)
    pin(driver, feet)
    driver.state.auto_ik = True
    before = driver.state.pose.copy()
    assert_pins_hold_through(driver, driver.pixel_along(dragged, 0.6), (-120, 90), feet)
    assert driver.state.pose != before  # the drag moved the figure
