"""Make tests/data/blender_pole_reference.json with Blender (not run in CI; needs Blender 3.x):

    blender -b --factory-startup --python tests/tools/blender_pole_reference.py
    blender -b --factory-startup --python tests/tools/blender_pole_reference.py -- --no-pole

Each case is a two-bone chain with an IK constraint (chain length 2) on its second bone, a target
and a pole target; Blender's legacy IK solver poses it. The file records, in Posekit's frame
(+Y up: Blender's (x, y, z) is our (x, z, -y)), every bone's rest and posed head, tail and
frame (armature space; the armature object sits at the origin), so tests can check that our pole angle means what Blender's does.

``--no-pole`` writes tests/data/blender_nopole_reference.json instead: seeded arms with no pole
target, bent at rest different ways, each solved from its rest pose and from posed FK starts
(the pose bones' rotations, which the IK starts from), for targets a small step from the start
tip, a large step away, across the body and near full reach. Those cases also record the start
pose (``start``, its bones as ``posed`` has them, and ``start_rotations``, the bones' local
rotations as Posekit quaternions (x, y, z, w)), the start kind and the target kind.
"""
import json
import math
import random
import sys
from pathlib import Path

import bpy
from mathutils import Quaternion, Vector

DATA = Path(__file__).resolve().parents[1] / "data"

# (rest heads/tails of the two bones and their roll in degrees, target, pole, pole angles in degrees)
CASES = [
    ([(0, 0, 1.5), (0, 0.05, 1.0), (0, 0, 0.5)], 0.0, (0.3, -0.2, 0.7), (0, -2, 1), [0, 90, -90, 45, 180]),
    ([(0, 0, 1.5), (0, 0.05, 1.0), (0, 0, 0.5)], 30.0, (0.4, 0.1, 0.8), (1, -2, 1), [0, -60, 120]),
    ([(0.2, 0, 1.4), (0.5, 0, 1.45), (0.8, 0.02, 1.4)], 0.0, (0.5, 0.3, 1.2), (0.5, 1, 0.5), [0, 90, -90]),
    ([(0.2, 0, 1.4), (0.5, 0, 1.45), (0.8, 0.02, 1.4)], -45.0, (0.6, -0.2, 1.7), (0.4, 0, 3), [0, 30, -150]),
    ([(0, 0, 0), (0.1, 0.4, 0.3), (0.1, 0.1, 0.7)], 10.0, (0.2, 0.5, 0.2), (-1, 1, -1), [0, 90, -170]),
]


def to_posekit(v):
    return [round(v[0], 9), round(v[2], 9), round(-v[1], 9)]


def frame_to_posekit(m):
    """A 3x3 Blender-space frame as rows, in Posekit's frame: C @ M with C the axis swap."""
    rows = [[round(x, 9) for x in m[i]] for i in range(3)]
    return [rows[0], rows[2], [-x for x in rows[1]]]


def build(points, roll, use_pole=True):
    bpy.ops.object.select_all(action="SELECT")
    bpy.ops.object.delete()
    armature = bpy.data.armatures.new("limb")
    rig = bpy.data.objects.new("limb", armature)
    bpy.context.scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    upper = armature.edit_bones.new("upper")
    upper.head, upper.tail, upper.roll = points[0], points[1], math.radians(roll)
    lower = armature.edit_bones.new("lower")
    lower.head, lower.tail, lower.roll = points[1], points[2], math.radians(roll)
    lower.parent, lower.use_connect = upper, True
    bpy.ops.object.mode_set(mode="OBJECT")
    target = bpy.data.objects.new("target", None)
    pole = bpy.data.objects.new("pole", None) if use_pole else None
    for empty in (target, pole):
        if empty is not None:
            bpy.context.scene.collection.objects.link(empty)
    constraint = rig.pose.bones["lower"].constraints.new("IK")
    constraint.target, constraint.pole_target = target, pole
    constraint.chain_count, constraint.iterations = 2, 10000
    return rig, target, pole, constraint


def solve(rig, target, pole, constraint, target_at, pole_at, angle):
    target.location, pole.location = Vector(target_at), Vector(pole_at)
    constraint.pole_angle = math.radians(angle)
    return posed_bones(rig)


def posed_bones(rig):
    bpy.context.view_layer.update()
    return {name: {"head": to_posekit(b.head), "tail": to_posekit(b.tail),
                   "frame": frame_to_posekit(b.matrix.to_3x3())}
            for name, b in rig.pose.bones.items()}


def rest_bones(rig):
    return {name: {"head": to_posekit(b.head_local), "tail": to_posekit(b.tail_local),
                   "frame": frame_to_posekit(b.matrix_local.to_3x3())}
            for name, b in rig.data.bones.items()}


def main():
    cases = []
    for points, roll, target_at, pole_at, angles in CASES:
        rig, target, pole, constraint = build(points, roll)
        rest = rest_bones(rig)
        for angle in angles:
            cases.append({"rest": rest, "target": to_posekit(target_at), "pole": to_posekit(pole_at),
                          "pole_angle": math.radians(angle),
                          "posed": solve(rig, target, pole, constraint, target_at, pole_at, angle)})
    write(DATA / "blender_pole_reference.json", cases)


