"""The start-up offer to restore a session that did not end cleanly (an ImGui modal).

Enter or "Restore" replaces the app's state with the recovered one; Escape or "Discard" deletes
the recovery file. Until the user answers, autosave stays off so the file is not overwritten.
"""
import datetime

from imgui_bundle import imgui

from rig.formats.jsonfields import FileFormatError
from ui import widgets
from ui.autosave import remove_file, restore_session
from ui.modal import begin_question

TITLE = "Restore unsaved session?"


class RecoveryOffer:
    def __init__(self, path, data):
        self.path, self.data = path, data
        self.opened = False

    def describe(self):
        when = datetime.datetime.fromtimestamp(self.data["saved"]).strftime("%Y-%m-%d %H:%M:%S")
        return f"Posekit did not close cleanly. Restore the session on\n{self.data['rig_path']}\nautosaved at {when}?"

    def restore(self, app):
        """Swap in the recovered state; a recovery that does not read is discarded with a message."""
        try:
            app.state = restore_session(self.data, self.path)
            app.state.message = "Session restored"
        except FileFormatError as error:
            app.state.report_error(f"Cannot restore the session: {error}")

    def discard(self):
        remove_file(self.path)

    def draw(self, app):
        """Show the modal; returns "restore", "discard" or None (no answer yet)."""
        if not begin_question(self, TITLE):
            return None
        imgui.text(self.describe())
        answer = None
        if widgets.button("Restore") or imgui.is_key_pressed(imgui.Key.enter):
            answer = "restore"
        imgui.same_line()
        if widgets.button("Discard") or imgui.is_key_pressed(imgui.Key.escape):
            answer = "discard"
        if answer:
            imgui.close_current_popup()
        imgui.end_popup()
        return answer
