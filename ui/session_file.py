"""The autosave's file format ("posekit.recovery"): a session written out, and read back into a
new AppState.

Version 2 holds what the user made or chose: the rig (settings and constraints included), the
pose with its pins (and each undo step's), the whole-body choice, the camera, the selection and
hidden bones, which animation clip and frame were chosen, the keys and the timeline
(``ui.session_keys``), where Save writes the pose and whether that is up to date, the ground (its
scene file, read again, and the contact and planting switches), the rig file the session came
from with its fingerprint (``ui.source``), and the undo and redo steps (``history``: each step's
pose, world matrices and hidden bones, on the session's rig or one of ``rigs``, those that
automatic IK set-up replaced, with one of ``settings``), so Ctrl+Z goes on where it was: all of
them up to ``HISTORY_BONES`` bones in all, the oldest left out beyond. A damaged history is
dropped with a note and the rest restored. The skinned mesh and the animation clips are the file's,
never edited and often large, so they are re-read from that file when it is unchanged; when it
is gone or changed the rest is restored from the autosave alone and a note says so.
Version 1 (rig path, rig, pose, camera) still reads: the missing fields take their defaults.
"""
import dataclasses
import json
import math
import os
import time
from dataclasses import dataclass

import numpy as np

from render.camera import OrbitCamera
from rig.formats.document import BVH_UP_AXES, ImportOptions
from rig.formats.jsonfields import FileFormatError, Reader, check_header, load_json
from rig.formats.reader import open_rig
from rig.evaluate import evaluation
from rig.formats.rigfile import pose_to_dict, read_pose_data, rig_from_dict, rig_to_dict, settings_from_dict, \
    settings_to_dict
from rig.pose import world_matrices
from rig.ranges import MAX_BVH_SCALE
from ui.animation import Animation
from ui.ground_state import GroundChoice
from ui.history import Snapshot
from ui.session_keys import action_json, mark_read, restore_timeline, timeline_dict
from ui.source import SourceFile
from ui.state import AppState

RECOVERY_FORMAT, RECOVERY_VERSION = "posekit.recovery", 2
LATEST_SAVE = 32503680000.0  # seconds since 1970 at the year 3000: later "saved" times are damage
SHOWN = ("show_bones", "show_handles", "show_grid", "show_axes", "show_names", "show_mesh", "xray_bones",
         "show_solver")  # the ViewState switches a session keeps
REST_TOLERANCE = 1e-6  # metres: a rig file saves rest points to a nanometre
WORLD_TOLERANCE = 1e-12  # FK of the pose gives the world matrix the solve built, to rounding
HISTORY_BONES = 100_000  # undo steps kept in the file, counted in bones: all 256 of a humanoid, one of a huge rig


@dataclass(frozen=True)
class PoseFile:
    """Where Save writes the pose ("": nowhere yet, Save asks) and whether it holds the session's edits."""
    path: str = ""
    saved: bool = False


@dataclass
class RestoredSession:
    """A session read back: its state, its pose file, and ``note``, one line on what could not
    be restored ("" when everything was)."""
    state: AppState
    pose_file: PoseFile
    note: str = ""


# Writing ----------------------------------------------------------------------------------------
def _camera_dict(camera):
    return {k: (list(map(float, v)) if isinstance(v, np.ndarray) else v) for k, v in dataclasses.asdict(camera).items()}


def _source_dict(source):
    if source is None:
        return None
    options = source.options
    return {"path": source.path, "size": source.size, "mtime_ns": source.mtime_ns, "sha256": source.sha256,
            "options": {"bvh_scale": options.bvh_scale, "bvh_up": options.bvh_up, "gltf_skin": options.gltf_skin}}


def _view_dict(view):
    return {"selected": sorted(view.selected), "active": view.active, "hidden": sorted(view.hidden),
            **{name: getattr(view, name) for name in SHOWN}}


def _animation_dict(animation):
    return None if animation is None else {"clip": animation.clip, "frame": animation.frame}


