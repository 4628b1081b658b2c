"""The Solver tab's iTaSC section: Blender's Animation / Simulation mode with the Simulation
mode's max velocity, feedback and reiteration (``rig.simulation``)."""
from rig.constraints import ITASC_MODES, RANGES, REITERATIONS, clamp_setting
from ui import widgets
from ui.honoured import dropped_settings, not_honoured_marker
from ui.panels import CLAMP, _combo, help_marker


def itasc_section(state):
    """The iTaSC section's widgets; whether a setting changed (a new solve)."""
    settings = state.rig.solver
    dirty = False
    if not widgets.collapsing_header("iTaSC##solver"):
        return False
    changed, settings.itasc_mode = _combo("Mode##itasc", settings.itasc_mode, ITASC_MODES)
    not_honoured_marker(dropped_settings(state.reports), "simulation")
    dirty |= changed
    help_marker("animation: each solve converges (stateless).\nsimulation: the Jacobian methods (DLS, SDLS; auto "
                "picks DLS) move the joints\nat a bounded velocity through the time since the last solve: the "
                "timeline's\nframes while playing, the clock while dragging. Other methods jump (marked).")
    if settings.itasc_mode != "simulation":
        return dirty
    for label, name, unit, text in (
            ("Max velocity", "max_velocity", "%.1f rad/s",
             "No bone turns faster than this (lower: the figure lags behind a fast target)."),
            ("Feedback", "feedback", "%.1f",
             "How fast the residual is corrected (1/s; its time constant is 1/feedback).\n"
             "Blender suggests 20 to 100.")):
        changed, value = widgets.slider_float(label, getattr(settings, name), *RANGES[name], unit, CLAMP)
        if changed:
            setattr(settings, name, clamp_setting(name, value))
            dirty = True
        help_marker(text)
    changed, settings.reiteration = _combo("Reiteration", settings.reiteration, REITERATIONS)
    dirty |= changed
    help_marker("never: every frame is one step, the first too.\ninitial: the first frame converges, then each "
                "steps.\nalways: every frame converges (the velocity bound no longer holds).")
    return dirty
