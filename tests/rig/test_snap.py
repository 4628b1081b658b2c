"""IK/FK snapping (rig.snap): both directions keep every head and tail of the body within
SNAP_TOLERANCE on every limb of the humanoid (poles, stretch, target rotation, partial influence,
disabled IK), on long chains, and on a BVH figure after the automatic IK set-up; keyed switches."""
import dataclasses

import numpy as np
import pytest

from rig.autorig import auto_rig
from rig.constraints import BoneIKSettings
from rig.evaluate import evaluation
from rig.formats.bvh import load_bvh
from rig.formats.jsonfields import FileFormatError
from rig.formats.keysfile import action_from_dict, action_to_dict
from rig.formats.rigfile import load_rig
from rig.keys import SWITCH, Action, with_interpolation, with_switch_key
from rig.pose import Pose, heads_tails, location_for_head
from rig.snap import FK, IK, SNAP_TOLERANCE, fk_to_ik, ik_to_fk, limb_constraint, mode, set_switches
from solvers.transforms import quat_from_axis_angle
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED

SEED = 20260522


def switched(rig, constraint, snap):
    """A copy of ``rig`` with the snap's switch on ``constraint`` (the rig itself is left as it is)."""
    ik = [dataclasses.replace(c, influence=snap.influence, enabled=snap.enabled) if c is constraint else
          dataclasses.replace(c) for c in rig.ik]
    return dataclasses.replace(rig, ik=ik, solve_plans={})


def body_moved(rig, pose, after_rig, after_pose, constraint):
    """The most any head or tail moves, handles of ``constraint`` excepted, measured afresh."""
    skel = rig.skeleton
    keep = np.ones(len(skel), dtype=bool)
    keep[[skel.index[n] for n in (constraint.target, constraint.pole_target) if n]] = False
    before = heads_tails(skel, evaluation(rig, pose).world)
    after = heads_tails(skel, evaluation(after_rig, after_pose).world)
    return max(float(np.abs(a - b)[keep].max()) for a, b in zip(after, before))


def round_trip(rig, pose, constraint, rng, fk_edit=None):
    """IK to FK, an optional edit by hand in FK, then FK to IK; returns both moves."""
    to_fk = ik_to_fk(rig, pose, constraint)
    fk_rig = switched(rig, constraint, to_fk)
    fk_constraint = fk_rig.ik[rig.ik.index(constraint)]
    assert mode(fk_constraint) == "FK" and to_fk.influence == FK
    first = body_moved(rig, pose, fk_rig, to_fk.pose, constraint)
    fk_pose = to_fk.pose.copy()
    if fk_edit is not None:
        fk_edit(fk_rig, fk_pose, fk_constraint, rng)
    to_ik = fk_to_ik(fk_rig, fk_pose, fk_constraint)
    assert to_ik.influence == IK and to_ik.enabled
    ik_rig = switched(fk_rig, fk_constraint, to_ik)
    return first, body_moved(fk_rig, fk_pose, ik_rig, to_ik.pose, fk_constraint), to_ik


def turn_chain(rig, pose, constraint, rng, angle=1.0):
    """An animator's FK edit: each chain bone turned about a seeded axis."""
    for bone in rig.ik_chain(constraint):
        pose.rotations[bone] = quat_from_axis_angle(rng.normal(size=3), rng.uniform(0.0, angle))


def posed_humanoid(rng, spread=0.15):
    """The humanoid with every handle moved and turned and every pole moved, solved."""
    rig = load_rig("assets/humanoid.json")
    skel, pose = rig.skeleton, Pose.rest(len(rig.skeleton))
    for c in rig.ik:
        handle, pole = skel.index[c.target], skel.index[c.pole_target]
        pose.locations[handle] = rng.normal(0.0, spread, 3)
        pose.rotations[handle] = quat_from_axis_angle(rng.normal(size=3), rng.uniform(0.0, 1.0))
        pose.locations[pole] = rng.normal(0.0, 0.1, 3)
    return rig, evaluation(rig, pose).pose


