"""Limbs found on any rig: every humanoid we have, with its bone names or with them stripped, and a
RiggedFigure-like glTF mid-stride whose joints have no names, gets both arms and both legs, the
sides the figure's own, and hand/foot handles at its wrists and ankles."""
import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rig.autorig import auto_rig
from rig.evaluate import evaluate
from rig.formats.reader import open_rig
from rig.limb_roles import recognise, summary
from rig.pose import Pose, world_matrices
from rig.skeleton import Skeleton
from tests.rig.gltf_builder import FIGURE_JOINTS, figure_document
from tests.shared_data import CMU_EXCERPT, CMU_LONG, NEEDS_SHARED

LIMB_PARTS = {"arm": ("upper_arm", "forearm", "hand"), "leg": ("thigh", "shin", "foot")}
OURS = {f"{kind}.{side}": [f"{part}.{side}" for part in parts] for kind, parts in LIMB_PARTS.items() for side in "LR"}
CMU = {f"{kind}.{side}": [f"{word}{part}" for part in parts]
       for kind, parts in (("arm", ("Arm", "ForeArm", "Hand")), ("leg", ("UpLeg", "Leg", "Foot")))
       for side, word in (("L", "Left"), ("R", "Right"))}
HUMANOIDS = [("assets/humanoid.json", OURS), ("assets/humanoid_skinned.glb", OURS),
             pytest.param(CMU_EXCERPT, CMU, marks=NEEDS_SHARED), pytest.param(CMU_LONG, CMU, marks=NEEDS_SHARED)]
POSITION_TOLERANCE = 1e-6  # metres: joints read back from a file, handles placed on them


def stripped(skeleton):
    """``skeleton`` with its bones renamed ``node_<index>``, as a glTF reader names unnamed joints."""
    return Skeleton([f"node_{i}" for i in range(len(skeleton))], skeleton.parents, skeleton.rest_world,
                    skeleton.lengths, skeleton.connected)


@pytest.mark.parametrize("path, limbs", HUMANOIDS)
def test_every_humanoid_has_both_arms_and_legs_with_names_or_without(path, limbs):
    skeleton = open_rig(path).rig.skeleton
    named = recognise(skeleton)
    assert {role: named.roles[role] for role in limbs} == limbs and set(named.found_by.values()) == {"names"}
    nameless = stripped(skeleton)
    report = recognise(nameless)
    back = {role: [skeleton.names[nameless.index[n]] for n in bones] for role, bones in report.roles.items()}
    assert back == named.roles  # limbs, sides, hips, spine, shoulders, neck and head alike
    assert report.found_by == dict.fromkeys(limbs, "geometry") and report.warnings == []
    assert report.facing_from_feet and np.allclose(report.facing, [0, 0, 1], atol=0.1)


def test_rigs_that_are_no_humanoid_get_no_limbs_without_names_either():
    for path in ("assets/tail.json", "assets/robot_arm.json"):
        report = recognise(stripped(open_rig(path).rig.skeleton))
        assert report.roles == {} and len(report.warnings) == 4


def turned(point, turn):
    x, y, z = point
    return np.array([np.cos(turn) * x + np.sin(turn) * z, y, -np.sin(turn) * x + np.cos(turn) * z])


def read_figure(tmp_path, turn=0.0, joints=FIGURE_JOINTS):
    gltf, node_of = figure_document(turn, joints)
    path = tmp_path / "figure.gltf"
    path.write_text(json.dumps(gltf))
    return open_rig(path).rig, {name: f"node_{node}" for name, node in node_of.items()}


def assert_figure_recognised(rig, node, turn, facing_tolerance):
    """Every limb and the torso where the figure was built, its left its own however it faces."""
    assert set(rig.skeleton.names) == set(node.values())  # node_N: the names say nothing
    report = recognise(rig.skeleton)
    expected = {role: [node[b] for b in bones] for role, bones in OURS.items()}
    assert {role: report.roles[role] for role in OURS} == expected
    assert (report.roles["hips"], report.roles["spine"]) == ([node["hips"]], [node["spine"], node["chest"]])
    assert (report.roles["neck"], report.roles["head"]) == ([node["neck"]], [node["head"]])
    assert report.warnings == [] and report.facing_from_feet
    np.testing.assert_allclose(report.facing, turned([0, 0, 1], turn), atol=facing_tolerance)


@pytest.mark.parametrize("turn", [0.0, np.pi / 2, np.pi, -2.5])
def test_a_figure_mid_stride_with_unnamed_joints_gets_its_limbs_and_its_own_sides(tmp_path, turn):
    """Its left (built at +X facing +Z) stays its left however it faces: the feet tell."""
    rig, node = read_figure(tmp_path, turn)
    assert_figure_recognised(rig, node, turn, facing_tolerance=0.15)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(turn=st.floats(-np.pi, np.pi), scale_exponent=st.floats(-2.0, 2.0),
       jitter=st.lists(st.floats(-0.02, 0.02), min_size=3 * len(FIGURE_JOINTS), max_size=3 * len(FIGURE_JOINTS)))
