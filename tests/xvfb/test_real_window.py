"""The real app in a real X window (on Xvfb), driven by xdotool through the flows a new user goes
through: open a file with File > Open rig (the in-app path field: no desktop dialog here), set up
IK on a BVH rig, drag a hand, undo and redo, rotate a bone with R X 30 Enter, save with Ctrl+S,
quit with Ctrl+Q and answer the unsaved-changes question; then check the files the app wrote.

Widgets and bones are found where the app says it drew them (POSEKIT_WIDGETS, ``ui.frame_dump``),
never at hard-coded pixels. Each flow ends with a screenshot of the window, read from Xvfb's
framebuffer file (-fbdir) and written as a PNG under the test's tmp_path. Skipped only when Xvfb
or xdotool is missing or Xvfb cannot start. What these flows share is in tests/xvfb/helpers.py,
the display and app fixtures in tests/xvfb/conftest.py."""
import os

import numpy as np

from rig.autorig import auto_rig
from rig.formats.reader import open_rig
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED
from tests.xvfb.helpers import RealApp, bone_points, drag_handle, looks_like_the_app, quit_and_answer, save_as, \
    saved_world, tip

GLB = os.path.abspath("assets/humanoid_skinned.glb")
HAND_TOLERANCE = 1e-4
"""Metres. The handle lands on the pointer's point (a ray meeting a plane, computed here from the
camera matrices the app dumped, to rounding), and the two-bone solve puts the hand on a handle in
reach exactly (analytic; iterative solvers stop at 1e-5 m). 1e-4 m is a few hundredths of a pixel
at this framing, so a pixel's slip anywhere (a rounded pointer, an off-by-one row) fails it."""


def open_through_the_menu(app, path):
    app.choose("File", "Open rig...")
    app.answer_path(path)
    app.wait(lambda f: f["rig"] == path, f"{path} to open")


def set_up_ik(app):
    """Properties > Pose > Auto IK setup's button; returns the frame after."""
    app.click("Pose")
    app.click("Set up IK automatically")
    return app.wait(lambda f: "hand_ik.L" in f["scene"]["handles"], "IK set up")


def undo_and_redo(app, before, after):
    """Ctrl+Z puts every bone back where it was ``before``, Ctrl+Shift+Z where it was ``after``
    (both frames), exactly: history keeps the poses themselves."""
    app.key("ctrl+z")
    undone = app.wait(lambda f: f["message"] == "Undo", "Undo")
    assert np.allclose(bone_points(undone), bone_points(before), atol=1e-9), "Undo did not put the pose back"
    app.key("ctrl+shift+z")
    redone = app.wait(lambda f: f["message"] == "Redo", "Redo")
    assert np.allclose(bone_points(redone), bone_points(after), atol=1e-9), "Redo did not do it again"


def rotate_30_degrees_about_x(app, name):
    """Click bone ``name``, then R X 3 0 Enter; checks it turned 30 degrees about world X (right
    handed, as in Blender) and returns the frame after."""
    before = app.settle()
    bone = before["scene"]["bones"][name]
    vector = tip(before, name) - bone["head"]
    app.click_bone(name)
    app.move(*((np.array(bone["head_px"]) + bone["tail_px"]) / 2 + (40, 0)))  # R measures from the pointer: off the bone
    app.key("r", "x", "3", "0", "Return")
    app.wait(lambda f: not np.allclose(tip(f, name), tip(before, name)), f"{name} to turn")
    after = app.settle()  # Enter confirmed it
    c, s = np.cos(np.radians(30)), np.sin(np.radians(30))
    about_x = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    turned = tip(after, name) - after["scene"]["bones"][name]["head"]
    assert np.allclose(turned, about_x @ vector, atol=1e-6), f"{name} turned to {turned}"
    return after


@NEEDS_SHARED
def test_open_a_bvh_set_up_ik_drag_undo_redo_rotate_save_and_quit(real_app, tmp_path):
    app = real_app()  # the default rig; the BVH file comes through File > Open rig...
    open_through_the_menu(app, CMU_EXCERPT)
    before = set_up_ik(app)
    wanted, dragged = drag_handle(app, "hand_ik.L", (-50, -40))
    assert np.linalg.norm(tip(dragged, "LeftForeArm") - wanted) < HAND_TOLERANCE
    undo_and_redo(app, before, dragged)
    pose_path = tmp_path / "bvh_pose.json"
    save_as(app, pose_path)
    rig, _, _ = auto_rig(open_rig(CMU_EXCERPT).rig)  # what the app made of the file, to read its poses
    _, tails = saved_world(pose_path, rig)
    assert np.linalg.norm(tails[rig.skeleton.index["LeftForeArm"]] - wanted) < HAND_TOLERANCE

    rotated = rotate_30_degrees_about_x(app, "Head")
    looks_like_the_app(app.screenshot(tmp_path / "bvh_flow.png"), rotated)
    quit_and_answer(app, "Return")  # Save: to the file Ctrl+S chose, then quit
    app.finish()
    heads, tails = saved_world(pose_path, rig)
    head = rig.skeleton.index["Head"]
    assert np.allclose(tails[head] - heads[head], tip(rotated, "Head") - rotated["scene"]["bones"]["Head"]["head"],
                       atol=1e-6), "the saved pose lacks the rotation"
    assert np.linalg.norm(tails[rig.skeleton.index["LeftForeArm"]] - wanted) < HAND_TOLERANCE
    assert not (tmp_path / "state" / "recovery.json").exists()  # a clean exit leaves nothing to recover


def test_open_a_skinned_glb_drag_a_hand_and_quit_without_saving(real_app, tmp_path):
    out = tmp_path / "pose.json"
    app = real_app("--save-pose", str(out))
    app.key("ctrl+shift+o")  # File > Open rig's shortcut: the same question
    app.answer_path(GLB)
    app.wait(lambda f: f["rig"] == GLB, "the glTF rig to open")
    wanted, dragged = drag_handle(app, "hand_ik.L", (-60, -45))
    looks_like_the_app(app.screenshot(tmp_path / "glb_flow.png"), dragged)
    quit_and_answer(app, "Escape")  # Cancel: the work stays
    app.wait(lambda f: not RealApp.widget(f, "Save##unsaved_save"), "the question to close")
    assert app.process.poll() is None
    quit_and_answer(app, "d")  # Don't save: --save-pose still writes the pose on exit
    app.finish()
    rig = open_rig(GLB).rig
    _, tails = saved_world(out, rig)
    assert np.linalg.norm(tails[rig.skeleton.index["forearm.L"]] - wanted) < HAND_TOLERANCE
    assert not (tmp_path / "state" / "recovery.json").exists()
