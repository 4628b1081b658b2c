"""Ground contact on a skinned figure (``rig.ground_contact``): a foot's IK handle or a hand dragged
down through the ground, frame by frame as the window solves a drag (``rig.evaluate``, its Copy
Rotations after the solve), on the plane and on assets/ground_test.glb's blocks: no vertex of the
feet's skin, skinned as the app skins it, ends below the ground by more than SKIN_TOLERANCE, and
no bone below it at all; pins win over the ground; a foot copying a turned handle keeps its toes
up (bones as drawn, skin or not)."""
import os

import numpy as np
from hypothesis import assume, given, settings, strategies as st

from rig.constraints import IKConstraint
from rig.evaluate import evaluation
from rig.formats.ground_file import read_ground
from rig.formats.reader import open_rig
from rig.formats.rigfile import load_rig
from rig.ground import PlaneGround
from rig.pins import pin_where_it_is
from rig.pose import Pose, heads_tails, location_for_head, rotation_for_world, world_matrices
from solvers.tolerances import PIN_POSITION, PIN_ROTATION
from solvers.transforms import matrix3_to_quat, quat_angle, quat_from_rotvec, quat_to_matrix3
from tests.rig.test_planting import PARTS, moved, standing_over

ASSETS = os.path.join(os.path.dirname(__file__), "..", "..", "assets")
SKINNED = open_rig(os.path.join(ASSETS, "humanoid_skinned.glb"))
SCENE = read_ground(os.path.join(ASSETS, "ground_test.glb")).ground
# How far below the ground a foot's skin vertex may end: the rigidly carried points are held to
# PIN_POSITION; skinning drifts from them by the joint turns within one frame's solve (at most
# 2 cm a radian of ankle turn, tests/rig/test_skin_contacts.py), and a frame of a drag turns an
# ankle by well under 0.05 rad.
SKIN_TOLERANCE = 1e-3
FRAMES = 6
SOLE = float(SKINNED.mesh.positions[SKINNED.rig.skin_contacts.vertices, 1].min())  # the skin's lowest at rest
GROUNDS = ("plane", "flat", "slope_20", "stairs", "rocks")


def depth_below(ground, points):
    """How far the deepest of ``points`` lies below ``ground`` (0 when none does)."""
    hits = ground.surface_under(points)
    return float(np.einsum("ij,ij->i", hits.point - points, hits.normal)[hits.hit].max(initial=0.0))


def standing(name, crouch=0.25):
    """(ground, pose): the figure with its skin's soles just on the plane, or just over a block of
    the scene, its pelvis lowered ``crouch`` metres (knees bent: room for a foot to be pulled down)."""
    rig, skin = SKINNED.rig, SKINNED.rig.skin_contacts
    skeleton = rig.skeleton
    pose = Pose.rest(len(skeleton))
    ground = PlaneGround(SOLE) if name == "plane" else SCENE
    if name != "plane":
        over = standing_over(rig, PARTS[name], height=0.0)
        soles = skin.positions(world_matrices(skeleton, over))
        lift = float((ground.surface_under(soles).point[:, 1] - soles[:, 1]).max()) + 0.005
        pose = standing_over(rig, PARTS[name], height=lift)
    return ground, moved(rig, pose, "pelvis", [0.0, -crouch, 0.0])


def solved_bones(rig):
    """The bones a solve poses: all but the root and the IK handles and poles, which the user places."""
    targets, poles = rig.handle_bones()
    return [i for i, name in enumerate(rig.skeleton.names) if name not in targets | poles and name != "root"]


def assert_above(ground, world):
    rig, skin = SKINNED.rig, SKINNED.rig.skin_contacts
    heads, tails = heads_tails(rig.skeleton, world)
    bones = solved_bones(rig)
    assert depth_below(ground, np.r_[heads[bones], tails[bones]]) <= PIN_POSITION
    assert depth_below(ground, SKINNED.mesh.skinned_positions(world)[skin.vertices]) <= SKIN_TOLERANCE


def drag(pose, frame_pose, ground, root_free, goals=lambda frame: (), dragged=None):
    """A drag of FRAMES frames: each solves ``frame_pose(pose, frame)`` (the channels with the
    handle moved so far) with ``goals(frame)`` from the last frame's result; returns the worlds."""
    worlds = []
    for frame in range(1, FRAMES + 1):
        result = evaluation(SKINNED.rig, frame_pose(pose, frame), goals(frame), dragged=dragged, root_free=root_free,
                            ground=ground)
        pose = result.pose
        worlds.append(result.world)
    return worlds


vectors = st.tuples(*[st.floats(-1.0, 1.0)] * 3)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(where=st.sampled_from(GROUNDS), side=st.sampled_from("LR"), offset=vectors, tilt=vectors,
       root_free=st.booleans())
