"""Every widget has an ID of its own: the driver fails any frame that drew two widgets with one
ID (ImGui would mix up their clicks and state), and the app's panels, every section open, have
none."""
import pytest
from imgui_bundle import imgui

import ui.window
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED
from tests.ui.conftest import Driver, humanoid_state, start_app
from ui import widgets
from ui.autosave import STATE_DIR_ENV
from ui.layout import PROPERTIES


def with_test_window(monkeypatch, draw):
    """Draw ``draw()`` in a window of its own over the viewport, each frame, before the panels."""
    docked_panels = ui.window.docked_panels

    def panels(state, layout):
        imgui.set_next_window_pos(imgui.ImVec2(200.0, 300.0))
        imgui.begin("ID test##test")
        draw()
        imgui.end()
        return docked_panels(state, layout)

    monkeypatch.setattr(ui.window, "docked_panels", panels)


def test_imgui_reports_two_hovered_buttons_with_one_label(driver, monkeypatch):
    """Plain ImGui buttons, not noted by ui.widgets: ImGui's own check finds them under the pointer."""
    first = []

    def twice():
        imgui.button("Same")
        first[:] = [(imgui.get_item_rect_min() + imgui.get_item_rect_max()) * 0.5]
        imgui.button("Same")

    with_test_window(monkeypatch, twice)
    driver.frames(2)  # not hovered: ImGui cannot tell
    with pytest.raises(AssertionError, match="conflicting ID: the hovered item"):
        driver.move(first[0].x, first[0].y)
        driver.frames(1)


def test_widgets_with_one_label_fail_the_frame_unhovered(driver, monkeypatch):
    with_test_window(monkeypatch, lambda: (widgets.button("Same"), widgets.button("Same")))
    with pytest.raises(AssertionError, match="conflicting ID: Same"):
        driver.frames(1)


def test_distinct_ids_behind_one_label_pass(driver, monkeypatch):
    with_test_window(monkeypatch, lambda: (widgets.button("Same##first"), widgets.button("Same##second")))
    driver.frames(2)


def hover_every_widget(driver, kinds=None):
    """Put the pointer on each widget on screen (of ``kinds``, default all) in turn: ImGui finds a
    conflicting ID only among the items that share the hovered one's. Returns the labels of those
    that took the hover."""
    hovered = set()
    for item in [item for item in widgets.drawn() if item.visible and (kinds is None or item.kind in kinds)]:
        driver.move(*item.centre)
        if imgui.get_current_context().hovered_id == item.id:
            hovered.add(item.label)
    driver.frames(1)  # ImGui counts the last one's namesakes a frame after hovering it
    return hovered


def hover_the_panel_through(driver, pages=3):
    """Hover every widget, then scroll the panel down a page at a time and hover again; returns
    the labels hovered."""
    hovered = hover_every_widget(driver)
    panel = imgui.internal.find_window_by_name(PROPERTIES)
    middle = panel.pos.x + panel.size.x / 2, panel.pos.y + panel.size.y / 2
    for _ in range(pages):
        driver.move(*middle)  # the wheel scrolls the window under the pointer
        driver.scroll(*middle, -5)
        hovered |= hover_every_widget(driver)
    return hovered


def open_sections(driver, *labels):
    for label in labels:
        driver.click_item(label)
        driver.frames(1)


@pytest.mark.parametrize("tab, sections, expected", [
    ("IK constraint", (), {"Iterations##ik", "Pole angle", "Influence"}),
    ("Bone IK", (), {"IK stretch"}),
    ("Copy rotation", (), {"Influence"}),
    ("Solver", ("Chains",), {"Iterations", "Chains"}),
    ("View", (), {"Solver state##show_solver", "Front"}),
])
def test_every_tab_of_the_properties_has_distinct_ids(driver, tab, sections, expected):
    driver.click(*driver.pixel_along("shin.L", 0.5))  # an IK constraint and an active bone to show
    open_sections(driver, tab, *sections)
    shown = {item.label for item in widgets.drawn()}
    assert expected | {tab, "pelvis", "Auto IK"} <= shown  # the outliner and the timeline's tools too
    assert hover_the_panel_through(driver) == shown


@NEEDS_SHARED
def test_the_auto_ik_set_up_and_animation_sections_have_distinct_ids(posekit_window, tmp_path, monkeypatch):
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    start_app(posekit_window, humanoid_state())
    assert posekit_window.editor.load_rig(CMU_EXCERPT)
    driver = Driver(posekit_window)
    driver.frames(2)
    open_sections(driver, "Fix limbs")
    shown = {item.label for item in widgets.drawn()}
    assert {"Set up IK automatically", "arm.L ends at", "leg.R ends at", "##current_frame", "timeline_strip"} <= shown
    assert hover_the_panel_through(driver) == shown


def test_the_menus_have_distinct_ids(driver):
    for menu in ("File", "Edit", "Window", "Help"):
        driver.click_item(menu)
        driver.frames(1)
        items = {item.label for item in widgets.drawn() if item.kind == "menu_item"}
        disabled = {"Undo", "Redo", "Paste pose", "Paste pose flipped"}  # nothing to undo or paste: never hovered
        assert items and items - disabled <= hover_every_widget(driver, ("menu_item",))
        driver.key("ESCAPE")


