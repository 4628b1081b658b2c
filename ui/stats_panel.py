"""The Solver tab's stats: frame and solve times, iterations, residuals per chain, and the
settings a method did not honour."""
from imgui_bundle import imgui

from ui import widgets
from ui.honoured import WARNING_COLOUR
from ui.panels import help_marker, wrapped

# Residuals below this (metres or radians) are rounding noise at any rig's scale, and differ
# between CPUs: shown as 0, so the same solve reads the same everywhere.
RESIDUAL_NOISE = 1e-12


def residual_text(value, digits):
    """A residual in scientific notation with ``digits`` decimals; noise reads as 0."""
    return f"{0.0 if abs(value) < RESIDUAL_NOISE else value:.{digits}e}"


def stats_panel(state):
    stats = state.stats
    if state.deterministic:
        imgui.text_disabled("timings hidden in deterministic mode")
    else:
        imgui.text(f"frame {stats.frame_ms:6.2f} ms   solve {stats.solve_us:7.1f} us")
    residuals = [f"{residual_text(value, 2)} {unit}" for value, unit in ((stats.error, "m"), (stats.angle_error, "rad"))
                 if value is not None]
    imgui.text(f"iterations {stats.iterations}   residual {', '.join(residuals) or 'none'}")
    imgui.text(f"joints at a limit {stats.at_limit}")
    if widgets.tree_node("Chains"):
        for report in state.reports:
            residuals = ", ".join(f"{r.goal} {residual_text(r.value, 1)} {r.unit}" for r in report.residuals) or \
                f"{residual_text(report.error, 1)} {report.unit}"
            imgui.text_disabled(f"{report.bone}: {report.solver} {report.iterations} it {residuals}")
        imgui.tree_pop()
    help_marker("Per chain: the methods that ran, iterations, and each goal's residual (metres for a position or "
                "distance, radians for a rotation).")
    notes = [f"{report.bone}: not honoured: {note}" for report in state.reports for note in report.notes]
    for note in notes:  # outside the tree node, so a dropped setting never hides
        wrapped(note, WARNING_COLOUR)
