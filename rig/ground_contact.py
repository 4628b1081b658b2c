"""What ground contact holds above the ground in a whole-body solve (``rig.whole_body``): the head
and tail of every bone of the solved tree, and the feet's skin (``rig.skin_contacts``) its bones
carry, each point as the solver's one-sided GROUND task on the plane of the ground under it.

The skin has hundreds of vertices; a solve asks for a few per bone always (those lowest when the
foot stands or tilts a little: ``rig.skin_contacts``), and for any other while it is below the
ground. After a pass every vertex is checked, so one that went below between the few joins the
next pass (``rig.whole_body``).

Drawn as Copy Rotation leaves it. ``rig.evaluate`` runs a rig's Copy Rotation constraints after its
IK, so a foot copying its IK handle's rotation is drawn turned as the handle is, not as the solve
left it. Where that rotation is known before the solve (the bone's one Copy Rotation, at full
influence on every axis, from a bone the solve does not pose and no Copy Rotation turns), the
points of that bone, and of the bones below it that the solve does not turn, are held where they
will be drawn: at fixed world offsets from its head, which the solve carries. Solves whose result
is not evaluated further (``app.py solve``) hold the points where the solve leaves them.

Pins decide. A point that pins hold still (on a bone pinned with its rotation, or carried by one
through bones the solve does not turn; a position pin holds its bone's head) is the user's to
place: no ground task asks to move it, so a foot pinned with its sole in the ground holds
exactly rather than the pin and the ground each giving way half.
"""
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from rig.copy_rotation import active_copy_rotation, rigid
from solvers.priority_plan import GroundTasks


class Contact(NamedTuple):
    """A solve's ground contact: the ``ground`` (a ``rig.ground`` kind), the solved tree's
    ``pinned`` bones {bone: whether its pin holds its rotation too}, and whether the rig's Copy
    Rotations run on the result (``copies_follow``)."""
    ground: object
    pinned: dict
    copies_follow: bool


@dataclass(frozen=True)
class GroundPoints:
    """Per point: the ``bone`` carrying it (as the solved tree numbers its bones), whether from
    its ``tail`` (else its head), its ``offset`` from there (metres) in the bone's axes when it
    ``turns`` with the bone, else in world axes; ``position`` (P, 3) where it is drawn now."""
    bone: np.ndarray
    tail: np.ndarray
    offset: np.ndarray
    turns: np.ndarray
    position: np.ndarray


class ContactSet:
    """A solve's ground points, worked out once for the solve from ``world`` (N, 4, 4): the heads
    and tails of the bones ``tree_bones`` (ascending skeleton indices) and the skin they carry,
    less what ``contact``'s pins hold still, each drawn as the rig's Copy Rotations will draw it
    (module doc); ``moving`` the tree's bones the solve turns (the tree's numbering). Rows: the
    heads, the tails, then the skin's vertices on the tree (``skin_rows`` of it, each bone's a
    run: ``runs``), less those pins hold (``keep``)."""

    def __init__(self, rig, world, tree_bones, moving, contact):
        skeleton, count = rig.skeleton, len(tree_bones)
        self.ground, self.skin = contact.ground, rig.skin_contacts
        self.bones, self.lengths = np.asarray(tree_bones), skeleton.lengths[tree_bones]
        place = np.full(len(skeleton), -1)
        place[tree_bones] = np.arange(count)
        self.skin_rows = _skin_on(self.skin, place)
        self.carrier = place[self.skin.bones[self.skin_rows]] if len(self.skin_rows) else np.zeros(0, np.int64)
        self.runs = _runs(self.carrier, 2 * count)
        bone = np.r_[np.arange(count), np.arange(count), self.carrier]
        tail = np.arange(len(bone)) // max(count, 1) == 1
        always = np.ones(len(bone), bool)  # every head and tail, and the skin's chosen vertices
        always[2 * count:] = self.skin.chosen[self.skin_rows] if len(self.skin_rows) else True
        parents = [place[p] if p >= 0 else -1 for p in skeleton.parents[tree_bones].tolist()]
        moving = set(moving)
        drawn = _drawn_rotations(rig, world, place) if contact.copies_follow else {}
        frame = _carried_down(parents, set(drawn), moving)
        drawn_by = frame[bone]
        # Per copier: its drawn rotation, the rows it draws, and the bones it draws (the tree's numbering).
        self.drawn = [(copier, rotation, np.flatnonzero(drawn_by == copier), np.flatnonzero(frame == copier))
                      for copier, rotation in drawn.items()]
        # Held still: a drawn point with its copier's head, a head with its bone's head, others with their bone.
        still, head_still = _held_by_pins(parents, moving, contact.pinned)
        held = np.where(np.arange(len(bone)) < count, head_still[bone], still[bone])
        self.keep = np.flatnonzero(~np.where(drawn_by >= 0, head_still[np.maximum(drawn_by, 0)], held))
        drawn_rows = drawn_by[self.keep] >= 0
        self.bone = np.where(drawn_rows, drawn_by[self.keep], bone[self.keep])
        self.tail, self.turns, self.always = tail[self.keep] & ~drawn_rows, ~drawn_rows, always[self.keep]
        self.local = self._skin_in_carriers(world)

    def _skin_in_carriers(self, world):
        """Each skin row's vertex where skinning draws it in ``world``, in its carrier's axes as
        drawn, from its head (K, 3): the point the solve carries on from there."""
        if not len(self.skin_rows):
            return np.zeros((0, 3))
        shown = world.copy()
        shown[self.bones] = self._drawn(world[self.bones])
        carriers = shown[self.bones[self.carrier]]
        return np.einsum("kji,kj->ki", _unit_axes(carriers), self.skin.positions(shown)[self.skin_rows] -
                         carriers[:, :3, 3])

    def at(self, world):
        """The ``GroundPoints`` where bones posed as ``world`` (N, 4, 4) put the set's points, as
        drawn; the skin's as carried by their bones from where skinning put it at the start."""
        count = len(self.bones)
        posed = self._drawn(world[self.bones])
        heads = posed[:, :3, 3]
        position = np.empty((2 * count + len(self.skin_rows), 3))
        position[:count], position[count:2 * count] = heads, heads + posed[:, :3, 1] * self.lengths[:, None]
        offset = np.zeros_like(position)
        offset[2 * count:] = self.local
        for bone, start, end in self.runs:
            position[start:end] = heads[bone] + offset[start:end] @ _unit(posed[bone]).T
        for copier, _, rows, _ in self.drawn:
            offset[rows] = position[rows] - heads[copier]
        return GroundPoints(self.bone, self.tail, offset[self.keep], self.turns, position[self.keep])

    def _drawn(self, posed):
        """``posed`` (the tree's bones' world matrices) with each copier's bones turned about its
        head as its Copy Rotation draws them (in place)."""
        for copier, rotation, _, bones in self.drawn:
            head = posed[copier, :3, 3].copy()
            turn = rotation @ _unit(posed[copier]).T
            posed[bones, :3, :3] = turn @ posed[bones, :3, :3]
            posed[bones, :3, 3] = head + (posed[bones, :3, 3] - head) @ turn.T
        return posed

    def tasks(self, world, level, deeper_than):
        """(``GroundTasks`` at ``level`` for the points as ``world`` poses them, on the plane through
        the surface under each: those always asked for and any other below the ground; the same
        for only the points lying more than ``deeper_than`` metres below it)."""
        points = self.at(world)
        hits = self.ground.surface_under(points.position)
        depth = np.where(hits.hit, np.einsum("ij,ij->i", hits.point - points.position, hits.normal), -np.inf)
        return tuple(GroundTasks(level, points.bone[rows], points.tail[rows], hits.point[rows], hits.normal[rows],
                                 points.offset[rows], points.turns[rows])
                     for rows in (np.flatnonzero(self.always & hits.hit | (depth > 0.0)),
                                  np.flatnonzero(depth > deeper_than)))


