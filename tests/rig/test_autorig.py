"""Automatic humanoid IK set-up: recognition across naming schemes and from the geometry alone,
handles and poles that leave the rest pose (and a BVH frame) solved, and IK that then works."""

import numpy as np
import pytest

from rig.autorig import auto_rig
from rig.limb_roles import recognise, split_name
from rig.formats.bvh import load_bvh
from rig.evaluate import evaluate
from rig.pose import Pose, heads_tails, world_matrices
from rig.rig import Rig
from rig.formats.rigfile import load_rig
from rig.skeleton import Skeleton
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED

CMU = CMU_EXCERPT
HANDLES = {"hand_ik", "elbow_pole", "foot_ik", "knee_pole"}

# Our humanoid's bones in other naming schemes ({side} is filled per scheme).
SCHEMES = {
    "rigify": lambda part, side: f"DEF-{part}.{side}" if side else f"DEF-{part}",
    "unreal": lambda part, side: {
        "root": "root", "pelvis": "pelvis", "spine.01": "spine_01", "spine.02": "spine_02", "spine.03": "spine_03",
        "neck": "neck_01", "head": "head", "clavicle": "clavicle", "upper_arm": "upperarm", "forearm": "lowerarm",
        "hand": "hand", "thigh": "thigh", "shin": "calf", "foot": "foot", "toe": "ball"}[part] + (
        f"_{side.lower()}" if side else ""),
    "left_right": lambda part, side: ({"L": "Left", "R": "Right"}.get(side, "") + {
        "root": "Root", "pelvis": "Pelvis", "spine.01": "Spine1", "spine.02": "Spine2", "spine.03": "Spine3",
        "neck": "Neck", "head": "Head", "clavicle": "Clavicle", "upper_arm": "UpperArm", "forearm": "Forearm",
        "hand": "Hand", "thigh": "Thigh", "shin": "Shin", "foot": "Foot", "toe": "Toe"}[part]),
    "mixamo": lambda part, side: "mixamorig:" + ({"L": "Left", "R": "Right"}.get(side, "") + {
        "root": "Root", "pelvis": "Hips", "spine.01": "Spine", "spine.02": "Spine1", "spine.03": "Spine2",
        "neck": "Neck", "head": "Head", "clavicle": "Shoulder", "upper_arm": "Arm", "forearm": "ForeArm",
        "hand": "Hand", "thigh": "UpLeg", "shin": "Leg", "foot": "Foot", "toe": "ToeBase"}[part]),
    "nameless": None,
}
EXPECTED = {"arm.L": ["upper_arm.L", "forearm.L", "hand.L"], "arm.R": ["upper_arm.R", "forearm.R", "hand.R"],
            "leg.L": ["thigh.L", "shin.L", "foot.L"], "leg.R": ["thigh.R", "shin.R", "foot.R"],
            "hips": ["pelvis"], "spine": ["spine.01", "spine.02", "spine.03"], "neck": ["neck"], "head": ["head"],
            "shoulder.L": ["clavicle.L"], "shoulder.R": ["clavicle.R"]}


def subset(skeleton, keep, rename):
    """The bones ``keep`` (parents first) of ``skeleton`` under new names ``rename(old)``."""
    index = {old: k for k, old in enumerate(keep)}
    rows = [skeleton.index[name] for name in keep]
    parents = [index.get(skeleton.names[p], -1) if p >= 0 else -1 for p in skeleton.parents[rows]]
    return Skeleton([rename(n) for n in keep], parents, skeleton.rest_world[rows], skeleton.lengths[rows],
                    skeleton.connected[rows])


def bare_humanoid(scheme):
    """The humanoid without its IK handles and constraints, bones renamed in ``scheme``;
    returns (rig, {new name: old name})."""
    skel = load_rig("assets/humanoid.json").skeleton
    keep = [n for n in skel.names if n.split(".")[0] not in HANDLES]
    order = {n: k for k, n in enumerate(keep)}

    def rename(name):
        if SCHEMES[scheme] is None:
            return f"bone_{order[name]:03d}"
        part, _, side = name.rpartition(".") if name[-2:] in (".L", ".R") else (name, "", "")
        return SCHEMES[scheme](part, side)
    renamed = subset(skel, keep, rename)
    return Rig("humanoid", renamed), {rename(n): n for n in keep}


