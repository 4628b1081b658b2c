"""Skeleton: bone hierarchy and rest transforms."""
from dataclasses import dataclass, field

import numpy as np

from solvers.transforms import matrix3_to_quat, normalize, quat_between, quat_from_axis_angle, quat_mul, quat_rotate, \
    quat_to_matrix3, rigid_inverse, signed_angle

Y_AXIS = np.array([0.0, 1.0, 0.0])
MIN_BONE_LENGTH = 1e-4


def bone_frame(head, tail, roll):
    """Rest frame (4x4, armature space) of a bone from head, tail and roll, Blender's rule.

    The basis is the shortest-arc rotation taking +Y onto the head->tail direction, preceded by a
    rotation of ``roll`` radians about the bone's own Y axis. A bone pointing along -Y turns by
    pi about Z, as Blender's ``vec_roll_to_mat3`` does. Stacks work too: heads and tails (..., 3)
    and rolls (...) give frames (..., 4, 4).
    """
    head = np.asarray(head, dtype=float)
    direction = normalize(np.asarray(tail, dtype=float) - head)
    y_axis = np.broadcast_to(Y_AXIS, direction.shape)
    q = quat_mul(quat_between(y_axis, direction), quat_from_axis_angle(y_axis, roll))
    m = np.zeros(head.shape[:-1] + (4, 4))
    m[..., :3, :3] = quat_to_matrix3(q)
    m[..., :3, 3] = head
    m[..., 3, 3] = 1.0
    return m


def roll_from_frame(frame):
    """Inverse of ``bone_frame`` for the roll: the angle about +Y from the zero-roll X axis.
    A frame (4, 4) gives a float, a stack (..., 4, 4) an array (...)."""
    frame = np.asarray(frame, dtype=float)
    direction = normalize(frame[..., :3, 1])
    zero_roll_x = quat_rotate(quat_between(np.broadcast_to(Y_AXIS, direction.shape), direction),
                              np.array([1.0, 0.0, 0.0]))
    roll = signed_angle(zero_roll_x, frame[..., :3, 0], direction)
    return float(roll) if frame.ndim == 2 else roll


@dataclass(frozen=True)
class Preorder:
    """Bones depth first: ``order`` lists them, ``depth[bone]`` counts its ancestors, and
    ``end[bone]`` is the position in ``order`` just past the bone's subtree."""
    order: np.ndarray
    depth: np.ndarray
    end: np.ndarray


