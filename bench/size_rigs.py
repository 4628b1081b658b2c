"""Large generated rigs for the size test and benchmark: a chain (every bone the child of the one
before, so depth equals bone count) and a flat rig (every bone a child of the first)."""
import json


def big_rig(bone_count, shape):
    """A posekit rig document of ``bone_count`` bones 1 cm long, ``shape`` "chain" or "flat"."""
    bones = []
    for i in range(bone_count):
        if shape == "chain":
            bones.append({"name": f"b{i}", "parent": f"b{i - 1}" if i else None, "head": [0, 0.01 * i, 0],
                          "tail": [0, 0.01 * (i + 1), 0], "connected": i > 0})
        else:
            bones.append({"name": f"b{i}", "parent": "b0" if i else None, "head": [0.001 * i, 0, 0],
                          "tail": [0.001 * i, 0.01, 0]})
    return {"format": "posekit.rig", "version": 1, "name": f"{shape}{bone_count}", "bones": bones}


def write_big_rig(path, bone_count, shape):
    with open(path, "w") as f:
        json.dump(big_rig(bone_count, shape), f)
    return path
