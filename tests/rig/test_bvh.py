"""BVH import and export: known joint positions, real-file quirks, errors with line numbers,
round trips through our rigs, a real CMU excerpt, and a fuzzed loader."""

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rig.formats.bvh import ALONG_X, bvh_document, guess_scale, load_bvh, x_keeping_roll
from rig.formats.bvh_parse import parse
from rig.formats.bvh_write import bvh_text, save_bvh
from rig.formats.reader import open_rig
from rig.formats.jsonfields import FileFormatError
from rig.pose import Pose, heads_tails, world_matrices
from rig.formats.rigfile import load_rig
from rig.skeleton import bone_frame
from solvers.transforms import quat_from_euler, quat_to_matrix3
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED

CMU = CMU_EXCERPT

SMALL = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Chest
  {
    OFFSET 0 20 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT Arm
    {
      OFFSET 30 0 0
      CHANNELS 3 Xrotation Yrotation Zrotation
      End Site
      {
        OFFSET 0 0 40
      }
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.04
0 0 0 0 0 0 0 0 0 0 0 0
10 100 0 90 0 0 0 90 0 0 0 -90
"""


def read(text, scale=0.01, frame=0):
    return bvh_document(parse(text, "t.bvh"), "t.bvh", scale, frame)


def heads_and_tails(document, pose):
    skel = document.rig.skeleton
    heads, tails = heads_tails(skel, world_matrices(skel, pose))
    return {name: (heads[i], tails[i]) for i, name in enumerate(skel.names)}


def test_small_file_puts_joints_where_the_channels_say():
    """Frame 2 worked by hand: Hips at (10, 100, 0) cm turned 90 deg about Z; Chest 20 cm up the
    turned Y (-X) and turned 90 deg about X; Arm 30 cm along Chest's X (world +Y), turned -90
    deg about Z, so its End Site (0, 0, 40) points along world +X."""
    doc = read(SMALL, frame=1)
    at = heads_and_tails(doc, doc.pose)
    np.testing.assert_allclose(at["Hips"][0], [0.1, 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(at["Chest"][0], [-0.1, 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(at["Arm"][0], [-0.1, 1.3, 0.0], atol=1e-12)
    np.testing.assert_allclose(at["Arm"][1], [0.3, 1.3, 0.0], atol=1e-12)
    assert doc.frame_times == {"motion": 0.04} and len(doc.clips["motion"]) == 2


def test_rest_skeleton_from_offsets_end_sites_and_rolls():
    doc = read(SMALL)
    skel = doc.rig.skeleton
    assert skel.names == ["Hips", "Chest", "Arm"]
    np.testing.assert_array_equal(skel.parents, [-1, 0, 1])
    np.testing.assert_allclose(skel.rest_heads, [[0, 0, 0], [0, 0.2, 0], [0.3, 0.2, 0]], atol=1e-12)
    np.testing.assert_allclose(skel.rest_tails, [[0, 0.2, 0], [0.3, 0.2, 0], [0.3, 0.2, 0.4]], atol=1e-12)
    assert list(skel.connected) == [False, True, True]
    for i in range(3):  # Blender's head/tail/roll rule, X kept on the file's X where the bone allows
        np.testing.assert_allclose(skel.rest_world[i], bone_frame(skel.rest_heads[i], skel.rest_tails[i],
                                                                  skel.rest_rolls[i]), atol=1e-12)
    np.testing.assert_allclose(skel.rest_world[0, :3, 0], [1, 0, 0], atol=1e-12)  # along Y: X stays X
    np.testing.assert_allclose(skel.rest_world[2, :3, 0], [1, 0, 0], atol=1e-12)  # along Z: X stays X
    np.testing.assert_allclose(skel.rest_world[1, :3, 2], [0, 0, 1], atol=1e-12)  # along X: Z stays Z
    assert doc.pose == Pose.rest(3)


def test_x_keeping_roll_for_every_direction():
    rng = np.random.default_rng(5)
    for d in np.concatenate([np.eye(3), -np.eye(3), rng.normal(size=(20, 3))]):
        frame = bone_frame(np.zeros(3), d, x_keeping_roll(d))
        d = d / np.linalg.norm(d)
        column, axis = (0, np.eye(3)[0]) if abs(d[0]) < ALONG_X else (2, np.eye(3)[2])
        nearest = axis - d * (d @ axis)  # the world axis made perpendicular to the bone
        np.testing.assert_allclose(frame[:3, column], nearest / np.linalg.norm(nearest), atol=1e-9)


def test_guessed_units():
    assert guess_scale(175.0) == (0.01, "centimetres")
    assert guess_scale(1.8) == (1.0, "metres")
    assert guess_scale(1700.0) == (0.001, "millimetres")
    assert guess_scale(26.0)[1].startswith("CMU")
    assert guess_scale(0.0) == (1.0, "metres")
    doc = bvh_document(parse(SMALL), "t.bvh", None)
    assert any("units guessed" in w for w in doc.warnings)


def reference_fk(text, scale):
    """Straight BVH forward kinematics (world = parent @ T(offset or positions) @ R), for checking
    the rig built from a file: returns {joint name: (F, 3) positions}."""
    data = parse(text)
    column, worlds, out = 0, [], {}
    for j in data.joints:
        values = data.frames[:, column:column + len(j.channels)]
        column += len(j.channels)
        local = np.tile(np.eye(4), (len(data.frames), 1, 1))
        local[:, :3, 3] = j.offset * scale
        axes = "".join(c[0].upper() for c in j.channels if c.endswith("rotation"))
        angles = np.radians([[v for c, v in zip(j.channels, row) if c.endswith("rotation")] for row in values])
        if axes:
            local[:, :3, :3] = quat_to_matrix3(quat_from_euler(angles, axes))
        for k, c in enumerate(j.channels):
            if c.endswith("position"):
                local[:, "xyz".index(c[0]), 3] = values[:, k] * scale
        worlds.append(local if j.parent < 0 else worlds[j.parent] @ local)
        out[j.name] = worlds[-1][:, :3, 3]
    return out


@NEEDS_SHARED
def test_cmu_excerpt_matches_plain_bvh_forward_kinematics():
    doc = load_bvh(CMU)
    text = open(CMU).read()
    scale = 0.0254 / 0.45
    expected = reference_fk(text, scale)
    assert any("CMU mocap units" in w for w in doc.warnings)
    for f, pose in enumerate(doc.clips["motion"]):
        at = heads_and_tails(doc, pose)
        for name, positions in expected.items():
            np.testing.assert_allclose(at[name][0], positions[f], atol=1e-9)
    at = heads_and_tails(doc, doc.pose)
    assert 0.9 < at["Hips"][0][1] < 1.1  # hips a metre up, feet on the floor
    assert at["LeftToeBase"][0][1] < 0.1 and at["RightToeBase"][0][1] < 0.1
    assert {"LeftUpLeg", "LeftLeg", "LeftArm", "LeftForeArm", "Head"} <= set(doc.rig.skeleton.names)


@NEEDS_SHARED
def test_open_rig_reads_bvh_by_extension():
    doc = open_rig(CMU)
    assert len(doc.clips["motion"]) == 4 and doc.pose is doc.clips["motion"][0]
    assert doc.rig.name == "cmu_01_02_excerpt"


# --- quirks of real files -------------------------------------------------------------------

def test_crlf_cr_and_tabs_read_like_plain_text():
    plain = read(SMALL, frame=1)
    for text in (SMALL.replace("\n", "\r\n").replace("  ", "\t"), SMALL.replace("\n", "\r"),
                 "\ufeff" + SMALL.replace(" ", " \t ")):
        doc = read(text, frame=1)
        assert doc.rig.skeleton.names == plain.rig.skeleton.names
        np.testing.assert_allclose(world_matrices(doc.rig.skeleton, doc.pose),
                                   world_matrices(plain.rig.skeleton, plain.pose), atol=1e-12)


def test_root_offset_is_the_rest_position_and_position_channels_replace_it():
    text = SMALL.replace("OFFSET 0 0 0", "OFFSET 5 90 0", 1)
    doc = read(text, frame=1)
    np.testing.assert_allclose(doc.rig.skeleton.rest_heads[0], [0.05, 0.9, 0.0], atol=1e-12)
    np.testing.assert_allclose(heads_and_tails(doc, doc.pose)["Hips"][0], [0.1, 1.0, 0.0], atol=1e-12)
    no_channels = text.replace("CHANNELS 6 Xposition Yposition Zposition", "CHANNELS 3").replace(
        "10 100 0 90", "90").replace("0 0 0 0 0 0 0 0 0 0 0 0", "0 0 0 0 0 0 0 0 0")
    doc = read(no_channels, frame=1)
    np.testing.assert_allclose(heads_and_tails(doc, doc.pose)["Hips"][0], [0.05, 0.9, 0.0], atol=1e-12)


def test_position_channels_on_a_non_root_joint_become_locations():
    six = SMALL.replace("CHANNELS 3 Zrotation Xrotation Yrotation",
                        "CHANNELS 6 Zrotation Xrotation Yrotation Xposition Yposition Zposition")
    same = six.replace("0 0 0 0 0 0 0 0 0 0 0 0\n", "0 0 0 0 0 0 0 0 0 0 20 0 0 0 0\n").replace(
        "0 90 0 0 0 -90", "0 90 0 0 20 0 0 0 -90")
    doc, plain = read(same, frame=1), read(SMALL, frame=1)
    for name in ("Hips", "Chest", "Arm"):
        np.testing.assert_allclose(heads_and_tails(doc, doc.pose)[name], heads_and_tails(plain, plain.pose)[name],
                                   atol=1e-12)
    moved = same.replace("0 90 0 0 20 0", "0 90 0 5 20 0")
    doc = read(moved, frame=1)
    # Chest moved 5 cm along Hips' X, which Hips' 90 deg turn about Z points along world +Y.
    np.testing.assert_allclose(heads_and_tails(doc, doc.pose)["Chest"][0], [-0.1, 1.05, 0.0], atol=1e-12)
    assert np.linalg.norm(doc.pose.locations[1]) == pytest.approx(0.05)


@pytest.mark.parametrize("header, rows", [("Frames: 5", 2), ("Frames: 1", 2), ("Frames: 99999999999999", 2)])
def test_frame_count_that_disagrees_with_the_rows_warns_and_reads_the_rows(header, rows):
    doc = read(SMALL.replace("Frames: 2", header))
    assert len(doc.clips["motion"]) == rows
    assert any(f"{rows} rows follow" in w for w in doc.warnings)


def test_cut_off_last_row_is_dropped_with_a_warning():
    doc = read(SMALL.rstrip("\n")[:-10])
    assert len(doc.clips["motion"]) == 1
    assert any("line 25: the last frame has" in w for w in doc.warnings)


def test_file_without_motion_gives_the_rest_pose():
    doc = read(SMALL[:SMALL.index("MOTION")])
    assert doc.clips["motion"] == [Pose.rest(3)] and any("no MOTION" in w for w in doc.warnings)


def test_duplicate_names_spaces_and_a_leaf_without_end_site():
    text = SMALL.replace("JOINT Arm", "JOINT Chest").replace("ROOT Hips", "ROOT My Hips")
    text = text.replace("End Site\n      {\n        OFFSET 0 0 40\n      }\n", "")
    doc = read(text)
    skel = doc.rig.skeleton
    assert skel.names == ["My Hips", "Chest", "Chest.001"]
    assert any("line 10: joint name 'Chest' is used twice" in w for w in doc.warnings)
    # The leaf continues its offset's direction (+X) for half of it (15 cm).
    np.testing.assert_allclose(skel.rest_tails[2], [0.45, 0.2, 0.0], atol=1e-12)


@NEEDS_SHARED
def test_joints_on_their_parents_head_do_not_make_zero_length_bones():
    doc = load_bvh(CMU)
    skel = doc.rig.skeleton
    assert skel.lengths.min() > 0.01
    i = skel.index["LHipJoint"]  # sits on Hips; reaches to its child LeftUpLeg
    np.testing.assert_allclose(skel.rest_tails[i], skel.rest_heads[skel.index["LeftUpLeg"]], atol=1e-12)


# --- errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace("{", "", 1), "'line 4': expected '{' after ROOT Hips, got \"OFFSET\""),
    (lambda t: t.replace("OFFSET 0 20 0", "OFFSET 0 2x0 0"), "'line 8': expected joint 'Chest''s Y offset"),
    (lambda t: t.replace("OFFSET 0 20 0", "OFFSET 0 nan 0"), "'line 8': expected joint 'Chest''s Y offset"),
    (lambda t: t.replace("OFFSET 30 0 0", "OFFSET 30 1e999 0"), "'line 12':"),
    (lambda t: t.replace("Xrotation Yrotation Zrotation", "Xrotation Yrotation Wrotation"),
     "'line 13': expected a channel name"),
    (lambda t: t.replace("CHANNELS 3 Zrot", "CHANNELS 99999999999 Zrot"), "'line 9': expected a channel count"),
    (lambda t: t.replace("    OFFSET 0 20 0\n", ""), "expected an OFFSET in joint 'Chest' (line 6)"),
    (lambda t: t.replace("}\nMOTION", "MOTION"),
     "'line 20': expected OFFSET, CHANNELS, JOINT, End Site or '}', got \"MOTION\""),
    (lambda t: t[:t.index("}\nMOTION")], "'line 19': expected OFFSET, CHANNELS, JOINT, End Site or '}', got \"the end"),
    (lambda t: t.replace("HIERARCHY", "HIERARCHYY"), "'line 1': expected 'HIERARCHY'"),
    (lambda t: "", "'line 1': expected 'HIERARCHY' at the start of the file"),
    (lambda t: t.replace("Frames: 2", "Frame 2"), "'line 22': expected 'Frames: <value>'"),
    (lambda t: t.replace("Frames: 2", "Frames: two"), "'line 22': expected a whole number of frames"),
    (lambda t: t.replace("0 0 0 0 0 0 0 0 0 0 0 0", "0 0 0 0 0 0 0 0 0 0 0"), "'line 24': expected 12 values"),
    (lambda t: t.replace("10 100 0 90", "10 100 0 9O"), "'line 25': expected a finite number"),
    (lambda t: t.replace("10 100 0 90", "10 nan 0 90"), "(frame 2, value 2)"),
    (lambda t: t.replace("10 100 0 90", "10 inf 0 90"), "'line 25'"),
])
def test_errors_name_the_line_and_what_was_expected(edit, message):
    with pytest.raises(FileFormatError) as error:
        parse(edit(SMALL), "t.bvh")
    assert message in str(error.value)
    assert str(error.value).startswith("t.bvh:") and "\n" not in str(error.value)


def test_missing_file_and_bad_arguments(tmp_path):
    with pytest.raises(FileFormatError, match="a readable file"):
        load_bvh(tmp_path / "none.bvh")
    with pytest.raises(ValueError, match="frame 7 is out of range"):
        read(SMALL, frame=7)
    with pytest.raises(ValueError, match="scale"):
        read(SMALL, scale=-1.0)


# --- export ---------------------------------------------------------------------------------

def random_poses(skeleton, count, seed):
    rng = np.random.default_rng(seed)
    poses = []
    for _ in range(count):
        pose = Pose.rest(len(skeleton))
        q = rng.normal(size=(len(skeleton), 4))
        pose.rotations = q / np.linalg.norm(q, axis=1, keepdims=True)
        pose.locations[0] = rng.normal(size=3) * 0.3
        for handle in ("hand_ik.L", "foot_ik.R"):  # IK handles move by location
            pose.locations[skeleton.index[handle]] = rng.normal(size=3) * 0.2
        pose.scales[skeleton.index["forearm.L"]] = 1.25  # IK stretch: the hand below inherits it
        poses.append(pose)
    return poses


def named(warnings, pattern):
    """The bone names a warning matching ``pattern`` (a regex with one group: the list) names."""
    found = [re.search(pattern, w) for w in warnings]
    return {name for m in found if m for name in m.group(1).split(", ")}


@pytest.mark.parametrize("order", ["ZXY", "XYZ"])
def test_humanoid_round_trip_keeps_joint_positions(order, tmp_path):
    skel = load_rig("assets/humanoid.json").skeleton
    poses = random_poses(skel, 4, seed=11)
    path = tmp_path / "humanoid.bvh"
    warnings = save_bvh(path, skel, poses, order=order)
    doc = load_bvh(path)  # written in cm; the guess must find centimetres
    assert any("centimetres" in w for w in doc.warnings)
    again = doc.rig.skeleton
    index = [again.index[name] for name in skel.names]
    moved = set()
    for pose, back in zip(poses, doc.clips["motion"]):
        heads, tails = heads_tails(skel, world_matrices(skel, pose))
        heads_back, tails_back = heads_tails(again, world_matrices(again, back))
        np.testing.assert_allclose(heads_back[index], heads, atol=1e-6)
        moved |= {skel.names[i] for i in np.flatnonzero(np.linalg.norm(tails_back[index] - tails, axis=1) > 1e-6)}
    # The warnings name exactly the bones whose tails come back elsewhere: those with several
    # children (the humanoid's root, pelvis, spine.03, clavicles) and the stretched forearm with the
    # hand that inherits its scale.
    assert named(warnings, r"the tails of (.*) read back") == {"root", "pelvis", "spine.03", "clavicle.L", "clavicle.R"}
    assert named(warnings, r"no scale: (.*) \(scaled") == {"forearm.L", "hand.L"}
    assert named(warnings, r"the tails of (.*) read back") | named(warnings, r"no scale: (.*) \(scaled") == moved
    text = path.read_text()
    assert f"CHANNELS 3 {' '.join(a + 'rotation' for a in order)}" in text  # unmoved joints: rotations only
    assert "ROOT root" in text and text.count("ROOT") == 1


def test_export_of_one_pose_with_several_roots_and_odd_names():
    rig = load_rig("assets/robot_arm.json")  # grip_ik is a second root
    skel = rig.skeleton
    skel.names[1] = "upper arm"
    pose = one_random_pose(skel, 7)
    text, warnings = bvh_text(skel, pose, scale=1.0)
    assert warnings == ["bone 'upper arm' is written as 'upper_arm'"]
    assert text.count("ROOT") == 2
    doc = bvh_document(parse(text), scale=1.0)
    heads = heads_tails(skel, world_matrices(skel, pose))[0]
    np.testing.assert_allclose(heads_tails(doc.rig.skeleton, world_matrices(doc.rig.skeleton, doc.pose))[0],
                               heads, atol=1e-9)


def one_random_pose(skeleton, seed):
    rng = np.random.default_rng(seed)
    pose = Pose.rest(len(skeleton))
    q = rng.normal(size=(len(skeleton), 4))
    pose.rotations = q / np.linalg.norm(q, axis=1, keepdims=True)
    return pose


def test_export_refuses_bad_input():
    skel = load_rig("assets/tail.json").skeleton
    pose = Pose.rest(len(skel))
    with pytest.raises(ValueError, match="rotation order"):
        bvh_text(skel, pose, order="YXY")
    pose.rotations[3] = np.nan
    with pytest.raises(ValueError, match="finite"):
        bvh_text(skel, [pose])
    with pytest.raises(ValueError, match="at least one pose"):
        bvh_text(skel, [])


# --- fuzzing --------------------------------------------------------------------------------

PIECES = ["{", "}", "JOINT", "End Site", "OFFSET", "CHANNELS", "6", "99999999999", "-1", "nan", "1e400",
          "1e308", "Xrotation", "Yposition", "ROOT", "MOTION", "Frames:", "Frame Time:", "\n", "\r", "\t",
          "0", "-", ".", "\x00", "é"]


@st.composite
def mangled(draw):
    text = draw(st.sampled_from([SMALL, SMALL[:SMALL.index("MOTION")] + "MOTION\nFrames: 1\nFrame Time: 1\n"
                                 + " ".join(["0"] * 12)]))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "cut", "replace"]))
        if kind == "insert":
            text = text[:at] + draw(st.sampled_from(PIECES)) + " " + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 12)):]
        elif kind == "cut":
            text = text[:at]
        else:
            text = text[:at] + draw(st.text(max_size=6)) + text[at + 1:]
    return text


@settings(derandomize=True, max_examples=300, deadline=None)
@given(mangled(), st.sampled_from([None, 0.01]))
def test_fuzzed_files_load_or_fail_with_a_file_format_error(text, scale):
    try:
        doc = bvh_document(parse(text, "f.bvh"), "f.bvh", scale)
    except FileFormatError as error:
        assert str(error).startswith("f.bvh:") and "\n" not in str(error)
        return
    skel = doc.rig.skeleton
    assert np.isfinite(skel.rest_world).all() and (skel.lengths > 0).all()
    for pose in doc.clips["motion"]:
        assert pose.is_finite() and np.isfinite(world_matrices(skel, pose)).all()
