"""The in-app file dialog, for desktops without a native one: Blender's file browser, simplified.

The current folder (an editable path: Enter goes there) with a parent-folder button, its
sub-folders then the files the chosen filter lets through, a file-name field, Open or Save, and
Cancel. Double-click enters a folder or takes a file; Up/Down move the selection, Enter takes it,
Backspace goes up (unless a field is being typed in), Escape cancels. Saving over an existing file
asks first, on one line: Enter overwrites, Escape goes back to the dialog.
"""
import fnmatch
import os
from dataclasses import dataclass

from imgui_bundle import imgui

from ui import widgets

ALL_FILES = ("All files", "*")
DIALOG_SIZE = (700.0, 460.0)
WARNING_COLOUR = imgui.ImVec4(1.0, 0.55, 0.45, 1.0)
FILTER_WIDTH = 300.0
CANCEL = ""  # draw_browser's answer when the user cancelled


def filter_choices(filters):
    """``(label, patterns)`` pairs from portable_file_dialogs' flat [label, "*.a *.b", ...] list,
    ending with "All files" where the list lacks it."""
    pairs = [(filters[k], tuple(filters[k + 1].split())) for k in range(0, len(filters) - 1, 2)]
    has_all = any(patterns == (ALL_FILES[1],) for _, patterns in pairs)
    return pairs if has_all else pairs + [(ALL_FILES[0], (ALL_FILES[1],))]


def matches(name, patterns):
    return any(fnmatch.fnmatchcase(name.lower(), pattern.lower()) for pattern in patterns)


@dataclass(frozen=True)
class Listing:
    """A folder as the dialog shows it: ``rows`` of (name, is_folder), sub-folders first, each
    group sorted; ``error`` says why the folder could not be read (then there are no rows)."""
    rows: tuple = ()
    error: str = ""


def read_folder(folder, patterns, show_hidden):
    """The Listing of ``folder`` with only the files matching ``patterns``; dot-names only with
    ``show_hidden``."""
    try:
        with os.scandir(folder) as scan:
            entries = [entry for entry in scan if show_hidden or not entry.name.startswith(".")]
    except OSError as error:
        return Listing(error=f"Cannot read {folder}: {error.strerror or error}")
    folders, files = [], []
    for entry in entries:
        try:
            is_folder = entry.is_dir()
        except OSError:  # a broken entry lists as a file, as ls does
            is_folder = False
        if is_folder:
            folders.append(entry.name)
        elif matches(entry.name, patterns):
            files.append(entry.name)
    order = str.casefold
    return Listing(tuple((name, True) for name in sorted(folders, key=order))
                   + tuple((name, False) for name in sorted(files, key=order)))


def with_extension(name, patterns):
    """``name`` with its extension swapped for the one ``patterns`` names when it names just one
    ("*.bvh"): choosing a save filter picks the format, as in Blender."""
    stem, extension = os.path.splitext(name)
    wanted = patterns[0][1:] if len(patterns) == 1 and patterns[0].startswith("*.") else ""
    return stem + wanted if wanted and extension and stem else name