def test_any_facing_size_and_uneven_pose_of_the_figure_is_recognised(turn, scale_exponent, jitter):
    """Turned any way, 1 cm to 100 m tall, every joint moved up to 2 cm (of 1.75 m) its own way."""
    scale = 10.0 ** scale_exponent
    moved = np.reshape(jitter, (-1, 3))
    joints = [(name, parent, tuple(scale * (np.array(head) + d)))
              for (name, parent, head), d in zip(FIGURE_JOINTS, moved)]
    with tempfile.TemporaryDirectory() as directory:
        rig, node = read_figure(Path(directory), turn, joints)
    assert_figure_recognised(rig, node, turn, facing_tolerance=0.4)


def test_the_figures_handles_sit_at_its_wrists_and_ankles_and_work(tmp_path):
    rig, node = read_figure(tmp_path)
    new, report, _ = auto_rig(rig)
    skel = new.skeleton
    heads = {name: np.array(head) for name, _, head in FIGURE_JOINTS}
    for role, (handle, pole) in report.handles.items():
        end = [name for name, n in node.items() if n == report.roles[role][2]][0]
        assert end.split(".")[0] in ("hand", "foot")
        np.testing.assert_allclose(skel.rest_heads[skel.index[handle]], heads[end], atol=POSITION_TOLERANCE)
    rest = Pose.rest(len(skel))
    _, world, _ = evaluate(new, rest)  # the rest pose is already the IK solution
    np.testing.assert_allclose(world, world_matrices(skel, rest), atol=1e-6)
    pose = rest.copy()  # lift the back (right) foot's handle 10 cm: the ankle follows it
    handle = skel.index["foot_ik.R"]
    pose.locations[handle] = skel.rest_world[handle, :3, :3].T @ [0.0, 0.1, 0.0]
    _, world, reports = evaluate(new, pose)
    np.testing.assert_allclose(world[skel.index[node["foot.R"]], :3, 3], heads["foot.R"] + [0, 0.1, 0], atol=1e-5)
    assert all(r.converged for r in reports)


def test_the_status_says_what_was_found_and_how(tmp_path):
    rig, node = read_figure(tmp_path)
    arms, legs = (f"{node[f'{part}.L']}, {node[f'{part}.R']}" for part in ("upper_arm", "thigh"))
    assert summary(recognise(rig.skeleton)) == \
        f"found arms ({arms}), legs ({legs}), spine, head by geometry (facing +Z from the feet)"
    assert summary(recognise(open_rig("assets/humanoid.json").rig.skeleton)) == \
        "found arms (upper_arm.L, upper_arm.R), legs (thigh.L, thigh.R), spine, head by names"


def test_feet_that_point_nowhere_leave_the_figure_facing_plus_z(tmp_path):
    """Toes straight below the ankles: no facing from the feet, so +Z is assumed and the side at
    +X is the left even where the figure was built facing -Z (the stated convention)."""
    ankles = {name[-1]: head for name, _, head in FIGURE_JOINTS if name.startswith("foot.")}
    flat_footed = [(name, parent, (ankles[name[-1]][0], 0.0, ankles[name[-1]][2]) if name.startswith("toe.") else head)
                   for name, parent, head in FIGURE_JOINTS]
    rig, node = read_figure(tmp_path, np.pi, flat_footed)
    report = recognise(rig.skeleton)
    assert not report.facing_from_feet and report.facing == (0.0, 0.0, 1.0)
    assert report.roles["leg.L"][0] == node["thigh.R"] and report.roles["arm.L"][0] == node["upper_arm.R"]
    assert summary(report).endswith("by geometry (facing +Z assumed)")


def test_a_name_the_geometry_contradicts_gives_way():
    """A hand named "foot.L": the names would make the left arm a leg; the geometry keeps both right."""
    skel = open_rig("assets/humanoid.json").rig.skeleton
    rename = {"hand.L": "foot.L", "foot.L": "bone_a"}
    misnamed = Skeleton([rename.get(n, n) for n in skel.names], skel.parents, skel.rest_world, skel.lengths,
                        skel.connected)
    report = recognise(misnamed)
    assert report.roles["leg.L"] == ["thigh.L", "shin.L", "bone_a"]
    assert report.roles["arm.L"] == ["upper_arm.L", "forearm.L", "foot.L"]
    assert report.found_by == {"arm.L": "geometry", "arm.R": "names", "leg.L": "geometry", "leg.R": "names"}
    assert len(report.warnings) == 1 and "'foot.L'" in report.warnings[0] and "arm.L" in report.warnings[0]