def _world_dict(skeleton, pose, world):
    """The world matrices that plain FK of ``pose`` does not give (bones that Copy Rotation or
    partial-influence IK turn in the world only, and their children), by bone name: restoring
    them rather than solving again puts back the very pose and picture the session had."""
    fk = world_matrices(skeleton, pose)
    moved = ~np.all(np.abs(fk - world) <= WORLD_TOLERANCE, axis=(1, 2))
    return {skeleton.names[i]: world[i].ravel().tolist() for i in np.flatnonzero(moved)}


def _kept(stack, budget):
    """The steps of ``stack`` nearest its top (its end) whose bones add up to at most ``budget``,
    and the budget left."""
    kept = []
    for step in reversed(stack):
        budget -= len(step.rig.skeleton)
        if budget < 0:
            break
        kept.append(step)
    return kept[::-1], max(budget, 0)


def _encoded(value):
    """Strict JSON text (no NaN or Infinity: ValueError)."""
    return json.dumps(value, allow_nan=False)


def _channels_json(step):
    """A step's pose, world matrices and hidden bones as the file has them: the members of a JSON
    object, without its braces. Encoded once per step and kept with it (a Snapshot never changes,
    and each autosave writes the whole history again), so the text goes when the step does."""
    text = step.memo.get("session_channels")
    if text is None:
        skeleton = step.rig.skeleton
        channels = {"pose": pose_to_dict(skeleton, step.pose, pins=step.pins), "world": _world_dict(skeleton, step.pose, step.world),
                    "hidden": sorted(step.hidden)}
        text = step.memo["session_channels"] = _encoded(channels)[1:-1]
    return text


def _settings_json(step):
    """A step's rig settings as the file has them, encoded once per step (see ``_channels_json``)."""
    text = step.memo.get("session_settings")
    if text is None:
        text = step.memo["session_settings"] = _encoded(settings_to_dict(step))
    return text


def _encode_steps(steps):
    """Encode ``steps`` for the file now (a restore), rather than in the first autosave's frame."""
    for step in steps:
        _channels_json(step)
        _settings_json(step)


@dataclass(frozen=True)
class PlacedStep:
    """A step as the file lists it: its rig's place in the history's ``rigs`` (None: the
    session's rig) and its settings' place in ``settings``."""
    step: Snapshot
    rig: int | None
    settings: int


@dataclass
class HistoryPlan:
    """What the file's history holds: ``rigs`` (Rigs other than the session's), ``settings``
    (steps whose settings are written), and the ``undo`` and ``redo`` steps (PlacedSteps)."""
    rigs: list
    settings: list
    undo: list
    redo: list

    @classmethod
    def of(cls, state):
        """The undo and redo stacks, as many of the newest steps as ``HISTORY_BONES`` allows. A
        step on a rig other than the session's names it by its place in ``rigs``, and each step
        its rig settings by their place in ``settings`` (most steps share both, written once)."""
        undo, budget = _kept(state.history.undo_stack, HISTORY_BONES)
        redo, _ = _kept(state.history.redo_stack, budget)
        plan = cls([], [], [], [])
        plan.undo = [plan._place(step, state.rig) for step in undo]
        plan.redo = [plan._place(step, state.rig) for step in redo]
        return plan

    def _place(self, step, session_rig):
        if step.rig is not session_rig and not any(rig is step.rig for rig in self.rigs):
            self.rigs.append(step.rig)
        # Their texts, kept per step, compare faster than the settings (equal settings give equal text).
        if not self.settings or _settings_json(self.settings[-1]) != _settings_json(step):
            self.settings.append(step)
        place = next((k for k, rig in enumerate(self.rigs) if rig is step.rig), None)
        return PlacedStep(step, place, len(self.settings) - 1)


def _steps_chunks(placed):
    """A JSON array of the ``placed`` steps, as chunks: each step's own text is not copied."""
    chunks = ["["]
    for k, p in enumerate(placed):
        rig = "null" if p.rig is None else p.rig
        chunks += (f'{", " if k else ""}{{"rig": {rig}, "settings": {p.settings}, ', _channels_json(p.step), "}")
    chunks.append("]")
    return chunks


def _history_chunks(state):
    plan = HistoryPlan.of(state)
    rigs = _encoded([rig_to_dict(rig, exact=True) for rig in plan.rigs])  # few, and their settings may change
    settings = ", ".join(_settings_json(step) for step in plan.settings)
    return [f'{{"rigs": {rigs}, "settings": [{settings}], "undo": ', *_steps_chunks(plan.undo), ', "redo": ',
            *_steps_chunks(plan.redo), "}"]


