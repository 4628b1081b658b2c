"""Rotation goals on the iterative chain solvers: CCD and FABRIK meet a reachable position and
rotation (reachable by construction: a random pose's tip and last-bone rotation) and report the angle
left to the rotation."""
import numpy as np
from hypothesis import assume, given, settings, strategies as st

from solvers.ccd import solve_ccd_chain
from solvers.chain import chain_pose, straight_chain
from solvers.limits import Hinge
from solvers.transforms import matrix3_to_quat, quat_angle, quat_from_axis_angle

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
angles = st.floats(-1.2, 1.2)
axes = st.tuples(*[st.floats(-1, 1)] * 3)


@SETTINGS
@given(bends=st.lists(st.tuples(axes, angles), min_size=4, max_size=4))
def test_a_reachable_position_and_rotation_are_both_met(bends):
    assume(all(np.linalg.norm(axis) > 0.1 for axis, _ in bends))
    chain = straight_chain([0.3, 0.25, 0.2, 0.1])
    pose = np.array([quat_from_axis_angle(axis, angle) for axis, angle in bends])
    frames, points = chain_pose(chain, pose)
    target, rotation = points[-1], matrix3_to_quat(frames[-1])
    result = solve_ccd_chain(chain, np.tile([0.0, 0.0, 0.0, 1.0], (4, 1)), target, max_iterations=100,
                             tolerance=1e-6, target_rotation=rotation)
    frames, points = chain_pose(chain, result.rotations)
    assert np.linalg.norm(points[-1] - target) < 1e-4
    assert quat_angle(matrix3_to_quat(frames[-1]), rotation) < 1e-6
    assert result.errors[0] < 1e-4 and result.errors[1] < 1e-6


def test_a_limited_last_bone_holds_its_limit_and_reports_the_angle_left():
    chain = straight_chain([0.3, 0.25, 0.1])
    limits = [None, None, Hinge((1.0, 0.0, 0.0), -0.2, 0.2)]
    rotation = quat_from_axis_angle([0.0, 0.0, 1.0], 1.0)  # a turn the hinge cannot make
    result = solve_ccd_chain(chain, np.tile([0.0, 0.0, 0.0, 1.0], (3, 1)), [0.1, 0.4, 0.1], limits,
                             max_iterations=50, tolerance=1e-6, target_rotation=rotation)
    last = result.rotations[-1]
    assert abs(last[1]) < 1e-9 and abs(last[2]) < 1e-9  # still only about X
    frames, _ = chain_pose(chain, result.rotations)
    assert result.errors[1] == np.float64(quat_angle(matrix3_to_quat(frames[-1]), rotation))
    assert result.errors[1] > 0.1 and not result.converged


@SETTINGS
@given(bends=st.lists(st.tuples(axes, angles), min_size=2, max_size=2))
def test_fabrik_reports_the_angle_left_to_its_rotation_goal(bends):
    from solvers.fabrik import solve_fabrik_chain
    assume(all(np.linalg.norm(axis) > 0.1 for axis, _ in bends))
    chain = straight_chain([0.3, 0.25])
    frames, points = chain_pose(chain, np.array([quat_from_axis_angle(a, t) for a, t in bends]))
    rotation = matrix3_to_quat(frames[-1])
    result = solve_fabrik_chain(chain, np.tile([0.0, 0.0, 0.0, 1.0], (2, 1)), points[-1], target_rotation=rotation,
                                max_iterations=100, tolerance=1e-6)
    solved, tips = chain_pose(chain, result.rotations)
    assert len(result.errors) == 2 and result.converged
    assert abs(result.errors[1] - quat_angle(matrix3_to_quat(solved[-1]), rotation)) < 1e-7 and result.errors[1] < 1e-6
    assert np.linalg.norm(tips[-1] - points[-1]) < 1e-4
