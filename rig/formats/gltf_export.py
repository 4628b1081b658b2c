"""Writing a posed rig as a binary glTF 2.0 file (.glb).

One node per bone, oriented as the bone's own frame (so a joint's +Y runs along its bone), its
transform the bone's current pose; the skin's inverse bind matrices are the inverse rest frames,
so a reader finds the rest pose there. Each bone node's extras keep its length and connected flag,
the root extras the rig's constraints and solver settings, so ``read_gltf`` gives the rig back.
With a mesh, one skinned mesh node; with a list of poses, one animation at ``fps`` frames a second.
"""
import json
import struct

import numpy as np

from rig.formats.gltf_skin import EXTRAS_KEY, RIG_EXTRAS
from rig.formats.atomic import save_bytes_atomic
from rig.formats.jsonfields import FileFormatError
from rig.pose import Pose
from rig.formats.rigfile import rig_to_dict
from solvers.transforms import matrix3_to_quat, quat_mul, quat_rotate

FLOAT, UNSIGNED_SHORT, UNSIGNED_INT = 5126, 5123, 5125
ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963


class BinaryChunk:
    """The GLB binary chunk under construction, with its buffer views and accessors."""

    def __init__(self):
        self.data = bytearray()
        self.views, self.accessors = [], []

    def add(self, array, component, kind, target=None, bounds=False):
        array = np.ascontiguousarray(array)
        self.data += b"\0" * (-len(self.data) % 4)
        view = {"buffer": 0, "byteOffset": len(self.data), "byteLength": array.nbytes}
        if target is not None:
            view["target"] = target
        self.views.append(view)
        self.data += array.tobytes()
        accessor = {"bufferView": len(self.views) - 1, "componentType": component, "count": len(array), "type": kind}
        if bounds:
            flat = array.reshape(len(array), -1).astype(float)
            accessor["min"], accessor["max"] = flat.min(axis=0).tolist(), flat.max(axis=0).tolist()
        self.accessors.append(accessor)
        return len(self.accessors) - 1


def node_trs(skeleton, pose):
    """Translations (N, 3), rotations (N, 4) and scales (N, 3) of the bone nodes for ``pose``:
    the TRS of ``rest_local @ T(location) @ R(rotation) @ S(scale)``, exactly."""
    rest = skeleton.rest_local
    rest_rotation = matrix3_to_quat(rest[:, :3, :3])
    translations = rest[:, :3, 3] + quat_rotate(rest_rotation, pose.locations)
    rotations = quat_mul(rest_rotation, pose.rotations)
    rotations /= np.linalg.norm(rotations, axis=1, keepdims=True)
    return translations, rotations, pose.scales.copy()


def glb_bytes(rig, pose=None, mesh=None, clip=None, fps=30.0, clip_name="posekit"):
    """The .glb file's bytes (see the module doc). ``clip`` is a list of Poses, one a frame."""
    skeleton = rig.skeleton
    pose = Pose.rest(len(skeleton)) if pose is None else pose
    for p in [pose] + list(clip or []):
        if not p.is_finite():
            raise ValueError("refusing to write a pose with non-finite values")
    binary = BinaryChunk()
    nodes = _bone_nodes(rig, pose)
    scene_nodes = [i for i, p in enumerate(skeleton.parents) if p < 0]
    inverse_bind = np.linalg.inv(skeleton.rest_world).transpose(0, 2, 1).astype(np.float32)
    skin = {"joints": list(range(len(skeleton))), "inverseBindMatrices": binary.add(inverse_bind, FLOAT, "MAT4")}
    gltf = {"asset": {"version": "2.0", "generator": "Posekit"}, "scene": 0, "nodes": nodes, "skins": [skin],
            "extras": {EXTRAS_KEY: _rig_extras(rig)}}
    if mesh is not None:
        gltf["meshes"] = [_mesh(binary, mesh)]
        gltf["materials"] = [{"pbrMetallicRoughness": {"baseColorFactor": [0.8, 0.8, 0.8, 1.0],
                                                       "metallicFactor": 0.0, "roughnessFactor": 0.8}}]
        nodes.append({"name": "mesh", "mesh": 0, "skin": 0})
        scene_nodes.append(len(nodes) - 1)
    if clip:
        gltf["animations"] = [_animation(binary, skeleton, clip, fps, clip_name)]
    gltf["scenes"] = [{"nodes": scene_nodes}]
    gltf.update({"buffers": [{"byteLength": len(binary.data)}], "bufferViews": binary.views,
                 "accessors": binary.accessors})
    return glb_container(gltf, bytes(binary.data))


