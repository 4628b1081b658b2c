"""glTF import (containers, skins, bind pose, mesh, animation, bad files) and export (round trips,
the Khronos validator on every file written)."""
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from rig.formats.document import ImportOptions
from rig.formats.reader import open_rig
from rig.formats.gltf import read_gltf, write_glb
from rig.formats.jsonfields import FileFormatError
from rig.pose import Pose, heads_tails, world_matrices
from rig.formats.rigfile import load_rig
from solvers.transforms import compose, quat_from_axis_angle
from tests.gltf_validator import assert_valid
from tests.rig import gltf_builder as gb

HEADS = [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 2.0, 0.0]]


@pytest.fixture
def arm():
    return gb.document()


def _containers(tmp_path, gltf, data):
    return {
        "gltf+bin": gb.write_gltf_bin(tmp_path, gltf, data),
        "glb": gb.write_glb(tmp_path, gltf, data),
        "octet-stream": gb.write_embedded(tmp_path, gltf, data, "application/octet-stream", "octet"),
        "gltf-buffer": gb.write_embedded(tmp_path, gltf, data, "application/gltf-buffer", "buffer"),
    }


@pytest.mark.parametrize("form", ["gltf+bin", "glb", "octet-stream", "gltf-buffer"])
def test_every_container_reads_the_same_skin(tmp_path, arm, form):
    document = open_rig(_containers(tmp_path, *arm)[form])
    skeleton = document.rig.skeleton
    assert skeleton.names == ["upper", "lower", "hand"]  # hierarchy order, though the skin lists hand first
    assert skeleton.parents.tolist() == [-1, 0, 1]
    np.testing.assert_allclose(skeleton.rest_heads, HEADS, atol=1e-6)
    # Tails reach the child joint; the leaf continues its parent at half its length.
    np.testing.assert_allclose(skeleton.rest_tails, [[0, 1, 0], [0, 2, 0], [0, 2.5, 0]], atol=1e-6)
    assert skeleton.connected.tolist() == [False, True, True]
    assert document.pose is not None and np.allclose(world_matrices(skeleton, document.pose), skeleton.rest_world)
    assert document.mesh is not None and document.mesh.vertex_count == 18
    assert list(document.clips) == ["wave"]


def test_unnamed_nodes_are_named_after_their_index(tmp_path):
    document = read_gltf(gb.write_glb(tmp_path, *gb.document(names=False)))
    assert document.rig.skeleton.names == ["node_1", "node_2", "node_3"]


def test_roll_keeps_the_joint_x_axis_as_blender_would(tmp_path):
    """A joint turned 30 degrees about its bone: our bone X follows the joint's X axis."""
    document = read_gltf(gb.write_glb(tmp_path, *gb.document(twist=np.pi / 6)))
    skeleton = document.rig.skeleton
    np.testing.assert_allclose(skeleton.rest_rolls, np.pi / 6, atol=1e-6)
    np.testing.assert_allclose(skeleton.rest_world[0, :3, 0], [np.cos(np.pi / 6), 0, -np.sin(np.pi / 6)], atol=1e-6)


def test_node_map_converts_poses_both_ways_exactly(tmp_path):
    document = read_gltf(gb.write_glb(tmp_path, *gb.document(twist=0.4)))
    rng = np.random.default_rng(3)
    pose = Pose(quat_from_axis_angle(rng.normal(size=(3, 3)), rng.uniform(-2, 2, 3)), rng.normal(size=(3, 3)),
                rng.uniform(0.5, 2.0, (3, 3)))
    node_map = document.source.node_map
    back = node_map.pose_from_locals(node_map.node_locals(pose))
    skeleton = document.rig.skeleton
    np.testing.assert_allclose(world_matrices(skeleton, back), world_matrices(skeleton, pose), atol=1e-9)


def test_node_map_reproduces_the_file_node_transforms(tmp_path):
    """The file's own node TRS come back from the document's pose: the map is the glTF hierarchy."""
    gltf, data = gb.document()
    gltf["nodes"][2]["rotation"] = quat_from_axis_angle([1, 0, 0], 0.7).tolist()
    document = read_gltf(gb.write_glb(tmp_path, gltf, data))
    locals_ = document.source.node_map.node_locals(document.pose)
    expected = compose([[0, 0, 0], [0, 0, 2], [0, 0, 2]],
                       [[0, 0, 0, 1], quat_from_axis_angle([1, 0, 0], 0.7), [0, 0, 0, 1]])
    np.testing.assert_allclose(locals_, expected, atol=1e-9)
    heads, _ = heads_tails(document.rig.skeleton, world_matrices(document.rig.skeleton, document.pose))
    np.testing.assert_allclose(heads[2], [0, 1 + np.cos(0.7), np.sin(0.7)], atol=1e-6)