@pytest.mark.parametrize("limb", range(4))
@pytest.mark.parametrize("setting", ["plain", "stretch", "rotation", "half influence", "disabled"])
def test_both_directions_keep_every_joint_of_each_humanoid_limb(limb, setting):
    rng = np.random.default_rng(SEED + limb)
    for _ in range(4):
        rig, pose = posed_humanoid(rng, 0.6 if setting == "stretch" else 0.15)
        constraint = rig.ik[limb]
        if setting == "stretch":  # handles out of reach: the limb stretches straight
            rig.bone_ik.update({rig.skeleton.names[b]: BoneIKSettings(stretch=0.5) for b in rig.ik_chain(constraint)})
        if setting == "rotation":  # the handle turns the forearm, not the hand
            constraint.use_rotation = True
            rig.copy_rotation = [c for c in rig.copy_rotation if c.target != constraint.target]
        constraint.influence = 0.5 if setting == "half influence" else 1.0
        constraint.enabled = setting != "disabled"
        pose = evaluation(rig, pose).pose
        edit = None if setting == "stretch" else turn_chain  # IK stretches only straight limbs (see below)
        first, second, snap = round_trip(rig, pose, constraint, rng, edit)
        assert first <= SNAP_TOLERANCE and second <= SNAP_TOLERANCE, (setting, first, second)
        assert snap.drift <= SNAP_TOLERANCE and not snap.notes


def test_stretch_is_kept_and_a_bent_stretched_fk_limb_is_reported():
    rng = np.random.default_rng(SEED)
    rig, pose = posed_humanoid(rng, 0.0)
    constraint = rig.ik[0]
    chain = rig.ik_chain(constraint)
    rig.bone_ik.update({rig.skeleton.names[b]: BoneIKSettings(stretch=1.0) for b in chain})
    world, handle = evaluation(rig, pose).world, rig.skeleton.index[constraint.target]
    far = world[chain[0], :3, 3] + [0.9, -0.6, 0.2]  # beyond the arm's reach
    pose.locations[handle] = location_for_head(rig.skeleton, pose, world, handle, far)
    pose = evaluation(rig, pose).pose
    assert np.all(pose.scales[chain] > 1.05)  # stretched
    first, second, _ = round_trip(rig, pose, constraint, rng)
    assert max(first, second) <= SNAP_TOLERANCE
    _, second, snap = round_trip(rig, pose, constraint, rng, turn_chain)
    assert second > SNAP_TOLERANCE and snap.drift == pytest.approx(second)
    assert any("stretch" in note for note in snap.notes)


def pole_to_plane(rig, constraint, world):
    """The angle, about the root-to-tip line, from the knee's (elbow's) side of it to the pole's."""
    skel = rig.skeleton
    upper, lower = rig.ik_chain(constraint)
    root, tip = world[upper, :3, 3], heads_tails(skel, world)[1][lower]
    axis = (tip - root) / np.linalg.norm(tip - root)
    knee, pole = world[lower, :3, 3] - root, world[skel.index[constraint.pole_target], :3, 3] - root
    knee, pole = knee - axis * (knee @ axis), pole - axis * (pole @ axis)
    return np.arctan2(np.cross(knee, pole) @ axis, knee @ pole), np.linalg.norm(pole)


@pytest.mark.parametrize("limb", range(4))
def test_the_pole_keeps_the_rigs_angle_to_the_bend_plane(limb):
    """A limb bent in FK about its rest hinge gets its pole at the angle from the bend plane that the
    rig has at rest (the pole angle's convention), out of the line, with the handle on the tip."""
    rng = np.random.default_rng(SEED + limb)
    rig = load_rig("assets/humanoid.json")
    skel, constraint = rig.skeleton, rig.ik[limb]
    upper, lower = rig.ik_chain(constraint)
    rest_angle, _ = pole_to_plane(rig, constraint, evaluation(rig, Pose.rest(len(skel))).world)
    hinge = np.cross(skel.rest_world[upper, :3, 1], skel.rest_world[lower, :3, 1])
    constraint.influence = FK
    pose = Pose.rest(len(skel))
    pose.rotations[upper] = quat_from_axis_angle(rng.normal(size=3), 0.8)
    pose.rotations[lower] = quat_from_axis_angle(skel.rest_world[lower, :3, :3].T @ hinge, 1.2)
    snap = fk_to_ik(rig, pose, constraint)
    world = evaluation(switched(rig, constraint, snap), snap.pose).world
    angle, distance = pole_to_plane(rig, constraint, world)
    assert angle == pytest.approx(rest_angle, abs=1e-9)
    assert distance >= 0.25 * skel.lengths[[upper, lower]].sum()
    np.testing.assert_allclose(world[skel.index[constraint.target], :3, 3], heads_tails(skel, world)[1][lower],
                               atol=1e-12)