def _scene_dict(state, pose_file):
    """The session but its history."""
    rig = state.rig
    return {"format": RECOVERY_FORMAT, "version": RECOVERY_VERSION, "saved": time.time(),
            "rig_path": os.path.abspath(state.rig_path), "source": _source_dict(state.source),
            "pose_file": {"path": os.path.abspath(pose_file.path) if pose_file.path else "", "saved": pose_file.saved},
            "rig": rig_to_dict(rig, exact=True), "pose": pose_to_dict(rig.skeleton, state.pose, rig.name, state.pins),
            "whole_body": state.whole_body,
            "world": _world_dict(rig.skeleton, state.pose, state.world),
            "camera": _camera_dict(state.camera), "view": _view_dict(state.view),
            "animation": _animation_dict(state.animation), "ground": GroundChoice.of(state).to_dict(),
            "timeline": timeline_dict(state.timeline)}


def session_chunks(state, pose_file=PoseFile()):
    """Everything needed to put the session back (see the module doc), as strict JSON text in
    chunks whose concatenation is the file. The history's steps are the text each was encoded to
    once, so an autosave encodes only the scene and the steps new since the last one, and copies
    none of it. Non-finite numbers raise ValueError."""
    scene = _encoded(_scene_dict(state, pose_file))
    return [scene[:-1], ', "action": ', action_json(state), ', "history": ', *_history_chunks(state), "}"]


def session_dict(state, pose_file=PoseFile()):
    """``session_chunks``'s session, as the dict a reader gets from the file."""
    return json.loads("".join(session_chunks(state, pose_file)))


# Reading ----------------------------------------------------------------------------------------
def _optional(root, key):
    """The child object at ``key``, or None when it is missing or null (an older autosave)."""
    return None if root.get(key, None) is None else root.child(key)


def _read_options(reader):
    if reader is None:
        return ImportOptions()
    scale = None if reader.get("bvh_scale", None) is None else \
        reader.number("bvh_scale", low=math.ulp(0.0), high=MAX_BVH_SCALE)
    return ImportOptions(scale, reader.string("bvh_up", "y", BVH_UP_AXES), reader.integer("gltf_skin", 0, low=0))


def _read_source(root):
    """The source file; a version 1 autosave names only its path (no fingerprint)."""
    source = _optional(root, "source")
    if source is None:
        return SourceFile(root.string("rig_path"))
    return SourceFile(source.string("path"), _read_options(_optional(source, "options")),
                      source.integer("size", low=0), source.integer("mtime_ns", low=0), source.string("sha256"))


def _read_pose_file(root):
    pose_file = _optional(root, "pose_file")
    if pose_file is None:
        return PoseFile()
    return PoseFile(pose_file.string("path", ""), pose_file.boolean("saved", False))


def _read_whole_body(root):
    """The user's whole-body choice; None (not made yet) when absent, as in an older autosave."""
    return None if root.get("whole_body", None) is None else root.boolean("whole_body")


def _names(reader, key):
    value = reader.get(key, [])
    if not (isinstance(value, list) and all(isinstance(name, str) for name in value)):
        reader.fail(key, "a list of bone names", value)
    return set(value)


@dataclass
class SavedView:
    """The selection (``active`` among ``selected``), hidden bones and ``switches`` (ViewState's
    ``SHOWN`` fields) of a session; None for a version 1 autosave."""
    selected: set
    active: str | None
    hidden: set
    switches: dict

    @classmethod
    def read(cls, root):
        view = _optional(root, "view")
        if view is None:
            return None
        switches = {name: view.boolean(name) for name in SHOWN if name in view.obj}
        return cls(_names(view, "selected"), view.string("active", optional=True), _names(view, "hidden"), switches)

    def apply(self, view, bones):
        """Into ``view``, leaving out bones not among ``bones`` (names)."""
        view.selected, view.hidden = self.selected & bones, self.hidden & bones
        view.active = self.active if self.active in bones else None
        for name, value in self.switches.items():
            setattr(view, name, value)


