"""Pole angle as Blender means it, checked against Blender's own solves.

tests/data/blender_pole_reference.json was made by tests/tools/blender_pole_reference.py with
Blender 3.4's legacy IK solver: two-bone chains with rolls of 0 to 45 degrees, rest poses bent
different ways, and pole angles from -150 to 200 degrees. Each case is solved here from the same
rest frames with the same target, pole and pole angle, by every solver: the analytic two-bone solver, and FABRIK, CCD and DLS, which take the pole
as Blender does, by turning the chain to face it before they bend it.
"""
import json
from pathlib import Path

import numpy as np
import pytest

from rig.constraints import IKConstraint, SolverSettings
from rig.ik import IKGoal, solve_goals
from rig.pose import Pose, heads_tails, update_world, world_matrices
from rig.rig import Rig
from rig.scripted_solve import solve_case
from rig.skeleton import Skeleton, roll_from_frame

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "blender_pole_reference.json").read_text())
CASES = REFERENCE["cases"]
NAMES = ["upper", "lower"]


def _frame(rows):
    frame = np.eye(4)
    frame[:3, :3] = rows
    return frame


def _rig(case, solver):
    rest = case["rest"]
    heads = [rest[n]["head"] for n in NAMES]
    tails = [rest[n]["tail"] for n in NAMES]
    rolls = [float(roll_from_frame(_frame(rest[n]["frame"]))) for n in NAMES]
    skeleton = Skeleton.from_bones(NAMES, [-1, 0], heads, tails, rolls, [False, True])
    return Rig("limb", skeleton, solver=SolverSettings(type=solver, iterations=200, tolerance=1e-7))


def test_rest_frames_match_blenders():
    """Our roll rule rebuilds Blender's bone frames from head, tail and roll: the premise of the
    comparison below."""
    for case in CASES:
        skeleton = _rig(case, "auto").skeleton
        for i, name in enumerate(NAMES):
            np.testing.assert_allclose(skeleton.rest_world[i, :3, :3], case["rest"][name]["frame"], atol=1e-6)


@pytest.mark.parametrize("solver", ["auto", "fabrik", "ccd", "dls"])
@pytest.mark.parametrize("index", range(len(CASES)))
def test_pole_angle_poses_the_chain_as_blender_does(index, solver):
    case = CASES[index]
    rig = _rig(case, solver)
    constraint = IKConstraint(bone="lower", chain_count=2, pole_angle=case["pole_angle"], solver=solver)
    goal = IKGoal(constraint, np.array(case["target"]), pole=np.array(case["pole"]))
    _, world, _, _ = solve_case(rig, [goal])
    heads, tails = heads_tails(rig.skeleton, world)
    posed = case["posed"]
    np.testing.assert_allclose(heads, [posed[n]["head"] for n in NAMES], atol=1e-3)
    np.testing.assert_allclose(tails, [posed[n]["tail"] for n in NAMES], atol=1e-3)
    # The bones' roll too: Blender's frames, not just its joint positions.
    np.testing.assert_allclose(world[:, :3, :3], [posed[n]["frame"] for n in NAMES], atol=2e-3)


@pytest.mark.parametrize("solver", ["auto", "fabrik", "dls"])
def test_solving_again_from_the_result_keeps_it(solver):
    """Continuous mode starts each solve from the last one's bends; the pole still takes the rest
    shape as its reference, so the roll does not creep from one frame to the next (the cases are
    the oblique ones, where the bent and the rest chain's up vectors differ)."""
    for case in (CASES[3], CASES[5], CASES[11]):
        rig = _rig(case, solver)
        rig.solver.mode = "continuous"
        constraint = IKConstraint(bone="lower", chain_count=2, pole_angle=case["pole_angle"], solver=solver)
        goal = IKGoal(constraint, np.array(case["target"]), pole=np.array(case["pole"]))
        pose = Pose.rest(2)
        world = world_matrices(rig.skeleton, pose)
        points = []
        for _ in range(3):
            solve_goals(rig, pose, world, [goal], [0, 1])
            update_world(rig.skeleton, pose, world, [0])
            points.append(heads_tails(rig.skeleton, world)[1].copy())
        np.testing.assert_allclose(points[1], points[0], atol=1e-4)
        np.testing.assert_allclose(points[2], points[0], atol=1e-4)
        np.testing.assert_allclose(points[0], [case["posed"][n]["tail"] for n in NAMES], atol=1e-3)
