"""The trunk's lean read from balance (``rig.tracking.balance``): a body bent over with its hips held
over its planted feet, its head level and its arms hanging straight down (neither tells the bend in
a single frame) is found leaning by where its head is over its feet; a body standing upright over
its feet is not leaned; feet one ahead of the other say less; and the feet are a support to balance
over only while both stand under a body that stays about where it is."""
import numpy as np
import pytest

from rig.formats.rigfile import load_rig
from rig.pose import Pose, world_matrices
from rig.tracking.balance import balance_miss, balance_of
from rig.tracking.body import find_body
from rig.tracking.calibration import BoneTarget, bone_target, default_offsets
from rig.tracking.estimate import LEAN_COS, LEAN_SIN, PelvisEstimate
from rig.tracking.from_clip import samples
from rig.tracking.steps import FEET, SHUFFLE, Feet
from solvers.transforms import matrix3_to_quat, quat_conjugate, quat_from_axis_angle, quat_mul

BEND = 0.9  # radians the trunk bends forward at its lowest spine joint
BALANCED_OFF = 0.1  # metres the estimated pelvis may be from the bent body's (the estimate leans its rigid trunk
# at the pelvis, the body bends above it)
UNREAD_OFF = 0.3  # metres the estimate without the feet is at least from it: the head's and arms' reads miss the bend
UPRIGHT = 0.02  # metres the estimate of a standing body may be from its pelvis
FPS = 30.0
STRIDE = 0.6  # metres between staggered feet
CREEP = 0.2  # metres a second the pelvis creeps forward (below a shuffle): the feet step now and then


@pytest.fixture(scope="module")
def humanoid():
    rig = load_rig("assets/humanoid.json")
    return rig, find_body(rig)


def bent_over(rig, body, bend):
    """The rest pose bent forward by ``bend`` at the spine's first joint, the hips where they stood
    (over the feet), the head turned back level and the upper arms back to hang straight down; its
    world matrices."""
    skeleton, pose = rig.skeleton, Pose.rest(len(rig.skeleton))
    left = np.cross([0.0, 1.0, 0.0], body.forward)
    for name, angle in (("spine.01", bend), ("head", -bend), ("upper_arm.L", -bend), ("upper_arm.R", -bend)):
        bone = skeleton.index[name]
        rest = matrix3_to_quat(skeleton.rest_world[bone, :3, :3])  # the turn in the bone's own frame
        pose.rotations[bone] = quat_mul(quat_conjugate(rest), quat_mul(quat_from_axis_angle(left, angle), rest))
    return world_matrices(skeleton, pose)


def estimated(body, world, support):
    """The pelvis (3,) a fresh estimate puts under this frame's head and hands, the feet standing
    at ``support`` (2, 3; None: not known)."""
    offsets = default_offsets(body)
    seen = {role: bone_target(sample, offsets[role])
            for role, sample in samples(body, world, ("head", "hand.L", "hand.R")).items()}
    return PelvisEstimate(body)(seen["head"], (seen["hand.L"], seen["hand.R"]), 0.0, support)[0].position


def feet_of(body, world):
    return np.array([world[body.bones[role], :3, 3] for role in FEET])


def test_a_body_bent_over_its_planted_feet_is_leaned_by_its_balance(humanoid):
    rig, body = humanoid
    world = bent_over(rig, body, BEND)
    truth, support = world[body.bones["pelvis"], :3, 3], feet_of(body, world)
    assert np.all((world[body.bones["head"], :3, 3] - support) @ body.forward > 0.3)  # the head far ahead of the feet
    assert np.linalg.norm(estimated(body, world, None) - truth) >= UNREAD_OFF
    assert np.linalg.norm(estimated(body, world, support) - truth) <= BALANCED_OFF


def test_a_body_standing_upright_over_its_feet_is_not_leaned_by_its_balance(humanoid):
    rig, body = humanoid
    world = bent_over(rig, body, 0.0)
    got = estimated(body, world, feet_of(body, world))
    assert np.linalg.norm(got - world[body.bones["pelvis"], :3, 3]) <= UPRIGHT


def test_feet_one_ahead_of_the_other_say_less_of_the_lean(humanoid):
    """The centre of mass may be anywhere between staggered feet: the same midpoint, the feet a
    stride apart along the heading, misses balance by less at every lean."""
    _, body = humanoid
    balance, ahead = balance_of(body), 0.3
    square = np.abs(balance_miss(balance, np.array([ahead, ahead]), LEAN_SIN, LEAN_COS))
    staggered = np.abs(balance_miss(balance, np.array([ahead - STRIDE / 2, ahead + STRIDE / 2]), LEAN_SIN, LEAN_COS))
    assert np.all(staggered < square)


def test_the_feet_are_a_support_only_while_both_stand_under_a_body_about_where_it_is(humanoid):
    """A pelvis creeping forward steps the feet now and then: the support is the feet's positions
    while neither steps and None while one does; a pelvis moving faster than a shuffle gives none."""
    rig, body = humanoid
    rest = world_matrices(rig.skeleton, Pose.rest(len(rig.skeleton)))
    start = rest[body.bones["pelvis"], :3, 3]
    feet, dt, stepped = Feet(body), 1.0 / FPS, 0
    for k in range(90):
        feet(BoneTarget(start + body.forward * CREEP * k * dt, body.rest_rotations["pelvis"]), body.forward, dt, {})
        stepping = any(feet.feet[role].start is not None for role in FEET)
        stepped += stepping
        support = feet.support()
        if stepping:
            assert support is None
        else:
            assert np.array_equal(support, [feet.feet[role].at.position for role in FEET])
    assert stepped > 0
    for k in range(10):
        feet(BoneTarget(start + body.forward * 2.0 * SHUFFLE * k * dt, body.rest_rotations["pelvis"]),
             body.forward, dt, {})
    assert feet.support() is None
