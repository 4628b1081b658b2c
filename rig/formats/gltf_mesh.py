"""Skinned triangle meshes of one glTF skin, as a ``SkinnedMesh`` on our bones."""
import numpy as np
import pygltflib

from rig.skinned_mesh import SkinnedMesh, normalise_weights, vertex_normals

TRIANGLES = 4


def read_skinned_mesh(file, skin_index, skin_bones, skeleton):
    """All triangle primitives of nodes drawn with skin ``skin_index`` merged into one mesh, in the
    skeleton's armature space; None when no node uses the skin. Skipped primitives and
    re-normalised weights are reported in ``file.warnings``."""
    parts = []
    for i, node in enumerate(file.gltf.nodes):
        if node.skin != skin_index or node.mesh is None:
            continue
        mesh = file.item("meshes", node.mesh, f"nodes[{i}].mesh")
        primitives = file.objects(mesh.primitives, pygltflib.Primitive, f"meshes[{node.mesh}].primitives")
        for k, primitive in enumerate(primitives):
            part = _primitive(file, f"meshes[{node.mesh}].primitives[{k}]", primitive, skin_bones)
            if part is not None:
                parts.append(part)
    if not parts:
        return None
    positions, normals, indices, joints, weights = [], [], [], [], []
    offset = 0
    for p, n, ix, j, w in parts:
        positions.append(p)
        normals.append(n)
        indices.append(ix + offset)
        joints.append(j)
        weights.append(w)
        offset += len(p)
    weights, off = normalise_weights(np.concatenate(weights))
    if off:
        file.warnings.append(f"{file.path}: {off} vertices had skin weights not summing to 1; normalised")
    world = skin_bones.mesh_world
    positions = np.concatenate(positions) @ world[:3, :3].T + world[:3, 3]
    normal_matrix = np.linalg.inv(world[:3, :3]).T
    normals = np.concatenate(normals) @ normal_matrix.T
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
    return SkinnedMesh.for_skeleton(skeleton, positions, normals, np.concatenate(indices), np.concatenate(joints),
                                    weights)


def triangle_attributes(file, field, primitive, required):
    """A primitive's attribute accessors by name, or None (skipped, with a warning in
    ``file.warnings``) when it is not made of triangles or lacks one of ``required``."""
    mode = TRIANGLES if primitive.mode is None else primitive.mode
    attributes = primitive.attributes
    names = vars(attributes) if attributes is not None and hasattr(attributes, "__dict__") else {}
    if mode != TRIANGLES:
        file.warnings.append(f"{file.path}: {field}: mode {mode} is not triangles; skipped")
        return None
    if any(names.get(name) is None for name in required):
        file.warnings.append(f"{file.path}: {field}: no {'/'.join(required)}; skipped")
        return None
    return names


def _primitive(file, field, primitive, skin_bones):
    names = triangle_attributes(file, field, primitive, ("POSITION", "JOINTS_0", "WEIGHTS_0"))
    if names is None:
        return None
    positions = file.accessor(names["POSITION"], f"{field}.attributes.POSITION", ("VEC3",), floats_only=True)
    vertex_count = len(positions)
    if not np.isfinite(positions).all():
        file.fail(f"{field}.attributes.POSITION", "finite positions")
    joints = _per_vertex(file, names["JOINTS_0"], f"{field}.attributes.JOINTS_0", vertex_count)
    if joints.dtype.kind == "f" or np.any(joints < 0) or np.any(joints >= len(skin_bones.joint_to_bone)):
        file.fail(f"{field}.attributes.JOINTS_0", f"unsigned integer joint slots below {len(skin_bones.joint_to_bone)}")
    weights = _per_vertex(file, names["WEIGHTS_0"], f"{field}.attributes.WEIGHTS_0", vertex_count)
    if not np.isfinite(weights).all():
        file.fail(f"{field}.attributes.WEIGHTS_0", "finite weights")
    indices = triangle_indices(file, primitive.indices, f"{field}.indices", vertex_count)
    normals = None
    if names.get("NORMAL") is not None:
        normals = _per_vertex(file, names["NORMAL"], f"{field}.attributes.NORMAL", vertex_count, ("VEC3",))
        if not np.isfinite(normals).all():
            normals = None
    if normals is None:
        normals = vertex_normals(positions, indices)
    return positions, normals, indices, skin_bones.joint_to_bone[joints], weights.astype(float)


def _per_vertex(file, accessor, field, vertex_count, types=("VEC4",)):
    values = file.accessor(accessor, field, types)
    if len(values) != vertex_count:
        file.fail(field, f"{vertex_count} elements, one per vertex", len(values))
    return values


def triangle_indices(file, accessor, field, vertex_count):
    """A triangle primitive's corner indices (3T,) as uint32, checked against ``vertex_count``."""
    if accessor is None:
        indices = np.arange(vertex_count)
    else:
        indices = file.accessor(accessor, field, ("SCALAR",))[:, 0]
        if indices.dtype.kind == "f" or np.any(indices < 0) or np.any(indices >= vertex_count):
            file.fail(field, f"unsigned integer vertex indices below {vertex_count}")
    if len(indices) % 3:
        file.fail(field, "a multiple of 3 triangle corners", len(indices))
    return indices.astype(np.uint32)