def test_mesh_joints_map_to_bones_and_skin_with_the_pose(tmp_path, arm):
    document = read_gltf(gb.write_glb(tmp_path, *arm))
    mesh, skeleton = document.mesh, document.rig.skeleton
    np.testing.assert_allclose(mesh.positions[:2], [[-0.2, 0, 0], [0.2, 0, 0]], atol=1e-6)
    bottom, top = 0, mesh.vertex_count - 1  # y = 0 on the upper bone; y = 2 on the hand joint
    assert mesh.joints[bottom, 0] == skeleton.index["upper"] and mesh.weights[bottom, 0] == 1.0
    assert mesh.joints[top, 1] == skeleton.index["hand"] and mesh.weights[top, 1] == 1.0
    np.testing.assert_allclose(mesh.weights.sum(axis=1), 1.0, atol=1e-6)
    pose = Pose.rest(3)
    pose.rotations[1] = quat_from_axis_angle([1, 0, 0], np.pi / 2)  # bend the lower bone toward +Z
    posed = mesh.skinned_positions(world_matrices(skeleton, pose))
    np.testing.assert_allclose(posed[top], [0.2, 1.0, 1.0], atol=1e-6)
    np.testing.assert_allclose(posed[bottom], mesh.positions[bottom], atol=1e-6)


def test_weights_not_summing_to_one_are_normalised_with_a_warning(tmp_path):
    document = read_gltf(gb.write_glb(tmp_path, *gb.document(weights_scale=0.5)))
    np.testing.assert_allclose(document.mesh.weights.sum(axis=1), 1.0, atol=1e-6)
    assert any("18 vertices had skin weights not summing to 1" in w for w in document.warnings)


def test_animation_channels_interpolate_per_the_spec(tmp_path, arm):
    document = read_gltf(gb.write_glb(tmp_path, *arm))
    source, skeleton = document.source, document.rig.skeleton
    lower, hand = skeleton.index["lower"], skeleton.index["hand"]
    quarter = source.sample("wave", 0.25)  # LINEAR rotation: slerp half way to 45 degrees
    np.testing.assert_allclose(quarter.rotations[lower], quat_from_axis_angle([1, 0, 0], np.pi / 8), atol=1e-6)
    # STEP translation holds the first key until 0.5 s; armature units are half a metre.
    np.testing.assert_allclose(quarter.locations[hand], [0, 0, 0], atol=1e-6)
    np.testing.assert_allclose(source.sample("wave", 0.5).locations[hand], [0, 0.5, 0], atol=1e-6)
    # CUBICSPLINE: the key values (not the 99 tangents), linearly in between; armature Y is bone -Z.
    np.testing.assert_allclose(quarter.scales[hand], [1, 1, 1.5], atol=1e-6)
    np.testing.assert_allclose(source.sample("wave", 5.0).scales[hand], [1, 1, 3], atol=1e-6)
    frames = document.clips["wave"]
    assert len(frames) == 31  # 0..1 s at 30 frames a second
    np.testing.assert_allclose(world_matrices(skeleton, frames[15]), world_matrices(skeleton, source.sample("wave", 0.5)))
    assert any("not joints of the skin" in w for w in document.warnings)  # the armature's channel


def test_several_skins_read_the_first_by_default_and_warn(tmp_path):
    path = gb.write_glb(tmp_path, *gb.document(second_skin=True))
    first = read_gltf(path)
    assert first.rig.skeleton.names == ["upper", "lower", "hand"]
    assert any("2 skins" in w for w in first.warnings)
    second = read_gltf(path, skin=1)
    assert second.rig.skeleton.names == ["lower", "hand"]
    assert second.mesh is None  # no node draws the second skin
    with pytest.raises(FileFormatError, match="skin index 2 to exist"):
        read_gltf(path, skin=2)


