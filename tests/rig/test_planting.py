import importlib.util
import os

import numpy as np
import pytest

from rig.evaluate import evaluation
from rig.feet import ankle_of, find_legs, leg_length, sole_of
from rig.formats.ground_file import read_ground
from rig.formats.reader import open_rig
from rig.ground import PlaneGround
from rig.planting import NATURAL_REACH, plant, sole_report
from rig.pose import Pose, location_for_head, rotation_for_world, world_matrices

ASSETS = os.path.join(os.path.dirname(__file__), "..", "..", "assets")
SOLE_ANGLE_TOLERANCE = np.radians(2.0)  # the targets: sole within 2° of the ground's normal
SOLE_GAP_TOLERANCE = 0.002  # and within 2 mm of its surface
REACH_SLACK = 1e-6  # of a leg's length: "at the natural reach", to rounding
MIN_KNEE_BEND = np.radians(5.0)  # a planted knee is bent at least this much: never locked or bent backwards


def load_layout():
    spec = importlib.util.spec_from_file_location("build_ground", os.path.join(ASSETS, "build_ground.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LAYOUT = load_layout()
PARTS = {part.name: part for part in LAYOUT.PARTS}


@pytest.fixture(scope="module")
def scene():
    return read_ground(os.path.join(ASSETS, "ground_test.glb")).ground


@pytest.fixture(scope="module")
def humanoid():
    rig = open_rig(os.path.join(ASSETS, "humanoid.json")).rig
    return rig, find_legs(rig)


def moved(rig, pose, bone, offset):
    """``pose`` with ``bone``'s head moved by the world ``offset``."""
    pose = pose.copy()
    world = world_matrices(rig.skeleton, pose)
    i = rig.skeleton.index[bone]
    pose.locations[i] = location_for_head(rig.skeleton, pose, world, i, world[i, :3, 3] + offset)
    return pose


def turned(rig, pose, angle):
    """``pose`` with the whole figure turned ``angle`` radians about +Y (from facing +Z toward +X)."""
    pose = pose.copy()
    root = rig.skeleton.index["root"]
    c, s = np.cos(angle), np.sin(angle)
    spin = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    pose.rotations[root] = rotation_for_world(rig.skeleton, world_matrices(rig.skeleton, pose), root,
                                              spin @ rig.skeleton.rest_world[root, :3, :3])
    return pose


def standing_over(rig, part, height=0.4, stride=False, turn=0.0):
    """The humanoid over the middle of ``part``, ``height`` above it, turned ``turn`` radians
    from facing +Z; with ``stride`` the left foot a tread ahead of the right (one foot per step
    on the stairs)."""
    pose = moved(rig, turned(rig, Pose.rest(len(rig.skeleton)), turn), "root", [part.x, height, 0.0])
    if stride:
        pose = moved(rig, pose, "foot_ik.L", [0.0, 0.0, 0.19])
        pose = moved(rig, pose, "foot_ik.R", [0.0, 0.0, -0.15])
    return pose


def knee_bends(rig, world, leg, facing):
    """(bend angle between thigh and shin, how far the knee is ahead of the hip-ankle line)."""
    skel = rig.skeleton
    hip, knee, ankle = world[leg.upper, :3, 3], world[leg.lower, :3, 3], ankle_of(skel, world, leg)
    thigh, shin = knee - hip, ankle - knee
    angle = np.arccos(np.clip(thigh @ shin / np.linalg.norm(thigh) / np.linalg.norm(shin), -1, 1))
    line = (ankle - hip) / np.linalg.norm(ankle - hip)
    return angle, (thigh - line * (thigh @ line)) @ facing


def check_planted(rig, legs, result, ground, facing=(0.0, 0.0, 1.0)):
    world = result.evaluation.world
    assert result.pose.is_finite() and len(result.feet) == 2 and all(f.reached for f in result.feet)
    soles = sole_report(rig, world, legs, ground)
    assert len(soles) == 2
    for role, angle, gap in soles:
        assert angle <= SOLE_ANGLE_TOLERANCE, (role, np.degrees(angle))
        assert gap <= SOLE_GAP_TOLERANCE, (role, gap)
    reaches = []
    for leg in legs.legs:
        bend, ahead = knee_bends(rig, world, leg, np.asarray(facing))
        assert bend >= MIN_KNEE_BEND and ahead > 0.0
        hip = world[leg.upper, :3, 3]
        reaches.append(np.linalg.norm(ankle_of(rig.skeleton, world, leg) - hip) / leg_length(rig.skeleton, world, leg))
    assert max(reaches) == pytest.approx(NATURAL_REACH, abs=REACH_SLACK)  # as high as the legs allow


@pytest.mark.parametrize("turn", [0.0, np.pi / 2])  # facing up the slope, or across it
@pytest.mark.parametrize("name", ["flat", "slope_10", "slope_20", "slope_35"])
def test_feet_plant_flush_on_planes_up_to_35_degrees(scene, humanoid, name, turn):
    rig, legs = humanoid
    result = plant(rig, standing_over(rig, PARTS[name], turn=turn), scene, legs)
    check_planted(rig, legs, result, scene, (np.sin(turn), 0.0, np.cos(turn)))
    normal = result.feet[0].normal
    assert np.degrees(np.arccos(normal[1])) == pytest.approx(PARTS[name].degrees, abs=1e-3)


@pytest.mark.parametrize("height", [0.4, -0.1])
def test_feet_plant_one_per_step_on_the_stairs(scene, humanoid, height):
    rig, legs = humanoid
    result = plant(rig, standing_over(rig, PARTS["stairs"], height, stride=True), scene, legs)
    check_planted(rig, legs, result, scene)
    contacts = {f.role: f.contact[1] for f in result.feet}
    assert contacts["leg.L"] == pytest.approx(contacts["leg.R"] + LAYOUT.RISE, abs=1e-6)


def test_feet_rest_on_rocks_with_no_sole_point_sunk(scene, humanoid):
    rig, legs = humanoid
    result = plant(rig, standing_over(rig, PARTS["rocks"]), scene, legs)
    world = result.evaluation.world
    assert all(f.reached for f in result.feet)
    for leg in legs.legs:
        points, _ = sole_of(world, leg, ankle_of(rig.skeleton, world, leg))
        hits = scene.surface_under(points)
        assert hits.hit.all() and (points[:, 1] >= hits.point[:, 1] - SOLE_GAP_TOLERANCE).all()
        assert (points[:, 1] - hits.point[:, 1]).min() <= SOLE_GAP_TOLERANCE  # resting on something
    assert all(angle <= np.radians(20.0) for _, angle, _ in sole_report(rig, world, legs, scene))


def test_planting_a_planted_pose_changes_nothing(scene, humanoid):
    rig, legs = humanoid
    once = plant(rig, standing_over(rig, PARTS["slope_20"]), scene, legs)
    twice = plant(rig, once.pose, scene, legs)
    assert abs(twice.lift) < 1e-9 and np.abs(twice.evaluation.world - once.evaluation.world).max() < 1e-9


def test_a_crouch_keeps_its_depth(humanoid):
    rig, legs = humanoid
    crouch = moved(rig, Pose.rest(len(rig.skeleton)), "pelvis", [0.0, -0.25, 0.0])
    before = evaluation(rig, crouch).world
    result = plant(rig, crouch, PlaneGround(0.0), legs)
    assert abs(result.lift) < 0.02 and np.abs(result.evaluation.world[1, :3, 3] - before[1, :3, 3]).max() < 0.02


def test_what_cannot_be_planted_is_said_and_left_alone(scene, humanoid):
    rig, legs = humanoid
    between = moved(rig, Pose.rest(len(rig.skeleton)), "root", [-3.2, 0.3, 0.0])  # the gap between two blocks
    result = plant(rig, between, scene, legs)
    assert result.feet == [] and len(result.warnings) == 2 and "no ground under 'foot.L'" in result.warnings[0]
    tail = open_rig(os.path.join(ASSETS, "tail.json")).rig
    tail_legs = find_legs(tail)
    assert tail_legs.legs == () and any("no leg found" in p for p in tail_legs.problems)
    bare = open_rig(os.path.join(ASSETS, "humanoid.json")).rig
    bare.ik = [c for c in bare.ik if not c.bone.startswith("shin")]
    problems = find_legs(bare).problems
    assert len(problems) == 2 and "set up IK automatically first" in problems[0]


@pytest.mark.parametrize("name, stride", [("flat", False), ("slope_35", False), ("stairs", True)])
def test_a_skinned_foot_is_planted_with_its_skin_on_the_surface(scene, name, stride):
    """The skinned humanoid: its soles flush as the bones' are, and each foot's skin (as the app
    skins it) resting on the surface, neither in it nor above it by more than the sole's gap (its
    bones' sole alone left the skin 2 cm deep in the ground)."""
    document = open_rig(os.path.join(ASSETS, "humanoid_skinned.glb"))
    rig, skin = document.rig, document.rig.skin_contacts
    legs = find_legs(rig)
    result = plant(rig, standing_over(rig, PARTS[name], stride=stride), scene, legs)
    check_planted(rig, legs, result, scene)
    skinned = document.mesh.skinned_positions(result.evaluation.world)
    for foot in (leg.foot for leg in legs.legs):
        points = skinned[skin.vertices[skin.feet == foot]]
        hits = scene.surface_under(points)
        clearance = np.einsum("ij,ij->i", points - hits.point, hits.normal)[hits.hit]
        assert abs(clearance.min()) <= SOLE_GAP_TOLERANCE, (foot, clearance.min())
