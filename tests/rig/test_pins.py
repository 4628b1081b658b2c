import json

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from rig.formats.jsonfields import FileFormatError, Reader
from rig.formats.rigfile import load_pose, load_pose_data, load_rig, pose_to_dict, read_pose_data, save_pose
from rig.pins import Pin, moved_with, pin_where_it_is, pins_to_json, read_pins
from rig.pose import Pose, world_matrices
from rig.pose_ops import mirror_pins, mirror_pose
from solvers.transforms import matrix3_to_quat, quat_to_matrix3

HUMANOID = "assets/humanoid.json"


@pytest.fixture(scope="module")
def rig():
    return load_rig(HUMANOID)


def test_pin_holds_the_head_and_the_rotation_of_the_bone(rig):
    pose = Pose.rest(len(rig.skeleton))
    pose.rotations[rig.skeleton.index["thigh.L"]] = [0.0, 0.0, np.sin(0.3), np.cos(0.3)]
    world = world_matrices(rig.skeleton, pose)
    foot = rig.skeleton.index["foot.L"]
    pin = pin_where_it_is(world, foot)
    assert np.allclose(pin.position, world[foot, :3, 3])
    x, y, z, w = pin.rotation
    rotation = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                         [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                         [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    assert np.allclose(rotation, world[foot, :3, :3], atol=1e-12)
    assert not pin_where_it_is(world, foot, rotation=False).holds_rotation


def test_pins_round_trip_through_json(rig):
    pins = {"foot.L": Pin((0.1, 0.0, 0.2), (0.0, 0.0, 0.0, 1.0)), "hand.R": Pin((0.5, 1.2, 0.0))}
    reader = Reader("pose.json", {"pins": pins_to_json(pins)})
    assert read_pins(reader, rig.skeleton) == pins
    reader.check_fields()


@pytest.mark.parametrize("pins, field", [
    ({"no_such_bone": {"position": [0, 0, 0]}}, "pins.no_such_bone"),
    ({"foot.L": {"position": [0, float("nan"), 0]}}, "pins.foot.L.position"),
    ({"foot.L": {"position": [0, 0, 0], "rotation": [0, 0, 0, 0]}}, "pins.foot.L.rotation"),
])
def test_bad_pins_name_the_field(rig, pins, field):
    with pytest.raises(FileFormatError, match=field.replace(".", r"\.")):
        read_pins(Reader("pose.json", {"pins": pins}), rig.skeleton)


def test_an_unknown_key_in_a_pin_is_refused(rig):
    reader = Reader("pose.json", {"pins": {"foot.L": {"position": [0, 0, 0], "rotaton": [0, 0, 0, 1]}}})
    read_pins(reader, rig.skeleton)
    with pytest.raises(FileFormatError, match="rotaton"):
        reader.check_fields()


def pinned_pose(rig):
    pose = Pose.rest(len(rig.skeleton))
    pose.rotations[rig.skeleton.index["thigh.L"]] = [0.0, 0.0, np.sin(0.3), np.cos(0.3)]
    world = world_matrices(rig.skeleton, pose)
    index = rig.skeleton.index
    return pose, {"foot.L": pin_where_it_is(world, index["foot.L"]),
                  "foot.R": pin_where_it_is(world, index["foot.R"], rotation=False)}


def test_a_pose_file_keeps_its_pins_bit_for_bit(rig, tmp_path):
    pose, pins = pinned_pose(rig)
    path = tmp_path / "pose.json"
    save_pose(rig.skeleton, pose, path, rig.name, pins)
    read = load_pose_data(path, rig.skeleton)
    assert read.pose == pose and read.pins == pins and read.warnings == []
    assert load_pose(path, rig.skeleton) == (pose, [])  # callers posing a rig read the channels alone


def test_a_pose_without_pins_is_written_as_before_and_reads_with_none(rig, tmp_path):
    pose, _ = pinned_pose(rig)
    assert "pins" not in pose_to_dict(rig.skeleton, pose, rig.name, {})
    path = tmp_path / "old.json"
    save_pose(rig.skeleton, pose, path, rig.name)
    assert load_pose_data(path, rig.skeleton).pins == {}


def test_a_pin_on_a_bone_the_rig_lacks_is_skipped_with_a_warning_as_its_channels_are(rig):
    pose, pins = pinned_pose(rig)
    data = pose_to_dict(rig.skeleton, pose, rig.name, pins)
    data["pins"]["tail.01"] = {"position": [0, 1, 0]}
    read = read_pose_data(data, rig.skeleton, "similar.json")
    assert read.pins == pins
    assert read.warnings == ["similar.json: the pin on bone 'tail.01' is not in the rig; skipped"]


@pytest.mark.parametrize("pin, field", [
    ({"position": [0, 0]}, "pins.foot.L.position"),
    ({"position": [0, 0, 0], "rotation": [0, 0, 1e9, 1]}, "pins.foot.L.rotation"),
    ({"position": [0, 0, 0], "rotaton": [0, 0, 0, 1]}, "rotaton"),
    ("here", "pins.foot.L"),
])
def test_a_bad_pin_in_a_pose_file_names_the_file_and_field(rig, tmp_path, pin, field):
    pose, _ = pinned_pose(rig)
    data = pose_to_dict(rig.skeleton, pose, rig.name)
    data["pins"] = {"foot.L": pin}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(FileFormatError, match=f"{path}.*{field.replace('.', '[.]')}"):
        load_pose_data(path, rig.skeleton)


QUATERNIONS = st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4).map(np.array)
OFFSETS = st.lists(st.floats(-0.01, 0.01), min_size=3, max_size=3).map(np.array)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(QUATERNIONS, OFFSETS, QUATERNIONS, OFFSETS, st.floats(0.5, 2.0))
def test_a_pin_carried_with_its_bone_stays_on_it_as_it_was(turn, shift, slip_turn, slip, stretch):
    """``moved_with``: a bone turned, shifted and stretched anyhow takes its pin along; a pin that
    stood on the bone ends on it, one a little off (a solve's tolerance) ends as far off in the
    bone's frame, and a position-only pin stays one."""
    assume(np.linalg.norm(turn) > 0.1 and np.linalg.norm(slip_turn) > 0.1)
    before = np.eye(4)
    before[:3, :3] = quat_to_matrix3(np.array([0.2, -0.4, 0.1, 0.9])) * [1.0, 1.3, 1.0]  # a stretched bone
    before[:3, 3] = (0.1, 0.9, -0.2)
    after = before.copy()
    after[:3, :3] = quat_to_matrix3(turn) @ before[:3, :3] * [1.0, stretch, 1.0]
    after[:3, 3] += shift * 50.0
    on = pin_where_it_is(before[None], 0)
    np.testing.assert_allclose(moved_with(on, before, after).position, after[:3, 3], atol=1e-12)
    assert_same_turn(moved_with(on, before, after).rotation, pin_where_it_is(after[None], 0).rotation)
    off_rotation = quat_to_matrix3(slip_turn * 1e-3 + [0.0, 0.0, 0.0, 1.0]) @ quat_to_matrix3(np.array(on.rotation))
    off = Pin(tuple(np.add(on.position, slip)), tuple(matrix3_to_quat(off_rotation)))
    carried = moved_with(off, before, after)
    frame_before, frame_after = (m[:3, :3] / np.linalg.norm(m[:3, :3], axis=0) for m in (before, after))
    np.testing.assert_allclose(frame_after.T @ (np.array(carried.position) - after[:3, 3]), frame_before.T @ slip,
                               atol=1e-12)
    np.testing.assert_allclose(frame_after.T @ quat_to_matrix3(np.array(carried.rotation)),
                               frame_before.T @ off_rotation, atol=1e-12)
    assert not moved_with(Pin(on.position), before, after).holds_rotation


def assert_same_turn(a, b):
    assert min(np.abs(np.subtract(a, b)).max(), np.abs(np.add(a, b)).max()) <= 1e-12


def test_mirrored_pins_stand_where_the_mirrored_pose_puts_their_bones(rig):
    """``mirror_pins`` goes with ``mirror_pose``: each pin, position-only or not, lands on its
    bone's partner in the mirrored pose, to rounding."""
    skeleton = rig.skeleton
    pose = Pose.rest(len(skeleton))
    rng = np.random.default_rng(7)
    q = rng.normal(size=(len(skeleton), 4)) * [0.3, 0.3, 0.3, 0.0] + [0, 0, 0, 1]
    pose.rotations = q / np.linalg.norm(q, axis=1, keepdims=True)
    pose.locations[skeleton.index["pelvis"]] = (0.1, -0.05, 0.2)
    world = world_matrices(skeleton, pose)
    pins = {"foot.L": pin_where_it_is(world, skeleton.index["foot.L"]),
            "head": pin_where_it_is(world, skeleton.index["head"]),
            "hand.R": pin_where_it_is(world, skeleton.index["hand.R"], rotation=False)}
    mirrored = mirror_pins(skeleton, pins)
    assert set(mirrored) == {"foot.R", "head", "hand.L"} and not mirrored["hand.L"].holds_rotation
    mirrored_world = world_matrices(skeleton, mirror_pose(skeleton, pose))
    for name, pin in mirrored.items():
        expected = pin_where_it_is(mirrored_world, skeleton.index[name], pin.holds_rotation)
        np.testing.assert_allclose(pin.position, expected.position, atol=1e-12)
        if pin.holds_rotation:
            assert_same_turn(pin.rotation, expected.rotation)
