"""A glTF skin as Posekit bones, and the exact map between our poses and glTF node transforms.

Bones are the skin's joints in the bind pose (inverse bind matrices; node transforms when a skin
has none), placed in the scene's world space by the world transform of the mesh node using the
skin. Heads sit on joints; tails point at the child joint (the average of several children; a
leaf continues its parent at half its length); rolls keep our X axis as close as Blender's
head/tail/roll rule allows to the joint's own X axis. Files we wrote carry each bone's length
(node extras ``posekit.length``) and point joints along the bone, so they read back exactly.
"""
from dataclasses import dataclass

import numpy as np

from rig.formats.gltf_buffers import is_int
from rig.formats.gltf_nodes import decompose
from rig.formats.jsonfields import Reader
from rig.pose import Pose
from rig.skeleton import MIN_BONE_LENGTH, roll_from_frame
from solvers.transforms import compose, normalize

EXTRAS_KEY = "posekit"
# Rig fields a file we wrote keeps in its root extras (with "bone_ik": bone name -> IK settings).
RIG_EXTRAS = ("name", "solver", "ik_constraints", "copy_rotation_constraints")


@dataclass
class NodeMap:
    """For bone i, driven by glTF node ``joints[i]``: ``node_local = pre[i] @ P @ post[i]``, where
    ``P = T(location) @ R(rotation) @ S(scale)`` is the bone's pose matrix. ``post`` is the joint's
    frame in the bone's rest frame; ``pre`` carries the parent side (the parent joint's frame and
    any non-joint nodes in between)."""
    joints: np.ndarray
    pre: np.ndarray
    post: np.ndarray

    def node_locals(self, pose):
        """(N, 4, 4) local matrices of the joint nodes for ``pose``."""
        return self.pre @ compose(pose.locations, pose.rotations, pose.scales) @ self.post

    def pose_from_locals(self, local):
        """The Pose whose ``node_locals`` are ``local`` (N, 4, 4)."""
        matrix = np.linalg.inv(self.pre) @ np.asarray(local, dtype=float) @ np.linalg.inv(self.post)
        locations, rotations, scales = decompose(matrix)
        return Pose(rotations, locations, scales)


@dataclass
class SkinBones:
    """Bones of one skin in parents-first order, ready for ``rig_from_dict``; ``joint_to_bone``
    maps a glTF joint slot (index into ``skin.joints``) to our bone index; ``bind_world`` (N, 4, 4)
    are the joints' bind-pose world matrices; ``mesh_world`` places skinned vertices."""
    bones: list
    joints: np.ndarray
    joint_to_bone: np.ndarray
    bind_world: np.ndarray
    parent_side: np.ndarray
    mesh_world: np.ndarray


def read_skin_bones(file, nodes, skin_index):
    skin = file.item("skins", skin_index, "skin")
    field = f"skins[{skin_index}]"
    joints = skin.joints
    count = len(nodes.parents)
    if not isinstance(joints, list) or not joints:
        file.fail(f"{field}.joints", "a non-empty list of node indices", joints)
    for k, j in enumerate(joints):
        if not is_int(j, 0, count - 1):
            file.fail(f"{field}.joints[{k}]", f"a node index (0..{count - 1})", j)
    if len(set(joints)) != len(joints):
        file.fail(f"{field}.joints", "each node at most once")
    _check_invertible(file, nodes, joints)
    mesh_world = _mesh_world(file, nodes, skin_index)
    bind_by_slot = _bind_world(file, skin, field, nodes, joints, mesh_world)
    slots = _parents_first(nodes, joints)
    bone_nodes = np.array([joints[k] for k in slots], dtype=np.int64)
    joint_to_bone = np.empty(len(joints), dtype=np.int64)
    joint_to_bone[slots] = np.arange(len(slots))
    bind = bind_by_slot[slots]
    parents, parent_side = _joint_parents(nodes, bone_nodes)
    names = _unique_names(nodes, bone_nodes)
    extras = [_extras(file, nodes, n) for n in bone_nodes]
    heads = bind[:, :3, 3]
    tails = _tails(heads, bind, parents, extras)
    rolls = _rolls(bind, tails - heads) if len(heads) else []
    on_parent_tail = (parents >= 0) & (np.linalg.norm(heads - tails[parents], axis=1)
                                       < 1e-6 * (1 + np.abs(heads).max(axis=1, initial=0.0)))
    bones = []
    for i, name in enumerate(names):
        p = parents[i]
        connected = extras[i].get("connected")
        if not isinstance(connected, bool):
            connected = bool(on_parent_tail[i])
        bones.append({"name": name, "parent": names[p] if p >= 0 else None, "head": heads[i].tolist(),
                      "tail": tails[i].tolist(), "roll": float(rolls[i]), "connected": bool(connected and p >= 0)})
    return SkinBones(bones, bone_nodes, joint_to_bone, bind, parent_side, mesh_world)