def write(path, cases):
    generator = f"Blender {bpy.app.version_string}, legacy IK solver"
    lines = ",\n  ".join(json.dumps(case) for case in cases)
    path.write_text(f'{{"generator": {json.dumps(generator)},\n "cases": [\n  {lines}\n ]}}\n')
    print(f"wrote {len(cases)} cases to {path}", file=sys.stderr)


NO_POLE_SEED = 20240
SHOULDER, UPPER, LOWER = (0.18, 0.0, 1.45), 0.3, 0.28
# Arms along +X (the character's left); the rest elbow bend (degrees, elbow toward the bend
# direction: Blender +Y is back, +Z up, -Y forward) and the bones' roll in degrees.
NO_POLE_ARMS = [(3.0, (0, 1, 0), 0.0), (30.0, (0, 1, 0), 30.0), (60.0, (0, -0.7, -0.7), -60.0),
                (90.0, (0, 0, 1), 90.0), (15.0, (0, -1, 0.3), 150.0)]


def arm_points(bend, toward):
    """Shoulder, elbow and wrist of an arm along +X whose elbow is ``bend`` degrees bent, the
    elbow moved toward ``toward`` (perpendicular to X)."""
    half = math.radians(bend) / 2
    side = Vector(toward).normalized()
    shoulder = Vector(SHOULDER)
    elbow = shoulder + UPPER * (math.cos(half) * Vector((1, 0, 0)) + math.sin(half) * side)
    wrist = elbow + LOWER * (math.cos(half) * Vector((1, 0, 0)) - math.sin(half) * side)
    return [tuple(shoulder), tuple(elbow), tuple(wrist)]


def random_unit(rng):
    return Vector([rng.gauss(0, 1) for _ in range(3)]).normalized()


def start_pose(rng):
    """Local rotations (Blender quaternions) of a posed FK start: the shoulder turned up to 70
    degrees about a random axis, the elbow bent 20 to 110 degrees about its X axis and then
    turned up to 20 degrees more about a random axis."""
    shoulder = Quaternion(random_unit(rng), math.radians(rng.uniform(10, 70)))
    bend = Quaternion((1, 0, 0), math.radians(rng.uniform(20, 110)) * rng.choice((1, -1)))
    elbow = Quaternion(random_unit(rng), math.radians(rng.uniform(0, 20))) @ bend
    return [shoulder, elbow]


def targets(rng, root, tip):
    """(kind, Blender point) targets from the start tip, all within 25% to 98% of the reach."""
    reach = UPPER + LOWER
    root, tip = Vector(root), Vector(tip)

    def inside(point):
        offset = point - root
        return root + offset.normalized() * min(max(offset.length, 0.25 * reach), 0.98 * reach)

    chosen = [("small", inside(tip + random_unit(rng) * rng.uniform(0.01, 0.05))) for _ in range(4)]
    chosen += [("large", inside(tip + random_unit(rng) * rng.uniform(0.2, 0.4))) for _ in range(2)]
    across = Vector((-1.0, rng.uniform(-1.2, 0.2), rng.uniform(-0.6, 0.6))).normalized()
    chosen.append(("across", root + across * rng.uniform(0.5, 0.9) * reach))
    chosen.append(("reach", root + random_unit(rng) * rng.uniform(0.95, 0.98) * reach))
    return chosen


def set_pose(rig, rotations):
    for bone, rotation in zip(rig.pose.bones, rotations):
        bone.rotation_mode = "QUATERNION"
        bone.rotation_quaternion = rotation


def no_pole_main():
    rng = random.Random(NO_POLE_SEED)
    cases = []
    for bend, toward, roll in NO_POLE_ARMS:
        rig, target, _, constraint = build(arm_points(bend, toward), roll, use_pole=False)
        rest = rest_bones(rig)
        for start_kind in ("rest", "posed", "posed"):
            rotations = [Quaternion(), Quaternion()] if start_kind == "rest" else start_pose(rng)
            set_pose(rig, rotations)
            constraint.mute = True
            start = posed_bones(rig)
            constraint.mute = False
            root, tip = rig.pose.bones["upper"].head.copy(), rig.pose.bones["lower"].tail.copy()
            for kind, target_at in targets(rng, root, tip):
                target.location = target_at
                cases.append({"rest": rest, "start_kind": start_kind, "start": start,
                              "start_rotations": [[q.x, q.y, q.z, q.w] for q in rotations],
                              "target_kind": kind, "target": to_posekit(target_at),
                              "posed": posed_bones(rig)})
    write(DATA / "blender_nopole_reference.json", cases)


if __name__ == "__main__":  # blender_ik_reference.py imports the helpers above
    script_args = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    no_pole_main() if "--no-pole" in script_args else main()