class FileBrowser:
    """One question's state: where it is, what is typed and selected, whether it asks to
    overwrite. ``draw_browser`` shows it."""

    def __init__(self, title, saving, default_path, filters, folder):
        self.title, self.saving = title, saving
        self.choices = filter_choices(filters)
        self.choice = 0
        self.show_hidden = False
        self.folder = self.folder_field = os.path.abspath(folder)
        self.name = os.path.basename(default_path)
        if not saving and not os.path.isfile(os.path.join(self.folder, self.name)):
            self.name = ""  # to open, only a file the folder shown holds: it may start in another
        self.selected = -1  # a row of the listing, or none
        self.scroll_to_selected = False
        self.overwrite = None  # the existing file Save would replace, while asking about it
        self.opened = False
        self.focus_name = True  # the name field takes the keys when the question opens, as before
        self._listing, self._listing_for = None, None

    @property
    def listing(self):
        """The current folder's Listing, read again when the folder, filter or hidden toggle
        changes (not every frame: a big folder takes a while)."""
        key = (self.folder, self.choice, self.show_hidden)
        if key != self._listing_for:
            self._listing = read_folder(self.folder, self.choices[self.choice][1], self.show_hidden)
            self._listing_for, self.selected = key, -1
        return self._listing

    def go(self, folder):
        self.folder = self.folder_field = os.path.abspath(os.path.expanduser(folder))

    def parent(self):
        self.go(os.path.dirname(self.folder))

    def choose_filter(self, choice):
        self.choice = choice
        if self.saving:
            self.name = with_extension(self.name, self.choices[choice][1])

    def select(self, row):
        """Select a row; a file's name goes into the name field."""
        rows = self.listing.rows
        if not rows:
            return
        self.selected = min(max(row, 0), len(rows) - 1)
        name, is_folder = rows[self.selected]
        if not is_folder:
            self.name = name

    def activate(self):
        """What Enter or a double-click does: enter the selected folder, or take the name."""
        rows = self.listing.rows
        if 0 <= self.selected < len(rows) and rows[self.selected][1]:
            self.go(os.path.join(self.folder, rows[self.selected][0]))
            return None
        return self.take_name()

    def take_name(self):
        """The path the name field names (relative to the folder, or absolute), or None while
        there is none yet: a name that is a folder is entered, and an existing file to save over
        is asked about first."""
        name = os.path.expanduser(self.name.strip())
        if not name:
            return None
        path = os.path.join(self.folder, name)
        if os.path.isdir(path):
            self.go(path)
            self.name = ""
            return None
        if self.saving and os.path.exists(path):
            self.overwrite = path
            return None
        return path


def draw_browser(browser):
    """Show the dialog (once per frame); returns the chosen path, CANCEL, or None while it asks."""
    if not _begin(browser):
        return None
    asking = browser.overwrite is not None
    imgui.begin_disabled(asking)  # while the overwrite question is up, only it answers
    _folder_bar(browser)
    listed = _entry_list(browser)
    imgui.end_disabled()
    answer = _overwrite_line(browser) if asking else _name_line(browser) or listed
    imgui.begin_disabled(asking)
    if _options_line(browser):
        answer = CANCEL
    imgui.end_disabled()
    if answer is None and not asking:
        answer = _keys(browser)
    if answer is not None:
        imgui.close_current_popup()
    imgui.end_popup()
    return answer


def _begin(browser):
    """Open the modal the first time, centred and sized to the window."""
    if not browser.opened:
        imgui.open_popup(browser.title)
        browser.opened = True
    viewport = imgui.get_main_viewport()
    size = imgui.ImVec2(min(DIALOG_SIZE[0], viewport.size.x * 0.9), min(DIALOG_SIZE[1], viewport.size.y * 0.85))
    imgui.set_next_window_pos(viewport.get_center(), imgui.Cond_.appearing, imgui.ImVec2(0.5, 0.5))
    imgui.set_next_window_size(size, imgui.Cond_.appearing)
    imgui.set_next_window_bg_alpha(1.0)  # file names over the bones would be hard to read
    return imgui.begin_popup_modal(browser.title, None, imgui.WindowFlags_.no_saved_settings)[0]


def _folder_bar(browser):
    """Parent-folder button and the folder's path; Enter in the path goes there, leaving the
    field without Enter puts the current folder back."""
    if widgets.button("Parent folder"):
        browser.parent()
    if imgui.is_item_hovered():
        imgui.set_tooltip("Backspace")
    imgui.same_line()
    imgui.set_next_item_width(-1.0)
    entered, browser.folder_field = widgets.input_text("##folder", browser.folder_field,
                                                      imgui.InputTextFlags_.enter_returns_true)
    if entered:
        browser.go(browser.folder_field)
    elif imgui.is_item_deactivated():
        browser.folder_field = browser.folder


def _entry_list(browser):
    """The folder's rows, only those on screen drawn; returns the path a double-click took."""
    footer = 2.0 * imgui.get_frame_height_with_spacing()
    imgui.begin_child("entries", imgui.ImVec2(0.0, -footer), imgui.ChildFlags_.borders)
    listing, answer = browser.listing, None
    if listing.error:
        widgets.text_colored(listing.error, WARNING_COLOUR)
    elif not listing.rows:
        imgui.text_disabled("No sub-folders or matching files here")
    clipper = imgui.ListClipper()
    clipper.begin(len(listing.rows))
    if browser.scroll_to_selected and browser.selected >= 0:
        clipper.include_item_by_index(browser.selected)  # drawn even when off screen, to scroll to
    while clipper.step():
        for row in range(clipper.display_start, clipper.display_end):
            answer = _row(browser, row, *listing.rows[row]) or answer
    clipper.end()
    imgui.end_child()
    return answer