def node_map(skin_bones, skeleton):
    """The NodeMap of bones read by ``read_skin_bones`` once their skeleton is built."""
    rest = skeleton.rest_world
    post = np.linalg.solve(rest, skin_bones.bind_world)
    parent_side = skin_bones.parent_side.copy()
    has = skeleton.parents >= 0
    parent_side[has] = post[skeleton.parents[has]] @ parent_side[has]
    return NodeMap(skin_bones.joints, np.linalg.solve(parent_side, skeleton.rest_local), post)


def _check_invertible(file, nodes, joints):
    """Joints and their ancestors need invertible transforms (a zero scale hides a node in glTF,
    but leaves a bone without a frame)."""
    singular = np.abs(np.linalg.det(np.asarray(nodes.local)[:, :3, :3])) < 1e-12
    checked = set()  # each node once, so a deep chain costs its length, not its length squared
    for joint in joints:
        node = joint
        while node >= 0 and node not in checked:
            if singular[node]:
                file.fail(f"nodes[{node}]", "an invertible transform (no zero scale) on a joint or its ancestors")
            checked.add(node)
            node = nodes.parents[node]


def _mesh_world(file, nodes, skin_index):
    """World matrix of the first node drawing a mesh with this skin (identity when none)."""
    for i, node in enumerate(file.gltf.nodes):
        if node.skin == skin_index and node.mesh is not None and abs(np.linalg.det(nodes.world[i][:3, :3])) > 1e-12:
            return nodes.world[i]
    return np.eye(4)


def _bind_world(file, skin, field, nodes, joints, mesh_world):
    if skin.inverseBindMatrices is None:
        return nodes.world[joints]
    ibm = file.accessor(skin.inverseBindMatrices, f"{field}.inverseBindMatrices", ("MAT4",), floats_only=True)
    if len(ibm) < len(joints):
        file.fail(f"{field}.inverseBindMatrices", f"{len(joints)} matrices, one per joint", len(ibm))
    matrices = ibm[:len(joints)].reshape(-1, 4, 4).transpose(0, 2, 1)
    if not np.isfinite(matrices).all() or np.any(np.abs(np.linalg.det(matrices[:, :3, :3])) < 1e-12):
        file.fail(f"{field}.inverseBindMatrices", "finite invertible matrices")
    return mesh_world @ np.linalg.inv(matrices)


def _parents_first(nodes, joints):
    """Skin slots reordered so every joint comes after its joint ancestors, otherwise in the
    skin's order (so a skin that is already parents-first keeps its order)."""
    slot_of = {node: k for k, node in enumerate(joints)}
    order, placed = [], set()
    for k in range(len(joints)):
        chain, node = [], joints[k]
        while node >= 0:
            if node in slot_of:
                if slot_of[node] in placed:  # so are all its joint ancestors: stop here
                    break
                chain.append(slot_of[node])
                placed.add(slot_of[node])
            node = nodes.parents[node]
        order.extend(reversed(chain))
    return order


def _joint_parents(nodes, bone_nodes):
    """Each bone's parent bone (nearest joint ancestor, -1 for none) and the fixed transform from
    that parent joint's frame (the world, for roots) to the node's parent node frame."""
    bone_of = {int(n): i for i, n in enumerate(bone_nodes)}
    node_parents = nodes.parents.tolist()
    parents = np.full(len(bone_nodes), -1, dtype=np.int64)
    up_nodes = np.zeros(len(bone_nodes), dtype=np.int64)
    for i, node in enumerate(bone_nodes):
        up = node_parents[node]
        while up >= 0 and up not in bone_of:
            up = node_parents[up]
        if up >= 0:
            parents[i], up_nodes[i] = bone_of[up], up
    parent_nodes = nodes.parents[np.asarray(bone_nodes, dtype=np.int64)]
    side = np.where((parent_nodes >= 0)[:, None, None], nodes.world[parent_nodes], np.eye(4))
    has = parents >= 0  # solved for all bones at once: per bone, numpy's overhead dominated large skins
    side[has] = np.linalg.solve(nodes.world[up_nodes[has]], side[has])
    return parents, side


