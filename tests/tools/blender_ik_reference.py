"""Make tests/data/blender_ik_reference.json with Blender (not run in CI; made with Blender 3.4.1):

    blender -b --factory-startup --python-exit-code 1 --python tests/tools/blender_ik_reference.py

Blender's legacy IK solver (the armature default) poses seeded chains for four families of IK
constraint settings, each case with one IK constraint solved from the rest pose:

- ``no_tail``: ``use_tail`` off on an arm's hand, so the chain counts from the forearm and the
  hand's head reaches for the target; two bones with a pole, or the forearm alone aiming;
- ``rotation``: ``use_rotation`` on a three-bone arm (free shoulder, forearm bending about X,
  hand about Z: with free bones the elbow could swing about the shoulder-to-wrist line), the
  target an empty placed and turned as the hand of a random pose;
- ``stretch``: bones with ``ik_stretch`` and a target beyond the unstretched reach: one bone in
  any direction, and straight arms of two and three bones with the target on their line (which
  shows how Blender shares the extra length: by the cube of each bone's stretch);
- ``hinge``: ``lock_ik_y`` and ``lock_ik_z`` on a forearm (with a pole), and a crane of three
  single-axis bones (a column turning about its Y, two bones bending about X) reaching targets
  made by random poses of itself;
- ``lock_y``: ``lock_ik_y`` on all three bones of an arm (swing joints: Blender never twists such
  a bone about its own Y), reaching the hand of random swing-only poses, with and without
  ``use_rotation``;
- ``limited``: arms with ``use_ik_limit_*`` (``LIMITED_ARMS``: swing in Blender's ellipse,
  limited twist, locks), reaching (with ``use_rotation``) the hand of random poses inside their
  limits, a third of their limited angles on an end of the range.

Only cases where Blender's answer is unique are kept. Those with a pole are unique by
construction (the pole fixes the bend plane, the rest bend the side). Each of the others is
solved again from two FK starts a little off the rest pose (its chain turned about the bones'
free axes only) and dropped when any bone's head or tail moves by more than ``UNIQUE`` times the
chain's length: a chain with more freedom than its goal ends where its path took it. The file records, in
Posekit's frame (+Y up: Blender's (x, y, z) is our (x, z, -y)), every bone's rest and posed
head, tail and frame (armature space, the armature at the origin; a stretched bone's frame has
its stretch in its Y column), each bone's parent and IK settings, the constraint's settings, the
target (and the target's frame, for ``rotation``) and the pole.
"""
import json
import math
import random
import sys
from pathlib import Path

import bpy
from mathutils import Euler, Matrix, Quaternion, Vector

sys.path.insert(0, str(Path(__file__).resolve().parent))
from blender_pole_reference import frame_to_posekit, posed_bones, rest_bones, to_posekit  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data"
SEED = 20250314
UNIQUE = 5e-4  # half the tests' tolerance (1e-3 of the chain's length)
SHOULDER = Vector((0.18, 0.0, 1.45))


class Bone:
    """A bone to build: rest head, tail and roll (degrees), parent index (connected), IK
    locks (x, y, z), IK stretch and IK limits ({axis index: (min, max)} radians)."""

    def __init__(self, name, head, tail, roll=0.0, parent=-1, lock=(False, False, False), stretch=0.0, limits=None):
        self.name, self.head, self.tail, self.roll, self.parent = name, Vector(head), Vector(tail), roll, parent
        self.lock, self.stretch, self.limits = tuple(lock), stretch, dict(limits or {})


def arm(bend, roll, lower_lock=(False, False, False), hand_lock=(False, False, False)):
    """Upper arm (0.3), forearm (0.28) and hand (0.08) along +X from the shoulder, the elbow
    ``bend`` degrees bent backwards (+Y) at rest, all rolled ``roll`` degrees."""
    half = math.radians(bend) / 2
    elbow = SHOULDER + 0.3 * Vector((math.cos(half), math.sin(half), 0))
    wrist = elbow + 0.28 * Vector((math.cos(half), -math.sin(half), 0))
    tip = wrist + 0.08 * (wrist - elbow).normalized()
    return [Bone("upper", SHOULDER, elbow, roll), Bone("lower", elbow, wrist, roll, 0, lower_lock),
            Bone("hand", wrist, tip, roll, 1, hand_lock)]