def _set(gltf, path, value):
    *parents, last = path
    target = gltf
    for key in parents:
        target = target[key]
    if value is _DELETE:
        del target[last]
    else:
        target[last] = value


_DELETE = object()

BAD_FIELDS = [
    (("skins",), [], "skins"),
    (("skins", 0, "joints", 0), 99, "skins[0].joints[0]"),
    (("skins", 0, "joints", 0), "a", "'skins[0].joints[0]': expected a node index"),
    (("skins", 0, "joints"), [1, 1], "skins[0].joints"),
    (("nodes", 3, "children"), [1], "nodes[3].children[0]"),  # a cycle: hand -> upper
    (("nodes", 1, "children"), [1], "nodes[1].children[0]"),
    (("nodes", 2, "translation"), [0, 1], "nodes[2].translation"),
    (("nodes", 2, "translation"), [0, "x", 0], "'nodes[2].translation': expected 3 finite numbers"),
    (("nodes", 2, "rotation"), [0, 0, 0, 0], "nodes[2].rotation"),
    (("nodes", 2, "matrix"), [float("nan")] * 16, "nodes[2].matrix"),
    (("accessors", 0, "count"), 10 ** 12, "accessors[0].count"),
    (("accessors", 0, "count"), -1, "accessors[0].count"),
    (("accessors", 0, "componentType"), 1234, "accessors[0].componentType"),
    (("accessors", 0, "type"), "VEC2", "accessors[0].type"),
    (("accessors", 1, "bufferView"), 50, "accessors[1].bufferView"),
    (("bufferViews", 0, "byteLength"), 10 ** 9, "bufferViews[0].byteLength"),
    (("bufferViews", 0, "byteStride"), 3, "bufferViews[0].byteStride"),
    (("buffers", 0, "uri"), "missing.bin", "buffers[0].uri"),
    (("buffers", 0, "uri"), "data:text/plain;base64,AAAA", "buffers[0].uri"),
    (("buffers", 0, "uri"), "http://example.com/x.bin", "buffers[0].uri"),
    (("buffers", 0, "byteLength"), 10 ** 9, "buffers[0].byteLength"),
    (("meshes", 0, "primitives", 0, "indices"), 0, "indices"),
    (("animations", 0, "samplers", 0, "interpolation"), "BEZIER", "interpolation"),
    (("animations", 0, "channels", 0, "sampler"), 7, "channels[0].sampler"),
    (("nodes", 0, "scale"), [0, 1, 1], "nodes[0]"),  # a fuzzing find: a singular armature
    (("animations", 0, "channels", 1), None, "animations[0].channels[1]"),  # a fuzzing find
    (("asset", "version"), "1.0", "asset.version"),
    (("asset",), _DELETE, "asset.version"),
]


@pytest.mark.parametrize("path, value, field", BAD_FIELDS, ids=[f for _, _, f in BAD_FIELDS])
def test_bad_fields_raise_one_line_errors_naming_the_field(tmp_path, arm, path, value, field):
    gltf, data = arm
    gltf = json.loads(json.dumps(gltf))
    gltf["buffers"][0]["uri"] = "arm.bin"
    (tmp_path / "arm.bin").write_bytes(data)
    _set(gltf, path, value)
    bad = tmp_path / "bad.gltf"
    bad.write_text(json.dumps(gltf))
    with pytest.raises(FileFormatError) as error:
        read_gltf(bad)
    message = str(error.value)
    assert field in message and "\n" not in message and str(bad) in message


def test_nan_inverse_bind_matrices_are_refused(tmp_path, arm):
    gltf, data = arm
    accessor = gltf["accessors"][gltf["skins"][0]["inverseBindMatrices"]]
    view = gltf["bufferViews"][accessor["bufferView"]]
    data = bytearray(data)
    data[view["byteOffset"]:view["byteOffset"] + 4] = np.float32(np.nan).tobytes()
    with pytest.raises(FileFormatError, match="inverseBindMatrices"):
        read_gltf(gb.write_glb(tmp_path, gltf, bytes(data)))


