"""The static triangles of a glTF scene (a ground): every triangle primitive of every node with a
mesh, placed by the node's world transform. Skins and morph targets are not applied: a ground
is read as it stands in the file. Primitives that are not triangles are skipped with a warning."""
import numpy as np
import pygltflib

from rig.formats.gltf_buffers import GltfFile
from rig.formats.gltf_mesh import triangle_attributes, triangle_indices
from rig.formats.gltf_nodes import read_nodes
from rig.formats.obj import MAX_TRIANGLES, TriangleSoup
from rig.ranges import MAX_COORDINATE


def read_gltf_triangles(path):
    """(TriangleSoup in world space, [warning]) of the .gltf/.glb file at ``path``; raises
    FileFormatError, also for a file with no triangles."""
    file = GltfFile(path)
    nodes = read_nodes(file)
    positions, triangles, count = [], [], 0
    for i, node in enumerate(file.gltf.nodes):
        if node.mesh is None:
            continue
        mesh = file.item("meshes", node.mesh, f"nodes[{i}].mesh")
        primitives = file.objects(mesh.primitives, pygltflib.Primitive, f"meshes[{node.mesh}].primitives")
        for k, primitive in enumerate(primitives):
            field = f"meshes[{node.mesh}].primitives[{k}]"
            part = _primitive(file, field, primitive)
            if part is None:
                continue
            local, indices = part
            world = local @ nodes.world[i, :3, :3].T + nodes.world[i, :3, 3]
            if not (np.abs(world) <= MAX_COORDINATE).all():
                file.fail(f"{field}.attributes.POSITION", f"positions within {MAX_COORDINATE:g} m once placed "
                          f"by nodes[{i}]")
            triangles.append(indices.reshape(-1, 3).astype(np.int64) + count)
            positions.append(world)
            count += len(world)
            if sum(len(t) for t in triangles) > MAX_TRIANGLES:
                file.fail("meshes", f"at most {MAX_TRIANGLES} triangles in the scene")
    if not triangles or not sum(len(t) for t in triangles):
        file.fail("meshes", "at least one triangle primitive on a node")
    return TriangleSoup(np.concatenate(positions), np.concatenate(triangles)), file.warnings


def _primitive(file, field, primitive):
    """A triangle primitive's (positions (V, 3), indices (3T,)), or None (skipped, with a warning)."""
    names = triangle_attributes(file, field, primitive, ("POSITION",))
    if names is None:
        return None
    positions = file.accessor(names["POSITION"], f"{field}.attributes.POSITION", ("VEC3",), floats_only=True)
    if not (np.abs(positions) <= MAX_COORDINATE).all():
        file.fail(f"{field}.attributes.POSITION", f"finite positions within {MAX_COORDINATE:g} m")
    return positions, triangle_indices(file, primitive.indices, f"{field}.indices", len(positions))
