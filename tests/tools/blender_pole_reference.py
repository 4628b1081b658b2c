"""Make tests/data/blender_pole_reference.json with Blender (not run in CI; needs Blender 3.x):

    blender -b --factory-startup --python tests/tools/blender_pole_reference.py

Each case is a two-bone chain with an IK constraint (chain length 2) on its second bone, a target
and a pole target; Blender's legacy IK solver poses it. The file records, in Posekit's frame
(+Y up: Blender's (x, y, z) is our (x, z, -y)), every bone's rest and posed head, tail and
frame (armature space; the armature object sits at the origin), so tests can check that our pole angle means what Blender's does.
"""
import json
import math
import sys
from pathlib import Path

import bpy
from mathutils import Vector

OUT = Path(__file__).resolve().parents[1] / "data" / "blender_pole_reference.json"

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


def build(points, roll):
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
    pole = bpy.data.objects.new("pole", None)
    for empty in (target, pole):
        bpy.context.scene.collection.objects.link(empty)
    constraint = rig.pose.bones["lower"].constraints.new("IK")
    constraint.target, constraint.pole_target = target, pole
    constraint.chain_count, constraint.iterations = 2, 10000
    return rig, target, pole, constraint


def solve(rig, target, pole, constraint, target_at, pole_at, angle):
    target.location, pole.location = Vector(target_at), Vector(pole_at)
    constraint.pole_angle = math.radians(angle)
    bpy.context.view_layer.update()
    return {name: {"head": to_posekit(b.head), "tail": to_posekit(b.tail),
                   "frame": frame_to_posekit(b.matrix.to_3x3())}
            for name, b in rig.pose.bones.items()}


def main():
    cases = []
    for points, roll, target_at, pole_at, angles in CASES:
        rig, target, pole, constraint = build(points, roll)
        rest = {name: {"head": to_posekit(b.head_local), "tail": to_posekit(b.tail_local),
                       "frame": frame_to_posekit(b.matrix_local.to_3x3())}
                for name, b in rig.data.bones.items()}
        for angle in angles:
            cases.append({"rest": rest, "target": to_posekit(target_at), "pole": to_posekit(pole_at),
                          "pole_angle": math.radians(angle),
                          "posed": solve(rig, target, pole, constraint, target_at, pole_at, angle)})
    document = {"generator": f"Blender {bpy.app.version_string}, legacy IK solver", "cases": cases}
    lines = ",\n  ".join(json.dumps(case) for case in cases)
    OUT.write_text(f'{{"generator": {json.dumps(document["generator"])},\n "cases": [\n  {lines}\n ]}}\n')
    print(f"wrote {len(cases)} cases to {OUT}", file=sys.stderr)


main()