def crane():
    """A column turning about its own Y (X and Z locked) carrying a boom and a jib bending about X."""
    hinge_x, hinge_y = (False, True, True), (True, False, True)
    return [Bone("column", (0, 0, 0), (0, 0, 0.3), 0.0, -1, hinge_y),
            Bone("boom", (0, 0, 0.3), (0, -0.35, 0.5), 0.0, 0, hinge_x),
            Bone("jib", (0, -0.35, 0.5), (0, -0.6, 0.3), 0.0, 1, hinge_x)]


def chain_length(bones):
    return sum((b.tail - b.head).length for b in bones)


def build(bones):
    """An armature at the origin with ``bones`` (connected), an IK constraint with ten thousand
    iterations on the last one, and target and pole empties (the pole not yet used)."""
    bpy.ops.object.select_all(action="SELECT")
    bpy.ops.object.delete()
    armature = bpy.data.armatures.new("chain")
    rig = bpy.data.objects.new("chain", armature)
    bpy.context.scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    edit = []
    for bone in bones:
        made = armature.edit_bones.new(bone.name)
        made.head, made.tail, made.roll = bone.head, bone.tail, math.radians(bone.roll)
        if bone.parent >= 0:
            made.parent, made.use_connect = edit[bone.parent], True
        edit.append(made)
    bpy.ops.object.mode_set(mode="OBJECT")
    for bone in bones:
        pose_bone = rig.pose.bones[bone.name]
        pose_bone.lock_ik_x, pose_bone.lock_ik_y, pose_bone.lock_ik_z = bone.lock
        pose_bone.ik_stretch = bone.stretch
        for axis, (low, high) in bone.limits.items():
            letter = "xyz"[axis]
            setattr(pose_bone, f"use_ik_limit_{letter}", True)
            setattr(pose_bone, f"ik_min_{letter}", low)
            setattr(pose_bone, f"ik_max_{letter}", high)
        pose_bone.rotation_mode = "XYZ"
    target, pole = bpy.data.objects.new("target", None), bpy.data.objects.new("pole", None)
    bpy.context.scene.collection.objects.link(target)
    bpy.context.scene.collection.objects.link(pole)
    constraint = rig.pose.bones[bones[-1].name].constraints.new("IK")
    constraint.target, constraint.iterations = target, 10000
    return rig, target, pole, constraint


def set_pose(rig, bones, angles):
    """Pose the bones by Euler XYZ angles (radians), locked axes left at 0."""
    for bone, euler in zip(bones, angles):
        rig.pose.bones[bone.name].rotation_euler = Euler([0.0 if lock else a for a, lock in zip(euler, bone.lock)])


def fk(rig, bones, constraint, angles):
    """The pose ``angles`` with the IK off: (hand tail, hand's 3x3 world frame) of the last bone."""
    set_pose(rig, bones, angles)
    constraint.mute = True
    bpy.context.view_layer.update()
    tip = rig.pose.bones[bones[-1].name]
    found = tip.tail.copy(), tip.matrix.to_3x3().normalized()
    constraint.mute = False
    set_pose(rig, bones, [(0, 0, 0)] * len(bones))
    return found


def fk_quaternions(rig, bones, constraint, quaternions):
    """``fk`` for pose rotations given as quaternions (w, x, y, z), the bones left at rest after."""
    for bone, q in zip(bones, quaternions):
        pose_bone = rig.pose.bones[bone.name]
        pose_bone.rotation_mode, pose_bone.rotation_quaternion = "QUATERNION", q
    constraint.mute = True
    bpy.context.view_layer.update()
    tip = rig.pose.bones[bones[-1].name]
    found = tip.tail.copy(), tip.matrix.to_3x3().normalized()
    constraint.mute = False
    for bone in bones:
        pose_bone = rig.pose.bones[bone.name]
        pose_bone.rotation_quaternion, pose_bone.rotation_mode = Quaternion(), "XYZ"
    return found


def spread(a, b):
    return max((Vector(a[n][k]) - Vector(b[n][k])).length for n in a for k in ("head", "tail"))


