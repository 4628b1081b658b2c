"""Asking the user for a file path: the desktop's own dialog where there is one, else an ImGui
popup with a path field.

imgui-bundle's portable_file_dialogs runs zenity/kdialog/qarma/matedialog as a child process;
without a display or any of those it returns an empty answer at once, indistinguishable from
"cancelled", so we use it only when both are present and poll it without blocking the frame.
"""
import os
import shutil

from imgui_bundle import imgui, portable_file_dialogs

from ui import widgets

DIALOG_PROGRAMS = ("zenity", "kdialog", "qarma", "matedialog")
POSE_FILTERS = ["Pose files (*.json)", "*.json", "All files", "*"]
RIG_FILTERS = ["Rig files (*.json *.bvh *.gltf *.glb)", "*.json *.bvh *.gltf *.glb", "All files", "*"]
EXPORT_FILTERS = ["glTF binary (*.glb)", "*.glb", "BVH motion (*.bvh)", "*.bvh", "Posekit rig (*.json)", "*.json"]


def native_dialogs_available():
    has_display = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return has_display and any(shutil.which(p) for p in DIALOG_PROGRAMS)


class FileAsker:
    """One question at a time: ``ask`` starts it, ``draw`` (once per frame, inside an ImGui frame)
    shows or polls it and calls ``on_done(path)`` when the user picks a path."""

    def __init__(self, native):
        self.native = native
        self.pending = None  # (title, saving, on_done)
        self.dialog = None
        self.path = ""
        self.opened = False

    @property
    def active(self):
        return self.pending is not None

    def ask(self, title, saving, default_path, on_done, filters=POSE_FILTERS):
        self.pending = (title, saving, on_done)
        self.path = default_path
        self.opened = False
        if self.native:
            kind = portable_file_dialogs.save_file if saving else portable_file_dialogs.open_file
            self.dialog = kind(title, default_path, filters)

    def _finish(self, path):
        on_done = self.pending[2]
        self.pending, self.dialog = None, None
        if path:
            on_done(path)

    def draw(self):
        if self.pending is None:
            return
        if self.dialog is not None:
            if self.dialog.ready(0):
                result = self.dialog.result()
                self._finish(result if isinstance(result, str) else (result[0] if result else ""))
            return
        self._draw_popup()

    def _draw_popup(self):
        title = self.pending[0]
        if not self.opened:
            imgui.open_popup(title)
            self.opened = True
        centre = imgui.get_main_viewport().get_center()
        imgui.set_next_window_pos(centre, imgui.Cond_.appearing, imgui.ImVec2(0.5, 0.5))
        if not imgui.begin_popup_modal(title, None, imgui.WindowFlags_.always_auto_resize)[0]:
            return
        imgui.text("Path:")
        if imgui.is_window_appearing():
            imgui.set_keyboard_focus_here()
        imgui.set_next_item_width(420)
        entered, self.path = widgets.input_text("##path", self.path, imgui.InputTextFlags_.enter_returns_true)
        # The field takes Escape for itself (it stops editing); it still means "cancel" here.
        escaped = imgui.is_item_deactivated() and imgui.is_key_down(imgui.Key.escape)
        done = entered or widgets.button("OK") or imgui.is_key_pressed(imgui.Key.enter)
        imgui.same_line()
        cancelled = widgets.button("Cancel") or escaped or imgui.is_key_pressed(imgui.Key.escape)
        if done or cancelled:
            imgui.close_current_popup()
            self._finish(self.path.strip() if done else "")
        imgui.end_popup()