def test_a_foot_handle_dragged_through_the_ground_keeps_the_feet_skin_above_it(where, side, offset, tilt,
                                                                                 root_free):
    """From a crouch, a foot's IK handle moved down into the ground (up to 0.4 m) and aside, and
    turned up to 60°: the foot (copying the handle's rotation) stays on the ground, its skin
    above it; without contact the same drag sinks the skin more than 1 cm."""
    rig = SKINNED.rig
    skeleton = rig.skeleton
    ground, start = standing(where)
    handle = skeleton.index[f"foot_ik.{side}"]
    world = world_matrices(skeleton, start)
    goal = world[handle, :3, 3] + np.array([0.15, 0.2, 0.25]) * offset - [0.0, 0.2, 0.0]  # 0-0.4 m down
    turn = quat_to_matrix3(quat_from_rotvec(np.radians(60.0) * np.asarray(tilt) / np.sqrt(3.0)))

    def moved(pose, frame):
        pose = pose.copy()
        now = world_matrices(skeleton, pose)
        pose.locations[handle] = location_for_head(skeleton, pose, now, handle,
                                                   world[handle, :3, 3] + (goal - world[handle, :3, 3]) * frame / FRAMES)
        pose.rotations[handle] = rotation_for_world(skeleton, now, handle, turn @ world[handle, :3, :3])
        return pose
    sunk = drag(start, moved, None, root_free)[-1]
    assume(depth_below(ground, SKINNED.mesh.skinned_positions(sunk)[rig.skin_contacts.vertices]) > 0.01)
    for world in drag(start, moved, ground, root_free):
        assert_above(ground, world)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(where=st.sampled_from(GROUNDS), offset=vectors, root_free=st.booleans())
def test_a_hand_dragged_through_the_ground_keeps_the_feet_skin_above_it(where, offset, root_free):
    """Auto IK on the left hand (chain to the root), dragged 0.9-1.7 m down and aside from a
    crouch: the body bends down to it, the feet's skin above the ground."""
    rig = SKINNED.rig
    ground, start = standing(where)
    hand = rig.skeleton.index["forearm.L"]
    begin = world_matrices(rig.skeleton, start)[hand, :3, 3]
    goal = begin + np.array([0.5, 0.4, 0.5]) * offset - [0.0, 1.3, 0.0]
    dragged = IKConstraint(bone="forearm.L", chain_count=0)
    worlds = drag(start, lambda pose, frame: pose, ground, root_free,
                  lambda frame: [(dragged, begin + (goal - begin) * frame / FRAMES)], dragged)
    for world in worlds:
        assert_above(ground, world)


def test_pins_win_over_the_ground_a_foot_pinned_with_its_sole_in_it_holds_exactly():
    """The skinned humanoid's rest soles lie 2 cm under the grid's plane: with both feet pinned
    there and contact on, a hand drag holds the pins to their tolerances (the feet are the user's
    to place) while every other bone keeps above the plane."""
    rig = SKINNED.rig
    skeleton = rig.skeleton
    pose = Pose.rest(len(skeleton))
    world = world_matrices(skeleton, pose)
    pins = {name: pin_where_it_is(world, skeleton.index[name]) for name in ("foot.L", "foot.R")}
    dragged = IKConstraint(bone="forearm.L", chain_count=0)
    for target in ((0.5, 0.5, 0.3), (0.3, -0.2, 0.5)):
        result = evaluation(rig, pose, [(dragged, np.array(target))], pins, dragged, True, PlaneGround(0.0))
        for name, pin in pins.items():
            bone = skeleton.index[name]
            assert np.linalg.norm(result.world[bone, :3, 3] - pin.position) <= PIN_POSITION
            assert quat_angle(matrix3_to_quat(result.world[bone, :3, :3]), np.array(pin.rotation)) <= PIN_ROTATION
        heads, tails = heads_tails(skeleton, result.world)
        free = [b for b in solved_bones(rig) if rig.skeleton.names[b] not in ("foot.L", "foot.R", "toe.L", "toe.R")]
        assert depth_below(PlaneGround(0.0), np.r_[heads[free], tails[free]]) <= PIN_POSITION


def test_a_foot_copying_a_turned_handle_keeps_its_toes_above_the_ground():
    """A rig without a skin (assets/humanoid.json): the foot's handle pulled to the ground and
    turned toes-down. The foot copies the handle's rotation after the solve, so the solve holds
    the toes where they will be drawn, and they end above the ground (held where the solve left
    them, they ended 8 cm in it)."""
    rig = load_rig(os.path.join(ASSETS, "humanoid.json"))
    skeleton = rig.skeleton
    pose = Pose.rest(len(skeleton))
    world = world_matrices(skeleton, pose)
    handle = skeleton.index["foot_ik.L"]
    pose.locations[handle] = location_for_head(skeleton, pose, world, handle, np.array([0.2, -0.1, -0.3]))
    pose.rotations[handle] = rotation_for_world(skeleton, world, handle,
                                                quat_to_matrix3(quat_from_rotvec([0.6, 0.0, 0.0])) @ world[handle, :3, :3])
    result = evaluation(rig, pose, ground=PlaneGround(0.0))
    heads, tails = heads_tails(skeleton, result.world)
    bones = solved_bones(rig)
    assert min(heads[bones, 1].min(), tails[bones, 1].min()) >= -PIN_POSITION
