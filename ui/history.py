"""Undo / redo: snapshots of everything the user edits (pose, pins, rig settings and which bones
are hidden), one per step.

A step is whatever changed between two quiet moments: the app calls ``History.commit`` at the end
of every frame in which no viewport drag is running and no panel widget is held, so a drag of a
handle or of a slider over many frames becomes one step. Snapshots are deep copies and
``restore`` puts them back bit for bit (no re-solve: the stored pose is the solved one, and the
stored world matrices are what was drawn: constraints that blend in the world only, such as Copy
Rotation and partial-influence IK, are not in the pose for FK to redo).
The camera and the selection are views, not edits, and are not recorded; hiding and revealing bones
(H, Alt+H, the outliner's toggles) are steps, as Blender's pose-mode hide is, though no file saves them.
A step may also swap the rig itself (automatic IK set-up adds bones): snapshots keep a reference
to their rig, whose skeleton is never edited in place, so undo puts the earlier rig back.
"""
import copy
from dataclasses import dataclass, field

import numpy as np

from rig.pose import Pose
from ui.selection import set_hidden

HISTORY_LIMIT = 256


@dataclass
class Snapshot:
    """Copies of the pose, of the world matrices shown with it, of every rig setting a panel
    can change, of the hidden bones' names and of the pins (``rig.pins``: frozen, by bone name),
    and the rig they belong to."""
    rig: object
    pose: Pose
    world: np.ndarray
    ik: list
    copy_rotation: list
    bone_ik: dict
    solver: object
    hidden: frozenset = frozenset()
    action: object = None  # the keys (rig.keys.Action, a value); None: a step read back without them
    pins: dict = field(default_factory=dict)
    memo: dict = field(default_factory=dict, compare=False, repr=False)  # what writers derived from it (it never changes)

    @classmethod
    def of(cls, state):
        rig = state.rig
        return cls(rig, state.pose.copy(), state.world.copy(), copy.deepcopy(rig.ik), copy.deepcopy(rig.copy_rotation),
                   copy.deepcopy(rig.bone_ik), copy.deepcopy(rig.solver), frozenset(state.view.hidden),
                   state.timeline.action, dict(state.pins))

    def matches(self, state):
        """Whether ``state`` still holds exactly this snapshot's values (no copies made)."""
        return self.holds_work_of(state) and self.hidden == state.view.hidden

    def holds_work_of(self, state):
        """Whether ``state`` has this snapshot's pose, pins and rig settings, what saving keeps
        (hidden bones are the view's, in no file)."""
        rig = state.rig
        return (self.rig is rig and self.pose == state.pose and self.pins == state.pins and self.ik == rig.ik
                and self.copy_rotation == rig.copy_rotation and self.bone_ik == rig.bone_ik and self.solver == rig.solver
                and (self.action is None or self.action is state.timeline.action))

    def restore(self, state):
        """Put the snapshot's values (fresh copies, so later edits cannot reach the history) into
        ``state``; a different rig comes back with it,
        and the view forgets bones that rig lacks."""
        if state.rig is not self.rig:
            state.rig = self.rig
            _forget_missing_bones(state.view, set(self.rig.skeleton.names))
        rig = state.rig
        state.pose = self.pose.copy()
        rig.ik, rig.copy_rotation = copy.deepcopy(self.ik), copy.deepcopy(self.copy_rotation)
        rig.bone_ik, rig.solver = copy.deepcopy(self.bone_ik), copy.deepcopy(self.solver)
        state.world = self.world.copy()
        state.pins = dict(self.pins)
        set_hidden(state.view, self.hidden)
        if self.action is not None:
            state.timeline.action = self.action


def _forget_missing_bones(view, names):
    view.selected &= names
    view.hidden &= names
    view.active_chain &= names
    view.active = view.active if view.active in names else None
    view.hovered = view.hovered if view.hovered in names else None


class History:
    """Undo and redo stacks around ``current``, the snapshot of the last committed state.

    ``version`` counts changes of the committed state (commits, undos, redos), for autosave.
    """

    def __init__(self, state, limit=HISTORY_LIMIT):
        self.limit = limit
        self.version = 0
        self.reset(state)

    def reset(self, state, undo=(), redo=()):
        """Forget every step but ``undo`` and ``redo`` (Snapshots, each stack's next step last; the
        last ``limit`` of each are kept); ``state`` becomes the current one (after opening a rig,
        or a recovery, which brings its steps back)."""
        self.current = Snapshot.of(state)
        self.undo_stack, self.redo_stack = list(undo)[-self.limit:], list(redo)[-self.limit:]
        self.version += 1

    def commit(self, state):
        """Record ``state`` as a new step if it differs from the last one; returns whether it did."""
        if self.current.matches(state):
            return False
        self.undo_stack.append(self.current)
        del self.undo_stack[:-self.limit]
        self.redo_stack.clear()
        self.current = Snapshot.of(state)
        self.version += 1
        return True

    def rebase(self, state):
        """Take ``state`` as the current step without recording one: the pose a frame change put
        on from the keys is a view (``ui.timeline``), so undo goes back past it, not to it."""
        self.current = Snapshot.of(state)

    def can_undo(self):
        return bool(self.undo_stack)

    def can_redo(self):
        return bool(self.redo_stack)

    def undo(self, state):
        """Go back one step (first committing any edit not yet recorded); returns whether it did."""
        self.commit(state)
        return self._step(state, self.undo_stack, self.redo_stack)

    def redo(self, state):
        if not self.current.matches(state):
            return False  # an unrecorded edit would be lost; it becomes a step at the frame's end
        return self._step(state, self.redo_stack, self.undo_stack)

    def _step(self, state, source, destination):
        if not source:
            return False
        destination.append(self.current)
        self.current = source.pop()
        self.current.restore(state)
        self.version += 1
        return True
