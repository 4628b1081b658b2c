"""The real app in a real X window (on Xvfb), driven by xdotool through the posing tools a user
reaches for after the first drag: pinning the feet and pulling the body by a hand (whole-body
solve), keying poses on the timeline and playing them, standing the figure on a ground scene and
planting its feet. Each flow checks what the app drew (POSEKIT_WIDGETS) and the files it wrote,
and leaves a screenshot of the window under the test's tmp_path (see tests/xvfb/helpers.py)."""
import os

import numpy as np

from rig.formats.ground_file import read_ground
from rig.formats.reader import open_rig
from rig.formats.rigfile import load_pose, load_pose_data, save_pose
from solvers.tolerances import PIN_POSITION
from tests.rig.test_planting import PARTS, standing_over
from tests.test_plant_cli import check_soles
from tests.xvfb.helpers import RealApp, bone_points, drag_handle, looks_like_the_app, quit_and_answer, save_as, \
    saved_world, tip
from ui.timeline_panel import COLOURS, MARKER_RADIUS, x_of

HUMANOID = os.path.abspath("assets/humanoid.json")
GROUND = os.path.abspath("assets/ground_test.glb")
PULL = (130, -30)
"""Pixels: the left hand's handle dragged this far to the right of the figure, over twice the
arm's length on screen at this framing, so the arm alone cannot reach and the body must lean."""
FOLLOWED = 0.01  # metres: the hips moved at least this far when the body followed the hand
REACHED = 1e-4
"""Metres: the hand on its handle after a whole-body solve (iterative: it stops at 1e-5 m)."""
FEET = ("foot.L", "foot.R")
FOOT_CLICK = 0.75  # along the foot from its head: clear of its IK handle's cube


def frame_value(frame):
    """The timeline's current frame, as its frame field shows it."""
    return RealApp.widget(frame, "##current_frame")["value"]


def whole_body(frame):
    return RealApp.widget(frame, "Whole body")["value"]


def heads(frame, names):
    return np.array([frame["scene"]["bones"][name]["head"] for name in names])


def arm_length(frame):
    """The left arm's reach from its shoulder: upper arm and forearm end to end."""
    return sum(np.linalg.norm(tip(frame, bone) - heads(frame, [bone])[0]) for bone in ("upper_arm.L", "forearm.L"))


def test_pin_the_feet_pull_a_hand_past_reach_save_and_undo(real_app, tmp_path):
    app = real_app(HUMANOID)
    start = app.settle()
    assert not whole_body(start), "Whole body is on with nothing pinned"
    # A foot's IK handle sits on its head and wins the click there (ui.selection.HANDLE_BIAS_PX):
    # a user picks the foot toward its toe.
    app.click_bone("foot.L", along=FOOT_CLICK)
    app.click_bone("foot.R", shift=True, along=FOOT_CLICK)
    app.key("p")
    pinned = app.wait(lambda f: f["message"] == "Pinned foot.L, foot.R", "both feet to pin")
    assert whole_body(pinned), "pinning did not turn the whole-body solve on"
    looks_like_the_app(app.screenshot(tmp_path / "pinned.png"), pinned)

    wanted, pulled = drag_handle(app, "hand_ik.L", PULL)
    shoulder = heads(pinned, ["upper_arm.L"])[0]
    assert np.linalg.norm(wanted - shoulder) > arm_length(pinned) + FOLLOWED, "the pull was meant to be out of reach"
    hand = tip(pulled, "forearm.L")
    assert np.linalg.norm(hand - wanted) < REACHED, "the body did not bring the hand to the handle"
    pelvis_moved = np.linalg.norm(heads(pulled, ["pelvis"]) - heads(pinned, ["pelvis"]))
    assert pelvis_moved > FOLLOWED, "the body did not follow the hand"
    assert np.abs(heads(pulled, FEET) - heads(start, FEET)).max() < PIN_POSITION, "a pinned foot moved"
    looks_like_the_app(app.screenshot(tmp_path / "pulled.png"), pulled)

    pose_path = tmp_path / "pinned_pose.json"
    save_as(app, pose_path)
    rig = open_rig(HUMANOID).rig
    saved = load_pose_data(str(pose_path), rig.skeleton)
    assert sorted(saved.pins) == sorted(FEET)
    assert all(saved.pins[name].holds_rotation for name in FEET), "P pins the rotation too"
    saved_heads, saved_tails = saved_world(pose_path, rig)
    index = rig.skeleton.index
    assert np.abs(saved_heads[[index[name] for name in FEET]] - heads(start, FEET)).max() < PIN_POSITION
    assert np.allclose(saved_tails[index["forearm.L"]], hand, atol=1e-6), "the saved pose is not the one shown"

    app.key("ctrl+z")  # the drag
    undone = app.wait(lambda f: f["message"] == "Undo", "Undo")
    assert np.allclose(bone_points(undone), bone_points(pinned), atol=1e-9), "Undo did not put the pose back"
    assert whole_body(undone), "undoing the drag took the pins"
    app.key("ctrl+z")  # the pin
    unpinned = app.wait(lambda f: not whole_body(f), "Undo to take the pins off")
    assert np.allclose(bone_points(unpinned), bone_points(start), atol=1e-9)
    app.key("ctrl+s")  # to the file chosen above
    app.wait(lambda f: f["message"] == f"Saved {pose_path}", "the pose to save again")
    assert load_pose_data(str(pose_path), rig.skeleton).pins == {}, "the undone pins were saved"


