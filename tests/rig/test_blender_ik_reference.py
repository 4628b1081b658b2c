"""IK settings as Blender means them, checked against Blender's own solves.

tests/data/blender_ik_reference.json was made by tests/tools/blender_ik_reference.py with Blender
3.4's legacy IK solver (the armature default), keeping only cases where Blender's answer is
unique (see the script): ``use_tail`` off, a target rotation, IK stretch beyond reach,
single-axis bones (locks), swing joints (Y locked on every bone) and arms with IK limits. Each
case is solved here from the same rest frames, bone IK settings, constraint, target, target
rotation and pole, by auto and by DLS (which honours every setting), and every bone's posed head
and tail must lie within 1e-3 of the chain's length of Blender's. Measured at most: no_tail
2.0e-4, rotation 1.5e-5, stretch 2.2e-4, hinge 4.7e-5 (of the length), auto and DLS alike, but
for the cases ELSEWHERE names. A bone with Y locked never twists about its own axis,
in Blender's answers and ours (``TWIST_TOLERANCE``).
"""
import json
from pathlib import Path

import numpy as np
import pytest

from rig.constraints import BoneIKSettings, IKConstraint, SolverSettings
from rig.ik import IKGoal
from rig.pose import heads_tails
from rig.rig import Rig
from rig.scripted_solve import solve_case
from rig.skeleton import Skeleton, roll_from_frame
from solvers.limits import swing_twist_angles
from solvers.methods import METHODS
from solvers.transforms import matrix3_to_quat

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "blender_ik_reference.json").read_text())
CASES = REFERENCE["cases"]
FAMILIES = ("no_tail", "rotation", "stretch", "hinge", "lock_y", "limited")
TOLERANCE = 1e-3  # of the chain's rest length, per compared point
# Radians of twist about its own Y a bone with Y locked may show: ours are exactly 0; Blender's,
# read back from its frames (written to 9 decimals), within 1e-7.
TWIST_TOLERANCE = 1e-6


def _frame(rows):
    frame = np.eye(4)
    frame[:3, :3] = rows
    return frame


def _rig(case, solver):
    """Our rig of the case's bones, with their locks and stretch as bone IK settings."""
    bones = case["bones"]
    names = [b["name"] for b in bones]
    rolls = [float(roll_from_frame(_frame(b["rest"]["frame"]))) for b in bones]
    skeleton = Skeleton.from_bones(names, [b["parent"] for b in bones], [b["rest"]["head"] for b in bones],
                                   [b["rest"]["tail"] for b in bones], rolls, [b["parent"] >= 0 for b in bones])
    settings = {b["name"]: _bone_settings(b) for b in bones}
    return Rig("chain", skeleton, bone_ik=settings,
               solver=SolverSettings(type=solver, iterations=500, tolerance=1e-7, mode="original_pose"))


def _bone_settings(bone):
    """A recorded bone's IK panel: its locks, stretch and limits ({"x": [min, max], ...})."""
    limits = bone.get("limits", {})
    return BoneIKSettings(lock=tuple(bone["lock"]), stretch=bone["stretch"],
                          use_limit=tuple(axis in limits for axis in "xyz"),
                          limit_min=tuple(limits.get(axis, (-np.pi, np.pi))[0] for axis in "xyz"),
                          limit_max=tuple(limits.get(axis, (-np.pi, np.pi))[1] for axis in "xyz"))


def _goal(case, solver):
    c = case["constraint"]
    constraint = IKConstraint(bone=c["bone"], chain_count=c["chain_count"], use_tail=c["use_tail"],
                              use_stretch=c["use_stretch"], use_rotation=c["use_rotation"],
                              pole_angle=c["pole_angle"], solver=solver)
    rotation = matrix3_to_quat(np.array(case["target_frame"])) if "target_frame" in case else None
    pole = np.array(case["pole"]) if "pole" in case else None
    return IKGoal(constraint, np.array(case["target"]), rotation, pole)


def _solved(case, solver):
    rig = _rig(case, solver)
    goal = _goal(case, solver)
    pose, world, _, _ = solve_case(rig, [goal])
    return rig, goal, pose, world


def disagreement(case, solver):
    """The largest distance of any bone's head or tail from Blender's, over the chain's length."""
    rig, goal, _, world = _solved(case, solver)
    heads, tails = heads_tails(rig.skeleton, world)
    theirs = [[b["posed"]["head"] for b in case["bones"]], [b["posed"]["tail"] for b in case["bones"]]]
    length = rig.skeleton.lengths[rig.ik_chain(goal.constraint)].sum()
    return float(np.abs(np.linalg.norm(np.array([heads, tails]) - theirs, axis=-1)).max() / length)


def test_rest_frames_match_blenders():
    """Our roll rule rebuilds Blender's bone frames: the premise of the comparisons."""
    for case in CASES:
        skeleton = _rig(case, "auto").skeleton
        np.testing.assert_allclose(skeleton.rest_world[:, :3, :3], [b["rest"]["frame"] for b in case["bones"]],
                                   atol=1e-6)


