"""The docked layout: the viewport is the dock space's central node and no panel covers it; resizing
the window keeps the panels docked at their sizes and grows the viewport; the properties' tabs;
Window > Reset Layout; errors in the status bar and as a toast; the layout kept between runs."""
import os

import numpy as np
import pytest
from imgui_bundle import imgui

from tests.ui.conftest import SIZE, Driver, humanoid_state, resize, start_app
from ui import widgets
from ui.autosave import STATE_DIR_ENV
from ui.layout import OUTLINER, PROPERTIES, TIMELINE, central_rect, layout_path
from ui.state import DEFAULT_INSETS
from ui.window import PosekitWindow

DOCKED = (OUTLINER, PROPERTIES, TIMELINE)
BARS = ("##MainMenuBar", "##status_bar")


def window_rect(name):
    window = imgui.internal.find_window_by_name(name)
    return window.pos.x, window.pos.y, window.pos.x + window.size.x, window.pos.y + window.size.y


def overlap(a, b):
    """The area two (left, top, right, bottom) rectangles share."""
    return max(min(a[2], b[2]) - max(a[0], b[0]), 0.0) * max(min(a[3], b[3]) - max(a[1], b[1]), 0.0)


def docked(driver, name):
    """Whether window ``name`` is docked in the app's dock space."""
    node = imgui.internal.find_window_by_name(name).dock_node
    return node is not None and imgui.internal.dock_node_get_root_node(node).id_ == driver.app.layout.dockspace_id


def free(driver):
    return driver.state.free_pixels(*driver.app.window.get_size())


def drag_splitter(driver, dx):
    """Drag the splitter between the viewport and the right column ``dx`` pixels."""
    x, y = free(driver)[2] + 1.0, 300.0
    driver.move(x, y)
    driver.press(x, y)
    driver.drag(x + dx, y)
    driver.release(x + dx, y)


def test_the_viewport_is_the_central_node_and_no_panel_covers_it(driver):
    viewport = free(driver)
    assert viewport == central_rect(driver.app.layout.dockspace_id)
    for name in DOCKED + BARS:
        assert overlap(window_rect(name), viewport) == 0.0, name
    covered = sum((r[2] - r[0]) * (r[3] - r[1]) for r in map(window_rect, DOCKED + BARS))
    splitters = SIZE[0] * SIZE[1] - covered - (viewport[2] - viewport[0]) * (viewport[3] - viewport[1])
    assert 0.0 <= splitters < 3.0 * (SIZE[0] + SIZE[1])  # the panels and the viewport fill the window


def test_resizing_keeps_the_panels_docked_and_grows_the_viewport(driver, restore_size):
    before = {name: window_rect(name) for name in DOCKED}
    viewport = free(driver)
    resize(driver.app, SIZE[0] + 320, SIZE[1] + 120)
    driver.frames(2)
    grown = free(driver)
    assert grown == central_rect(driver.app.layout.dockspace_id)
    assert (grown[2] - grown[0], grown[3] - grown[1]) == (viewport[2] - viewport[0] + 320, viewport[3] - viewport[1] + 120)
    for name in DOCKED:
        assert docked(driver, name)
        assert overlap(window_rect(name), grown) == 0.0, name
    after = {name: window_rect(name) for name in DOCKED}
    assert after[PROPERTIES][2] - after[PROPERTIES][0] == before[PROPERTIES][2] - before[PROPERTIES][0]
    assert after[TIMELINE][3] - after[TIMELINE][1] == before[TIMELINE][3] - before[TIMELINE][1]
    assert after[TIMELINE][2] - after[TIMELINE][0] == before[TIMELINE][2] - before[TIMELINE][0] + 320
    centre = driver.state.camera.world_to_window(driver.state.camera.target[None], *driver.app.window.get_size())[0]
    np.testing.assert_allclose(centre, ((grown[0] + grown[2]) / 2, (grown[1] + grown[3]) / 2), atol=1e-6)


TABS = {"Pose": {"Active bone"}, "IK constraint": {"Pole angle", "Influence"}, "Bone IK": {"IK stretch"},
        "Copy rotation": {"Axes"}, "Solver": {"Solver##solver_type", "Chains"}, "View": {"Front", "Names"}}
WIDGETS = {"Pole angle", "IK stretch", "Solver##solver_type", "Chains", "Front", "Names"}