def turn_about_free_axes(rig, pose, constraint, rng):
    """An FK edit within the chain's IK locks (the robot arm's joints turn about one axis each)."""
    for bone in rig.ik_chain(constraint):
        lock = rig.ik_settings(rig.skeleton.names[bone]).lock
        axis = np.where(lock, 0.0, rng.normal(size=3))
        pose.rotations[bone] = quat_from_axis_angle(axis, rng.uniform(-1.0, 1.0))


@pytest.mark.parametrize("path, edit", [("assets/tail.json", turn_chain),
                                        ("assets/robot_arm.json", turn_about_free_axes)])
def test_chains_longer_than_two_bones_snap_every_bone(path, edit):
    rng = np.random.default_rng(SEED)
    rig = load_rig(path)
    constraint = rig.ik[0]
    assert len(rig.ik_chain(constraint)) > 2
    for _ in range(4):
        pose = Pose.rest(len(rig.skeleton))
        edit(rig, pose, constraint, rng)
        pose.locations[rig.skeleton.index[constraint.target]] = rng.normal(0.0, 0.05, 3)
        pose = evaluation(rig, pose).pose
        first, second, _ = round_trip(rig, pose, constraint, rng, lambda *a: edit(*a))
        assert first <= SNAP_TOLERANCE and second <= SNAP_TOLERANCE


@NEEDS_SHARED
def test_a_bvh_figure_after_the_automatic_set_up():
    doc = load_bvh(CMU_EXCERPT)
    rng = np.random.default_rng(SEED)
    worst = 0.0
    for frame in doc.clips["motion"]:
        rig, report, pose = auto_rig(doc.rig, frame)
        assert len(rig.ik) == 4
        for constraint in rig.ik:
            pose.locations[rig.skeleton.index[constraint.target]] += rng.normal(0.0, 0.05, 3)
        pose = evaluation(rig, pose).pose
        for constraint in rig.ik:
            first, second, _ = round_trip(rig, pose, constraint, rng, turn_chain)
            worst = max(worst, first, second)
    assert worst <= SNAP_TOLERANCE


def test_the_limb_of_a_chain_bone_handle_or_pole():
    rig = load_rig("assets/humanoid.json")
    arm = next(c for c in rig.ik if c.bone == "forearm.L")
    for name in ("upper_arm.L", "forearm.L", "hand_ik.L", "elbow_pole.L"):
        assert limb_constraint(rig, {name}) is arm
    assert limb_constraint(rig, {"hand.L", "head"}) is None  # below the chain, or no limb


def test_keyed_switches_are_constant_and_read_back_strictly():
    rig = load_rig("assets/humanoid.json")
    action = Action.empty(Pose.rest(len(rig.skeleton)))
    action = with_switch_key(with_switch_key(action, "forearm.L", 0, IK), "forearm.L", 10, FK)
    action = with_interpolation(action, [0, 10], "linear")  # a switch stays a switch
    assert [action.switches_at(f)["forearm.L"] for f in (0, 5, 9.99, 10, 30)] == [1.0, 1.0, 1.0, 0.0, 0.0]
    assert action.pose_at(5, rig.skeleton) == Pose.rest(len(rig.skeleton))  # no pose channel
    set_switches(rig, action.switches_at(12))
    assert next(c for c in rig.ik if c.bone == "forearm.L").influence == FK
    data = action_to_dict(action, rig.skeleton)
    back = action_from_dict(data, rig.skeleton)
    assert back.channels[("forearm.L", SWITCH)].values.tolist() == [[1.0], [0.0]]
    data["channels"][0]["values"] = [1.0, 2.0]
    with pytest.raises(FileFormatError, match="channels\\[0\\].values"):
        action_from_dict(data, rig.skeleton)
