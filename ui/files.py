"""Asking the user for a file path: the desktop's own dialog where there is one, else the in-app
file browser (``ui.file_browser``).

imgui-bundle's portable_file_dialogs runs zenity/kdialog/qarma/matedialog as a child process;
without a display or any of those it returns an empty answer at once, indistinguishable from
"cancelled", so we use it only when both are present and poll it without blocking the frame.
"""
import os
import shutil

from imgui_bundle import portable_file_dialogs

from rig.formats.ground_file import GROUND_READERS
from ui.file_browser import FileBrowser, draw_browser

DIALOG_PROGRAMS = ("zenity", "kdialog", "qarma", "matedialog")
POSE_FILTERS = ["Pose files (*.json)", "*.json", "All files", "*"]
RIG_FILTERS = ["Rig files (*.json *.bvh *.gltf *.glb)", "*.json *.bvh *.gltf *.glb", "All files", "*"]
_GROUND_PATTERNS = " ".join(f"*{extension}" for extension in GROUND_READERS)
GROUND_FILTERS = [f"Ground scenes ({_GROUND_PATTERNS})", _GROUND_PATTERNS, "All files", "*"]
EXPORT_FILTERS = ["glTF binary (*.glb)", "*.glb", "BVH motion (*.bvh)", "*.bvh", "Posekit rig (*.json)", "*.json"]


def native_dialogs_available():
    has_display = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return has_display and any(shutil.which(p) for p in DIALOG_PROGRAMS)


class FileAsker:
    """One question at a time: ``ask`` starts it, ``draw`` (once per frame, inside an ImGui frame)
    shows or polls it and calls ``on_done(path)`` when the user picks a path. The in-app dialog
    starts where the last one left off, else in the default path's folder, else the working
    directory."""

    def __init__(self, native):
        self.native = native
        self.on_done = None
        self.dialog = None  # the native dialog being polled
        self.browser = None  # the in-app dialog shown
        self.folder = ""  # where the last in-app dialog was, this session

    @property
    def active(self):
        return self.on_done is not None

    def ask(self, title, saving, default_path, on_done, filters=POSE_FILTERS):
        self.on_done = on_done
        if self.native:
            kind = portable_file_dialogs.save_file if saving else portable_file_dialogs.open_file
            self.dialog = kind(title, default_path, filters)
        else:
            self.browser = FileBrowser(title, saving, default_path, filters, self._start_folder(default_path))

    def _start_folder(self, default_path):
        folder = os.path.dirname(os.path.abspath(default_path)) if default_path else ""
        return next((f for f in (self.folder, folder) if f and os.path.isdir(f)), os.getcwd())

    def _finish(self, path):
        on_done = self.on_done
        self.on_done, self.dialog, self.browser = None, None, None
        if path:
            on_done(path)

    def draw(self):
        if self.on_done is None:
            return
        if self.dialog is not None:
            if self.dialog.ready(0):
                result = self.dialog.result()
                self._finish(result if isinstance(result, str) else (result[0] if result else ""))
            return
        answer = draw_browser(self.browser)
        if answer is not None:
            self.folder = os.path.dirname(answer) if answer else self.browser.folder  # a typed path may lead elsewhere
            self._finish(answer)