def unique_solve(rig, chain, rng, length):
    """Blender's answer from the rest pose, or None when starts with the ``chain``'s bones
    0.1 to 0.2 radians off the rest pose (about free axes) end elsewhere."""
    posed = posed_bones(rig)
    for _ in range(2):
        set_pose(rig, chain, [[rng.uniform(0.1, 0.2) * rng.choice((1, -1)) for _ in range(3)] for _ in chain])
        other = posed_bones(rig)
        set_pose(rig, chain, [(0, 0, 0)] * len(chain))
        if spread(posed, other) > UNIQUE * length:
            return None
    return posed


def record(family, rig, bones, constraint, target, pole, rng, length, unique=False):
    """The case as the tests read it, or None when Blender's answer is not unique; ``unique``:
    it is by construction, and other starts would change it (a pole, a far target on the line)."""
    rest = rest_bones(rig)
    tip = len(bones) - (1 if constraint.use_tail else 2)
    if unique or constraint.pole_target is not None:
        posed = posed_bones(rig)
    else:
        posed = unique_solve(rig, bones[tip + 1 - constraint.chain_count:tip + 1], rng, length)
    if posed is None:
        return None
    case = {"family": family,
            "bones": [{"name": b.name, "parent": b.parent, "lock": list(b.lock), "stretch": b.stretch,
                       "limits": {"xyz"[axis]: list(span) for axis, span in b.limits.items()},
                       "rest": rest[b.name], "posed": posed[b.name]} for b in bones],
            "constraint": {"bone": bones[-1].name, "chain_count": constraint.chain_count,
                           "use_tail": constraint.use_tail, "use_stretch": constraint.use_stretch,
                           "use_rotation": constraint.use_rotation, "pole_angle": constraint.pole_angle},
            "target": to_posekit(target.location)}
    if constraint.use_rotation:
        case["target_frame"] = frame_to_posekit(target.matrix_world.to_3x3())
    if constraint.pole_target is not None:
        case["pole"] = to_posekit(pole.location)
    return case


def random_unit(rng):
    return Vector([rng.gauss(0, 1) for _ in range(3)]).normalized()


def reachable(rng, root, reach, low=0.3, high=0.95):
    return root + random_unit(rng) * rng.uniform(low, high) * reach


def use_pole(constraint, pole, rng, root):
    """A pole 0.5 to 1 m from the root in a random direction, at a pole angle of -150 to 180."""
    pole.location = root + random_unit(rng) * rng.uniform(0.5, 1.0)
    constraint.pole_target = pole
    constraint.pole_angle = math.radians(rng.choice((0, 90, -90, 45, -150, 180)))


# Distances (over the forearm's length) of the forearm's aims: for nearer targets Blender's solver
# stops up to 0.07 degrees short of pointing the forearm at them (measured), too far for the tests.
AIMS = (1.0, 1.5)


def no_tail_cases(rng):
    """The hand's constraint with use_tail off: the forearm's tail (the hand's head) reaches."""
    cases = []
    for bend, roll in [(3, 0), (30, 30), (60, -60), (15, 150)]:
        for chain_count in (1, 2):
            bones = arm(bend, roll)
            rig, target, pole, constraint = build(bones)
            constraint.use_tail, constraint.chain_count = False, chain_count
            length = 0.28 if chain_count == 1 else 0.58
            root = Vector(bones[2 - chain_count].head)
            if chain_count == 2:
                use_pole(constraint, pole, rng, root)
            for _ in range(5):
                target.location = reachable(rng, root, length, *AIMS if chain_count == 1 else (0.3, 0.95))
                cases.append(record("no_tail", rig, bones, constraint, target, pole, rng, length))
    return cases


def rotation_cases(rng):
    """A target placed and turned as the hand of a random pose of the same arm."""
    cases = []
    for bend, roll in [(20, 0), (40, 30), (60, -45), (30, 90)]:
        bones = arm(bend, roll, lower_lock=(False, True, True), hand_lock=(True, True, False))
        rig, target, _, constraint = build(bones)
        constraint.chain_count, constraint.use_rotation = 3, True
        for _ in range(6):
            shoulder = [rng.uniform(-0.6, 0.6) for _ in range(3)]
            angles = [shoulder, (rng.uniform(-0.6, 0.6), 0, 0), (0, 0, rng.uniform(-0.6, 0.6))]
            tip, frame = fk(rig, bones, constraint, angles)
            target.matrix_world = Matrix.Translation(tip) @ frame.to_4x4()
            cases.append(record("rotation", rig, bones, constraint, target, None, rng, 0.66))
    return cases


