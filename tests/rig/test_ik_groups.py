"""Constraints whose chains share bones solve together as one tree (Blender's IK trees)."""
import numpy as np
import pytest

from rig.constraints import IKConstraint
from rig.evaluate import evaluate
from rig.ik import constraint_groups
from rig.pose import Pose, heads_tails, location_for_head
from rig.rig import Rig
from rig.skeleton import Skeleton

BONES = [  # name, parent, head, tail
    ("hips", None, (0, 1.0, 0), (0, 1.2, 0)),
    ("spine", "hips", (0, 1.2, 0), (0, 1.5, 0)),
    ("arm.L", "spine", (0, 1.5, 0), (0.3, 1.5, 0)),
    ("hand.L", "arm.L", (0.3, 1.5, 0), (0.55, 1.5, 0)),
    ("arm.R", "spine", (0, 1.5, 0), (-0.3, 1.5, 0)),
    ("hand.R", "arm.R", (-0.3, 1.5, 0), (-0.55, 1.5, 0)),
    ("target.L", None, (0.55, 1.5, 0), (0.55, 1.6, 0)),
    ("target.R", None, (-0.55, 1.5, 0), (-0.55, 1.6, 0)),
]


def y_rig(chain_count=3):
    names = [b[0] for b in BONES]
    parents = [names.index(b[1]) if b[1] else -1 for b in BONES]
    skeleton = Skeleton.from_bones(names, parents, [b[2] for b in BONES], [b[3] for b in BONES],
                                   [0.0] * len(BONES), [p >= 0 for p in parents])
    ik = [IKConstraint("hand.L", "target.L", chain_count=chain_count),
          IKConstraint("hand.R", "target.R", chain_count=chain_count)]
    return Rig("y", skeleton, ik)


def move(rig, pose, name, point):
    world = evaluate(rig, pose)[1]
    i = rig.skeleton.index[name]
    pose.locations[i] = location_for_head(rig.skeleton, pose, world, i, point)


def test_chains_sharing_bones_form_one_group_and_separate_ones_do_not():
    rig = y_rig(chain_count=3)
    groups = constraint_groups(rig, rig.ik)
    assert len(groups) == 1
    assert [rig.skeleton.names[i] for i in groups[0][1]] == ["spine", "arm.L", "hand.L", "arm.R", "hand.R"]
    rig = y_rig(chain_count=2)
    assert [len(g[0]) for g in constraint_groups(rig, rig.ik)] == [1, 1]


def test_tree_solve_reaches_both_targets_and_keeps_bone_lengths():
    rig = y_rig(chain_count=3)
    pose = Pose.rest(len(rig.skeleton))
    goals = {"target.L": np.array([0.35, 1.75, 0.25]), "target.R": np.array([-0.45, 1.55, 0.2])}
    for name, point in goals.items():
        move(rig, pose, name, point)
    for _frame in range(3):
        pose, world, reports = evaluate(rig, pose)
    assert [r.solver for r in reports] == ["fabrik", "fabrik"]
    heads, tails = heads_tails(rig.skeleton, world)
    index = rig.skeleton.index
    assert np.linalg.norm(tails[index["hand.L"]] - goals["target.L"]) < 1e-4
    assert np.linalg.norm(tails[index["hand.R"]] - goals["target.R"]) < 1e-4
    np.testing.assert_allclose(np.linalg.norm(tails - heads, axis=1), rig.skeleton.lengths, rtol=1e-9)
    assert reports[0].error == pytest.approx(np.linalg.norm(tails[index["hand.L"]] - goals["target.L"]), abs=1e-12)
    # The shared spine bent: neither arm alone could reach its target.
    assert not np.allclose(pose.rotations[index["spine"]], [0, 0, 0, 1])
    np.testing.assert_array_equal(pose.rotations[index["hips"]], [0, 0, 0, 1])


def test_weights_decide_who_wins_a_tug_of_war():
    rig = y_rig(chain_count=3)
    rig.ik[0].weight, rig.ik[1].weight = 1.0, 0.05
    pose = Pose.rest(len(rig.skeleton))
    move(rig, pose, "target.L", [1.2, 1.4, 0.0])  # both out of reach, pulling the spine apart
    move(rig, pose, "target.R", [-1.2, 1.4, 0.0])
    for _frame in range(3):
        pose, world, reports = evaluate(rig, pose)
    assert reports[0].error < reports[1].error
    assert np.isfinite(pose.rotations).all()


def test_a_chain_follows_its_moved_root_bone_and_its_parent():
    """Chains are built once and kept on the skeleton: moving the chain's first bone (its pose
    location) or its parent must still reach the target, from the moved head."""
    rig = y_rig(chain_count=2)
    pose = Pose.rest(len(rig.skeleton))
    index = rig.skeleton.index
    evaluate(rig, pose)
    for bone, offset in (("arm.L", (0.0, 0.1, 0.05)), ("spine", (0.05, 0.0, 0.0))):
        pose.locations[index[bone]] = offset
        move(rig, pose, "target.L", [0.4, 1.65, 0.2])
        pose, world, _ = evaluate(rig, pose)
        heads, tails = heads_tails(rig.skeleton, world)
        assert np.linalg.norm(tails[index["hand.L"]] - [0.4, 1.65, 0.2]) < 1e-4
        np.testing.assert_allclose(np.linalg.norm(tails - heads, axis=1), rig.skeleton.lengths, rtol=1e-9)