def test_out_of_range_joint_and_vertex_indices_are_refused(tmp_path, arm):
    gltf, data = arm
    prim = gltf["meshes"][0]["primitives"][0]
    for attribute, field in ((prim["attributes"]["JOINTS_0"], "JOINTS_0"), (prim["indices"], "indices")):
        view = gltf["bufferViews"][gltf["accessors"][attribute]["bufferView"]]
        broken = bytearray(data)
        broken[view["byteOffset"]:view["byteOffset"] + 2] = np.uint16(999).tobytes()
        with pytest.raises(FileFormatError, match=field):
            read_gltf(gb.write_glb(tmp_path, gltf, bytes(broken)))


@pytest.mark.parametrize("cut", [0, 3, 12, 19, 40, 200, -1])
def test_truncated_glb_files_are_refused(tmp_path, arm, cut):
    data = gb.glb_bytes(*arm)
    path = tmp_path / "cut.glb"
    path.write_bytes(data[:cut] if cut >= 0 else data[:-4])
    with pytest.raises(FileFormatError):
        read_gltf(path)


def test_not_a_gltf_file(tmp_path):
    path = tmp_path / "x.gltf"
    path.write_bytes(b"\xff\xfe not json")
    with pytest.raises(FileFormatError, match="valid UTF-8 JSON"):
        read_gltf(path)
    with pytest.raises(FileFormatError, match="readable file"):
        read_gltf(tmp_path / "missing.glb")


JUNK = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 40, 2 ** 40), st.floats(allow_nan=True),
                 st.text(max_size=5), st.lists(st.integers(-3, 40), max_size=5), st.dictionaries(st.text(max_size=3),
                                                                                                 st.integers(), max_size=2))


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value[:4]):
            yield from _paths(item, prefix + (index,))


def _read_or_format_error(path):
    try:
        document = read_gltf(path)
    except FileFormatError as error:
        assert "\n" not in str(error)
        return
    assert document.pose.is_finite()
    assert all(pose.is_finite() for frames in document.clips.values() for pose in frames)


@settings(derandomize=True, max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzzed_json_fields_give_a_document_or_a_file_format_error(tmp_path, data):
    gltf, binary = gb.document()
    paths = [p for p in _paths(gltf) if p and p[0] not in ("buffers",)]
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        try:
            _set(gltf, path, data.draw(JUNK))
        except (KeyError, IndexError, TypeError):
            pass
    _read_or_format_error(gb.write_embedded(tmp_path, gltf, binary, name="fuzz"))


@settings(derandomize=True, max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 255)), min_size=1, max_size=8))
def test_fuzzed_glb_bytes_give_a_document_or_a_file_format_error(tmp_path, flips):
    data = bytearray(gb.glb_bytes(*gb.document()))
    for position, value in flips:
        data[position % len(data)] = value
    path = tmp_path / "fuzz.glb"
    path.write_bytes(bytes(data))
    _read_or_format_error(path)


# --- export ---------------------------------------------------------------------------------------

ASSETS = Path(__file__).resolve().parents[2] / "assets"


def _random_pose(count, seed):
    rng = np.random.default_rng(seed)
    return Pose(quat_from_axis_angle(rng.normal(size=(count, 3)), rng.uniform(-1.5, 1.5, count)),
                rng.normal(size=(count, 3)) * 0.1, rng.uniform(0.8, 1.25, (count, 3)))


def _assert_same_rig(read, original):
    a, b = read.skeleton, original.skeleton
    assert a.names == b.names and a.parents.tolist() == b.parents.tolist()
    assert a.connected.tolist() == b.connected.tolist()
    np.testing.assert_allclose(a.rest_heads, b.rest_heads, atol=1e-6)
    np.testing.assert_allclose(a.rest_tails, b.rest_tails, atol=1e-6)
    np.testing.assert_allclose(a.rest_world, b.rest_world, atol=1e-6)  # the rolls
    assert read.ik == original.ik and read.copy_rotation == original.copy_rotation
    assert read.bone_ik == original.bone_ik and read.solver == original.solver and read.name == original.name


@pytest.mark.parametrize("posed", [False, True], ids=["rest", "posed"])
def test_humanoid_round_trips_through_glb(tmp_path, posed):
    rig = load_rig(ASSETS / "humanoid.json")
    skeleton = rig.skeleton
    pose = _random_pose(len(skeleton), 5) if posed else Pose.rest(len(skeleton))
    path = tmp_path / "humanoid.glb"
    write_glb(path, rig, pose)
    assert_valid(path)
    document = read_gltf(path)
    _assert_same_rig(document.rig, rig)
    assert document.mesh is None and document.clips == {} and document.warnings == []
    np.testing.assert_allclose(world_matrices(skeleton, document.pose), world_matrices(skeleton, pose), atol=1e-6)