def stretch_cases(rng):
    """One to three stretchy bones of an arm, straight or bent, targets 1.1 to 1.6 reaches away
    in random directions (with more than one bone Blender's answer then depends on the start),
    and along straight arms' line."""
    cases = on_line_stretch_cases(rng)
    for bend, roll, count in [(0, 0, 1), (30, 45, 1), (0, 0, 2), (30, 0, 2), (0, 90, 3), (40, -30, 3)]:
        bones = arm(bend, roll)[:count]
        for bone in bones:
            bone.stretch = rng.choice((0.1, 0.3, 0.5, 1.0))
        rig, target, _, constraint = build(bones)
        constraint.chain_count = count
        length = chain_length(bones)
        for _ in range(6):
            target.location = SHOULDER + random_unit(rng) * rng.uniform(1.1, 1.6) * length
            cases.append(record("stretch", rig, bones, constraint, target, None, rng, length))
    return cases


def on_line_stretch_cases(rng):
    """Straight arms of two and three bones with random stretch, the target on their line 1.1 to
    1.6 reaches out: from the straight rest pose no bone turns, only the stretch moves (from a
    bent start Blender keeps some bend, so these are unique by construction, not re-solved)."""
    cases = []
    for count, roll in [(2, 0), (2, 60), (3, -45), (3, 90)]:
        bones = arm(0, roll)[:count]
        rig, target, _, constraint = build(bones)
        constraint.chain_count = count
        length = chain_length(bones)
        for _ in range(5):
            for bone in bones:
                bone.stretch = rig.pose.bones[bone.name].ik_stretch = rng.choice((0.1, 0.3, 0.5, 1.0))
            target.location = SHOULDER + Vector((rng.uniform(1.1, 1.6) * length, 0, 0))
            cases.append(record("stretch", rig, bones, constraint, target, None, rng, length, unique=True))
    return cases


def hinge_cases(rng):
    """A forearm bending about X only (with a pole), and the crane, reaching reachable targets.
    The forearms' X axes stand square to the rest bend, as on a rig whose elbow bends about X
    (Blender fails to reach some targets with an elbow bent 10 degrees about the other axes)."""
    cases = []
    for bend, roll in [(10, 90), (40, -90), (70, 90)]:
        bones = arm(bend, roll, lower_lock=(False, True, True))[:2]
        rig, target, pole, constraint = build(bones)
        constraint.chain_count = 2
        use_pole(constraint, pole, rng, SHOULDER)
        for _ in range(5):
            target.location = reachable(rng, SHOULDER, 0.58)
            cases.append(record("hinge", rig, bones, constraint, target, pole, rng, 0.58))
    bones = crane()
    rig, target, _, constraint = build(bones)
    constraint.chain_count = 3
    for _ in range(25):
        angles = [(0, rng.uniform(-1.0, 1.0), 0), (rng.uniform(-0.5, 0.5), 0, 0), (rng.uniform(-0.6, 0.6), 0, 0)]
        target.location = fk(rig, bones, constraint, angles)[0]
        cases.append(record("hinge", rig, bones, constraint, target, None, rng, chain_length(bones)))
    return cases


SWING_JOINT = (False, True, False)  # lock Y: Blender's IK_QSwingSegment, no twist about the bone
# Locks and limits of the limited arms, per bone: three bones with six axes between them (a
# shoulder and a wrist that swing in Blender's ellipse and never twist, an elbow bending about X
# with a limited twist), and two bones with four (a shoulder limited on every axis, an elbow
# hinged about X): with the hand's rotation taken, each has one answer.
LIMITED_ARMS = ((((SWING_JOINT, {0: (-0.8, 0.6), 2: (-0.5, 0.7)}), ((False, False, True), {0: (0.0, 2.0), 1: (-0.5, 0.5)}),
                  (SWING_JOINT, {0: (-0.6, 0.6), 2: (-0.4, 0.5)}))),
                (((False, False, False), {0: (-0.8, 0.6), 1: (-0.4, 0.5), 2: (-0.5, 0.7)}),
                 ((False, True, True), {0: (0.0, 2.0)})))


