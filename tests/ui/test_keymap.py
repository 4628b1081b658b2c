"""Help > Keymap: the window opens from the menu, lists every binding from the tables the keys
dispatch from, and closes with its close button."""
from imgui_bundle import imgui

import ui.keymap
from ui.editor import COMMANDS
from ui.input import VIEWPORT_KEYS
from ui.keymap import keymap_rows, shortcut_text

def open_keymap(driver):
    driver.click_item("Help")
    driver.frames(2)
    driver.click_item("Keymap")
    driver.frames(2)


def test_help_keymap_opens_a_window_that_its_close_button_closes(driver):
    open_keymap(driver)
    assert driver.app.editor.keymap_open
    window = imgui.internal.find_window_by_name("Keymap##keymap")
    assert window is not None and window.active
    title_height = imgui.get_frame_height()
    driver.click(window.pos.x + window.size.x - title_height / 2 - 2, window.pos.y + title_height / 2)
    driver.frames(1)
    assert not driver.app.editor.keymap_open


def test_the_window_draws_every_row_of_the_table(driver, monkeypatch):
    drawn, draw_table = [], ui.keymap._section_table

    def record(section, rows, keys_width):
        drawn.extend(rows)
        draw_table(section, rows, keys_width)

    monkeypatch.setattr(ui.keymap, "_section_table", record)
    open_keymap(driver)
    rows = keymap_rows(COMMANDS)
    assert drawn[-len(rows):] == rows


def test_every_viewport_key_and_editor_shortcut_is_listed():
    listed = {keys: what for _, keys, what in keymap_rows(COMMANDS)}
    for binding in VIEWPORT_KEYS:
        assert listed[binding.keys or " / ".join(shortcut_text(*s) for s in binding.shortcuts)] == binding.label
    for keys, what in (("A", "Select all"), ("Alt+A", "Deselect all"), ("H", "Hide the selected bones"),
                       ("Shift+H", "Hide the unselected bones"), ("Alt+H", "Reveal the hidden bones"),
                       ("F / Numpad .", "Frame the selection"), ("Home", "Frame every bone"),
                       ("Numpad 1", "Front view"), ("Ctrl+Numpad 7", "Bottom view"),
                       ("Page Up / Ctrl+Page Up", "Auto IK drag: longer chain"), ("R", "Rotate the active bone"),
                       ("G", "Grab (move) the active bone"), ("Enter / Numpad Enter", "Confirm the grab or rotation"),
                       ("X / Y / Z", "Grab / rotate: lock to an axis (again: local, again: none)"),
                       ("0-9 / . / - / Backspace", "Grab / rotate: type metres or degrees (- flips)"),
                       ("Escape / right click", "Cancel the drag, grab or rotation"),
                       ("Alt+R", "Clear rotation"), ("Alt+G", "Clear location"), ("Ctrl+Z", "Undo"),
                       ("Ctrl+Shift+Z / Ctrl+Y", "Redo"), ("Shift+middle drag", "Pan"),
                       ("Wheel / Ctrl+middle drag (up: in)", "Zoom")):
        assert listed.get(keys) == what, keys
