"""Small glTF documents built in code for the reader's tests: a 3-joint arm under a rotated,
scaled armature node, a skinned strip mesh and one animation. ``document()`` returns the JSON
dictionary and the binary buffer; the ``write_*`` helpers store it in each container form."""
import base64
import json

import numpy as np
import pygltflib

from rig.formats.gltf_export import BinaryChunk
from solvers.transforms import quat_from_axis_angle

ARMATURE_ROTATION = quat_from_axis_angle([1.0, 0.0, 0.0], -np.pi / 2)  # a Z-up file, as from COLLADA
ARMATURE_SCALE = 0.5


def strip_mesh(segments=4, length=2.0, width=0.2):
    """Quads along armature-space Y, (positions, indices, joints, weights) for joints 0..2 at
    y = 0, 1, 2, blended linearly between neighbours."""
    ys = np.linspace(0.0, length, segments * 2 + 1)
    positions = np.array([(x, y, 0.0) for y in ys for x in (-width, width)], np.float32)
    indices = []
    for k in range(len(ys) - 1):
        a, b, c, d = 2 * k, 2 * k + 1, 2 * k + 2, 2 * k + 3
        indices += [a, b, d, a, d, c]
    joints = np.zeros((len(positions), 4), np.uint16)
    weights = np.zeros((len(positions), 4), np.float32)
    lower = np.minimum(np.floor(positions[:, 1]).astype(int), 1)
    blend = np.clip(positions[:, 1] - lower, 0.0, 1.0)
    joints[:, 0], joints[:, 1] = lower, lower + 1  # bones upper, lower, hand (document() maps to slots)
    weights[:, 0], weights[:, 1] = 1.0 - blend, blend
    return positions, np.array(indices, np.uint16), joints, weights


def document(weights_scale=1.0, second_skin=False, names=True, twist=0.0):
    """JSON dict and binary data of the test arm; joints are named 'upper', 'lower', 'hand'
    (unnamed when ``names`` is False), listed in the skin out of hierarchy order. ``twist``
    turns the upper joint (and so all three) about the arm's own axis."""
    blob = BinaryChunk()
    positions, indices, joints, weights = strip_mesh()
    # Mesh positions are in the armature's frame (Z-up, half scale): convert from armature space.
    inverse_rotation = np.linalg.inv(_rotation_matrix())
    mesh_positions = (positions @ inverse_rotation.T / ARMATURE_SCALE).astype(np.float32)
    p = blob.add(mesh_positions, 5126, "VEC3", bounds=True)
    i = blob.add(indices, 5123, "SCALAR")
    skin_slots = [2, 0, 1]  # the skin lists hand, upper, lower
    slot_of_bone = np.argsort(skin_slots).astype(np.uint16)
    j = blob.add(slot_of_bone[joints], 5123, "VEC4")
    w = blob.add((weights * weights_scale).astype(np.float32), 5126, "VEC4")
    # Joints: upper at the armature origin, lower two units up the armature's Z (its up), hand two more.
    twist_quat = quat_from_axis_angle([0.0, 0.0, 1.0], twist)
    local = [_rotate(twist_quat), _translate(0, 0, 2.0), _translate(0, 0, 2.0)]
    world_in_armature = [local[0], local[0] @ local[1], local[0] @ local[1] @ local[2]]
    ibm = np.array([np.linalg.inv(m) for m in world_in_armature])
    ibm_index = blob.add(ibm[skin_slots].transpose(0, 2, 1).astype(np.float32), 5126, "MAT4")
    times = np.array([0.0, 0.5, 1.0], np.float32)
    angles = [0.0, np.pi / 4, np.pi / 2]
    rotations = np.array([quat_from_axis_angle([1, 0, 0], a) for a in angles], np.float32)
    t_index = blob.add(times, 5126, "SCALAR", bounds=True)
    r_index = blob.add(rotations, 5126, "VEC4")
    step_index = blob.add(np.array([[0, 0, 2], [0, 0, 3], [0, 0, 4]], np.float32), 5126, "VEC3")
    cubic = np.repeat(np.array([[1, 1, 1], [1, 2, 1], [1, 3, 1]], np.float32), 3, axis=0)
    cubic[0::3] = cubic[2::3] = 99.0  # tangents: ignored
    cubic_index = blob.add(cubic, 5126, "VEC3")
    name = (lambda n: n) if names else (lambda n: None)
    nodes = [
        {"name": "Armature", "rotation": ARMATURE_ROTATION.tolist(), "scale": [ARMATURE_SCALE] * 3,
         "children": [1, 4]},
        _named({"rotation": twist_quat.tolist(), "children": [2]}, name("upper")),
        _named({"translation": [0, 0, 2.0], "children": [3]}, name("lower")),
        _named({"translation": [0, 0, 2.0]}, name("hand")),
        {"name": "Body", "mesh": 0, "skin": 0},
    ]
    gltf = {
        "asset": {"version": "2.0", "generator": "posekit tests"},
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": p, "JOINTS_0": j, "WEIGHTS_0": w}, "indices": i}]}],
        "skins": [{"joints": [3, 1, 2], "inverseBindMatrices": ibm_index}],
        "animations": [{"name": "wave", "channels": [
            {"sampler": 0, "target": {"node": 2, "path": "rotation"}},
            {"sampler": 1, "target": {"node": 3, "path": "translation"}},
            {"sampler": 2, "target": {"node": 3, "path": "scale"}},
            {"sampler": 0, "target": {"node": 0, "path": "rotation"}}],
            "samplers": [{"input": t_index, "output": r_index, "interpolation": "LINEAR"},
                         {"input": t_index, "output": step_index, "interpolation": "STEP"},
                         {"input": t_index, "output": cubic_index, "interpolation": "CUBICSPLINE"}]}],
        "accessors": blob.accessors, "bufferViews": blob.views,
        "buffers": [{"byteLength": len(blob.data)}],
    }
    if second_skin:
        gltf["skins"].append({"joints": [2, 3]})
    return gltf, bytes(blob.data)