def test_pose_list_round_trips_as_an_animation_clip(tmp_path):
    rig = load_rig(ASSETS / "humanoid.json")
    count = len(rig.skeleton)
    clip = [Pose.rest(count), _random_pose(count, 1), _random_pose(count, 2)]
    path = tmp_path / "clip.glb"
    write_glb(path, rig, clip[1], clip=clip, fps=24.0, clip_name="take")
    assert_valid(path)
    document = read_gltf(path, fps=24.0)
    assert list(document.clips) == ["take"] and len(document.clips["take"]) == 3
    for read, written in zip(document.clips["take"], clip):
        np.testing.assert_allclose(world_matrices(rig.skeleton, read), world_matrices(rig.skeleton, written),
                                   atol=1e-6)


def test_skinned_humanoid_asset_is_valid_and_reads_back(tmp_path):
    path = ASSETS / "humanoid_skinned.glb"
    assert_valid(path)
    document = read_gltf(path)
    _assert_same_rig(document.rig, load_rig(ASSETS / "humanoid.json"))
    mesh, skeleton = document.mesh, document.rig.skeleton
    assert mesh.vertex_count > 1000 and document.warnings == []
    np.testing.assert_allclose(mesh.weights.sum(axis=1), 1.0, atol=1e-6)
    targets, poles = document.rig.handle_bones()
    used = {skeleton.names[j] for j in np.unique(mesh.joints[mesh.weights > 0])}
    assert not used & (targets | poles | {"root"})  # only deforming bones move the body
    world = world_matrices(skeleton, Pose.rest(len(skeleton)))
    np.testing.assert_allclose(mesh.skinned_positions(world), mesh.positions, atol=1e-5)
    # Re-exported with its mesh, it is still valid and the same mesh.
    again = tmp_path / "again.glb"
    write_glb(again, document.rig, mesh=mesh)
    assert_valid(again)
    np.testing.assert_allclose(read_gltf(again).mesh.positions, mesh.positions, atol=1e-6)


def test_a_foreign_file_exports_as_our_own_with_the_same_pose_and_mesh(tmp_path, arm):
    gltf, data = gb.document(twist=0.3)
    gltf["nodes"][2]["rotation"] = quat_from_axis_angle([1, 0, 0], 0.7).tolist()
    document = read_gltf(gb.write_glb(tmp_path, gltf, data))
    path = tmp_path / "ours.glb"
    write_glb(path, document.rig, document.pose, document.mesh, clip=document.clips["wave"])
    assert_valid(path)
    again = read_gltf(path)
    skeleton = document.rig.skeleton
    _assert_same_rig(again.rig, document.rig)
    world, world_again = world_matrices(skeleton, document.pose), world_matrices(skeleton, again.pose)
    np.testing.assert_allclose(world_again, world, atol=1e-6)
    np.testing.assert_allclose(again.mesh.skinned_positions(world_again), document.mesh.skinned_positions(world),
                               atol=1e-5)
    np.testing.assert_allclose(world_matrices(skeleton, again.clips["posekit"][20]),
                               world_matrices(skeleton, document.clips["wave"][20]), atol=1e-5)


def test_writing_a_nan_pose_is_refused_and_leaves_no_file(tmp_path):
    rig = load_rig(ASSETS / "humanoid.json")
    pose = Pose.rest(len(rig.skeleton))
    pose.locations[3, 1] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        write_glb(tmp_path / "nan.glb", rig, pose)
    assert list(tmp_path.iterdir()) == []


def test_import_options_choose_the_skin(tmp_path):
    path = gb.write_glb(tmp_path, *gb.document(second_skin=True))
    first = open_rig(path)
    assert first.skins == ("skin 0", "skin 1") and first.skin == 0
    second = open_rig(path, ImportOptions(gltf_skin=1))
    assert second.rig.skeleton.names == ["lower", "hand"] and second.skin == 1
    assert open_rig(gb.write_glb(tmp_path, *gb.document())).skins == ()  # one skin: nothing to choose
    with pytest.raises(ValueError, match="glTF skin must be an index from 0"):
        ImportOptions(gltf_skin=-1)
