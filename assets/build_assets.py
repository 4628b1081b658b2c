"""Writes the rigs Posekit ships (humanoid.json, tail.json, robot_arm.json) into assets/.

Run ``python assets/build_assets.py`` after changing a rig here; the JSON files are committed.
Coordinates: metres, +Y up, the humanoid faces +Z, its left side (.L) is at +X. Pole angles
are computed so the rest pose is already the IK solution (Blender's pole-angle meaning).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rig.formats.jsonfields import save_json_atomic  # noqa: E402
from rig.formats.rigfile import RIG_FORMAT, RIG_VERSION  # noqa: E402
from rig.autorig import pole_angle  # noqa: E402
from rig.skeleton import bone_frame  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def bone(name, parent, head, tail, connected=False, roll=0.0, ik=None):
    b = {"name": name, "parent": parent, "head": [round(v, 4) for v in head],
         "tail": [round(v, 4) for v in tail], "roll": roll, "connected": connected}
    if ik:
        b["ik"] = ik
    return b


def mirror(b):
    """The .R twin of a .L bone: X negated, roll negated (Blender's symmetrize)."""
    def flip(name):
        return name.replace(".L", ".R") if name else name
    out = dict(b, name=flip(b["name"]), parent=flip(b["parent"]),
               head=[-b["head"][0], *b["head"][1:]], tail=[-b["tail"][0], *b["tail"][1:]], roll=-b["roll"])
    return out


def humanoid():
    bones = [
        bone("root", None, (0, 0, 0), (0, 0, -0.35)),
        bone("pelvis", "root", (0, 0.98, 0.0), (0, 1.08, -0.01)),
        bone("spine.01", "pelvis", (0, 1.08, -0.01), (0, 1.20, -0.02), connected=True),
        bone("spine.02", "spine.01", (0, 1.20, -0.02), (0, 1.32, -0.02), connected=True),
        bone("spine.03", "spine.02", (0, 1.32, -0.02), (0, 1.46, -0.03), connected=True),
        bone("neck", "spine.03", (0, 1.46, -0.03), (0, 1.56, 0.0), connected=True),
        bone("head", "neck", (0, 1.56, 0.0), (0, 1.75, 0.0), connected=True),
    ]
    left = [
        bone("clavicle.L", "spine.03", (0.02, 1.42, 0.04), (0.17, 1.44, -0.03)),
        bone("upper_arm.L", "clavicle.L", (0.19, 1.42, -0.04), (0.37, 1.19, -0.08)),
        bone("forearm.L", "upper_arm.L", (0.37, 1.19, -0.08), (0.52, 0.98, -0.02), connected=True),
        bone("hand.L", "forearm.L", (0.52, 0.98, -0.02), (0.57, 0.89, 0.0), connected=True),
        bone("thigh.L", "pelvis", (0.09, 0.95, 0.0), (0.10, 0.53, 0.03)),
        bone("shin.L", "thigh.L", (0.10, 0.53, 0.03), (0.11, 0.09, -0.02), connected=True),
        bone("foot.L", "shin.L", (0.11, 0.09, -0.02), (0.11, 0.02, 0.12), connected=True),
        bone("toe.L", "foot.L", (0.11, 0.02, 0.12), (0.11, 0.02, 0.19), connected=True),
    ]
    by_name = {b["name"]: b for b in left}
    handles = [
        dict(by_name["hand.L"], name="hand_ik.L", parent="root", connected=False),
        bone("elbow_pole.L", "root", (0.37, 1.19, -0.45), (0.37, 1.24, -0.45)),
        dict(by_name["foot.L"], name="foot_ik.L", parent="root", connected=False),
        bone("knee_pole.L", "root", (0.10, 0.53, 0.45), (0.10, 0.58, 0.45)),
    ]
    left += handles
    bones += left + [mirror(b) for b in left]
    ik, copy_rotation = [], []
    for side in ("L", "R"):
        named = {b["name"]: b for b in bones}
        for upper, lower, handle, pole, end in (("upper_arm", "forearm", "hand_ik", "elbow_pole", "hand"),
                                                ("thigh", "shin", "foot_ik", "knee_pole", "foot")):
            u, lo = named[f"{upper}.{side}"], named[f"{lower}.{side}"]
            ik.append({"bone": lo["name"], "target": f"{handle}.{side}", "pole_target": f"{pole}.{side}",
                       "pole_angle": round(pole_angle(bone_frame(u["head"], u["tail"], u["roll"]), lo["tail"],
                                                      named[f"{pole}.{side}"]["head"]), 6),
                       "chain_count": 2})
            copy_rotation.append({"bone": f"{end}.{side}", "target": f"{handle}.{side}"})
    return {"name": "humanoid", "bones": bones, "ik_constraints": ik, "copy_rotation_constraints": copy_rotation,
            "solver": {"type": "auto"}}


def tail():
    """A 12-bone tentacle rising from a base bone, gently curved, with a tip IK handle."""
    bones = [bone("base", None, (0, 0, 0), (0, 0.1, 0))]
    point = np.array([0.0, 0.1, 0.0])
    for i in range(12):
        angle = 0.09 * (i + 1)
        step = 0.12 * np.array([np.sin(angle), np.cos(angle), 0.0])
        bones.append(bone(f"tail.{i + 1:03d}", bones[-1]["name"], point, point + step, connected=True))
        point = point + step
    bones.append(bone("tail_ik", "base", point, point + np.array([0.0, 0.08, 0.0])))
    return {"name": "tail", "bones": bones, "solver": {"type": "fabrik", "iterations": 50},
            "ik_constraints": [{"bone": "tail.012", "target": "tail_ik", "chain_count": 12}]}


def robot_arm():
    """Three joints: a turntable (twists about its own Y only), shoulder and elbow hinges. The IK
    handle sits on the wrist (the gripper's head); with use_tail off the chain is the 3 joints."""
    hinge = {"lock": [False, True, True], "use_limit": [True, False, False],
             "limit_min": [-2.0, -np.pi, -np.pi], "limit_max": [2.0, np.pi, np.pi]}
    bones = [
        bone("base", None, (0, 0, 0), (0, 0.15, 0), ik={"lock": [True, False, True]}),
        bone("upper", "base", (0, 0.15, 0), (0, 0.55, 0.12), connected=True, ik=hinge),
        bone("lower", "upper", (0, 0.55, 0.12), (0, 0.60, 0.48), connected=True, ik=hinge),
        bone("gripper", "lower", (0, 0.60, 0.48), (0, 0.56, 0.58), connected=True),
        bone("grip_ik", None, (0, 0.60, 0.48), (0, 0.56, 0.58)),
    ]
    return {"name": "robot_arm", "bones": bones, "solver": {"type": "dls"},
            "ik_constraints": [{"bone": "gripper", "target": "grip_ik", "chain_count": 3, "use_tail": False}]}


def main():
    for filename, rig in (("humanoid.json", humanoid()), ("tail.json", tail()), ("robot_arm.json", robot_arm())):
        rig = {"format": RIG_FORMAT, "version": RIG_VERSION, "units": "metres", "up": "+Y", **rig}
        save_json_atomic(os.path.join(HERE, filename), rig)
        print("wrote", filename, len(rig["bones"]), "bones")


if __name__ == "__main__":
    main()