@pytest.mark.parametrize("name, expected", [
    ("mixamorig:LeftHand", ("L", "hand")), ("hand.L", ("L", "hand")), ("hand_r", ("R", "hand")),
    ("DEF-forearm.L", ("L", "forearm")), ("Right Hand", ("R", "hand")), ("l_wrist", ("L", "wrist")),
    ("LHipJoint", ("L", "hipjoint")), ("LowerBack", (None, "lowerback")), ("LeftHandIndex1", ("L", "handindex1")),
    ("foot-R", ("R", "foot")), ("Hips", (None, "hips")), ("handLeft", ("L", "hand")),
])
def test_split_name(name, expected):
    assert split_name(name) == expected


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_humanoid_is_recognised_in_every_naming_scheme(scheme):
    rig, old = bare_humanoid(scheme)
    report = recognise(rig.skeleton)
    assert {role: [old[n] for n in names] for role, names in report.roles.items()} == EXPECTED
    how = "geometry" if scheme == "nameless" else "names"
    assert set(report.found_by.values()) == {how} and len(report.found_by) == 4
    assert report.warnings == []


@pytest.mark.parametrize("scheme", ["rigify", "mixamo", "nameless"])
def test_auto_rig_leaves_the_rest_pose_solved_and_the_handles_work(scheme):
    rig, old = bare_humanoid(scheme)
    new, report, _ = auto_rig(rig)
    skel = new.skeleton
    assert report.created == ["hand_ik.L", "elbow_pole.L", "hand_ik.R", "elbow_pole.R",
                              "foot_ik.L", "knee_pole.L", "foot_ik.R", "knee_pole.R"]
    root = skel.names[0]
    for handle in report.created:  # outside the chains, under the master root, like humanoid.json
        assert skel.names[skel.parents[skel.index[handle]]] == root
    rest = Pose.rest(len(skel))
    solved, world, _ = evaluate(new, rest)
    np.testing.assert_allclose(world, world_matrices(skel, rest), atol=1e-6)
    assert len(rig.skeleton) + 8 == len(skel) and len(rig.ik) == 0  # the input rig is unchanged
    # Pull the left hand's handle 10 cm in and up: the hand follows, the elbow stays behind.
    pose = rest.copy()
    pose.locations[skel.index["hand_ik.L"]] = skel.rest_world[skel.index["hand_ik.L"], :3, :3].T @ [-0.05, 0.1, 0]
    solved, world, reports = evaluate(new, pose)
    hand = skel.index[report.roles["arm.L"][2]]
    np.testing.assert_allclose(world[hand, :3, 3], world[skel.index["hand_ik.L"], :3, 3], atol=1e-6)
    elbow = skel.index[report.roles["arm.L"][1]]
    assert world[elbow, 2, 3] < world[hand, 2, 3]  # bends back, toward its pole
    assert all(r.converged for r in reports)


@NEEDS_SHARED
def test_bvh_rig_gets_ik_that_keeps_every_frame():
    doc = load_bvh(CMU)
    report = recognise(doc.rig.skeleton)
    assert report.roles["arm.L"] == ["LeftArm", "LeftForeArm", "LeftHand"]
    assert report.roles["leg.R"] == ["RightUpLeg", "RightLeg", "RightFoot"]
    assert report.roles["spine"] == ["LowerBack", "Spine", "Spine1"]
    assert report.roles["neck"] == ["Neck", "Neck1"] and report.roles["head"] == ["Head"]
    for frame in doc.clips["motion"]:
        rig, report, pose = auto_rig(doc.rig, frame)
        skel = rig.skeleton
        assert all(skel.parents[skel.index[h]] == -1 for h in report.created)  # Hips is the root: no parent
        solved, world, reports = evaluate(rig, pose)
        np.testing.assert_allclose(world, world_matrices(skel, pose), atol=1e-9)
        np.testing.assert_array_equal(pose.rotations[:len(doc.rig.skeleton)], frame.rotations)


def test_rigs_that_are_no_humanoid_or_already_rigged():
    tail = load_rig("assets/tail.json")
    new, report, _ = auto_rig(tail)
    assert report.created == [] and len(report.warnings) == 4 and len(new.skeleton) == len(tail.skeleton)
    humanoid = load_rig("assets/humanoid.json")
    new, report, _ = auto_rig(humanoid)
    assert report.created == [] and new.ik == humanoid.ik
    assert sum("already has an IK constraint" in w for w in report.warnings) == 4


@NEEDS_SHARED
def test_pose_of_the_bvh_document_is_shown_with_handles_on_the_hands():
    doc = load_bvh(CMU)
    rig, report, pose = auto_rig(doc.rig, doc.pose)
    skel = rig.skeleton
    heads, tails = heads_tails(skel, world_matrices(skel, pose))
    for role, (handle, pole) in report.handles.items():
        lower = skel.index[report.roles[role][1]]
        np.testing.assert_allclose(heads[skel.index[handle]], tails[lower], atol=1e-12)
        assert np.linalg.norm(heads[skel.index[pole]] - heads[lower]) > 0.1
