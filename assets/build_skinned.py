"""Writes assets/humanoid_skinned.glb: the humanoid rig with a simple skinned body (CC0, ours).

Every deforming bone (not the root, IK targets or poles) gets a capsule around it; vertices near a
bone's head blend smoothly with its parent bone, so joints bend without tearing. Run
``python assets/build_skinned.py`` after changing the humanoid or this script; the .glb is committed.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rig.formats.gltf import write_glb  # noqa: E402
from rig.formats.rigfile import load_rig  # noqa: E402
from rig.skinned_mesh import SkinnedMesh, vertex_normals  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RADII = {"pelvis": 0.13, "spine.01": 0.12, "spine.02": 0.125, "spine.03": 0.13, "neck": 0.05, "head": 0.1,
         "clavicle": 0.045, "upper_arm": 0.048, "forearm": 0.04, "hand": 0.035, "thigh": 0.07, "shin": 0.052,
         "foot": 0.042, "toe": 0.032}
RINGS, SEGMENTS, CAP_RINGS = 8, 14, 3


def capsule(length, radius):
    """A capsule along +Y from 0 to ``length`` with hemispherical caps: (positions (V, 3), triangle
    indices (T*3,)). Rings run bottom cap, body, top cap; each ring has SEGMENTS vertices."""
    cap = np.linspace(-np.pi / 2, 0.0, CAP_RINGS + 1)[1:-1]  # strictly between the pole and the body
    ys, rs = [], []
    for angle in cap:  # bottom cap, below the head
        ys.append(radius * np.sin(angle))
        rs.append(radius * np.cos(angle))
    for y in np.linspace(0.0, length, RINGS):
        ys.append(y)
        rs.append(radius)
    for angle in -cap[::-1]:  # top cap, beyond the tail
        ys.append(length + radius * np.sin(angle))
        rs.append(radius * np.cos(angle))
    around = np.linspace(0.0, 2 * np.pi, SEGMENTS, endpoint=False)
    rings = [np.c_[r * np.cos(around), np.full(SEGMENTS, y), -r * np.sin(around)] for y, r in zip(ys, rs)]
    positions = np.vstack([[[0.0, -radius, 0.0]]] + rings + [[[0.0, length + radius, 0.0]]])
    indices = []
    last = len(positions) - 1
    for k in range(SEGMENTS):  # fans closing both ends
        n = (k + 1) % SEGMENTS
        indices += [0, 1 + n, 1 + k]
        base = 1 + (len(rings) - 1) * SEGMENTS
        indices += [last, base + k, base + n]
    for ring in range(len(rings) - 1):
        a, b = 1 + ring * SEGMENTS, 1 + (ring + 1) * SEGMENTS
        for k in range(SEGMENTS):
            n = (k + 1) % SEGMENTS
            indices += [a + k, b + n, b + k, a + k, a + n, b + n]
    return positions, np.array(indices)


def radius_for(name):
    return RADII.get(name, RADII.get(name.split(".")[0]))


def head_blend(y, length, radius):
    """The bone's own weight at bone-space height ``y``: a half at its head cap, rising smoothly
    to one a third of the way along; the rest goes to the parent."""
    s = np.clip((y + radius) / (0.35 * length + radius), 0.0, 1.0)
    return 0.5 + 0.5 * s * s * (3 - 2 * s)


def build(rig):
    skeleton = rig.skeleton
    targets, poles = rig.handle_bones()
    skip = targets | poles | {"root"}
    deforming = [i for i, name in enumerate(skeleton.names) if name not in skip]
    positions, indices, joints, weights = [], [], [], []
    offset = 0
    for i in deforming:
        name, length = skeleton.names[i], skeleton.lengths[i]
        local, faces = capsule(length, radius_for(name))
        frame = skeleton.rest_world[i]
        positions.append(local @ frame[:3, :3].T + frame[:3, 3])
        indices.append(faces + offset)
        offset += len(local)
        parent = int(skeleton.parents[i])
        own = head_blend(local[:, 1], length, radius_for(name)) if skeleton.names[parent] not in skip \
            else np.ones(len(local))
        slot = np.zeros((len(local), 4), np.uint16)
        slot[:, 0] = i
        slot[:, 1] = parent if skeleton.names[parent] not in skip else 0
        joints.append(slot)
        weight = np.zeros((len(local), 4))
        weight[:, 0], weight[:, 1] = own, 1.0 - own
        weights.append(weight)
    positions, indices = np.vstack(positions), np.concatenate(indices)
    return SkinnedMesh.for_skeleton(skeleton, positions, vertex_normals(positions, indices), indices,
                                    np.vstack(joints), np.vstack(weights))


def main():
    rig = load_rig(os.path.join(HERE, "humanoid.json"))
    write_glb(os.path.join(HERE, "humanoid_skinned.glb"), rig, mesh=build(rig))


if __name__ == "__main__":
    main()