@dataclass(frozen=True)
class AnimationChoice:
    clip: str
    frame: int

    @classmethod
    def read(cls, root):
        choice = _optional(root, "animation")
        return None if choice is None else cls(choice.string("clip"), choice.integer("frame", low=0))

    def apply(self, animation):
        """Make it ``animation``'s choice if that has the clip (the pose is restored on its own)."""
        if animation is not None and self.clip in animation.clips:
            animation.clip, animation.frame = self.clip, min(self.frame, animation.frame_count(self.clip) - 1)


def read_recovery(path):
    """The recovery file's session as a dict, checked up to the rig (which restoring reads); a
    damaged file raises FileFormatError."""
    data = load_json(path)
    root = Reader(path, data)
    check_header(root, RECOVERY_FORMAT, RECOVERY_VERSION)
    root.number("saved", low=0.0, high=LATEST_SAVE)
    root.string("rig_path")
    root.child("rig")
    root.child("pose")
    root.child("camera")
    _read_source(root)
    _read_pose_file(root)
    SavedView.read(root)
    AnimationChoice.read(root)
    GroundChoice.read(root)
    mark_read(root)
    _read_whole_body(root)
    root.get("world", None)  # these two are read as the session is restored
    root.get("history", None)
    root.check_fields(within=False)  # the objects within: as the session is restored
    return data


def _read_camera(root):
    camera = root.child("camera")
    defaults = OrbitCamera()
    return OrbitCamera(
        target=np.array(camera.vector("target", 3)), distance=camera.number("distance", defaults.distance, 1e-6),
        yaw=camera.number("yaw", defaults.yaw), pitch=camera.number("pitch", defaults.pitch),
        fov_y=camera.number("fov_y", defaults.fov_y, 1e-3, 3.1), orthographic=camera.boolean("orthographic", False),
        ortho_scale=camera.number("ortho_scale", defaults.ortho_scale, 1e-6),
        near=camera.number("near", defaults.near, 1e-6), far=camera.number("far", defaults.far, 1e-3),
        shift=np.array(camera.vector("shift", 2, tuple(defaults.shift))))


def _fits(file_skeleton, skeleton):
    """Whether the file's bones are the rig's first ones, at the same rest places (the rig may
    have more: automatic IK set-up appends its handles), so the file's mesh binds to the rig."""
    count = len(file_skeleton)
    return (count <= len(skeleton) and list(file_skeleton.names) == list(skeleton.names[:count])
            and np.allclose(file_skeleton.rest_heads, skeleton.rest_heads[:count], atol=REST_TOLERANCE)
            and np.allclose(file_skeleton.rest_tails, skeleton.rest_tails[:count], atol=REST_TOLERANCE))


@dataclass
class Reopened:
    """The source file read again (``document``, None when it was not) and ``why`` not."""
    document: object = None
    why: str = ""


def _reopen(source, saved_at, rig):
    """The source file read again, when it is the file the session had and still fits ``rig``."""
    if not os.path.isfile(source.path):
        return Reopened(why=f"{source.path} is gone")
    if not source.is_unchanged(saved_at):
        return Reopened(why=f"{source.path} changed since the autosave")
    try:
        document = open_rig(source.path, source.options)
    except (FileFormatError, OSError) as error:
        return Reopened(why=f"{source.path} no longer reads ({error})")
    if not _fits(document.rig.skeleton, rig.skeleton):
        return Reopened(why=f"{source.path} no longer has the session's bones")
    return Reopened(document)


def _read_world(root, skeleton, pose):
    """The world matrices the session showed, or None for a version 1 autosave (which kept none)."""
    saved = _optional(root, "world")
    if saved is None:
        return None
    world = world_matrices(skeleton, pose)
    for name in saved.obj:
        if name not in skeleton.index:
            saved.fail(name, "the name of a bone in the rig")
        world[skeleton.index[name]] = np.reshape(saved.vector(name, 16), (4, 4))
    return world


def _state(root, rig, pose, mesh):
    """The AppState showing ``pose`` as the session did: with its saved world matrices, not solved
    again (a solve from a solved pose may move it by its tolerance); version 1 is solved again."""
    world = _read_world(root, rig.skeleton, pose)
    state = AppState(rig, root.string("rig_path"), pose, _read_camera(root), world=world, mesh=mesh)
    if world is None:
        state.resolve()
    else:
        state.take_reports(evaluation(rig, pose).reports)  # for the stats and the solver overlay
    return state


