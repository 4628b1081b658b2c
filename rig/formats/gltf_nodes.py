"""The glTF node hierarchy: parents, local and world transforms, validated (indices in range, one
parent per node, no cycles, finite transforms)."""
import math
from dataclasses import dataclass

import numpy as np

from rig.formats.gltf_buffers import finite_numbers, is_int
from solvers.transforms import IDENTITY_QUAT, compose, matrix3_to_quat


def decompose(m):
    """Translations (..., 3), unit quaternions (..., 4) and scales (..., 3) with ``T @ R @ S == m``
    for affine matrices without shear (shear is dropped); a mirroring matrix gets a negative X scale."""
    m = np.asarray(m, dtype=float)
    a = m[..., :3, :3]
    scale = np.linalg.norm(a, axis=-2)
    scale[..., 0] *= np.where(np.linalg.det(a) < 0, -1.0, 1.0)
    r = a / np.where(np.abs(scale) > 1e-12, scale, 1.0)[..., None, :]
    u, _, vt = np.linalg.svd(r)
    rotation = u @ vt
    return m[..., :3, 3].copy(), matrix3_to_quat(rotation), scale


@dataclass
class NodeTree:
    """``parents`` (M,) node index or -1; ``local``/``world`` (M, 4, 4); ``translations`` (M, 3),
    ``rotations`` (M, 4), ``scales`` (M, 3) the local TRS (decomposed for matrix nodes), which
    animation channels replace; ``names`` node names (None when unnamed); ``order`` parents first."""
    parents: np.ndarray
    local: np.ndarray
    world: np.ndarray
    translations: np.ndarray
    rotations: np.ndarray
    scales: np.ndarray
    names: list
    order: list


def _text(name):
    """A node name as UTF-8-safe text: a lone surrogate (valid JSON, no character) becomes '?'."""
    return name.encode("utf-8", "replace").decode("utf-8") if isinstance(name, str) else None


def read_nodes(file):
    nodes = file.gltf.nodes
    count = len(nodes)
    parents = np.full(count, -1, dtype=np.int64)
    trs = _plain_trs(nodes) or [_node_trs(file, node, i) for i, node in enumerate(nodes)]
    names = []
    for i, node in enumerate(nodes):
        if node.name is not None and not isinstance(node.name, str):
            file.fail(f"nodes[{i}].name", "a string", node.name)
        names.append(_text(node.name) or None)
        children = node.children if node.children is not None else []
        if not isinstance(children, list):
            file.fail(f"nodes[{i}].children", "a list of node indices", children)
        for k, child in enumerate(children):
            if not is_int(child, 0, count - 1):
                file.fail(f"nodes[{i}].children[{k}]", f"a node index (0..{count - 1})", child)
            if child == i or parents[child] >= 0:
                file.fail(f"nodes[{i}].children[{k}]", "a node with no other parent (a tree, not a graph)", child)
            parents[child] = i
    order = _parents_first(file, parents)
    translations = np.array([t for t, _, _ in trs]).reshape(count, 3)
    rotations = np.array([r for _, r, _ in trs]).reshape(count, 4)
    scales = np.array([s for _, _, s in trs]).reshape(count, 3)
    local = compose(translations, rotations, scales)
    for i, node in enumerate(nodes):
        if node.matrix is not None:
            local[i] = np.asarray(node.matrix, dtype=float).reshape(4, 4).T
    world = np.empty_like(local)
    for i in order:
        world[i] = local[i] if parents[i] < 0 else world[parents[i]] @ local[i]
    return NodeTree(parents, local, world, translations, rotations, scales, names, order)


PLAIN_TRS = (("translation", (0.0, 0.0, 0.0)), ("rotation", tuple(IDENTITY_QUAT)), ("scale", (1.0, 1.0, 1.0)))


def _plain_trs(nodes):
    """Every node's (translation, unit rotation, scale) read in bulk when all of them are plain
    finite TRS (no matrices, no odd values), else None for ``_node_trs`` to read node by node and
    name what is wrong. Node by node costs seconds for 100,000 joints."""
    if any(node.matrix is not None for node in nodes):
        return None
    columns = []
    for attribute, default in PLAIN_TRS:
        values = [default if value is None else value for value in (getattr(node, attribute) for node in nodes)]
        try:
            array = np.array(values)
        except ValueError:  # ragged
            return None
        # numbers only: strings, objects, booleans and mixtures with booleans go the slow way
        if array.shape != (len(nodes), len(default)) or array.dtype.kind not in "if" \
                or any(type(v) is bool for row in values for v in row):
            return None
        columns.append(array.astype(float))
    translations, rotations, scales = columns
    norms = np.linalg.norm(rotations, axis=1, keepdims=True)
    if not (np.isfinite(translations).all() and np.isfinite(scales).all() and np.isfinite(norms).all()
            and (norms >= 1e-6).all()):
        return None
    return list(zip(translations, rotations / norms, scales))


def _node_trs(file, node, i):
    field = f"nodes[{i}]"
    if node.matrix is not None:
        matrix = finite_numbers(node.matrix, 16)
        if matrix is None:
            file.fail(f"{field}.matrix", "16 finite numbers (column-major)", node.matrix)
        m = np.array(matrix).reshape(4, 4).T
        if not np.allclose(m[3], [0.0, 0.0, 0.0, 1.0]) or abs(np.linalg.det(m[:3, :3])) < 1e-12:
            file.fail(f"{field}.matrix", "an invertible affine matrix (last row 0, 0, 0, 1)")
        return decompose(m)
    translation = _vector(file, node.translation, 3, (0.0, 0.0, 0.0), f"{field}.translation")
    rotation = _vector(file, node.rotation, 4, tuple(IDENTITY_QUAT), f"{field}.rotation")
    norm = math.sqrt(sum(v * v for v in rotation))
    if norm < 1e-6:
        file.fail(f"{field}.rotation", "a unit quaternion [x, y, z, w]", list(rotation))
    scale = _vector(file, node.scale, 3, (1.0, 1.0, 1.0), f"{field}.scale")
    return translation, tuple(v / norm for v in rotation), scale


def _vector(file, value, size, default, field):
    if value is None:
        return default
    array = finite_numbers(value, size)
    if array is None:
        file.fail(field, f"{size} finite numbers", value)
    return array


def _parents_first(file, parents):
    """Node indices ordered parents first; a node left unreached sits on a cycle."""
    children = [[] for _ in parents]
    for i, p in enumerate(parents):
        if p >= 0:
            children[p].append(i)
    order = [i for i, p in enumerate(parents) if p < 0]
    k = 0
    while k < len(order):
        order.extend(children[order[k]])
        k += 1
    if len(order) < len(parents):
        cyclic = min(set(range(len(parents))) - set(order))
        file.fail("nodes", f"a hierarchy without cycles (node {cyclic} is its own ancestor)")
    return order
