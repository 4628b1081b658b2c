"""Help > Keymap: a window listing every binding, read from the tables the handlers dispatch from
(``ui.input.VIEWPORT_KEYS`` for viewport keys, the editor's ``COMMANDS`` for its shortcuts) and
the descriptions of the mouse handlers (``ui.input.POINTER_BINDINGS``), so it cannot drift from
what the keys do."""
import functools

from imgui_bundle import imgui
from pyglet.window import key

from ui.input import POINTER_BINDINGS, VIEWPORT_KEYS

SECTIONS = ("Navigation", "Selection", "Pose tools", "Timeline", "File", "Edit")
KEY_NAMES = {key.NUM_DECIMAL: "Numpad .", key.NUM_ENTER: "Numpad Enter", key.PAGEUP: "Page Up",
             key.PAGEDOWN: "Page Down", key.HOME: "Home", key.ENTER: "Enter", key.TAB: "Tab"}
MODIFIER_NAMES = ((key.MOD_CTRL, "Ctrl"), (key.MOD_SHIFT, "Shift"), (key.MOD_ALT, "Alt"))
WINDOW_SIZE = (640.0, 480.0)


def key_name(symbol):
    """A key as keyboards label it: "Z", "Numpad 1", "Page Up"."""
    return KEY_NAMES.get(symbol) or key.symbol_string(symbol).replace("NUM_", "Numpad ")


def shortcut_text(symbol, mods):
    """"Ctrl+Shift+Z" for a pyglet key symbol and modifier bits."""
    return "+".join([name for bit, name in MODIFIER_NAMES if mods & bit] + [key_name(symbol)])


def binding_keys(binding):
    """A ``ui.input.KeyBinding``'s keys as Help > Keymap writes them: "Shift+P", "F / Numpad ."."""
    return binding.keys or " / ".join(shortcut_text(*s) for s in binding.shortcuts)


@functools.cache  # the table is fixed; the tools strip's tooltips ask every frame
def viewport_keys(method, args=()):
    """The keys of the viewport binding running ``method(*args)``, for a tooltip (StopIteration: none does)."""
    return binding_keys(next(b for b in VIEWPORT_KEYS if (b.method, b.args) == (method, tuple(args))))


def keymap_rows(commands):
    """(section, keys, what they do) for every binding: pointer actions, viewport keys, then the
    editor ``commands`` that have shortcuts, in ``SECTIONS`` order."""
    rows = list(POINTER_BINDINGS)
    rows += [(b.section, binding_keys(b), b.label) for b in VIEWPORT_KEYS]
    rows += [(c.menu, " / ".join(shortcut_text(*s) for s in c.shortcuts), c.label) for c in commands if c.shortcuts]
    return sorted(rows, key=lambda row: SECTIONS.index(row[0]))


def _section_table(section, rows, keys_width):
    """One section's rows; every section's keys column is ``keys_width`` wide, so they line up."""
    if imgui.begin_table(f"keymap_{section}", 2, imgui.TableFlags_.row_bg):
        imgui.table_setup_column("keys", imgui.TableColumnFlags_.width_fixed, keys_width)
        imgui.table_setup_column("what", imgui.TableColumnFlags_.width_stretch)
        for _, keys, what in rows:
            imgui.table_next_row()
            imgui.table_next_column()
            imgui.text(keys)
            imgui.table_next_column()
            imgui.text(what)
        imgui.end_table()


def keymap_window(commands):
    """Draw the Keymap window, centred when it opens; returns False once its close button was
    pressed."""
    viewport = imgui.get_main_viewport()
    imgui.set_next_window_pos(viewport.get_center(), imgui.Cond_.appearing, imgui.ImVec2(0.5, 0.5))
    imgui.set_next_window_size(imgui.ImVec2(WINDOW_SIZE[0], min(WINDOW_SIZE[1], viewport.size.y - 100.0)),
                               imgui.Cond_.appearing)
    shown, still_open = imgui.begin("Keymap##keymap", True)
    if shown:
        rows = keymap_rows(commands)
        keys_width = max(imgui.calc_text_size(keys).x for _, keys, _ in rows)
        for section in SECTIONS:
            imgui.separator_text(section)
            _section_table(section, [row for row in rows if row[0] == section], keys_width)
    imgui.end()
    return still_open
