"""Forward kinematics: hand-computed cases and properties."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rig.pose import Pose, heads_tails, world_matrices
from solvers.transforms import compose
from rig.formats.rigfile import load_rig
from rig.skeleton import Skeleton, bone_frame, roll_from_frame
from solvers.transforms import quat_from_axis_angle

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


def two_bone_skeleton():
    """Upper bone from the origin up 1 m, lower bone connected, 0.5 m along +X."""
    return Skeleton.from_bones(["upper", "lower"], [-1, 0], [[0, 0, 0], [0, 1, 0]], [[0, 1, 0], [0.5, 1, 0]],
                               [0.0, 0.0], [False, True])


def test_rest_pose_gives_rest_heads_and_tails():
    skel = two_bone_skeleton()
    heads, tails = heads_tails(skel, world_matrices(skel, Pose.rest(2)))
    np.testing.assert_allclose(heads, [[0, 0, 0], [0, 1, 0]], atol=1e-12)
    np.testing.assert_allclose(tails, [[0, 1, 0], [0.5, 1, 0]], atol=1e-12)


def test_rotating_the_root_by_hand():
    """Upper turned 90 degrees about +Z: its +Y goes to -X, so the elbow is at (-1, 0, 0) and the
    lower bone (rest direction +X) now points along +Y."""
    skel = two_bone_skeleton()
    pose = Pose.rest(2)
    pose.rotations[0] = quat_from_axis_angle([0, 0, 1], np.pi / 2)
    heads, tails = heads_tails(skel, world_matrices(skel, pose))
    np.testing.assert_allclose(heads[1], [-1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(tails[1], [-1, 0.5, 0], atol=1e-12)


def test_pose_location_moves_the_head_in_the_rest_frame():
    skel = two_bone_skeleton()
    pose = Pose.rest(2)
    pose.locations[1] = [0.0, 0.25, 0.0]  # lower's rest +Y is world +X
    heads, _ = heads_tails(skel, world_matrices(skel, pose))
    np.testing.assert_allclose(heads[1], [0.25, 1, 0], atol=1e-12)


def test_bone_scale_stretches_the_tail():
    skel = two_bone_skeleton()
    pose = Pose.rest(2)
    pose.scales[0] = [1.0, 2.0, 1.0]
    heads, tails = heads_tails(skel, world_matrices(skel, pose))
    np.testing.assert_allclose(tails[0], [0, 2, 0], atol=1e-12)


def test_a_scaled_bone_scales_its_child_too():
    """Blender's Inherit Scale (the default) and glTF: the upper bone at 2x carries the lower
    bone's head to its new tail and scales it too; a child scale of 1/2 undoes that, as Blender's
    IK stretch writes its pose bones."""
    skel = two_bone_skeleton()
    pose = Pose.rest(2)
    pose.scales[:] = [[2.0, 2.0, 2.0], [1.0, 1.0, 1.0]]
    heads, tails = heads_tails(skel, world_matrices(skel, pose))
    np.testing.assert_allclose(heads[1], [0, 2, 0], atol=1e-12)
    np.testing.assert_allclose(tails[1], [1.0, 2, 0], atol=1e-12)
    pose.scales[1] = 0.5
    world = world_matrices(skel, pose)
    np.testing.assert_allclose(heads_tails(skel, world)[1][1], [0.5, 2, 0], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(world[1, :3, :3], axis=0), [1.0, 1.0, 1.0], atol=1e-12)


def test_a_zero_scale_parent_gives_finite_children():
    skel = two_bone_skeleton()
    pose = Pose.rest(2)
    pose.scales[0] = 0.0
    assert np.isfinite(world_matrices(skel, pose)).all()


@pytest.mark.parametrize("direction", [[0, 1, 0], [0, -1, 0], [1, 0, 0], [0.3, -0.8, 0.5]])
@pytest.mark.parametrize("roll", [0.0, 0.7, -2.5])
def test_bone_frame_points_y_along_the_bone_and_keeps_its_roll(direction, roll):
    frame = bone_frame([1, 2, 3], np.add([1, 2, 3], direction), roll)
    np.testing.assert_allclose(frame[:3, 1], direction / np.linalg.norm(direction), atol=1e-12)
    np.testing.assert_allclose(frame[:3, :3] @ frame[:3, :3].T, np.eye(3), atol=1e-12)
    assert np.linalg.det(frame[:3, :3]) == pytest.approx(1.0)
    assert roll_from_frame(frame) == pytest.approx(roll, abs=1e-9)


def test_blender_zero_roll_axes():
    """Blender: a bone pointing along +X with roll 0 has its X axis on -Y (Z stays +Z);
    one pointing down -Y turns pi about Z, so X becomes -X."""
    np.testing.assert_allclose(bone_frame([0, 0, 0], [1, 0, 0], 0.0)[:3, 0], [0, -1, 0], atol=1e-12)
    np.testing.assert_allclose(bone_frame([0, 0, 0], [0, -1, 0], 0.0)[:3, 0], [-1, 0, 0], atol=1e-12)


unit_quats = st.lists(st.floats(-1, 1), min_size=4, max_size=4).filter(lambda q: np.linalg.norm(q) > 0.1)


@pytest.fixture(scope="module")
def humanoid():
    return load_rig("assets/humanoid.json")


@SETTINGS
@given(st.data())
def test_fk_properties_on_the_humanoid(humanoid, data):
    skel = humanoid.skeleton
    n = len(skel)
    pose = Pose.rest(n)
    quats = np.array([data.draw(unit_quats) for _ in range(n)])
    pose.rotations = quats / np.linalg.norm(quats, axis=1, keepdims=True)
    pose.locations = np.array(data.draw(st.lists(st.floats(-0.2, 0.2), min_size=3 * n, max_size=3 * n))).reshape(n, 3)
    world = world_matrices(skel, pose)
    heads, tails = heads_tails(skel, world)
    np.testing.assert_allclose(np.linalg.norm(tails - heads, axis=1), skel.lengths, rtol=1e-9, atol=1e-12)
    pose.scales = np.array(data.draw(st.lists(st.floats(0.5, 2.0), min_size=3 * n, max_size=3 * n))).reshape(n, 3)
    world = world_matrices(skel, pose)
    local = skel.rest_local @ compose(pose.locations, pose.rotations, pose.scales)
    for i, p in enumerate(skel.parents):  # the textbook product: scale inherited
        expected = world[p] @ local[i] if p >= 0 else local[i]
        np.testing.assert_allclose(world[i], expected, atol=1e-12)


def test_connected_bones_start_at_their_parents_tail_in_any_pose(humanoid):
    skel = humanoid.skeleton
    pose = Pose.rest(len(skel))
    rng = np.random.default_rng(7)
    q = rng.normal(size=(len(skel), 4))
    pose.rotations = q / np.linalg.norm(q, axis=1, keepdims=True)
    heads, tails = heads_tails(skel, world_matrices(skel, pose))
    connected = np.flatnonzero(skel.connected)
    assert len(connected) > 10
    np.testing.assert_allclose(heads[connected], tails[skel.parents[connected]], atol=1e-9)


def test_skeleton_rejects_parents_after_children():
    with pytest.raises(ValueError, match="topological"):
        Skeleton.from_bones(["a", "b"], [1, -1], [[0, 0, 0]] * 2, [[0, 1, 0]] * 2, [0, 0], [False, False])


def test_bone_frame_and_roll_work_on_stacks_as_one_by_one():
    rng = np.random.default_rng(8)
    heads, tails = rng.normal(size=(12, 3)), rng.normal(size=(12, 3))
    tails[:3] = heads[:3] + [[0, -1, 0], [0, 1, 0], [1, 0, 0]]  # the special and simple directions
    rolls = rng.uniform(-3, 3, 12)
    frames = bone_frame(heads, tails, rolls)
    for i in range(12):
        np.testing.assert_allclose(frames[i], bone_frame(heads[i], tails[i], rolls[i]), atol=1e-15)
        assert roll_from_frame(frames)[i] == pytest.approx(roll_from_frame(frames[i]), abs=1e-15)
    np.testing.assert_allclose(roll_from_frame(frames), rolls, atol=1e-9)


def test_connected_chain_stops_at_the_first_unconnected_bone_including_it():
    skel = load_rig("assets/humanoid.json").skeleton
    names = lambda bone: [skel.names[i] for i in skel.connected_chain(skel.index[bone])]
    assert names("forearm.L") == ["forearm.L", "upper_arm.L"]
    assert names("head") == ["head", "neck", "spine.03", "spine.02", "spine.01", "pelvis"]
    assert names("root") == ["root"]
    assert skel.has_connected_child(skel.index["upper_arm.L"])
    assert not skel.has_connected_child(skel.index["clavicle.L"])