@dataclass
class Skeleton:
    """Bones in topological order (every parent index is lower than its child's; -1 = no parent).

    ``rest_world`` holds each bone's rest frame in armature space, shape (N, 4, 4), rigid.
    ``rest_local[i] = inverse(rest_world[parent]) @ rest_world[i]`` (the armature frame for roots).
    ``rest_local_rotations`` (N, 4) are the rest_local rotations as quaternions; ``solver_chains``,
    ``solver_limbs`` and ``solver_lone_chains`` are where ``rig.ik`` keeps the solver chains, two-bone
    limbs and free FABRIK chains it builds from this skeleton. ``lengths`` (N,) is
    head-to-tail distance; ``connected`` (N,) marks bones whose head sits on the parent's tail
    (Blender's "Connected", followed by Auto IK).
    """
    names: list
    parents: np.ndarray
    rest_world: np.ndarray
    lengths: np.ndarray
    connected: np.ndarray
    rest_local: np.ndarray = field(init=False)
    index: dict = field(init=False)
    rest_local_rotations: np.ndarray = field(init=False)
    solver_chains: dict = field(init=False, default_factory=dict, repr=False, compare=False)
    solver_limbs: dict = field(init=False, default_factory=dict, repr=False, compare=False)
    solver_lone_chains: dict = field(init=False, default_factory=dict, repr=False, compare=False)
    _subtrees: dict = field(init=False, default_factory=dict, repr=False, compare=False)
    _chains: dict = field(init=False, default_factory=dict, repr=False, compare=False)
    _preorder: object = field(init=False, default=None, repr=False, compare=False)

    def __post_init__(self):
        self.parents = np.asarray(self.parents, dtype=np.int64)
        self.rest_world = np.asarray(self.rest_world, dtype=float)
        self.lengths = np.asarray(self.lengths, dtype=float)
        self.connected = np.asarray(self.connected, dtype=bool)
        n = len(self.names)
        if not (self.parents.shape == (n,) and self.rest_world.shape == (n, 4, 4)
                and self.lengths.shape == (n,) and self.connected.shape == (n,)):
            raise ValueError("skeleton arrays disagree in length with the bone names")
        if len(set(self.names)) != n:
            raise ValueError("bone names must be unique")
        if np.any(self.parents >= np.arange(n)) or np.any(self.parents < -1):
            raise ValueError("bones must be in topological order (parent index below child index)")
        self.index = {name: i for i, name in enumerate(self.names)}
        parent_world = np.where((self.parents >= 0)[:, None, None], self.rest_world[self.parents], np.eye(4))
        self.rest_local = rigid_inverse(parent_world) @ self.rest_world
        # Children as one array grouped by parent (CSR), so every per-bone structure stays linear in bones.
        self._children = np.argsort(self.parents, kind="stable")
        self._first_child = np.searchsorted(self.parents[self._children], np.arange(-1, n + 1))
        self.rest_local_rotations = matrix3_to_quat(self.rest_local[:, :3, :3])

    @classmethod
    def from_bones(cls, names, parents, heads, tails, rolls, connected):
        """Build from Blender-style edit bones: armature-space heads/tails (N, 3), rolls (N,)."""
        heads = np.asarray(heads, dtype=float)
        tails = np.asarray(tails, dtype=float)
        lengths = np.linalg.norm(tails - heads, axis=1)
        rest = bone_frame(heads, tails, np.asarray(rolls, dtype=float)) if len(names) else np.zeros((0, 4, 4))
        return cls(list(names), parents, rest, lengths, connected)

    def __len__(self):
        return len(self.names)

    def children(self, i):
        """Indices of ``i``'s children, ascending (-1: the root bones)."""
        return self._children[self._first_child[i + 1]:self._first_child[i + 2]]

    def preorder(self):
        """The bones depth first, each parent before its subtree (a ``Preorder``): the order an
        outliner lists them in. Built without recursion, so a chain of 100,000 bones works."""
        if self._preorder is None:
            order, depth, end = [], np.zeros(len(self), dtype=np.int64), np.zeros(len(self), dtype=np.int64)
            stack = [(int(r), False) for r in self.children(-1)[::-1]]
            while stack:
                bone, finished = stack.pop()
                if finished:
                    end[bone] = len(order)
                    continue
                if self.parents[bone] >= 0:
                    depth[bone] = depth[self.parents[bone]] + 1
                order.append(bone)
                stack.append((bone, True))
                stack += [(int(c), False) for c in self.children(bone)[::-1]]
            self._preorder = Preorder(np.array(order, dtype=np.int64), depth, end)
        return self._preorder

    def subtree(self, i):
        """``i`` and every bone below it, ascending. Kept once asked for (the bones a drag moves are
        asked every frame); building them all up front would take memory growing with depth squared."""
        cached = self._subtrees.get(i)
        if cached is None:
            found, frontier = [np.array([i])], np.array([i])
            while len(frontier):
                frontier = np.concatenate([self.children(int(b)) for b in frontier])
                found.append(frontier)
            cached = self._subtrees[i] = np.sort(np.concatenate(found))
        return cached

    def chain(self, tip, count):
        """The ``count`` bones ending at ``tip`` (0: up to the root), root first, as a new list.
        Kept once asked for: IK asks for the same chains every solve."""
        cached = self._chains.get((tip, count))
        if cached is None:
            up = [tip] + self.ancestors(tip)
            cached = self._chains[(tip, count)] = tuple(up[:count] if count > 0 else up)[::-1]
        return list(cached)

    def ancestors(self, i):
        """Indices from ``i``'s parent up to the root."""
        out = []
        p = self.parents[i]
        while p >= 0:
            out.append(int(p))
            p = self.parents[p]
        return out

    def connected_chain(self, i):
        """Blender's Auto IK chain for bone ``i``, tip first: ``i``, then its parent while the bone
        reached so far is connected to it. Ends with the first bone not connected to its parent
        (included: it rotates about its own head)."""
        chain = [int(i)]
        while self.connected[chain[-1]] and self.parents[chain[-1]] >= 0:
            chain.append(int(self.parents[chain[-1]]))
        return chain

    def has_connected_child(self, i):
        return bool(self.connected[self.children(i)].any())

    @property
    def rest_heads(self):
        return self.rest_world[:, :3, 3]

    @property
    def rest_tails(self):
        return self.rest_heads + self.rest_world[:, :3, 1] * self.lengths[:, None]

    @property
    def rest_rolls(self):
        return roll_from_frame(self.rest_world)
