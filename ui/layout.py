"""The docked layout, Blender's default screen: the 3D viewport in the middle (the dock space's
central node, which passes the pointer through to the viewport tools), the outliner above the
properties on the right, the timeline strip under the viewport; the menu bar and the status bar
(``ui.status``) take the window's top and bottom rows.

It is ImGui's own docking state, so splitters, tabs and windows can be dragged, and it is kept
between runs in ImGui's ini file in the state directory (``ui.autosave.state_dir``), written
atomically when ImGui says it changed and on exit. Deterministic runs (headless, tests) neither
read nor write it: they always start from the default layout.
"""
import os

from imgui_bundle import imgui

from rig.formats.atomic import save_bytes_atomic
from ui.autosave import state_dir

OUTLINER, PROPERTIES, TIMELINE = "Outliner", "Properties", "Timeline"
DOCKSPACE = "posekit_dockspace"
RIGHT_WIDTH = 420.0  # pixels: the right column, wide enough for the properties' six tabs unshrunk
STRIP_HEIGHT = 134.0  # pixels: the timeline panel (the tools' two rows, the timeline's header and its strip)
OUTLINER_SHARE = 0.35  # of the right column's height: the properties need more
MAX_SHARE = 0.45  # in small windows a panel never takes more of the window's width or height


def layout_path():
    return os.path.join(state_dir(), "layout.ini")


def _split(node, direction, pixels, across):
    """Split ``node`` (``across`` pixels wide in the split's axis) giving ``pixels`` of it to the
    side ``direction``; returns (that side's node, the rest's node)."""
    available = across - imgui.get_style().docking_separator_size
    ratio = min(pixels / max(available, 1.0), MAX_SHARE)
    result = imgui.internal.dock_builder_split_node(node, direction, ratio)
    return result.id_at_dir, result.id_at_opposite_dir


def build_default(dockspace_id, viewport):
    """Replace whatever layout ``dockspace_id`` had with the default one over ``viewport``'s work
    area. The panels have fixed pixel sizes so that, as in Blender, a bigger window gives its
    room to the viewport."""
    internal = imgui.internal
    internal.dock_builder_remove_node(dockspace_id)
    internal.dock_builder_add_node(dockspace_id, internal.DockNodeFlagsPrivate_.dock_space)
    internal.dock_builder_set_node_pos(dockspace_id, viewport.work_pos)
    internal.dock_builder_set_node_size(dockspace_id, viewport.work_size)
    size = viewport.work_size
    right, rest = _split(dockspace_id, imgui.Dir.right, RIGHT_WIDTH, size.x)
    outliner, properties = _split(right, imgui.Dir.up, OUTLINER_SHARE * size.y, size.y)
    timeline, _ = _split(rest, imgui.Dir.down, STRIP_HEIGHT, size.y)
    for window, node in ((OUTLINER, outliner), (PROPERTIES, properties), (TIMELINE, timeline)):
        internal.dock_builder_dock_window(window, node)
    internal.dock_builder_finish(dockspace_id)


def central_rect(dockspace_id):
    """The central node's (left, top, right, bottom) window pixels: the viewport's free part."""
    node = imgui.internal.dock_builder_get_central_node(dockspace_id)
    return node.pos.x, node.pos.y, node.pos.x + node.size.x, node.pos.y + node.size.y


def _has_layout(dockspace_id):
    node = imgui.internal.dock_builder_get_node(dockspace_id)
    return node is not None and node.is_split_node()


class DockLayout:
    """The dock space of one ImGui context. ``ini_path``: where the layout is kept between runs
    (None: nowhere). Make it after ImGui's context and before its first frame; ``begin`` once a
    frame before the docked windows; ``save_if_changed`` after each frame; ``save`` on exit."""

    def __init__(self, ini_path=None):
        self.ini_path = ini_path
        self.reset_asked = False
        self.first_frame = True
        self.dockspace_id = 0  # ImGui's ID for the dock space, known from the first frame
        self.floating = []  # this frame's undocked panels: (left, top, right, bottom) window pixels
        io = imgui.get_io()
        io.config_flags |= imgui.ConfigFlags_.docking_enable
        io.set_ini_filename(None)  # read and written here: atomically, only where ini_path says
        if ini_path and os.path.isfile(ini_path):
            imgui.load_ini_settings_from_disk(ini_path)

    def reset(self):
        """Put the default layout back on the next frame (Window > Reset Layout)."""
        self.reset_asked = True

    def begin(self):
        """Submit the dock space over the window's work area (between the menu bar and the status
        bar), building the default layout first on a reset or when none was read; returns the
        central node's (left, top, right, bottom) window pixels."""
        viewport = imgui.get_main_viewport()
        self.dockspace_id = imgui.get_id(DOCKSPACE)
        if self.reset_asked or (self.first_frame and not _has_layout(self.dockspace_id)):
            build_default(self.dockspace_id, viewport)
        self.reset_asked = self.first_frame = False
        self.floating = []
        # No background of its own: the docked windows paint theirs, and filling the window twice
        # doubled the idle frame's time on a software renderer.
        imgui.push_style_color(imgui.Col_.window_bg, imgui.ImVec4(0.0, 0.0, 0.0, 0.0))
        imgui.dock_space_over_viewport(self.dockspace_id, viewport, imgui.DockNodeFlags_.passthru_central_node)
        imgui.pop_style_color()
        return central_rect(self.dockspace_id)

    def note_window(self):
        """Call inside a panel's window: one not docked in the dock space (undocked, alone or with
        others, floating over the viewport) goes into ``floating``."""
        window = imgui.internal.get_current_window()
        node = window.dock_node
        if node is None or imgui.internal.dock_node_get_root_node(node).id_ != self.dockspace_id:
            self.floating.append((window.pos.x, window.pos.y, window.pos.x + window.size.x, window.pos.y + window.size.y))

    def save(self):
        """Write the layout to ``ini_path`` (when there is one); returns an error message or ""."""
        io = imgui.get_io()
        io.want_save_ini_settings = False
        if not self.ini_path or self.first_frame:  # before any frame there is nothing to keep
            return ""
        try:
            os.makedirs(os.path.dirname(self.ini_path), exist_ok=True)
            save_bytes_atomic(self.ini_path, imgui.save_ini_settings_to_memory().encode())
        except OSError as error:
            return f"cannot save the window layout: {error}"
        return ""

    def save_if_changed(self):
        """``save`` once ImGui says the layout changed (it waits a few seconds after a change)."""
        return self.save() if imgui.get_io().want_save_ini_settings else ""
