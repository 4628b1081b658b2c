"""The question before work would be thrown away (quitting, opening another rig): Save, Don't save
or Cancel, as every desktop tool asks. An ImGui modal; Enter saves, D does not, Escape cancels."""
from imgui_bundle import imgui

from ui import widgets
from ui.modal import begin_question
TITLE = "Save changes?##unsaved"
ANSWERS = (("Save", "save", imgui.Key.enter), ("Don't save", "discard", imgui.Key.d),
           ("Cancel", "cancel", imgui.Key.escape))


class UnsavedPrompt:
    """Asks before ``what`` ("quitting"); ``proceed()`` does it once the answer allows."""

    def __init__(self, what, proceed):
        self.what, self.proceed = what, proceed
        self.opened = False

    def draw(self):
        """Show the modal; returns "save", "discard", "cancel" or None (no answer yet)."""
        if not begin_question(self, TITLE):
            return None
        imgui.text(f"The pose or the rig's settings changed since they were last saved.\n"
                   f"Save the pose before {self.what}?")
        answer = None
        for k, (label, name, shortcut) in enumerate(ANSWERS):
            if k:
                imgui.same_line()
            if widgets.button(f"{label}##unsaved_{name}") or imgui.is_key_pressed(shortcut):
                answer = answer or name
        if answer:
            imgui.close_current_popup()
        imgui.end_popup()
        return answer