def pose_inside(rng, bone):
    """A random pose rotation (w, x, y, z) that ``bone``'s locks and limits allow, as Blender's IK
    segments read them: swing components sin(x/2), sin(z/2) (inside the ellipse when both X and Z
    are limited), then the twist y about the bone's Y; free axes within 0.7 rad. A limited angle
    lies on an end of its range one time in three, so answers sit on their limits."""
    while True:
        angles = [0.0 if bone.lock[k] else rng.choice(bone.limits[k]) if k in bone.limits and rng.random() < 1 / 3
                  else rng.uniform(*bone.limits.get(k, (-0.7, 0.7))) for k in range(3)]
        sx, sz = math.sin(angles[0] / 2), math.sin(angles[2] / 2)
        if 0 in bone.limits and 2 in bone.limits:
            semi = [bone.limits[k][1] if s > 0 else -bone.limits[k][0] for k, s in ((0, sx), (2, sz))]
            if (sx / math.sin(semi[0] / 2)) ** 2 + (sz / math.sin(semi[1] / 2)) ** 2 > 1.0:
                continue
        swing = Quaternion((math.sqrt(1.0 - sx * sx - sz * sz), sx, 0.0, sz))
        return swing @ Quaternion((0.0, 1.0, 0.0), angles[1])


def posed_target_cases(family, bones, rng, count, use_rotation):
    """Targets placed (and, with ``use_rotation``, turned) as the hand of random poses the bones'
    locks and limits allow."""
    rig, target, _, constraint = build(bones)
    constraint.chain_count, constraint.use_rotation = len(bones), use_rotation
    cases = []
    for _ in range(count):
        tip, frame = fk_quaternions(rig, bones, constraint, [pose_inside(rng, bone) for bone in bones])
        target.matrix_world = Matrix.Translation(tip) @ frame.to_4x4()
        cases.append(record(family, rig, bones, constraint, target, None, rng, chain_length(bones)))
    return cases


def lock_y_cases(rng):
    """Three swing joints (Y locked on upper arm, forearm and hand), the hand's rotation taken or
    only its tail reaching, for targets a free chain reaches by twisting its bones."""
    cases = []
    for bend, roll in [(20, 0), (40, 30), (60, -45), (30, 90)]:
        bones = arm(bend, roll, SWING_JOINT, SWING_JOINT)
        bones[0].lock = SWING_JOINT
        cases += posed_target_cases("lock_y", bones, rng, 5, True) + posed_target_cases("lock_y", bones, rng, 5, False)
    return cases


def limited_cases(rng):
    """The limited arms (``LIMITED_ARMS``), the hand's rotation taken."""
    cases = []
    for settings in LIMITED_ARMS:
        for bend, roll in [(20, 0), (45, 90), (30, -60)]:
            bones = arm(bend, roll)[:len(settings)]
            for bone, (lock, limits) in zip(bones, settings):
                bone.lock, bone.limits = lock, dict(limits)
            cases += posed_target_cases("limited", bones, rng, 8, True)
    return cases


def main():
    rng = random.Random(SEED)
    cases = []
    for family in (no_tail_cases, rotation_cases, stretch_cases, hinge_cases, lock_y_cases, limited_cases):
        made = family(rng)
        kept = [case for case in made if case is not None]
        print(f"{family.__name__}: kept {len(kept)} of {len(made)} (the rest not unique)", file=sys.stderr)
        cases += kept
    generator = f"Blender {bpy.app.version_string}, legacy IK solver"
    lines = ",\n  ".join(json.dumps(case) for case in cases)
    path = DATA / "blender_ik_reference.json"
    path.write_text(f'{{"generator": {json.dumps(generator)},\n "cases": [\n  {lines}\n ]}}\n')
    print(f"wrote {len(cases)} cases to {path}", file=sys.stderr)


main()