def _row(browser, row, name, is_folder):
    """One row: a click selects it, a double-click enters the folder or takes the file."""
    selected = row == browser.selected
    if selected and browser.scroll_to_selected:
        imgui.set_scroll_here_y()
        browser.scroll_to_selected = False
    imgui.push_id(row)  # a name may hold ImGui's "##"
    clicked = widgets.selectable(name + "/" if is_folder else name, selected,
                                 imgui.SelectableFlags_.allow_double_click)[0]
    imgui.pop_id()
    if not clicked:
        return None
    browser.select(row)
    return browser.activate() if imgui.is_mouse_double_clicked(imgui.MouseButton_.left) else None


def _name_line(browser):
    """The file-name field and Open/Save; returns the path they took."""
    verb = "Save" if browser.saving else "Open"
    button_width = imgui.calc_text_size(verb).x + 4.0 * imgui.get_style().frame_padding.x
    imgui.align_text_to_frame_padding()
    imgui.text("File name")
    imgui.same_line()
    imgui.set_next_item_width(-button_width - imgui.get_style().item_spacing.x)
    if browser.focus_name:  # typing a path straight away works, as in a desktop dialog
        imgui.set_keyboard_focus_here()
        browser.focus_name = False
    entered, name = widgets.input_text("##name", browser.name, imgui.InputTextFlags_.enter_returns_true)
    if name != browser.name:
        browser.name, browser.selected = name, -1  # Enter now takes what was typed
    imgui.same_line()
    if widgets.button(f"{verb}##accept", imgui.ImVec2(button_width, 0.0)) or entered:
        return browser.activate()
    return None


def _overwrite_line(browser):
    """The one-line question before saving over a file; returns the path once it may be
    overwritten (Enter), going back to the dialog on No (Escape)."""
    widgets.text_colored(f"{os.path.basename(browser.overwrite)} exists. Overwrite it?", WARNING_COLOUR)
    imgui.same_line()
    yes = widgets.button("Overwrite (Enter)##overwrite") or _pressed(imgui.Key.enter, imgui.Key.keypad_enter)
    imgui.same_line()
    no = widgets.button("No (Esc)##overwrite") or _pressed(imgui.Key.escape)
    path = browser.overwrite
    if yes or no:
        browser.overwrite = None
    return path if yes else None


def _options_line(browser):
    """The filter, the hidden-files toggle and Cancel; returns whether Cancel was clicked."""
    imgui.set_next_item_width(FILTER_WIDTH)
    changed, choice = widgets.combo("##filter", browser.choice, [label for label, _ in browser.choices])
    if changed:
        browser.choose_filter(choice)
    imgui.same_line()
    _, browser.show_hidden = widgets.checkbox("Show hidden", browser.show_hidden)
    imgui.same_line()
    width = imgui.calc_text_size("Cancel").x + 2.0 * imgui.get_style().frame_padding.x
    imgui.set_cursor_pos_x(imgui.get_cursor_pos_x() + max(0.0, imgui.get_content_region_avail().x - width))
    return widgets.button("Cancel##files")


def _pressed(*keys):
    return any(imgui.is_key_pressed(k) for k in keys)


def _keys(browser):
    """The dialog's keys while it has the focus (not while its filter list is open); returns
    the answer they gave."""
    if not imgui.is_window_focused(imgui.FocusedFlags_.root_and_child_windows):
        return None
    if _pressed(imgui.Key.escape):
        return CANCEL
    for key, step in ((imgui.Key.up_arrow, -1), (imgui.Key.down_arrow, 1)):
        if _pressed(key):
            browser.select(browser.selected + step if browser.selected >= 0 else 0)
            browser.scroll_to_selected = True
    if imgui.get_io().want_text_input:  # Backspace and Enter belong to the field being typed in
        return None
    if _pressed(imgui.Key.backspace):
        browser.parent()
    if _pressed(imgui.Key.enter, imgui.Key.keypad_enter):
        return browser.activate()
    return None
