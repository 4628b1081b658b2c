"""Screenshots of the interactive states against goldens: selection with the IK chain and hover,
an Auto IK drag with its chain and length overlay, and a properties tab with bone names shown."""
from pyglet.window import key

from rig.constraints import BoneIKSettings
from tests.golden import assert_matches_golden


def test_selection_chain_and_hover(driver):
    driver.click(*driver.pixel_along("shin.L", 0.5))  # its IK chain (thigh.L) lights up too
    driver.click(*driver.pixel_along("spine.02", 0.5), mods=key.MOD_SHIFT)
    driver.move(*driver.pixel_along("thigh.R", 0.5))
    assert driver.state.view.hovered == "thigh.R"
    assert_matches_golden(driver.app.read_rgb(), "ui_selection_chain")


def test_auto_ik_drag_shows_its_chain_and_length(driver):
    driver.state.auto_ik = True
    x, y = driver.pixel_along("head", 0.6)
    driver.move(x, y)
    driver.press(x, y)
    driver.drag(x + 40, y + 10)
    driver.key(key.PAGEUP, key.MOD_CTRL)
    driver.key(key.PAGEUP, key.MOD_CTRL)
    driver.key(key.PAGEUP, key.MOD_CTRL)
    assert driver.state.view.active_chain == {"head", "neck", "spine.03"}
    driver.frames(1)  # the panels drew before the frame's solve: one more frame shows its stats
    assert_matches_golden(driver.app.read_rgb(), "ui_auto_ik_chain")


def test_panels_open_with_bone_names(driver):
    driver.click(*driver.pixel_along("shin.L", 0.5))
    driver.click_item("View")
    driver.click_item("Names")
    driver.click_item("Bone IK")
    driver.move(300, 420)  # over the viewport, on no bone
    assert driver.state.view.show_names
    assert driver.state.rig.ik_settings("shin.L") == BoneIKSettings()  # the clicks changed no setting
    assert_matches_golden(driver.app.read_rgb(), "ui_panels_open")