def key_columns(image, strip):
    """The window columns where the timeline strip (its rect) shows a key marker's colour."""
    left, top, right, bottom = (int(v) for v in strip)
    key = np.array(COLOURS["key"][:3]) * 255
    rows = image[top:bottom, :right + int(MARKER_RADIUS) + 2].astype(float)
    return np.flatnonzero((np.abs(rows - key).max(axis=2) <= 4).any(axis=0))


def test_key_two_frames_step_between_them_play_and_quit(real_app, tmp_path):
    app = real_app(HUMANOID)
    first = app.settle()
    app.key("i")  # nothing selected: every bone
    app.wait(lambda f: f["message"] == "Keyed every bone at frame 0", "a key at frame 0")
    app.key(*["Right"] * 10)
    app.wait(lambda f: frame_value(f) == 10, "frame 10")
    _, posed = drag_handle(app, "hand_ik.L", (60, -40))
    app.key("i")  # the dragged handle is selected
    keyed = app.wait(lambda f: f["message"] == "Keyed 1 bone at frame 10", "a key at frame 10")
    keyed_image = app.screenshot(tmp_path / "keyed.png")
    looks_like_the_app(keyed_image, keyed)

    app.key("Down")  # the key before
    back = app.wait(lambda f: frame_value(f) == 0, "the key at frame 0")
    assert np.allclose(bone_points(back), bone_points(first), atol=1e-6), "frame 0 does not show its key"
    app.key("Down")
    app.wait(lambda f: f["message"] == "No key before frame 0", "the first key to say so")
    app.key("shift+Right")
    last = frame_value(app.wait(lambda f: frame_value(f) > 10, "the last frame"))
    app.key("shift+Left")
    app.wait(lambda f: frame_value(f) == 0, "the first frame")
    app.key("Up")  # the key after
    on = app.wait(lambda f: frame_value(f) == 10, "the key at frame 10")
    assert np.allclose(bone_points(on), bone_points(posed), atol=1e-6), "frame 10 does not show its key"
    strip = RealApp.widget(keyed, "timeline_strip")["rect"]
    markers = [x_of(frame, strip[0], strip[2] - strip[0], (0, last)) for frame in (0, 10)]
    columns = key_columns(keyed_image, strip)
    assert len(columns) and all(min(abs(c - x) for x in markers) <= MARKER_RADIUS + 1 for c in columns), columns
    assert all(np.any(abs(columns - x) <= MARKER_RADIUS) for x in markers), f"no marker at {markers}: {columns}"

    app.key("space")
    shown = []
    app.wait(lambda f: shown.append(frame_value(f)) or len(set(shown)) >= 5, "the clip to play", timeout=10)
    assert shown == sorted(shown) and shown[-1] <= last, f"played {shown}"
    app.key("space")
    paused = app.until_idle()  # playing draws every frame: idle means paused
    assert frame_value(paused) == frame_value(app.frame()) > 10
    looks_like_the_app(app.screenshot(tmp_path / "paused.png"), paused)

    quit_and_answer(app, "d")  # Don't save
    _, err = app.finish()
    assert "Traceback" not in err, err


def test_open_a_ground_plant_the_feet_and_save(real_app, tmp_path):
    rig = open_rig(HUMANOID).rig
    over_the_stairs = tmp_path / "over_the_stairs.json"
    save_pose(rig.skeleton, standing_over(rig, PARTS["stairs"], stride=True), str(over_the_stairs), rig.name)
    app = real_app(HUMANOID, "--pose", str(over_the_stairs))
    app.choose("File", "Open Ground...")
    app.answer_path(GROUND)
    triangles = len(read_ground(GROUND).ground)
    app.wait(lambda f: f["message"] == f"Ground: {GROUND} ({triangles} triangles)", "the ground to open")
    app.choose("Edit", "Plant feet")
    planted = app.wait(lambda f: f["message"].startswith("Feet planted"), "the feet to plant")
    assert planted["message"] == "Feet planted (leg.L, leg.R)", planted["message"]
    app.click("View")
    app.wait(lambda f: RealApp.widget(f, "Plant feet (live)"), "the View tab's Ground section")
    app.key("Home")  # frame every bone: the planted feet were framed under the timeline
    ground_tab = app.until_idle()
    assert RealApp.widget(ground_tab, "Contact")["value"] is False
    looks_like_the_app(app.screenshot(tmp_path / "planted.png"), ground_tab)

    pose_path = tmp_path / "planted.json"
    save_as(app, pose_path)
    pose, _ = load_pose(str(pose_path), rig.skeleton)
    check_soles(rig, pose, read_ground(GROUND).ground)