def glb_container(document, blob):
    """The GLB container (glTF 2.0 spec, "Binary glTF Layout") of a glTF JSON ``document`` and its
    binary chunk ``blob``: packed here, since a round trip through pygltflib's dataclasses costs a
    millisecond a node. Strict JSON: a non-finite number raises ValueError."""
    text = json.dumps(document, separators=(",", ":"), allow_nan=False).encode("utf-8")
    text += b" " * (-len(text) % 4)
    chunks = struct.pack("<I4s", len(text), b"JSON") + text
    if blob:
        blob += b"\0" * (-len(blob) % 4)
        chunks += struct.pack("<I4s", len(blob), b"BIN\0") + blob
    return struct.pack("<4sII", b"glTF", 2, 12 + len(chunks)) + chunks


def write_glb(path, rig, pose=None, mesh=None, clip=None, fps=30.0, clip_name="posekit"):
    """Write ``glb_bytes(...)`` to ``path`` atomically; values that cannot be written raise
    FileFormatError naming ``path``."""
    try:
        data = glb_bytes(rig, pose, mesh, clip, fps, clip_name)
    except ValueError as error:
        raise FileFormatError(path, None, f"a rig and poses with finite values to write ({error})") from None
    save_bytes_atomic(path, data, suffix=".glb")


def _bone_nodes(rig, pose):
    skeleton = rig.skeleton
    translations, rotations, scales = node_trs(skeleton, pose)
    nodes = []
    for i, name in enumerate(skeleton.names):
        node = {"name": name, "translation": translations[i].tolist(), "rotation": rotations[i].tolist(),
                "scale": scales[i].tolist(),
                "extras": {EXTRAS_KEY: {"length": float(skeleton.lengths[i]), "connected": bool(skeleton.connected[i])}}}
        children = skeleton.children(i).tolist()
        if children:
            node["children"] = children
        nodes.append(node)
    return nodes


def _rig_extras(rig):
    data = rig_to_dict(rig)
    extras = {k: data[k] for k in RIG_EXTRAS}
    extras["bone_ik"] = {bone["name"]: bone["ik"] for bone in data["bones"] if "ik" in bone}
    return extras


def _mesh(binary, mesh):
    normals = mesh.normals / np.maximum(np.linalg.norm(mesh.normals, axis=1, keepdims=True), 1e-12)
    attributes = {
        "POSITION": binary.add(mesh.positions.astype(np.float32), FLOAT, "VEC3", ARRAY_BUFFER, bounds=True),
        "NORMAL": binary.add(normals.astype(np.float32), FLOAT, "VEC3", ARRAY_BUFFER),
        # Unused influences name joint 0, as the validator asks.
        "JOINTS_0": binary.add(np.where(mesh.weights > 0, mesh.joints, 0).astype(np.uint16), UNSIGNED_SHORT, "VEC4",
                               ARRAY_BUFFER),
        "WEIGHTS_0": binary.add(mesh.weights.astype(np.float32), FLOAT, "VEC4", ARRAY_BUFFER),
    }
    indices = binary.add(mesh.indices.astype(np.uint32), UNSIGNED_INT, "SCALAR", ELEMENT_ARRAY_BUFFER)
    return {"name": "skin", "primitives": [{"attributes": attributes, "indices": indices, "material": 0}]}


def _animation(binary, skeleton, clip, fps, name):
    times = binary.add((np.arange(len(clip)) / fps).astype(np.float32), FLOAT, "SCALAR", bounds=True)
    frames = [node_trs(skeleton, pose) for pose in clip]
    translations, rotations, scales = (np.stack([f[k] for f in frames], axis=1) for k in range(3))
    # Keep consecutive keys in one hemisphere so LINEAR slerps the short way.
    flips = np.cumprod(np.where(np.sum(rotations[:, 1:] * rotations[:, :-1], axis=2) < 0, -1.0, 1.0), axis=1)
    rotations[:, 1:] *= flips[..., None]
    channels, samplers = [], []
    for bone in range(len(skeleton)):
        for path, values, kind in (("translation", translations, "VEC3"), ("rotation", rotations, "VEC4"),
                                   ("scale", scales, "VEC3")):
            output = binary.add(values[bone].astype(np.float32), FLOAT, kind)
            samplers.append({"input": times, "output": output, "interpolation": "LINEAR"})
            channels.append({"sampler": len(samplers) - 1, "target": {"node": bone, "path": path}})
    return {"name": name, "channels": channels, "samplers": samplers}
