"""iTaSC's Simulation mode on the Jacobian methods (``solvers.simulation``), as properties over
seeded chains, goals and settings: no moving bone turns further than max velocity x dt in a frame
(limits and locks held), a still target is approached monotonically and met, and bad settings
are refused."""
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from solvers.chain import chain_pose, straight_chain
from solvers.goals import BoneDofs, PositionGoal
from solvers.methods import solve
from solvers.problem import Freedoms, Problem, Settings
from solvers.simulation import Simulation, turn_angle
from solvers.tolerances import VELOCITY_BOUND

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
HINGE = BoneDofs(lock=(False, True, True), use_limit=(True, False, False), limit_min=(-0.2, 0.0, 0.0),
                 limit_max=(2.0, 0.0, 0.0))  # an elbow: bends about X within [-0.2, 2] rad only
points = st.tuples(*[st.floats(-2.0, 2.0, allow_nan=False)] * 3)


def frames(problem, method, targets, simulation, tolerance=1e-6):
    """Each frame's rotations (frames + 1, n, 4) from rest, one simulated frame per target."""
    poses = [np.tile([0.0, 0.0, 0.0, 1.0], (len(problem.bones), 1))]
    for k, target in enumerate(targets):
        goals = (PositionGoal(len(poses[0]) - 1, target),)
        result = solve(method, Problem(problem.bones, goals, problem.freedoms), poses[-1],
                       Settings(100, tolerance, 0.1, simulation), fresh=k == 0)
        poses.append(result.rotations)
    return np.array(poses)


@SETTINGS
@given(lengths=st.lists(st.floats(0.05, 1.0), min_size=2, max_size=5), targets=st.lists(points, min_size=2, max_size=5),
       method=st.sampled_from(["dls", "sdls"]), hinged=st.booleans(), dt=st.floats(1e-3, 0.2),
       max_velocity=st.floats(0.1, 50.0), feedback=st.floats(0.0, 100.0))
def test_no_moving_bone_turns_faster_than_max_velocity(lengths, targets, method, hinged, dt, max_velocity, feedback):
    assume(all(np.linalg.norm(t) > 1e-3 for t in targets))  # a target on the root has no direction
    dofs = tuple(HINGE if hinged and i % 2 else None for i in range(len(lengths)))
    problem = Problem(straight_chain(lengths), (), Freedoms(dofs))
    poses = frames(problem, method, targets, Simulation(dt, max_velocity, feedback))
    assert np.isfinite(poses).all()
    for before, after in zip(poses[:-1], poses[1:]):
        assert max(map(turn_angle, before.tolist(), after.tolist())) <= max_velocity * dt + VELOCITY_BOUND
    if hinged:  # the hinges never left their axis or range
        for pose in poses[:, 1::2]:
            assert np.abs(pose[:, 1:3]).max() < 1e-9 and (2 * np.arctan2(pose[:, 0], pose[:, 3]) <= 2.0 + 1e-9).all()


@settings(max_examples=15, deadline=None, derandomize=True)
@given(lengths=st.lists(st.floats(0.2, 1.0), min_size=2, max_size=4), direction=points,
       fraction=st.floats(0.2, 0.9), method=st.sampled_from(["dls", "sdls"]))
def test_a_still_reachable_target_is_approached_without_going_back_and_met_within_2_seconds(
        lengths, direction, fraction, method):
    assume(np.linalg.norm(direction) > 1e-2)
    distance = fraction * sum(lengths)
    assume(distance > 2 * max(lengths) - sum(lengths) + 0.05)  # not inside the chain's least reach
    target = tuple(np.array(direction) / np.linalg.norm(direction) * distance)
    problem = Problem(straight_chain(lengths), (), Freedoms.free(len(lengths)))
    poses = frames(problem, method, [target] * 60, Simulation(1.0 / 30.0, 10.0, 20.0))
    gaps = [np.linalg.norm(chain_pose(problem.bones, pose, None)[1][-1] - target) for pose in poses]
    # Each step lowers the residual, but the first ones: a target on the straight chain's line
    # bends it once (``solvers.dls._unfold``), as the iterations do.
    assert all(b <= a + 1e-12 for a, b in zip(gaps[2:], gaps[3:]))
    assert gaps[-1] <= 1e-4


@settings(max_examples=20, deadline=None, derandomize=True)
@given(lengths=st.lists(st.floats(0.2, 1.0), min_size=2, max_size=5), direction=points,
       beyond=st.floats(1.02, 2.0), method=st.sampled_from(["dls", "sdls"]))
def test_a_still_target_beyond_reach_is_met_as_the_stretched_chain_within_2_seconds_and_kept(
        lengths, direction, beyond, method):
    """The Animation mode's answer for a target out of reach is the chain laid straight at it:
    every joint on the line from the root toward the target. The simulation meets it (every
    joint within 1e-4 m) within 2 s of still target, and stays on it: no bend off the answer
    once there (a straight chain pulled outward is at its best, not stalled)."""
    assume(np.linalg.norm(direction) > 1e-2)
    toward = np.array(direction) / np.linalg.norm(direction)
    problem = Problem(straight_chain(lengths), (), Freedoms.free(len(lengths)))
    poses = frames(problem, method, [tuple(toward * beyond * sum(lengths))] * 90, Simulation(1.0 / 30.0, 10.0, 20.0))
    answer = toward * np.concatenate([[0.0], np.cumsum(lengths)])[:, None]
    gaps = np.array([np.linalg.norm(chain_pose(problem.bones, pose, None)[1] - answer, axis=1).max() for pose in poses])
    assert gaps[60:].max() <= 1e-4


@pytest.mark.parametrize("bad", [Simulation(0.0, 1.0, 1.0), Simulation(math.nan, 1.0, 1.0),
                                 Simulation(0.1, -1.0, 1.0), Simulation(0.1, 1.0, math.inf)])
def test_bad_simulation_settings_raise(bad):
    problem = Problem(straight_chain([0.5, 0.5]), (PositionGoal(1, (0.3, 0.5, 0.0)),), Freedoms.free(2))
    with pytest.raises(ValueError):
        solve("dls", problem, np.tile([0.0, 0.0, 0.0, 1.0], (2, 1)), Settings(simulation=bad))