@pytest.mark.parametrize("tab", [tab for tab in TABS if tab != "Pose"])
def test_each_tab_is_found_by_its_label_and_shows_its_widgets(driver, tab):
    driver.click(*driver.pixel_along("shin.L", 0.5))  # an active bone with an IK constraint
    assert {item.label for item in widgets.drawn() if item.kind == "tab_item"} == set(TABS)
    driver.click_item(tab)
    shown = {item.label for item in widgets.drawn()}
    assert shown & WIDGETS == TABS[tab] & WIDGETS  # its own widgets, no other tab's
    assert overlap(widgets.find(tab).rect, free(driver)) == 0.0


def test_reset_layout_restores_the_default(driver):
    drag_splitter(driver, -80)
    assert driver.state.view_insets[2] == DEFAULT_INSETS[2] + 80
    driver.click_item("Window")
    driver.click_item("Reset Layout")
    driver.frames(1)
    assert driver.state.view_insets == DEFAULT_INSETS
    assert all(docked(driver, name) for name in DOCKED)


def red_pixels(image, rect):
    left, top, right, bottom = (int(v) for v in rect)
    patch = image[top:bottom, left:right].astype(int)
    return int(((patch[..., 0] > 200) & (patch[..., 1] < 150) & (patch[..., 2] < 150)).sum())


def test_an_error_shows_in_the_status_bar_and_as_a_toast_until_dismissed(driver, tmp_path):
    status = window_rect("##status_bar")
    assert red_pixels(driver.app.read_rgb(), status) == 0
    assert not driver.app.editor.write_pose(str(tmp_path / "missing" / "pose.json"))  # no such folder
    driver.frames(2)  # the toast sizes itself a frame after it appears
    assert driver.state.error.startswith("Cannot save") and driver.state.message == driver.state.error
    assert red_pixels(driver.app.read_rgb(), status) > 20
    toast = window_rect("##error_toast")
    assert overlap(toast, free(driver)) == (toast[2] - toast[0]) * (toast[3] - toast[1])  # inside the viewport
    driver.click(*driver.pixel_along("shin.L", 0.5))  # work goes on; the toast stays
    driver.key("Z", ["ctrl"])
    driver.frames(30)
    assert driver.state.error and widgets.find("Dismiss##toast")
    assert driver.state.message == "Nothing to undo"  # the status bar moved on to the last message
    driver.click_item("Dismiss##toast")
    driver.frames(1)
    assert driver.state.error == ""
    with pytest.raises(widgets.LocateError):
        widgets.find("Dismiss##toast")


def test_a_click_anywhere_on_the_toast_dismisses_it(driver):
    driver.state.report_error("Cannot export /nowhere/x.glb: the folder /nowhere does not exist")
    driver.frames(2)
    left, top, right, bottom = window_rect("##error_toast")
    driver.click(left + 8, top + 6)  # on its text
    assert driver.state.error == ""


def test_the_layout_is_written_on_exit_and_read_back_on_start(gl_session, tmp_path, monkeypatch):
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))

    def run(deterministic):
        state = humanoid_state()
        state.deterministic = deterministic
        app = PosekitWindow(gl_session.window, state, ctx=gl_session.ctx)
        start_app(app, state)
        return app, Driver(app)

    app, driver = run(deterministic=False)
    assert driver.state.view_insets == DEFAULT_INSETS  # no layout kept yet
    drag_splitter(driver, -90)
    app.release()
    with open(layout_path()) as f:
        assert "[Docking][Data]" in f.read()
    app, driver = run(deterministic=False)
    assert driver.state.view_insets[2] == DEFAULT_INSETS[2] + 90
    app.release()
    written = os.path.getmtime(layout_path())
    app, driver = run(deterministic=True)  # tests and headless runs: the default, nothing written
    assert driver.state.view_insets == DEFAULT_INSETS
    drag_splitter(driver, -40)
    app.release()
    assert os.path.getmtime(layout_path()) == written


def test_a_rig_opened_after_the_panels_moved_is_framed_into_the_viewport_as_it_is(driver):
    x, y = 200.0, free(driver)[3] + 1.0  # the splitter above the timeline: a taller strip
    driver.move(x, y)
    driver.press(x, y)
    driver.drag(x, y - 150)
    driver.release(x, y - 150)
    assert driver.app.editor.load_rig("assets/humanoid.json")
    driver.frames(1)
    state = driver.app.state
    left, top, right, bottom = free(driver)
    assert bottom == SIZE[1] - DEFAULT_INSETS[3] - 150
    pixels = state.camera.world_to_window(state.world[:, :3, 3], *SIZE)
    assert (pixels[:, 0] > left).all() and (pixels[:, 0] < right).all()
    assert (pixels[:, 1] > top).all() and (pixels[:, 1] < bottom).all()