def _named(node, name):
    if name is not None:
        node["name"] = name
    return node


def _translate(x, y, z):
    m = np.eye(4)
    m[:3, 3] = x, y, z
    return m


def _rotate(q):
    from solvers.transforms import quat_to_matrix3
    m = np.eye(4)
    m[:3, :3] = quat_to_matrix3(q)
    return m


def _rotation_matrix():
    from solvers.transforms import quat_to_matrix3
    return quat_to_matrix3(ARMATURE_ROTATION)


def write_gltf_bin(directory, gltf, data, name="arm"):
    gltf = json.loads(json.dumps(gltf))
    gltf["buffers"][0]["uri"] = f"{name}.bin"
    (directory / f"{name}.bin").write_bytes(data)
    path = directory / f"{name}.gltf"
    path.write_text(json.dumps(gltf))
    return path


def write_embedded(directory, gltf, data, mime="application/octet-stream", name="embedded"):
    gltf = json.loads(json.dumps(gltf))
    gltf["buffers"][0]["uri"] = f"data:{mime};base64," + base64.b64encode(data).decode("ascii")
    path = directory / f"{name}.gltf"
    path.write_text(json.dumps(gltf))
    return path


def glb_bytes(gltf, data):
    document = pygltflib.GLTF2.gltf_from_json(json.dumps(gltf))
    document.set_binary_blob(data)
    return b"".join(document.save_to_bytes())


def write_glb(directory, gltf, data, name="arm"):
    path = directory / f"{name}.glb"
    path.write_bytes(glb_bytes(gltf, data))
    return path


# A figure like Khronos' "RiggedFigure" (COLLADA-made: a Z-up root node, joints without names) in
# its own numbers: Y-up armature-space joint heads of a figure facing +Z, mid-stride (left knee
# forward, right foot back), arms hanging at different angles. (name, parent, head).
FIGURE_JOINTS = (
    ("hips", None, (0.0, 0.95, 0.0)), ("spine", "hips", (0.0, 1.15, -0.01)), ("chest", "spine", (0.0, 1.40, -0.02)),
    ("neck", "chest", (0.0, 1.50, 0.0)), ("head", "neck", (0.0, 1.60, 0.01)),
    ("upper_arm.L", "chest", (0.15, 1.40, -0.02)), ("forearm.L", "upper_arm.L", (0.30, 1.16, -0.06)),
    ("hand.L", "forearm.L", (0.45, 0.95, 0.02)),
    ("upper_arm.R", "chest", (-0.15, 1.40, -0.02)), ("forearm.R", "upper_arm.R", (-0.33, 1.20, 0.02)),
    ("hand.R", "forearm.R", (-0.40, 0.97, 0.12)),
    ("thigh.L", "hips", (0.09, 0.90, 0.0)), ("shin.L", "thigh.L", (0.11, 0.50, 0.12)),
    ("foot.L", "shin.L", (0.11, 0.08, 0.02)), ("toe.L", "foot.L", (0.12, 0.02, 0.14)),
    ("thigh.R", "hips", (-0.09, 0.90, 0.0)), ("shin.R", "thigh.R", (-0.10, 0.50, -0.05)),
    ("foot.R", "shin.R", (-0.11, 0.10, -0.18)), ("toe.R", "foot.R", (-0.12, 0.01, -0.08)),
)
Z_UP_MATRIX = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]  # Z-up to Y-up


def figure_document(turn=0.0, joints=FIGURE_JOINTS):
    """JSON dict of a figure skin with unnamed joints (read back as ``node_N``) under a "Z_UP"
    node, ``joints`` turned ``turn`` radians about +Y first; returns (gltf, {joint name: node})."""
    c, s = np.cos(turn), np.sin(turn)
    y_up = {name: np.array([c * x + s * z, y, -s * x + c * z]) for name, _, (x, y, z) in joints}
    z_up = {name: np.array([p[0], -p[2], p[1]]) for name, p in y_up.items()}  # what Z_UP turns into y_up
    node_of = {name: 2 + k for k, (name, _, _) in enumerate(joints)}  # 0: Z_UP, 1: Armature
    nodes = [{"name": "Z_UP", "matrix": Z_UP_MATRIX, "children": [1]},
             {"name": "Armature", "children": [node_of[name] for name, parent, _ in joints if parent is None]}]
    for name, parent, _ in joints:
        node = {"translation": (z_up[name] - (z_up[parent] if parent else 0.0)).tolist()}
        children = [node_of[child] for child, p, _ in joints if p == name]
        nodes.append(dict(node, children=children) if children else node)
    gltf = {"asset": {"version": "2.0", "generator": "posekit tests"}, "scene": 0, "scenes": [{"nodes": [0]}],
            "nodes": nodes, "skins": [{"joints": list(node_of.values())}]}
    return gltf, node_of
