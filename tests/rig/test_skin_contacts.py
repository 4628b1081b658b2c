"""The feet's skin as ground contact sees it (``rig.skin_contacts``, ``rig.ground_contact``): which
vertices, which few a solve always asks for, and how far linear-blend skinning drifts from a
vertex carried rigidly by its bone through a solve."""
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rig.autorig import auto_rig
from rig.formats.reader import open_rig
from rig.formats.rigfile import load_rig
from rig.ground import PlaneGround
from rig.ground_contact import Contact, ContactSet
from rig.pose import Pose, world_matrices
from rig.skin_contacts import DOWN_CONE, MOST_PER_BONE, lowest_points, skin_contacts
from rig.skinned_mesh import SkinnedMesh
from solvers.transforms import quat_angle, matrix3_to_quat, quat_from_rotvec

SKINNED = open_rig("assets/humanoid_skinned.glb")
FOOT_BONES = ("foot.L", "toe.L", "foot.R", "toe.R")
FLOAT32_WEIGHTS = 1e-6  # metres: skinning's own rounding, its weights float32 (summing to 1 within ~1e-7)


def test_the_feet_skin_is_the_vertices_bound_mostly_to_the_foot_and_toe_bones():
    rig, mesh, skin = SKINNED.rig, SKINNED.mesh, SKINNED.rig.skin_contacts
    index = rig.skeleton.index
    dominant = mesh.joints[np.arange(len(mesh.joints)), np.argmax(mesh.weights, axis=1)]
    expected = np.flatnonzero(np.isin(dominant, [index[name] for name in FOOT_BONES]))
    assert sorted(skin.vertices.tolist()) == expected.tolist()
    assert np.array_equal(skin.bones, dominant[skin.vertices])
    assert {rig.skeleton.names[f] for f in skin.feet} == {"foot.L", "foot.R"}
    rest = world_matrices(rig.skeleton, Pose.rest(len(rig.skeleton)))
    np.testing.assert_allclose(skin.positions(rest), mesh.positions[skin.vertices], atol=1e-6)


def test_a_few_points_per_bone_are_always_asked_for_the_lowest_among_them():
    skin = SKINNED.rig.skin_contacts
    for bone in np.unique(skin.bones):
        mine = skin.bones == bone
        assert 1 <= skin.chosen[mine].sum() <= MOST_PER_BONE
        heights = SKINNED.mesh.positions[skin.vertices[mine], 1]
        assert skin.chosen[mine][np.argmin(heights)]


def test_on_a_box_the_points_chosen_are_its_four_bottom_corners():
    corners = np.array([[x, y, z] for x in (0.0, 0.1) for y in (0.0, 0.05) for z in (0.0, 0.25)])
    middles = np.array([[0.05, 0.0, 0.125], [0.05, 0.05, 0.125], [0.0, 0.025, 0.1]])  # on faces, never extreme
    chosen = lowest_points(np.r_[corners, middles])
    assert sorted(chosen) == [k for k in range(8) if corners[k, 1] == 0.0]
    assert np.allclose(DOWN_CONE[0], [0.0, -1.0, 0.0])


def test_a_rig_without_a_skinned_mesh_has_none_and_the_automatic_set_up_keeps_them():
    assert load_rig("assets/humanoid.json").skin_contacts is None
    assert open_rig("assets/humanoid.json").rig.skin_contacts is None
    rigged, _, _ = auto_rig(SKINNED.rig)
    assert rigged.skin_contacts is SKINNED.rig.skin_contacts
    assert dataclasses.replace(SKINNED.rig, ik=[]).skin_contacts is SKINNED.rig.skin_contacts


def test_a_skin_on_no_leg_or_with_unusable_vertices_gives_none_or_leaves_them_out():
    arm = load_rig("assets/robot_arm.json").skeleton
    count = 6
    mesh = SkinnedMesh.for_skeleton(arm, np.zeros((count, 3)), np.tile([0.0, 1.0, 0.0], (count, 1)), [0, 1, 2],
                                    np.zeros((count, 4)), np.tile([1.0, 0.0, 0.0, 0.0], (count, 1)))
    assert skin_contacts(arm, mesh) is None  # no legs found
    broken = dataclasses.replace(SKINNED.mesh, positions=SKINNED.mesh.positions.copy())
    first = SKINNED.rig.skin_contacts.vertices[0]
    broken.positions[first] = np.nan
    contacts = skin_contacts(SKINNED.rig.skeleton, broken)
    assert first not in contacts.vertices and len(contacts) == len(SKINNED.rig.skin_contacts) - 1
    on_the_shin = dataclasses.replace(SKINNED.mesh, joints=np.zeros_like(SKINNED.mesh.joints))
    assert skin_contacts(SKINNED.rig.skeleton, on_the_shin) is None  # no vertex bound mostly to a foot