def _unique_names(nodes, bone_nodes):
    names, used = [], set()
    for n in bone_nodes:
        base = nodes.names[n] or f"node_{n}"
        name, k = base, 0
        while name in used:
            k += 1
            name = f"{base}.{k:03d}"
        used.add(name)
        names.append(name)
    return names


def _extras(file, nodes, node):
    """What our exporter kept in a joint node's extras: its bone's length and connected flag
    (each None when absent); another key there is refused (FileFormatError)."""
    extras = file.gltf.nodes[node].extras
    if not isinstance(extras, dict) or EXTRAS_KEY not in extras:
        return {"length": None, "connected": None}
    ours = Reader(file.path, extras[EXTRAS_KEY], f"nodes[{node}].extras.{EXTRAS_KEY}.")
    length = None if ours.get("length", None) is None else ours.number("length", low=MIN_BONE_LENGTH)
    connected = None if ours.get("connected", None) is None else ours.boolean("connected")
    ours.check_fields()
    return {"length": length, "connected": connected}


def _tails(heads, bind, parents, extras):
    """Each joint's tail: along its own Y by the length our exporter recorded; else toward the mean
    of its children's heads when they lie ahead, or along its Y by their mean distance; else, for a
    leaf, half its parent's length in its parent's direction; a lone root gets a tenth of the
    figure. Worked out on whole arrays; only leaves wait for their parents."""
    count = len(heads)
    spread = float(np.linalg.norm(heads.max(axis=0) - heads.min(axis=0)))
    axes = normalize(bind[:, :3, 1])
    child = np.flatnonzero(parents >= 0)
    offsets = heads[child] - heads[parents[child]]
    children = np.bincount(parents[child], minlength=count).astype(float)
    mean_offset = np.zeros((count, 3))
    np.add.at(mean_offset, parents[child], offsets)
    # as floats: bincount gives integers when no joint has a parent among the joints
    mean_distance = np.bincount(parents[child], np.linalg.norm(offsets, axis=1), minlength=count).astype(float)
    mean_offset /= np.maximum(children, 1.0)[:, None]
    mean_distance /= np.maximum(children, 1.0)
    ahead_length = np.linalg.norm(mean_offset, axis=1)
    recorded = np.array([e.get("length") or 0.0 for e in extras])
    ahead = (recorded == 0.0) & (children > 0) & (ahead_length > 0.25 * mean_distance) \
        & (0.25 * mean_distance > MIN_BONE_LENGTH)
    along = (recorded == 0.0) & ~ahead & (children > 0) & (mean_distance > MIN_BONE_LENGTH)
    directions = np.where(ahead[:, None], normalize(mean_offset), axes)
    lengths = np.select([recorded > 0.0, ahead, along], [recorded, ahead_length, mean_distance],
                        max(0.1 * spread, 0.01))
    lengths = np.maximum(lengths, 10 * MIN_BONE_LENGTH)
    tails = heads + directions * lengths[:, None]
    for i in np.flatnonzero((recorded == 0.0) & ~ahead & ~along & (parents >= 0)):  # ascending: parents first
        p = parents[i]
        lengths[i] = max(0.5 * lengths[p], 10 * MIN_BONE_LENGTH)
        tails[i] = heads[i] + normalize(tails[p] - heads[p]) * lengths[i]
    return tails


def _rolls(bind, directions):
    """Per bone, the roll whose bone X axis is nearest the joint's X axis (its Z axis when X lies
    along the bone); ``bind`` (N, 4, 4), ``directions`` (N, 3). All bones at once: per bone, numpy's
    call overhead made this the slowest step of reading a large skin."""
    y = normalize(directions)

    def across(axis):
        return axis - y * np.einsum("ij,ij->i", axis, y)[:, None]
    x, z = across(bind[:, :3, 0]), across(bind[:, :3, 2])
    along = np.linalg.norm(x, axis=1) < 1e-6 * np.linalg.norm(bind[:, :3, 0], axis=1)
    x[along] = np.cross(y[along], z[along])
    frames = np.tile(np.eye(4), (len(y), 1, 1))
    frames[:, :3, 0], frames[:, :3, 1] = normalize(x), y
    return roll_from_frame(frames)