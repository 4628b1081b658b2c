"""The app's questions as ImGui modals: opened once, centred on the window, sized to fit."""
from imgui_bundle import imgui


def begin_question(owner, title):
    """Open ``title``'s modal the first time ``owner`` (with an ``opened`` flag) draws it; returns
    whether it is shown this frame, and then the caller ends it with ``imgui.end_popup()``."""
    if not owner.opened:
        imgui.open_popup(title)
        owner.opened = True
    imgui.set_next_window_pos(imgui.get_main_viewport().get_center(), imgui.Cond_.appearing, imgui.ImVec2(0.5, 0.5))
    return imgui.begin_popup_modal(title, None, imgui.WindowFlags_.always_auto_resize)[0]
