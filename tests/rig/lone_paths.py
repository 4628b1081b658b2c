"""What the rig's compiled lone-group paths (rig.lone_limb, rig.lone_chain) are held to: a solve
through ``rig.ik.solve_groups`` with or without the path, and the two results compared."""
import numpy as np
import pytest

import rig.ik as ik
from rig.ik import IKGoal, solve_groups
from rig.pose import Pose, world_matrices

SAME = 1e-12  # both paths run the same compiled solve and forward kinematics: equal up to rounding


def solved(rig, pose, constraint, goal, path=None):
    """pose, world and reports of one solve from a copy of ``pose``; ``path`` names the compiled
    path in ``rig.ik`` ("solve_lone_limb", "solve_lone_chain") to turn off, so the general path runs."""
    with pytest.MonkeyPatch.context() as patch:
        if path is not None:
            patch.setattr(ik, path, lambda *_: None)
        pose = pose.copy()
        world = world_matrices(rig.skeleton, pose)
        reports, _ = solve_groups(rig, pose, world, [constraint], lambda c, _: goal)
    return pose, world, reports


def assert_same(fast, general):
    """Two ``solved`` results pose, move the world and report alike."""
    np.testing.assert_allclose(fast[0].rotations, general[0].rotations, atol=SAME)
    np.testing.assert_allclose(fast[0].scales, general[0].scales, atol=SAME)
    np.testing.assert_allclose(fast[1], general[1], atol=SAME)
    (ours,), (theirs,) = fast[2], general[2]
    assert (ours.solver, ours.iterations, ours.converged, ours.notes, ours.unit, ours.at_limit) == \
        (theirs.solver, theirs.iterations, theirs.converged, theirs.notes, theirs.unit, theirs.at_limit)
    assert ours.error == pytest.approx(theirs.error, abs=SAME)


def solves_as_the_arm_moves(rig, constraint, reach, path):
    """Solves of ``constraint`` on the humanoid, each from the last one's pose, after the body
    under the left arm turns and its bones get pose locations: (fast, general) per solve, the
    target at ``reach(k)`` from the shoulder on the k-th; the two moved the world alike."""
    skel = rig.skeleton
    pose = Pose.rest(len(skel))
    moves = [lambda p: None, lambda p: p.rotations.__setitem__(skel.index["spine.03"], [0.0, 0.0, 0.2, 0.98]),
             lambda p: p.locations.__setitem__(skel.index["upper_arm.L"], [0.0, 0.05, 0.02]),
             lambda p: p.locations.__setitem__(skel.index["forearm.L"], [0.01, 0.0, 0.0]), lambda p: None]
    for k, move in enumerate(moves):
        move(pose)
        goal = IKGoal(constraint, world_matrices(skel, pose)[skel.index["upper_arm.L"], :3, 3] + reach(k))
        fast, general = (solved(rig, pose, constraint, goal, p) for p in (None, path))
        np.testing.assert_allclose(fast[1], general[1], atol=SAME)
        yield fast, general
        pose = fast[0]
