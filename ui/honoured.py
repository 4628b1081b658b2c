"""Settings the last solve did not honour, shown beside their widgets: the reports' notes read
"feature: method does not hold it" (``solvers.methods``)."""
from imgui_bundle import imgui

from ui import widgets

WARNING_COLOUR = imgui.ImVec4(1.0, 0.75, 0.3, 1.0)  # a setting the solve did not honour


def dropped_settings(reports):
    """{feature: [reasons]} of the settings ``reports`` (ChainReports) say were not honoured; a
    note reads "feature: method does not hold it" (``solvers.methods``)."""
    dropped = {}
    for report in reports:
        for note in report.notes:
            feature, _, reason = note.partition(": ")
            dropped.setdefault(feature, []).append(f"{report.bone}: {reason or note}")
    return dropped


def not_honoured_marker(dropped, *features):
    """After a setting's widget: an orange "(not honoured)" with the reasons as its tooltip, when
    the solve that ran dropped any of ``features``."""
    reasons = [reason for feature in features for reason in dropped.get(feature, ())]
    if reasons:
        imgui.same_line()
        widgets.text_colored("(not honoured)", WARNING_COLOUR)
        if imgui.is_item_hovered():
            imgui.set_tooltip("\n".join(reasons))


def reports_moving(state, bone):
    """The reports of the IK constraints whose chains move ``bone`` (a name)."""
    rig, index = state.rig, state.rig.skeleton.index.get(bone)
    moving = {c.bone for c in rig.ik if index is not None and index in rig.ik_chain(c)}
    return [r for r in state.reports if r.bone in moving]
