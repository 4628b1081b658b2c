"""The pelvis estimated from head and hands (``rig.tracking.estimate``): a body bent forward at the
hips with its head held level (turned back up on the neck) is found leaning by its arms, which hang
from the leaning chest; a standing body is not leaned, nor one nodding its head down in place; a
walk's arm swing hardly turns the heading; a body lifting itself onto something is leaned further
forward than one standing still, one lowering itself less."""
import math

import numpy as np
import pytest

from rig.formats.rigfile import load_rig
from rig.pose import Pose, world_matrices
from rig.tracking.body import find_body
from rig.tracking.calibration import bone_target, default_offsets
from rig.tracking.estimate import PelvisEstimate
from rig.tracking.from_clip import samples
from solvers.transforms import matrix3_to_quat, quat_conjugate, quat_from_axis_angle, quat_mul, signed_angle

BEND = 0.9  # radians the trunk bends forward at its lowest spine joint
PELVIS_OFF = 0.25  # metres the estimated pelvis may be from the bent body's (0.42 leaning by the head alone: the
# pelvis under the head; the estimate's rigid trunk leaning at the pelvis is not this bend above it, so not 0)
UPRIGHT = 0.02  # metres the estimate of a standing body may be from its pelvis
NOD = 0.6  # radians a head nods down to look at its feet, standing upright and still
CLIMB_SPEED = 0.4  # metres a second the head rises, climbing onto a platform (CMU 01_03: 0.75 m in about 2 s)
CLIMB_LEAN = 0.1  # radians further forward (back, climbing down) the estimate leans the climbing body at least
JUMP_UP = 2.43  # metres a second an upright body leaves the floor at, jumping 0.3 m
GRAVITY = 9.81  # metres a second squared
JUMP_LEAN = 0.02  # radians a jump or a crouch may lean the estimate (of an upright body: 0 standing still)
SWING = 0.5  # radians each upper arm swings forward and back, opposite ways, as in a brisk walk
SWING_PERIOD = 1.1  # seconds: one stride of each foot
SWING_TURN = math.radians(15.0)  # the heading may turn this far, end to end, as the arms swing (the
# elbows' line turns 13 degrees; the hands' line, twice as far out, 19)


@pytest.fixture(scope="module")
def humanoid():
    rig = load_rig("assets/humanoid.json")
    return rig, find_body(rig)


def bent(rig, body, bend, swing=0.0):
    """The rest pose bent forward by ``bend`` at the spine's first joint, the head turned
    back level, the left upper arm swung forward by ``swing`` and the right back (each as at rest
    on the chest when 0); its world matrices."""
    skeleton, pose = rig.skeleton, Pose.rest(len(rig.skeleton))
    left = np.cross([0.0, 1.0, 0.0], body.forward)
    for name, angle in (("spine.01", bend), ("head", -bend), ("upper_arm.L", swing), ("upper_arm.R", -swing)):
        bone = skeleton.index[name]
        rest = matrix3_to_quat(skeleton.rest_world[bone, :3, :3])  # the turn in the bone's own frame
        pose.rotations[bone] = quat_mul(quat_conjugate(rest), quat_mul(quat_from_axis_angle(left, angle), rest))
    return world_matrices(skeleton, pose)


def estimated(body, world, estimate=None, dt=0.0):
    """The pelvis (3,) and heading (3,) the estimate (a fresh one unless given) puts under this
    frame's head and hands, ``dt`` seconds after its last."""
    offsets = default_offsets(body)
    seen = {role: bone_target(sample, offsets[role])
            for role, sample in samples(body, world, ("head", "hand.L", "hand.R")).items()}
    pelvis, heading = (estimate or PelvisEstimate(body))(seen["head"], (seen["hand.L"], seen["hand.R"]), dt)
    return pelvis.position, heading


def test_a_body_bent_over_with_its_head_level_is_leaned_by_its_arms(humanoid):
    rig, body = humanoid
    world = bent(rig, body, BEND)
    head = world[body.bones["head"], :3, :3] @ np.linalg.inv(rig.skeleton.rest_world[body.bones["head"], :3, :3])
    assert math.isclose(np.trace(head), 3.0, abs_tol=1e-9)  # the head is level: it says nothing of the bend
    truth = world[body.bones["pelvis"], :3, 3]
    assert np.linalg.norm(estimated(body, world)[0] - truth) <= PELVIS_OFF


def test_a_standing_body_is_not_leaned(humanoid):
    rig, body = humanoid
    world = bent(rig, body, 0.0)
    assert np.linalg.norm(estimated(body, world)[0] - world[body.bones["pelvis"], :3, 3]) <= UPRIGHT


