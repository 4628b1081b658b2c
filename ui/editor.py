"""Editing commands (undo, redo, pose files, clipboard, mirror, reset) with their shortcuts and
the File / Edit / Window / Help menus (Help > Keymap lists every binding, Window > Reset Layout
puts the docked panels back in their default places). The window calls
``on_key_press`` for keys ImGui does not want, ``draw`` inside each ImGui frame and ``end_frame``
after the panels, where finished edits become undo steps.

Shortcuts follow Blender: Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) undo / redo, Ctrl+C / Ctrl+V /
Ctrl+Shift+V copy, paste and paste flipped, Alt+R / Alt+G clear rotation / location of the
selected bones (all bones when none is selected), Ctrl+N starts over on the default rig
(File > New), Ctrl+S / Ctrl+Shift+S / Ctrl+O save, save as and open a pose, Ctrl+Shift+O open a
rig (also File > Open Recent, or a file dropped on the window; File > BVH import sets how BVH
files read), Ctrl+E export the posed rig (.glb with its mesh, .bvh, or the rig alone as .json),
Ctrl+Q quit; File > Open Ground picks a scene to stand on and Edit > Plant feet plants the feet
on it (``ui.ground_state``); File > Open Tracks plays a tracker stream as keys (``ui.tracks``). New, opening a rig and quitting ask first when there are unsaved
changes.
"""
import os
from dataclasses import dataclass, replace

import numpy as np
from imgui_bundle import imgui
from pyglet.window import key

from rig.formats.export import POSED, export_rig
from rig.formats.document import ImportOptions, RigDocument
from rig.formats.jsonfields import FileFormatError
from rig.pose import channels_for_world
from rig.pose_ops import clear_channels, mirror_pins, mirror_pose
from rig.formats.rigfile import load_pose_data, pose_to_dict, read_pose_data, save_pose
from ui import DEFAULT_RIG, widgets
from ui.files import EXPORT_FILTERS, GROUND_FILTERS, RIG_FILTERS, FileAsker, native_dialogs_available
from ui.ground_state import open_ground, plant_feet
from ui.tracks import open_tracks
from ui.keymap import keymap_window, shortcut_text
from ui.pins import follow_channels
from ui.recent import RecentFiles
from ui.session_file import PoseFile
from ui.source import open_source
from ui.unsaved import UnsavedPrompt
from ui.state import AppState
from ui.timeline import auto_key, keyed_export, settle

MODIFIER_MASK = key.MOD_CTRL | key.MOD_SHIFT | key.MOD_ALT
MANUAL_BVH_SCALE = 0.01  # File > BVH import: units given rather than guessed start as centimetres


@dataclass(frozen=True)
class Command:
    label: str
    method: str
    shortcuts: tuple  # of (pyglet key symbol, modifier bits)
    menu: str

    def shortcut_text(self):
        return shortcut_text(*self.shortcuts[0]) if self.shortcuts else ""


CTRL, SHIFT, ALT = key.MOD_CTRL, key.MOD_SHIFT, key.MOD_ALT
COMMANDS = (
    Command("New", "new_rig", ((key.N, CTRL),), "File"),
    Command("Open rig...", "open_rig", ((key.O, CTRL | SHIFT),), "File"),
    Command("Open pose...", "open_pose", ((key.O, CTRL),), "File"),
    Command("Open Ground...", "open_ground", (), "File"),
    Command("Open Tracks...", "open_tracks", (), "File"),
    Command("Save pose", "save_pose", ((key.S, CTRL),), "File"),
    Command("Save pose as...", "save_pose_as", ((key.S, CTRL | SHIFT),), "File"),
    Command("Export...", "export", ((key.E, CTRL),), "File"),
    Command("Quit", "quit", ((key.Q, CTRL),), "File"),
    Command("Undo", "undo", ((key.Z, CTRL),), "Edit"),
    Command("Redo", "redo", ((key.Z, CTRL | SHIFT), (key.Y, CTRL)), "Edit"),
    Command("Copy pose", "copy_pose", ((key.C, CTRL),), "Edit"),
    Command("Paste pose", "paste_pose", ((key.V, CTRL),), "Edit"),
    Command("Paste pose flipped", "paste_flipped", ((key.V, CTRL | SHIFT),), "Edit"),
    Command("Mirror pose", "mirror", ((key.M, CTRL),), "Edit"),
    Command("Clear rotation", "clear_rotation", ((key.R, ALT),), "Edit"),
    Command("Clear location", "clear_location", ((key.G, ALT),), "Edit"),
    Command("Reset pose", "reset_pose", (), "Edit"),
    Command("Plant feet", "plant_feet", (), "Edit"),
    Command("Reset Layout", "reset_layout", (), "Window"),
    Command("Keymap", "show_keymap", (), "Help"),
)
MENUS = ("File", "Edit", "Window", "Help")
SHORTCUTS = {shortcut: command for command in COMMANDS for shortcut in command.shortcuts}


