"""The outliner: the bone tree as rows, drawn only where they are on screen, so a rig of 100,000
bones (or a chain 100,000 deep) costs no more per frame than the rows that fit. Each row ends in
its bone's viewport visibility toggle, as Blender's eye; a hidden bone's row is dimmed and, as in
the viewport, takes no selection. A right click on a row pins or unpins its bone; a pinned bone's
row shows a pin toggle."""
from dataclasses import dataclass, field

import numpy as np
from imgui_bundle import imgui

from ui import widgets
from ui.pin_widgets import outliner_pin_items, outliner_pin_toggle
from ui.selection import set_hidden

OUTLINER_INDENT = 9.0
VISIBILITY_TIP = "Hide / show in viewport"


@dataclass
class OutlinerState:
    """Which bones are folded (their subtrees hidden), and the visible rows worked out for them."""
    collapsed: set = field(default_factory=set)
    rows: np.ndarray = None
    rows_for: tuple = None


def visible_rows(preorder, collapsed):
    """Bones in outliner order with the subtrees of ``collapsed`` bones left out."""
    if not collapsed:
        return preorder.order
    keep = np.ones(len(preorder.order), dtype=bool)
    position = np.empty(len(preorder.order), dtype=np.int64)
    position[preorder.order] = np.arange(len(preorder.order))
    for bone in collapsed:
        keep[position[bone] + 1:preorder.end[bone]] = False
    return preorder.order[keep]


def _rows(state):
    outliner, skeleton = state.outliner, state.rig.skeleton
    key = (id(skeleton), frozenset(outliner.collapsed))
    if outliner.rows_for != key:
        outliner.rows, outliner.rows_for = visible_rows(skeleton.preorder(), outliner.collapsed), key
    return outliner.rows


ROW_FLAGS = (imgui.TreeNodeFlags_.open_on_arrow | imgui.TreeNodeFlags_.span_avail_width
             | imgui.TreeNodeFlags_.no_tree_push_on_open | imgui.TreeNodeFlags_.allow_overlap)  # the toggle over its end


def _row(state, bone, depth, has_children):
    name = state.rig.skeleton.names[bone]
    flags = ROW_FLAGS
    if not has_children:
        flags |= imgui.TreeNodeFlags_.leaf
    if name in state.view.selected:
        flags |= imgui.TreeNodeFlags_.selected
    imgui.set_cursor_pos_x(imgui.get_cursor_pos_x() + depth * OUTLINER_INDENT)
    imgui.set_next_item_open(bone not in state.outliner.collapsed)
    hidden = name in state.view.hidden
    if hidden:  # still listed, as in Blender's outliner, but dimmed: the viewport neither draws nor picks it
        imgui.push_style_color(imgui.Col_.text, imgui.get_style_color_vec4(imgui.Col_.text_disabled))
    imgui.push_id(int(bone))
    widgets.tree_node_ex(name, flags)
    if hidden:
        imgui.pop_style_color()
    if imgui.is_item_toggled_open():
        state.outliner.collapsed ^= {bone}
    elif imgui.is_item_clicked() and not hidden:
        extend = imgui.get_io().key_shift or imgui.get_io().key_ctrl
        state.view.selected = (state.view.selected | {name}) if extend else {name}
        state.view.active = name
    outliner_pin_items(state, name)
    outliner_pin_toggle(state, name)
    _visibility_toggle(state, name, hidden)
    imgui.pop_id()


def _visibility_toggle(state, name, hidden):
    """A small checkbox at the row's right end, ticked while the bone is shown; a click hides or
    shows the bone as H and Alt+H do (one undo step)."""
    imgui.same_line()
    size = imgui.get_text_line_height()
    imgui.set_cursor_pos_x(imgui.get_cursor_pos_x() + max(imgui.get_content_region_avail().x - size, 0.0))
    imgui.push_style_var(imgui.StyleVar_.frame_padding, imgui.ImVec2(0.0, 0.0))  # as tall as the row's text
    clicked, shown = widgets.checkbox(f"##show {name}", not hidden)
    imgui.pop_style_var()
    if imgui.is_item_hovered():
        imgui.set_tooltip(VISIBILITY_TIP)
    if clicked:
        view = state.view
        set_hidden(view, view.hidden - {name} if shown else view.hidden | {name})


def outliner_panel(state):
    """The bone tree; a click selects (Shift or Ctrl adds), the arrow folds a subtree, the toggle at
    a row's end hides or shows its bone."""
    skeleton = state.rig.skeleton
    preorder = skeleton.preorder()
    rows = _rows(state)
    imgui.begin_child("bones", imgui.ImVec2(0.0, 0.0), imgui.ChildFlags_.borders)  # the whole window
    clipper = imgui.ListClipper()
    clipper.begin(len(rows))
    while clipper.step():
        for bone in rows[clipper.display_start:clipper.display_end].tolist():
            _row(state, bone, int(preorder.depth[bone]), len(skeleton.children(bone)) > 0)
    clipper.end()
    imgui.end_child()