LEGS = ("thigh.L", "shin.L", "foot.L", "toe.L", "thigh.R", "shin.R", "foot.R", "toe.R")
turns = st.lists(st.tuples(*[st.floats(-1.0, 1.0)] * 3), min_size=len(LEGS), max_size=len(LEGS))


def posed(rig, turned):
    pose = Pose.rest(len(rig.skeleton))
    for name, turn in zip(LEGS, turned):
        pose.rotations[rig.skeleton.index[name]] = quat_from_rotvec(turn)
    return world_matrices(rig.skeleton, pose)


def drift_bounds(rig, skin, rows, before, after):
    """Per skin vertex ``rows``, the drift ``rig.skin_contacts`` states between a vertex skinned at
    ``after`` and carried there by its bone from ``before``: the sum over its other bones i of
    weight x their turn against the carrier x its distance (as bone i placed it before) from the
    joint the two share (the head of the lower)."""
    mesh, skeleton = skin.skin, rig.skeleton
    skinning = mesh.skinning_matrices(before)
    bounds = np.zeros(len(rows))
    for k, row in enumerate(rows.tolist()):
        carrier = skin.bones[row]
        for bone, weight in zip(mesh.joints[row].tolist(), mesh.weights[row].tolist()):
            if bone == carrier or weight == 0.0:
                continue
            turn = quat_angle(matrix3_to_quat(after[carrier, :3, :3].T @ after[bone, :3, :3]),
                              matrix3_to_quat(before[carrier, :3, :3].T @ before[bone, :3, :3]))
            joint = before[max(bone, carrier), :3, 3]  # the lower of two linked bones comes later
            point = skinning[bone, :3, :3] @ mesh.positions[row] + skinning[bone, :3, 3]
            bounds[k] += weight * turn * np.linalg.norm(point - joint)
    return bounds


@settings(max_examples=15, deadline=None, derandomize=True)
@given(start=turns, end=turns)
def test_a_carried_vertex_drifts_from_the_skin_no_more_than_its_stated_bound(start, end):
    """A solve starts each foot vertex where skinning puts it and carries it with its bone: at any
    later pose it is off the skinned vertex by no more than the module's bound (weight off its
    bone x the turn of its other bones against it x its distance from their joint)."""
    rig, skin = SKINNED.rig, SKINNED.rig.skin_contacts
    skeleton = rig.skeleton
    tree = sorted(skeleton.subtree(skeleton.index["pelvis"]).tolist())
    before, after = posed(rig, np.asarray(start) * 0.5), posed(rig, end)
    contacts = ContactSet(rig, before, tree, [], Contact(PlaneGround(-5.0), {}, False))
    carried = contacts.at(after).position[-len(contacts.skin_rows):]
    drift = np.linalg.norm(carried - skin.positions(after)[contacts.skin_rows], axis=1)
    bounds = drift_bounds(rig, skin, contacts.skin_rows, before, after)
    assert (drift <= bounds + FLOAT32_WEIGHTS).all()


@pytest.mark.parametrize("turn", [0.1, 0.5, 1.0])
def test_an_ankle_turned_within_one_solve_drifts_the_heel_by_the_bound(turn):
    """The ankle turned ``turn`` radians within one solve: the heel, half on the shin, drifts from
    its carried point by as much as the bound allows, about half its distance from the ankle
    times the turn (2 cm a radian on this skin)."""
    rig, skin = SKINNED.rig, SKINNED.rig.skin_contacts
    skeleton = rig.skeleton
    tree = sorted(skeleton.subtree(skeleton.index["pelvis"]).tolist())
    before = world_matrices(skeleton, Pose.rest(len(skeleton)))
    pose = Pose.rest(len(skeleton))
    pose.rotations[skeleton.index["foot.L"]] = quat_from_rotvec([turn, 0.0, 0.0])
    after = world_matrices(skeleton, pose)
    contacts = ContactSet(rig, before, tree, [], Contact(PlaneGround(-5.0), {}, False))
    carried = contacts.at(after).position[-len(contacts.skin_rows):]
    drift = np.linalg.norm(carried - skin.positions(after)[contacts.skin_rows], axis=1)
    bounds = drift_bounds(rig, skin, contacts.skin_rows, before, after)
    assert (drift <= bounds + FLOAT32_WEIGHTS).all() and drift.max() >= 0.5 * bounds.max()
    assert 0.015 * turn <= drift.max() <= 0.025 * turn