def _export_frames(state):
    """``export_rig``'s frames for the window's export: with keys every keyed frame, solved as the
    window solves it (the pins the keys give there held); else the pose exactly as drawn, its channels read back from
    the world (solved again, a pose whose pins keep a goal short would move on)."""
    if state.timeline.action.has_keys():
        frames = keyed_export(state)
        return {"pose": frames.poses, "timing": frames.timing, "pins": frames.pins, "root_free": frames.root_free}
    return {"pose": channels_for_world(state.rig.skeleton, state.world), "shown": True}


class Editor:
    """Runs editing commands on ``app.state`` (read anew each time: tests swap states) and holds
    what outlives one state: the pose clipboard, the pose file path and the file question."""

    def __init__(self, app, native_dialogs=None):
        self.app = app
        if native_dialogs is None:
            native_dialogs = native_dialogs_available() and not app.state.deterministic
        self.files = FileAsker(native_dialogs)
        self.clipboard = None
        self.pose_path = ""
        self.quit_requested = False
        self.autosaver = None  # an ui.autosave.Autosaver in interactive sessions
        self.recovery = None  # an ui.recovery.RecoveryOffer while one awaits an answer
        self.unsaved = None  # an ui.unsaved.UnsavedPrompt while one awaits an answer
        self.keymap_open = False  # Help > Keymap's window is shown
        self.saved = app.state.history.current  # the snapshot last saved (or opened)
        self.recent = RecentFiles()
        if self.recent.problem:
            app.state.report_error(self.recent.problem)
        self.import_options = ImportOptions()  # what File > BVH import (or the command line) chose

    @property
    def state(self):
        return self.app.state

    # Dispatch -------------------------------------------------------------------------------
    def on_key_press(self, symbol, modifiers):
        command = SHORTCUTS.get((symbol, modifiers & MODIFIER_MASK))
        if command is None or self.files.active:
            return None
        self.run(command)
        return True

    def run(self, command):
        if self.state.drag is None:  # mid-drag, as in Blender, edits wait for the drag to end
            getattr(self, command.method)()

    def draw(self):
        """The menu bar and any open file question; call between new_frame and render."""
        if imgui.begin_main_menu_bar():
            for menu in MENUS:
                if widgets.begin_menu(menu):
                    self._menu_items(menu)
                    if imgui.is_key_pressed(imgui.Key.escape):  # as in every desktop menu
                        imgui.close_current_popup()
                    imgui.end_menu()
            imgui.end_main_menu_bar()
        self.files.draw()
        if self.keymap_open:
            self.keymap_open = keymap_window(COMMANDS)
        if self.recovery is not None:
            self._answer_recovery(self.recovery.draw(self.app))
        if self.unsaved is not None:
            self._answer_unsaved(self.unsaved.draw())

    def has_unsaved_changes(self):
        return not self.saved.holds_work_of(self.state)

    def guard(self, what, proceed):
        """``proceed()`` now, or once the user has answered the unsaved-changes question."""
        if self.has_unsaved_changes():
            self.unsaved = UnsavedPrompt(what, proceed)
        else:
            proceed()

    def _answer_unsaved(self, answer):
        if answer is None:
            return
        prompt, self.unsaved = self.unsaved, None
        if answer == "discard":
            prompt.proceed()
        elif answer == "save" and self.pose_path:
            if self.write_pose(self.pose_path):
                prompt.proceed()
        elif answer == "save":
            self.files.ask("Save pose", True, self._default_path(), lambda path: self.write_pose(path) and prompt.proceed())

    def _answer_recovery(self, answer):
        if answer is None:
            return
        if answer == "restore":
            self._restore(self.recovery)
        else:
            self.recovery.discard()
        self.recovery = None
        if self.autosaver is not None:
            self.autosaver.start(self.state, self.pose_file())

    def _restore(self, offer):
        """Swap in the recovered session, with its pose file, and list its rig under Open Recent;
        one that does not read leaves the scene as it is and says why."""
        try:
            restored = offer.restore()
        except FileFormatError as error:
            self.state.report_error(f"Cannot restore the session: {error}")
            return
        state = restored.state
        state.deterministic = self.state.deterministic
        self.app.state = state
        self.pose_path = restored.pose_file.path
        if restored.pose_file.saved:  # else the snapshot kept, of the state replaced, says "unsaved"
            self.saved = state.history.current
        recent_error = self.recent.add(state.rig_path)
        state.message = "; ".join(m for m in ("Session restored", restored.note, recent_error) if m)

    def pose_file(self):
        """Where Save writes the pose and whether it holds every edit, for the autosave."""
        return PoseFile(self.pose_path, not self.has_unsaved_changes())

    def _menu_items(self, menu):
        enabled = {"undo": self.state.history.can_undo(), "redo": self.state.history.can_redo(),
                   "paste_pose": self.clipboard is not None, "paste_flipped": self.clipboard is not None}
        for command in (c for c in COMMANDS if c.menu == menu):
            if widgets.menu_item(command.label, command.shortcut_text(), False, enabled.get(command.method, True))[0]:
                self.run(command)
            if command.method == "open_rig":  # the File menu's submenus follow Open rig
                self._recent_menu()
                self._bvh_import_menu()
                self._skin_menu()

    def _recent_menu(self):
        if widgets.begin_menu("Open Recent", bool(self.recent.paths)):
            for path in list(self.recent.paths):
                if widgets.menu_item(path, "", False)[0] and self.state.drag is None:
                    self.replace_scene(path)
            imgui.end_menu()

    def _bvh_import_menu(self):
        """The options BVH files open with: the up axis, and units guessed or given; Reopen reads
        the open BVH file again with them."""
        if not widgets.begin_menu("BVH import"):
            return
        options = self.import_options
        if widgets.menu_item("Z-up file", "", options.bvh_up == "z")[0]:
            options = replace(options, bvh_up="y" if options.bvh_up == "z" else "z")
        if widgets.menu_item("Guess units", "", options.bvh_scale is None)[0]:
            options = replace(options, bvh_scale=MANUAL_BVH_SCALE if options.bvh_scale is None else None)
        if options.bvh_scale is not None:
            imgui.set_next_item_width(110.0)
            changed, value = widgets.input_float("metres per unit", options.bvh_scale, 0.0, 0.0, "%.6g")
            if changed and value > 0.0:
                options = replace(options, bvh_scale=value)
        self.import_options = options
        is_bvh = self.state.rig_path.lower().endswith(".bvh")
        if widgets.menu_item("Reopen with these options", "", False, is_bvh)[0] and self.state.drag is None:
            self.replace_scene(self.state.rig_path)
        imgui.end_menu()

    def _skin_menu(self):
        """For a glTF file with several skins: which one is open; choosing another reads it."""
        skins = self.state.skins
        if len(skins) < 2 or not widgets.begin_menu("Skin"):
            return
        for index, name in enumerate(skins):
            if widgets.menu_item(f"{index}: {name}", "", index == self.state.skin)[0] and index != self.state.skin \
                    and self.state.drag is None:
                self.replace_scene(self.state.rig_path, replace(self.import_options, gltf_skin=index))
        imgui.end_menu()

    def end_frame(self):
        """Record finished edits as an undo step (keyed first with auto-keying on): not while a
        viewport drag or a widget is held. A frame change is a view, never a step."""
        quiet = self.state.drag is None and not imgui.is_any_item_active()
        if quiet:
            auto_key(self.state)
        settle(self.state)
        if quiet:
            self.state.history.commit(self.state)
        if self.autosaver is not None and self.recovery is None:
            self.autosaver.tick(self.state, self.pose_file())

    # Commands -------------------------------------------------------------------------------
    def _set_pose(self, pose, message):
        self.state.pose = pose
        self.state.mark_dirty()
        self.state.message = message

    def show_keymap(self):
        self.keymap_open = True

    def reset_layout(self):
        self.app.layout.reset()
        self.state.message = "Layout reset"

    def undo(self):
        self.state.message = "Undo" if self.state.history.undo(self.state) else "Nothing to undo"

    def redo(self):
        self.state.message = "Redo" if self.state.history.redo(self.state) else "Nothing to redo"

    def copy_pose(self):
        """Ctrl+C: the pose with its pins, as a pose file holds them (a paste puts both back)."""
        self.clipboard = pose_to_dict(self.state.rig.skeleton, self.state.pose, self.state.rig.name, self.state.pins)
        self.state.message = "Pose copied"

    def _paste(self, flipped, message):
        """The clipboard's pose and pins in place of the scene's, as opening a pose file puts them."""
        skeleton = self.state.rig.skeleton
        read = read_pose_data(self.clipboard, skeleton, "clipboard")
        self.state.pins = mirror_pins(skeleton, read.pins) if flipped else read.pins
        self._set_pose(mirror_pose(skeleton, read.pose) if flipped else read.pose, message)

    def paste_pose(self):
        if self.clipboard is not None:
            self._paste(False, "Pose pasted")

    def paste_flipped(self):
        if self.clipboard is not None:
            self._paste(True, "Pose pasted flipped")

    def mirror(self):
        """Ctrl+M: the pose and its pins mirrored left <-> right (pins left alone would hold the
        pinned bones where they were, unmirrored)."""
        self.state.pins = mirror_pins(self.state.rig.skeleton, self.state.pins)
        self._set_pose(mirror_pose(self.state.rig.skeleton, self.state.pose), "Pose mirrored")

    def _selected_bones(self):
        index = self.state.rig.skeleton.index
        chosen = [index[name] for name in self.state.view.selected if name in index]
        return chosen if chosen else np.arange(len(index))

    def _clear(self, bones, message, **channels):
        """Channels of bone indices ``bones`` back at rest; a pinned one among them takes its pin
        along, as a typed value does (else its pin would hold it where it was and the clear would
        show nothing)."""
        before = self.state.pose
        self._set_pose(clear_channels(before, bones, **channels), message)
        names = self.state.rig.skeleton.names
        follow_channels(self.state, [names[bone] for bone in bones], before)

    def clear_rotation(self):
        self._clear(self._selected_bones(), "Rotation cleared", rotation=True)

    def clear_location(self):
        self._clear(self._selected_bones(), "Location cleared", location=True)

    def reset_pose(self):
        self._clear(np.arange(len(self.state.rig.skeleton)), "Pose reset", rotation=True, location=True, scale=True)

    def write_pose(self, path):
        """Save the pose to ``path`` (atomically); failures become the status message."""
        try:
            save_pose(self.state.rig.skeleton, self.state.pose, path, self.state.rig.name, self.state.pins)
        except (OSError, ValueError) as error:
            self.state.report_error(f"Cannot save {path}: {error}")
            return False
        self.pose_path = path
        self.saved = self.state.history.current
        self.state.message = f"Saved {path}"
        return True

    def read_pose(self, path):
        """Open a pose file with its pins (they replace the pins there were); a bad file leaves
        the pose alone and says why."""
        try:
            read = load_pose_data(path, self.state.rig.skeleton)
        except FileFormatError as error:
            self.state.report_error(str(error))
            return False
        self.pose_path = path
        self.state.pins = read.pins
        self._set_pose(read.pose, "; ".join([f"Opened {path}"] + read.warnings))
        return True

    def _default_path(self):
        return self.pose_path or os.path.join(os.getcwd(), "pose.json")

    def save_pose(self):
        if self.pose_path:
            self.write_pose(self.pose_path)
        else:
            self.save_pose_as()

    def save_pose_as(self):
        self.files.ask("Save pose", True, self._default_path(), self.write_pose)

    def export(self):
        default = os.path.splitext(self.state.rig_path)[0] + "_posed.glb"
        self.files.ask("Export", True, default, self.write_export, EXPORT_FILTERS)

    def write_export(self, path):
        """Export the rig as the extension of ``path`` says, in the current pose as shown where the
        format holds one (the keyed motion, a frame each, when there are keys) (``export_rig`` bakes the constraints in, as the command line's export
        does), with the skinned mesh in a .glb; failures become the status message."""
        state = self.state
        document = RigDocument(state.rig, state.rig_path, mesh=state.mesh, pose=state.pose)
        posed = os.path.splitext(path)[1].lower() in POSED
        try:
            warnings = export_rig(document, path, **(_export_frames(state) if posed else {}))
        except (OSError, ValueError) as error:  # FileFormatError included
            state.report_error(f"Cannot export {path}: {error}")
            return False
        if path.lower().endswith(".glb"):  # the rig, its settings and the pose: everything is saved
            self.saved = state.history.current
        state.message = "; ".join([f"Exported {path}" + ("" if posed else " (the rig; .json holds no pose)")]
                                  + warnings)
        return True

    def open_pose(self):
        self.files.ask("Open pose", False, self._default_path(), self.read_pose)

    def open_ground(self):
        """File > Open Ground: a scene file's surface to stand on (``ui.ground_state``)."""
        self.files.ask("Open ground", False, self.state.ground_path or self.state.rig_path,
                       lambda path: open_ground(self.state, path), GROUND_FILTERS)

    def open_tracks(self):
        """File > Open Tracks: a tracker stream played on the timeline as keys (``ui.tracks``)."""
        self.files.ask("Open tracks", False, self.state.rig_path, lambda path: open_tracks(self.state, path))

    def plant_feet(self):
        plant_feet(self.state)

    def load_rig(self, path, options=None, remember=True):
        """Replace the scene with the rig file at ``path`` read with ``options`` (default: the
        File menu's import options), with a fresh pose, camera framing and undo history, and list
        it under Open Recent when ``remember``; a file that does not read leaves the scene as it
        was and says why."""
        try:
            opened = open_source(path, options or self.import_options)
        except (FileFormatError, OSError) as error:
            self.state.report_error(str(error))
            return False
        old, document = self.state, opened.document
        state = AppState.for_document(document, size=(self.app.window.width, self.app.window.height),
                                      source=opened.source, insets=old.view_insets,
                                      floating=old.floating)  # framed into the viewport as laid out now
        state.deterministic = old.deterministic
        self.app.state = state
        self.pose_path = ""
        self.saved = state.history.current
        recent_error = self.recent.add(path) if remember else ""
        state.message = "; ".join([f"Opened {path}"] + document.warnings + ([recent_error] if recent_error else []))
        return True

    def new_rig(self):
        """Start over on the default rig (asking first when there are unsaved changes); it is not
        listed under Open Recent, as nothing was opened."""
        self.guard("starting a new session", lambda: self.load_rig(DEFAULT_RIG, ImportOptions(), remember=False))

    def open_rig(self):
        self.guard("opening another rig",
                   lambda: self.files.ask("Open rig", False, self.state.rig_path, self.load_rig, RIG_FILTERS))

    def replace_scene(self, path, options=None):
        """Open ``path`` in place of the scene, asking first when there are unsaved changes."""
        self.guard("opening another rig", lambda: self.load_rig(path, options))

    def quit(self):
        self.app.window.dispatch_event("on_close")

    def may_close(self):
        """Whether the window may close now (the window's close button, Ctrl+Q): yes when nothing
        is unsaved or the user has answered; otherwise the question is put and the answer closes."""
        if self.quit_requested or not self.has_unsaved_changes():
            return True
        if self.unsaved is None:
            self.guard("quitting", self._confirm_quit)
        return False

    def _confirm_quit(self):
        self.quit_requested = True
        self.app.window.dispatch_event("on_close")