def _read_step(step, rigs, settings, session_rig):
    """One undo or redo step (a ``ui.history.Snapshot``) on the session's rig or one of ``rigs``,
    with one of ``settings`` (the JSON objects, each read for the rig of a step that names it,
    whose bones they name)."""
    rig = session_rig if step.get("rig", None) is None else rigs[step.integer("rig", low=0, high=len(rigs) - 1)]
    skeleton, names = rig.skeleton, set(rig.skeleton.names)
    chosen = step.integer("settings", low=0, high=len(settings) - 1)
    rig_settings = settings_from_dict(settings[chosen], names, step.path, f"history.settings[{chosen}].")
    read = read_pose_data(step.required("pose"), skeleton, step.path, step.name("pose."))
    if read.warnings:
        step.fail("pose", "a pose of the step's rig", read.warnings[0])
    pose = read.pose
    hidden = _names(step, "hidden")
    if not hidden <= names:
        step.fail("hidden", "names of bones in the step's rig", sorted(hidden - names))
    world = _read_world(step, skeleton, pose)
    return Snapshot(rig, pose, world_matrices(skeleton, pose) if world is None else world, rig_settings.ik,
                    rig_settings.copy_rotation, rig_settings.bone_ik, rig_settings.solver, frozenset(hidden), pins=read.pins)


def _objects(reader, key):
    """The list of JSON objects at ``key`` (default empty), each read on its own as a document."""
    value = reader.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        reader.fail(key, "a list of objects", value)
    return value


@dataclass
class SavedHistory:
    """The undo and redo steps read back (each stack's next step last), and ``note``, one line on
    why they were dropped ("" when they were not)."""
    undo: list
    redo: list
    note: str = ""

    @classmethod
    def read(cls, root, session_rig):
        """The session's steps; none from an autosave without them, none and a note from damaged ones."""
        try:
            if root.get("history", None) is None:
                return cls([], [])
            # Read apart from the root, whose check must not meet a history dropped half read.
            history = Reader(root.path, root.obj["history"], "history.")
            rigs = [rig_from_dict(rig, root.path) for rig in _objects(history, "rigs")]
            settings = _objects(history, "settings")
            saved = cls(*([_read_step(step, rigs, settings, session_rig) for step in history.items(stack, [])]
                          for stack in ("undo", "redo")))
            history.check_fields()
            return saved
        except FileFormatError as error:
            return cls([], [], f"the undo history did not read and was dropped ({error})")


def restore_session(data, path="<recovery>"):
    """A RestoredSession from a recovery dict; FileFormatError if it does not read (a key no
    version of the format has included)."""
    root = Reader(path, data)
    check_header(root, RECOVERY_FORMAT, RECOVERY_VERSION)
    rig = rig_from_dict(root.required("rig"), path)
    read = read_pose_data(root.required("pose"), rig.skeleton, path)
    source = _read_source(root)
    reopened = _reopen(source, root.number("saved"), rig)
    document = reopened.document
    state = _state(root, rig, read.pose, document.mesh if document else None)
    state.source, state.pins, state.whole_body = source, read.pins, _read_whole_body(root)
    if document is not None:
        state.animation, state.skins, state.skin = Animation.of(document), document.skins, document.skin
    choice, view = AnimationChoice.read(root), SavedView.read(root)
    if choice is not None:
        choice.apply(state.animation)
    if view is not None:
        view.apply(state.view, set(rig.skeleton.names))
    restore_timeline(root, state)
    history = SavedHistory.read(root, rig)
    pose_file = _read_pose_file(root)
    ground_note = GroundChoice.read(root).apply(state)
    root.check_fields()
    _encode_steps(history.undo + history.redo)
    state.history.reset(state, history.undo, history.redo)  # the state as restored is the current step
    notes = (f"{reopened.why}: restored without the file's mesh and animation" if reopened.why else "", history.note,
             ground_note)
    return RestoredSession(state, pose_file, "; ".join(note for note in notes if note))
