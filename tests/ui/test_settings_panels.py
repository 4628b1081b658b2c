"""Every IK setting has a widget, found by its label, that keeps to the range the loaders take;
a setting the solve that ran did not honour is marked beside its widget."""
import pytest

from ui import widgets


def select_forearm(driver, tab):
    driver.click(*driver.pixel_along("forearm.L", 0.5))
    driver.click_item(tab)


@pytest.mark.parametrize("label, value, read, expected", [
    ("Soft reach", 7.0, lambda s: s.rig.ik[0].soft_reach, 0.5),
    ("Solver##constraint_solver", "dls", lambda s: s.rig.ik[0].solver, "dls"),
])
def test_constraint_settings_take_values_through_their_widgets(driver, label, value, read, expected):
    select_forearm(driver, "IK constraint")
    driver.set_value(label, value)
    assert read(driver.state) == pytest.approx(expected) if isinstance(expected, float) else read(driver.state) == expected


def test_itasc_settings_are_in_their_section(driver):
    select_forearm(driver, "IK constraint")
    x, y = widgets.find("Enabled").centre  # a point inside the Properties window
    driver.move(x, y)  # the wheel scrolls the window under the pointer
    driver.scroll(x, y, -10)  # the section sits below the fold of a 600-pixel window
    driver.click_item("iTaSC (DLS, SDLS)")
    driver.move(x, y)
    driver.scroll(x, y, -10)
    driver.set_value("Type##ik_type", "distance")
    driver.set_value("Distance", 0.3)
    driver.set_value("Limit mode", "outside")
    driver.move(x, y)
    driver.scroll(x, y, -30)
    driver.set_value("Reference axis", "target")
    driver.click_item("X", index=0)  # Lock location's X
    constraint = driver.state.rig.ik[0]
    assert (constraint.ik_type, constraint.limit_mode, constraint.reference_axis) == ("distance", "outside", "target")
    assert constraint.distance == pytest.approx(0.3, abs=1e-3) and constraint.lock_location == (True, False, False)


def test_damping_and_control_rotation(driver):
    select_forearm(driver, "Solver")
    driver.set_value("Damping", -3.0)
    assert driver.state.rig.solver.damping == 0.0
    driver.click_item("Bone IK")
    driver.set_value("Control rotation", True)
    driver.set_value("Rotation weight", 0.4)
    settings = driver.state.rig.ik_settings("forearm.L")
    assert settings.use_rotation_control and settings.rotation_weight == pytest.approx(0.4, abs=1e-3)


def test_a_setting_the_forced_solver_drops_is_marked_beside_it(driver):
    select_forearm(driver, "IK constraint")
    assert not [i for i in widgets.drawn() if i.label == "(not honoured)"]
    driver.set_value("Solver##constraint_solver", "fabrik")
    driver.click_item("Bone IK")
    driver.set_value("X", 0.5, index=1)  # Stiffness X (after Lock X): FABRIK does not weigh joints
    driver.frames(2)
    marks = [i for i in widgets.drawn() if i.label == "(not honoured)" and i.visible]
    assert len(marks) == 1
    assert [r.notes for r in driver.state.reports if r.bone == "forearm.L"] == [("stiffness: fabrik does not hold it",)]


def test_the_pose_tab_edits_the_active_bones_channels(driver):
    import numpy as np
    state = driver.state
    driver.click(*driver.pixel_of("hand_ik.L"))
    driver.click_item("Pose")
    hand = state.rig.skeleton.index["hand_ik.L"]
    before = state.world[state.rig.skeleton.index["hand.L"], :3, 3].copy()
    driver.set_value("X", 0.1, index=0)  # Location X
    assert state.pose.locations[hand][0] == pytest.approx(0.1, abs=1e-3)
    after = state.world[state.rig.skeleton.index["hand.L"], :3, 3]
    assert np.linalg.norm(after - before) > 0.05  # the arm's IK followed the handle
    driver.set_value("Z", 30.0, index=1)  # Rotation Z, degrees
    from solvers.transforms import euler_xyz_from_quat
    assert np.degrees(euler_xyz_from_quat(state.pose.rotations[hand]))[2] == pytest.approx(30.0, abs=0.1)
    driver.set_value("Y", 1e9, index=2)  # Scale Y: held to what the loaders take
    assert state.pose.scales[hand][1] == 1000.0