def _skin_on(skin, place):
    """The rows of ``skin`` (``rig.skin_contacts.SkinContacts``, or None) on the tree ``place``
    numbers (-1: not in it), bone by bone."""
    if skin is None:
        return np.zeros(0, np.int64)
    rows = np.flatnonzero(place[skin.bones] >= 0)
    return rows[np.argsort(skin.bones[rows], kind="stable")]


def _runs(carrier, first):
    """(bone, start, end) per run of equal ``carrier`` bones, rows counted from ``first``."""
    if not len(carrier):
        return []
    ends = np.flatnonzero(np.r_[carrier[1:] != carrier[:-1], True]) + 1
    return [(int(carrier[end - 1]), first + start, first + end) for start, end in zip([0, *ends[:-1]], ends)]


def _unit_axes(matrices):
    """The rotations (K, 3, 3) of world matrices (K, 4, 4), their scale taken out."""
    axes = matrices[:, :3, :3]
    return axes / np.maximum(np.sqrt((axes * axes).sum(axis=1, keepdims=True)), 1e-300)


def _unit(matrix):
    """The rotation (3, 3) of one world matrix (4, 4), its scale taken out."""
    axes = matrix[:3, :3]
    return axes / np.maximum(np.sqrt((axes * axes).sum(axis=0)), 1e-300)


def _drawn_rotations(rig, world, place):
    """{tree bone: the world rotation (3, 3) a Copy Rotation draws it with}, for the bones whose
    rotation is known before the solve (module doc); ``place`` numbers the tree's bones (-1: not
    in it)."""
    index = rig.skeleton.index
    active = active_copy_rotation(rig)
    copies = Counter(c.bone for c in active)
    known = {}
    for constraint in active:
        if copies[constraint.bone] != 1 or constraint.influence < 1.0 or not all(constraint.use_axes) or \
                constraint.target in copies:
            continue
        owner, target = int(place[index[constraint.bone]]), index[constraint.target]
        matrix = world[target]
        if owner >= 0 and place[target] < 0 and np.isfinite(matrix[:3, :3]).all():
            unit = _unit(matrix)  # a target's rotation, as Copy Rotation takes it (rigid: its scale out)
            known[owner] = unit if np.abs(unit.T @ unit - np.eye(3)).max() <= 1e-12 else rigid(matrix[:3, :3])
    return known


def _carried_down(parents, copiers, moving):
    """Per tree bone (``parents`` in the tree's numbering, parents first), the bone of ``copiers``
    whose drawn rotation draws it: itself, or its parent's when the solve does not turn it; -1
    for none."""
    frame = np.full(len(parents), -1)
    for k, above in enumerate(parents):
        frame[k] = k if k in copiers else frame[above] if above >= 0 and k not in moving else -1
    return frame


def _held_by_pins(parents, moving, pinned):
    """Per tree bone: whether pins hold its frame still (pinned with its rotation, or under a bone
    held still and not turned by the solve), and whether they hold its head still (pinned, or
    under a bone held still)."""
    still, head_still = np.zeros(len(parents), bool), np.zeros(len(parents), bool)
    for k, above in enumerate(parents):
        carried = above >= 0 and still[above]
        head_still[k] = k in pinned or carried
        still[k] = pinned.get(k, False) or (carried and k not in moving)
    return still, head_still
