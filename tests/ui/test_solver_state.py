"""The solver's state in the viewport, through the real window: a residual line and label for a
chain held short, rings on joints at a limit, the reach shell during a handle drag, the toggle."""
import numpy as np
import pytest

from render.scene_dump import scene_dict
from rig.constraints import BoneIKSettings
from ui.solver_state import residual_label

from .conftest import SIZE

HINGE = BoneIKSettings(lock=(False, True, True), use_limit=(True, False, False), limit_min=(0.0, -np.pi, -np.pi),
                       limit_max=(0.3, np.pi, np.pi))
"""A forearm that bends at most 0.3 rad: a handle near the shoulder holds it at that limit."""


def head(state, name):
    return state.world[state.rig.skeleton.index[name], :3, 3].copy()


def hold_hand(driver, dx, dy, release=True):
    """Drag the left hand's IK handle by (dx, dy) pixels; let go unless ``release`` is False."""
    start = driver.pixel_of("hand_ik.L")
    driver.move(*start)
    driver.press(*start)
    for k in range(1, 5):
        driver.drag(start[0] + dx * k / 4, start[1] + dy * k / 4)
    if release:
        driver.release(start[0] + dx, start[1] + dy)
        driver.frames(2)  # the still, multisampled picture


def forearm_constraint(state):
    return next(c for c in state.rig.ik if c.bone == "forearm.L")


def solver_dump(driver):
    state = driver.state
    return scene_dict(state.rig, state.world, state.camera, *SIZE, state.view.solver_overlay)["solver"]


def test_a_chain_held_short_draws_a_labelled_line_from_its_tip_to_its_target(driver):
    state = driver.state
    forearm_constraint(state).use_stretch = False
    hold_hand(driver, 40, 170)  # well beyond the arm's reach
    [residual] = solver_dump(driver)["residuals"]
    report = next(r for r in state.reports if r.bone == "forearm.L")
    forearm = state.rig.skeleton.index["forearm.L"]
    tip = head(state, "forearm.L") + state.world[forearm, :3, 1] * state.rig.skeleton.lengths[forearm]
    assert residual["bone"] == "forearm.L" and residual["error"] == report.error > 0.05
    np.testing.assert_allclose(residual["tip"], tip, atol=1e-12)
    np.testing.assert_allclose(residual["target"], head(state, "hand_ik.L"), atol=1e-12)
    assert residual["label"] == f"{report.error * 1000:.0f} mm"
    shown = driver.app.read_rgb()
    state.view.show_solver = False
    driver.frames(2)
    assert state.view.solver_overlay is None and solver_dump(driver)["residuals"] == []
    hidden = driver.app.read_rgb()
    start, end = np.array(residual["tip_px"]), np.array(residual["target_px"])
    along = start + np.linspace(0.1, 0.6, 12)[:, None] * (end - start)  # short of the handle's cube
    cols, rows = along.astype(int).T
    assert (np.abs(shown[rows, cols].astype(int) - hidden[rows, cols].astype(int)).max(axis=1) > 40).all()


def test_a_reached_target_draws_no_line(driver):
    hold_hand(driver, -40, -30)
    assert driver.state.reports and solver_dump(driver)["residuals"] == []


def test_a_joint_held_at_its_limit_gets_a_mark(driver):
    state = driver.state
    assert solver_dump(driver)["limits"] == []
    state.rig.bone_ik["forearm.L"] = HINGE
    shoulder = driver.state.camera.world_to_window(head(state, "upper_arm.L")[None], *SIZE)[0]
    hold_hand(driver, *((shoulder - driver.pixel_of("hand_ik.L")) * 0.6))
    assert "forearm.L" in next(r for r in state.reports if r.bone == "forearm.L").at_limit_bones
    [mark] = solver_dump(driver)["limits"]
    assert mark["bone"] == "forearm.L"
    np.testing.assert_allclose(mark["position"], head(state, "forearm.L"), atol=1e-12)


def test_the_reach_shell_shows_only_while_a_handle_is_dragged(driver):
    state = driver.state
    assert solver_dump(driver)["reach"] == []
    hold_hand(driver, 30, -20, release=False)
    [shell] = solver_dump(driver)["reach"]
    skeleton = state.rig.skeleton
    arm = [skeleton.index[name] for name in ("upper_arm.L", "forearm.L")]
    assert shell["bone"] == "forearm.L" and shell["radius"] == pytest.approx(skeleton.lengths[arm].sum())
    np.testing.assert_allclose(shell["centre"], head(state, "upper_arm.L"), atol=1e-12)
    end = driver.pixel_of("hand_ik.L")
    driver.release(*end)
    driver.frames(1)
    assert solver_dump(driver)["reach"] == []
    pole = driver.pixel_of("elbow_pole.L")  # a pole is no IK handle: no shell
    driver.move(*pole)
    driver.press(*pole)
    driver.drag(pole[0] + 20, pole[1])
    assert state.drag is not None and state.drag.bone == "elbow_pole.L"
    assert solver_dump(driver)["reach"] == []
    driver.release(pole[0] + 20, pole[1])


def test_an_auto_ik_drag_shows_its_chain_reach(driver):
    state = driver.state
    state.auto_ik = True
    start = driver.pixel_along("head", 0.5)
    driver.move(*start)
    driver.press(*start)
    driver.drag(start[0] + 15, start[1])
    assert state.drag is not None and state.drag.kind == "auto_ik"
    [shell] = solver_dump(driver)["reach"]
    chain = state.rig.ik_chain(state.drag.goal)
    assert shell["radius"] == pytest.approx(state.rig.skeleton.lengths[chain].sum())
    driver.release(start[0] + 15, start[1])


@pytest.mark.parametrize("metres, label", [(0.012, "12 mm"), (0.0004, "0.4 mm"), (1.254, "1.25 m"),
                                           (0.0994, "99 mm"), (0.00123, "1.2 mm")])
def test_residual_labels_are_short(metres, label):
    assert residual_label(metres) == label
