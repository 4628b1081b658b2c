"""Where a skinned figure's feet meet the ground: the vertices of each foot's skin, which ground
contact holds above the ground (``rig.ground_contact``) and foot planting sets on it (``rig.feet``).

A foot is a leg's foot bone as ``rig.limb_roles`` finds it, with the bones below it (toes); its
skin is the vertices whose largest weight is on one of those bones (that bone carries the vertex),
kept as a mesh of their own so the app's skinning places them (``rig.skinned_mesh``).

Rigid approximation: a solve takes each vertex where linear-blend skinning puts it at the solve's
start and carries it with its bone alone, where skinning moves it by the weighted mean of its
bones' moves. So a vertex drifts from the point carried only as its bones turn against each other
during one solve (a heel half on the shin as the ankle bends): by at most (1 - its largest weight)
times that turn (radians) times its distance from the joint. A drag solves each frame from the
last, so the drift is the frame's; a single solve from far away drifts more. The tests measure it
against the app's skinning.

A solve asks for a few of them always (``chosen``), and for the others only while they are below
the ground: per bone, the vertex lowest in the rest pose, then, greedily, the vertex lowest when
the bone is tilted the way the points chosen are worst at, until for every tilt up to ``TILT``
from the rest pose no vertex lies more than ``SUPPORT_GAP`` below the lowest point chosen, or
``MOST_PER_BONE`` are chosen (``lowest_points``). A tilted bone's lowest vertex is the one
farthest along the tilted "down": its support point in that direction, so the gap is the support
function's shortfall, sampled over ``DIRECTIONS`` directions of the cone. On a foot that is a box
they are the heel, the ball and the toes' corners; a handful more on a rounded one.
"""
from dataclasses import dataclass

import numpy as np

from rig.limb_roles import SIDES, recognise
from rig.skinned_mesh import SkinnedMesh

TILT = np.radians(30.0)  # how far from its rest pose a bone may tilt with the points chosen still its lowest
SUPPORT_GAP = 0.002  # metres: within TILT, no vertex of a bone lower than its lowest point chosen by more
MOST_PER_BONE = 8  # (a coarse rounded skin may need more for SUPPORT_GAP: the gap is then larger)
DIRECTIONS = 256  # directions sampled in the cone of tilts


@dataclass(frozen=True)
class SkinContacts:
    """The feet's skin vertices: ``bones`` (K,) the bone carrying each, ``feet`` (K,) the foot
    bone of its leg, ``vertices`` (K,) its index in the mesh, ``chosen`` (K,) whether a solve
    always asks for it, and ``skin`` those vertices as a ``rig.skinned_mesh.SkinnedMesh``."""
    bones: np.ndarray
    feet: np.ndarray
    vertices: np.ndarray
    chosen: np.ndarray
    skin: SkinnedMesh

    def __len__(self):
        return len(self.bones)

    def positions(self, world):
        """(K, 3) where skinning puts the vertices for bones posed as ``world`` (N, 4, 4)."""
        return self.skin.skinned_positions(world)


def _down_cone():
    """``DIRECTIONS`` unit directions within ``TILT`` of straight down (-Y), spread evenly (a
    Fibonacci spiral over the cap), straight down first."""
    k = np.arange(DIRECTIONS)
    height = 1.0 - (1.0 - np.cos(TILT)) * k / (DIRECTIONS - 1)
    ring = np.sqrt(np.maximum(1.0 - height * height, 0.0))
    turn = k * np.pi * (3.0 - np.sqrt(5.0))
    return np.column_stack([ring * np.cos(turn), -height, ring * np.sin(turn)])


DOWN_CONE = _down_cone()


def lowest_points(positions):
    """Indices of at most ``MOST_PER_BONE`` of one bone's vertices at ``positions`` (V, 3), rest
    pose: the lowest, then the greedy choice the module doc describes."""
    reach = positions @ DOWN_CONE.T  # (V, D): how far along each tilt's down each vertex is
    farthest = reach.max(axis=0)
    chosen = [int(np.argmax(reach[:, 0]))]
    lowest = reach[chosen[0]].copy()  # per direction, the farthest of the points chosen
    while len(chosen) < MOST_PER_BONE:
        gap = farthest - lowest
        worst = int(np.argmax(gap))
        if gap[worst] <= SUPPORT_GAP:
            break
        chosen.append(int(np.argmax(reach[:, worst])))
        np.maximum(lowest, reach[chosen[-1]], out=lowest)
    return chosen


def skin_contacts(skeleton, mesh):
    """The ``SkinContacts`` of ``mesh`` (a ``rig.skinned_mesh.SkinnedMesh`` bound to ``skeleton``),
    or None when it gives none (no legs found, no vertex bound mostly to a foot)."""
    roles = recognise(skeleton).roles
    weights = np.asarray(mesh.weights, dtype=float)
    dominant = np.asarray(mesh.joints, dtype=np.int64)[np.arange(len(weights)), np.argmax(weights, axis=1)]
    positions = np.asarray(mesh.positions, dtype=float)
    usable = np.isfinite(positions).all(axis=1)
    bones, feet, vertices, chosen = [], [], [], []
    for side in SIDES:
        if f"leg.{side}" not in roles:
            continue
        foot = skeleton.index[roles[f"leg.{side}"][2]]
        for bone in skeleton.subtree(foot).tolist():
            found = np.flatnonzero((dominant == bone) & usable)
            if not len(found):
                continue
            chosen.append(np.isin(np.arange(len(found)), lowest_points(positions[found])))
            bones += [bone] * len(found)
            feet += [foot] * len(found)
            vertices.append(found)
    if not bones:
        return None
    vertices = np.concatenate(vertices)
    skin = SkinnedMesh(mesh.positions[vertices], mesh.normals[vertices], np.zeros(0, np.uint32), mesh.joints[vertices],
                       mesh.weights[vertices], mesh.bind_matrices)
    return SkinContacts(np.array(bones, dtype=np.int64), np.array(feet, dtype=np.int64), vertices,
                        np.concatenate(chosen), skin)