def test_a_walks_arm_swing_hardly_turns_the_heading(humanoid):
    rig, body = humanoid
    estimate, dt, turns = PelvisEstimate(body), 1.0 / 30.0, []
    for frame in range(90):
        swing = SWING * math.sin(2.0 * math.pi * frame * dt / SWING_PERIOD)
        _, heading = estimated(body, bent(rig, body, 0.3, swing), estimate, dt)
        if frame * dt >= 1.0:  # after the heading has settled from its first frame
            turns.append(signed_angle(body.forward, heading, np.array([0.0, 1.0, 0.0])))
    assert np.ptp(turns) <= SWING_TURN


def nodded(rig, body, nod):
    """The rest pose, arms hanging as at rest, with the head pitched down by ``nod`` about its neck
    joint; its world matrices."""
    skeleton, pose = rig.skeleton, Pose.rest(len(rig.skeleton))
    bone = skeleton.index["head"]
    rest = matrix3_to_quat(skeleton.rest_world[bone, :3, :3])
    left = np.cross([0.0, 1.0, 0.0], body.forward)
    pose.rotations[bone] = quat_mul(quat_conjugate(rest), quat_mul(quat_from_axis_angle(left, nod), rest))
    return world_matrices(skeleton, pose)


def test_a_head_nodding_down_in_place_leaves_the_pelvis_upright(humanoid):
    rig, body = humanoid
    world = nodded(rig, body, NOD)
    look = world[body.bones["head"], :3, :3] @ np.linalg.inv(rig.skeleton.rest_world[body.bones["head"], :3, :3])
    assert (look @ body.forward)[1] < -0.5  # the head looks down toward the feet
    assert np.linalg.norm(estimated(body, world)[0] - world[body.bones["pelvis"], :3, 3]) <= UPRIGHT


def lean_back(body, pelvis, head):
    """How far (radians, forward) the estimated ``pelvis`` (3,) hangs leaned from under ``head`` (3,)."""
    below = pelvis - head
    rest = body.pelvis_below_head
    return math.atan2(-below @ body.forward, -below[1]) - math.atan2(-rest @ body.forward, -rest[1])


@pytest.mark.parametrize("way", (1.0, -1.0))
def test_a_climbing_body_leans_further_forward_up_and_less_down(humanoid, way):
    """A body bent a little rising (sinking) at ``CLIMB_SPEED`` for a second is leaned at least
    ``CLIMB_LEAN`` further forward (less) than the same body standing still: a climber pitches over
    the lead leg, one lowering itself stays upright (``risen_lean``)."""
    rig, body = humanoid
    dt, leans = 1.0 / 30.0, {}
    for speed in (0.0, way * CLIMB_SPEED):
        estimate = PelvisEstimate(body)
        for frame in range(30):  # one second, for the lean to settle
            world = bent(rig, body, 0.3)
            world[:, 1, 3] += speed * frame * dt
            pelvis, _ = estimated(body, world, estimate, dt)
        leans[speed] = lean_back(body, pelvis, world[body.bones["head"], :3, 3])
    assert way * (leans[way * CLIMB_SPEED] - leans[0.0]) >= CLIMB_LEAN


def test_a_jumping_body_is_not_leaned_by_its_flight(humanoid):
    """An upright body jumping 0.3 m (leaving the floor at ``JUMP_UP``, falling back under gravity)
    stays upright in the estimate: its head rises faster than any climb (read as one, it leaned the
    trunk 24 degrees forward over the jump's top and 11 back as it fell)."""
    rig, body = humanoid
    dt, estimate, leans = 1.0 / 90.0, PelvisEstimate(body), []
    for frame in range(90):
        t = frame * dt
        world = bent(rig, body, 0.0)
        world[:, 1, 3] += max(JUMP_UP * t - 0.5 * GRAVITY * t * t, 0.0)
        pelvis, _ = estimated(body, world, estimate, dt)
        leans.append(lean_back(body, pelvis, world[body.bones["head"], :3, 3]))
    assert np.abs(leans).max() <= JUMP_LEAN


def test_an_upright_body_crouching_is_not_leaned_back(humanoid):
    """An upright body whose head sinks at ``CLIMB_SPEED`` for a second (a crouch, or a step down
    with the trunk upright) is leaned back no further than ``JUMP_LEAN``: sinking takes a forward lean
    to upright at most (it once leaned the trunk back 0.3 radians, the hips ahead of the head)."""
    rig, body = humanoid
    dt, estimate, leans = 1.0 / 30.0, PelvisEstimate(body), []
    for frame in range(30):
        world = bent(rig, body, 0.0)
        world[:, 1, 3] -= CLIMB_SPEED * frame * dt
        pelvis, _ = estimated(body, world, estimate, dt)
        leans.append(lean_back(body, pelvis, world[body.bones["head"], :3, 3]))
    assert min(leans) >= -JUMP_LEAN