# Where auto lands elsewhere than Blender: CCD (auto's first method on a locked chain) turns the
# crane's column and folds the jib under the boom in one pass, reaching the target by the other
# elbow, where Blender's solver (and our DLS) stay on the rest pose's side: 0.23 of the chain's
# length apart. Both answers reach the target; taking Blender's would mean steering CCD's path.
AUTO_ELSEWHERE = {121: "CCD reaches the crane's target with the jib folded the other way (0.23 of the chain's length off)"}
# Where a swing-joint or limited arm taking the hand's rotation sits near a singular pose: answers
# some millimetres apart meet the goal alike (ours to 1e-7 m and rad, Blender's to 2.5e-5 m and
# 1.7e-4 rad, or 1.2e-3 m for 141, which Blender leaves short), so which one a solver ends on
# is its path's. Measured: 138 6.3e-3, 141 2.2e-2, 156 5.2e-3 of the chain's length apart.
NEAR_SINGULAR = {index: "another answer meeting the goal as closely, near a singular pose" for index in (138, 141, 156)}
# Where auto's CCD, first on a locked arm taking the hand's rotation, reaches the same goal by
# another branch of the arm (0.04 to 0.26 of the chain's length off; every one converged).
AUTO_BRANCH = {index: "CCD reaches the goal exactly by another branch of the arm"
               for index in (137, 139, 147, 150, 170)}
ELSEWHERE = {"auto": {**AUTO_ELSEWHERE, **NEAR_SINGULAR, **AUTO_BRANCH}, "dls": NEAR_SINGULAR}


def _cases(solver):
    marks = ELSEWHERE[solver]
    return [pytest.param(i, marks=pytest.mark.xfail(strict=True, reason=marks[i]) if i in marks else (),
                         id=f"{case['family']}-{i}")
            for i, case in enumerate(CASES)]


@pytest.mark.parametrize("index", _cases("auto"))
def test_auto_poses_the_chain_as_blender_does(index):
    assert disagreement(CASES[index], "auto") <= TOLERANCE


@pytest.mark.parametrize("index", _cases("dls"))
def test_dls_poses_the_chain_as_blender_does(index):
    assert disagreement(CASES[index], "dls") <= TOLERANCE


def _twists(rotations, case):
    """The twist about its own Y (radians) of each bone of ``case`` with Y locked."""
    return [abs(swing_twist_angles(tuple(q))[1]) for q, b in zip(rotations, case["bones"]) if b["lock"][1]]


def blenders_rotations(case):
    """Blender's pose rotations (n, 4), read back from its rest and posed frames: a connected
    bone's frame is its parent's, turned by its rest turn relative to the parent, then its pose."""
    rotations = []
    for b in case["bones"]:
        rest, posed = np.array(b["rest"]["frame"]), np.array(b["posed"]["frame"])
        if b["parent"] >= 0:
            parent = case["bones"][b["parent"]]
            rest_turn = np.array(parent["rest"]["frame"]).T @ rest
            rotation = rest_turn.T @ np.array(parent["posed"]["frame"]).T @ posed
        else:
            rotation = rest.T @ posed
        rotations.append(matrix3_to_quat(rotation))
    return np.array(rotations)


LOCKED_Y = [i for i, case in enumerate(CASES) if any(b["lock"][1] and not all(b["lock"]) for b in case["bones"])]


@pytest.mark.parametrize("index", LOCKED_Y)
def test_blenders_swing_joints_never_twist(index):
    """The premise: Blender's lock Y keeps a bone's twist about its own axis at 0."""
    assert max(_twists(blenders_rotations(CASES[index]), CASES[index])) <= TWIST_TOLERANCE


@pytest.mark.parametrize("solver", ("auto", *METHODS))
def test_no_method_twists_a_bone_whose_y_is_locked(solver):
    """Every method, on every case with a bone whose Y is locked (its other axes not both
    locked): no such bone twists about its own axis, whether or not the method reaches."""
    for index in LOCKED_Y:
        _, _, pose, _ = _solved(CASES[index], solver)
        assert max(_twists(pose.rotations, CASES[index])) <= TWIST_TOLERANCE, index


TWO_BONE_HINGES = [i for i, case in enumerate(CASES) if case["family"] == "hinge" and len(case["bones"]) == 2]


@pytest.mark.parametrize("index", TWO_BONE_HINGES)
def test_forced_two_bone_bends_a_hinged_forearm_as_blender_does(index):
    """The forearm locked in Y and Z: the two-bone solver bends it about its hinge (X) and turns
    the upper arm onto the target and the pole, where Blender's iterative solver ends."""
    assert disagreement(CASES[index], "two_bone") <= TOLERANCE


def test_every_family_is_there():
    assert {case["family"] for case in CASES} == set(FAMILIES)
