"""IK settings as Blender means them, checked against Blender's own solves.

tests/data/blender_ik_reference.json was made by tests/tools/blender_ik_reference.py with Blender
3.4's legacy IK solver (the armature default), keeping only cases where Blender's answer is
unique (see the script): ``use_tail`` off, a target rotation, IK stretch beyond reach, and
single-axis bones (locks). Each case is solved here from the same rest frames, bone IK settings,
constraint, target, target rotation and pole, by auto and by DLS (which honours every setting),
and every bone's posed head and tail must lie within 1e-3 of the chain's length of Blender's.
Measured at most: no_tail 2.0e-4, rotation 1.5e-5, stretch 2.2e-4, hinge 4.7e-5 (of the length),
auto and DLS alike, but for the one case AUTO_ELSEWHERE names.
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
from solvers.transforms import matrix3_to_quat

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "blender_ik_reference.json").read_text())
CASES = REFERENCE["cases"]
FAMILIES = ("no_tail", "rotation", "stretch", "hinge")
TOLERANCE = 1e-3  # of the chain's rest length, per compared point


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
    settings = {b["name"]: BoneIKSettings(lock=tuple(b["lock"]), stretch=b["stretch"]) for b in bones}
    return Rig("chain", skeleton, bone_ik=settings,
               solver=SolverSettings(type=solver, iterations=500, tolerance=1e-7, mode="original_pose"))


def _goal(case, solver):
    c = case["constraint"]
    constraint = IKConstraint(bone=c["bone"], chain_count=c["chain_count"], use_tail=c["use_tail"],
                              use_stretch=c["use_stretch"], use_rotation=c["use_rotation"],
                              pole_angle=c["pole_angle"], solver=solver)
    rotation = matrix3_to_quat(np.array(case["target_frame"])) if "target_frame" in case else None
    pole = np.array(case["pole"]) if "pole" in case else None
    return IKGoal(constraint, np.array(case["target"]), rotation, pole)


def disagreement(case, solver):
    """The largest distance of any bone's head or tail from Blender's, over the chain's length."""
    rig = _rig(case, solver)
    goal = _goal(case, solver)
    _, world, _, _ = solve_case(rig, [goal])
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


def _cases(solver):
    marks = AUTO_ELSEWHERE if solver == "auto" else {}
    return [pytest.param(i, marks=pytest.mark.xfail(strict=True, reason=marks[i]) if i in marks else (),
                         id=f"{case['family']}-{i}")
            for i, case in enumerate(CASES)]


@pytest.mark.parametrize("index", _cases("auto"))
def test_auto_poses_the_chain_as_blender_does(index):
    assert disagreement(CASES[index], "auto") <= TOLERANCE


@pytest.mark.parametrize("index", _cases("dls"))
def test_dls_poses_the_chain_as_blender_does(index):
    assert disagreement(CASES[index], "dls") <= TOLERANCE


TWO_BONE_HINGES = [i for i, case in enumerate(CASES) if case["family"] == "hinge" and len(case["bones"]) == 2]


@pytest.mark.parametrize("index", TWO_BONE_HINGES)
def test_forced_two_bone_bends_a_hinged_forearm_as_blender_does(index):
    """The forearm locked in Y and Z: the two-bone solver bends it about its hinge (X) and turns
    the upper arm onto the target and the pole, where Blender's iterative solver ends."""
    assert disagreement(CASES[index], "two_bone") <= TOLERANCE


def test_every_family_is_there():
    assert {case["family"] for case in CASES} == set(FAMILIES)
