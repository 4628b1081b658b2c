"""The application's state objects. Panels and tools read and write these; nothing is hidden
in statics. ``pose`` holds the channels as last solved (IK results included, so continuous
solving starts from what is on screen and a saved pose is what was seen); ``world`` derives from it
and from the constraints that act on world matrices only (Copy Rotation, IK at partial influence)."""
import time
from dataclasses import dataclass, field

import numpy as np

from render.camera import OrbitCamera
from render.view_state import ViewState
from rig.evaluate import active_ik, evaluate
from rig.ground import PlaneGround
from rig.pose import Pose, heads_tails, world_matrices
from ui.animation import Animation
from ui.history import History
from ui.free_space import uncovered
from ui.ground_state import planted_after_solve
from ui.timeline import TimelineState, timeline_for
from ui.outliner import OutlinerState
from ui.pins import held_pins
from ui.simulation_clock import SimulationClock
from ui.transform_input import TypedInput


DRAG_KINDS = ("translate", "auto_ik", "rotate", "gizmo")
DEFAULT_INSETS = (0.0, 19.0, 422.0, 155.0)
"""Window pixels the default layout (``ui.layout``) covers at the (left, top, right, bottom)
edges at the default font: the menu bar; the right column and its splitter; the timeline strip,
its splitter and the status bar. From the first frame on, the dock space's central node says."""
MIN_FREE_FRACTION = 0.25  # narrower free space than this: frame into the whole window instead


@dataclass
class DragState:
    """One interactive operation on ``bone``, undone exactly by restoring ``pose_before`` and
    ``world_before``.

    ``kind``: "translate" moves the bone's head (IK handles, pole targets, unconnected bones),
    "auto_ik" moves its tip through the temporary IK constraint ``goal`` (Auto IK), both in the
    camera-facing plane through ``plane_point`` (the moved point = pointer's plane point +
    ``grab_offset``); "rotate" turns the bone about the view axis through its head (Blender's R),
    by the pointer's angle around ``pivot_px`` since ``start_px``. ``target`` is the goal's
    current world point, kept so a chain length change can re-solve without a pointer move.

    A ``modal`` one was started by a key (G, R) rather than a press: it follows the pointer with
    no button held, a click or Enter confirms it, and it takes an axis ``lock``
    (``ui.transform_input.AxisLock``) and ``typed`` values (a ``TypedInput``), which replace the
    pointer's.
    ``angle`` (radians, "rotate") and ``moved`` (the moved point's world offset, the others)
    are what was last applied, for the overlay to show. ``followers``: other bones a G moves by
    the head, by the same world offset. ``pin_moves``: where the edit puts the pinned bones it
    places, their pins held there while it runs (``ui.pins``).
    """
    kind: str
    bone: str
    pose_before: Pose
    world_before: np.ndarray
    plane_point: np.ndarray = None
    plane_normal: np.ndarray = None
    grab_offset: np.ndarray = None
    goal: object = None
    target: np.ndarray = None
    pivot_px: np.ndarray = None
    start_px: np.ndarray = None
    modal: bool = False
    lock: object = None
    typed: TypedInput = field(default_factory=TypedInput)
    angle: float = 0.0
    moved: np.ndarray = None
    followers: tuple = ()
    pin_moves: dict = field(default_factory=dict)  # bone name -> rig.pins.Pin: where the edit puts a pinned bone (ui.pins)

    def goals(self):
        """The temporary IK goals to solve with the rig's constraints, as ``evaluate`` takes them."""
        return [(self.goal, self.target)] if self.goal is not None and self.target is not None else []

    def dragged_constraint(self, rig):
        """The IK constraint whose goal this drag moves, solved right after the pins: Auto IK's
        temporary one, or the first active constraint aiming at the dragged handle; else None."""
        if self.goal is not None:
            return self.goal if self.target is not None else None
        return next((c for c in active_ik(rig) if c.target == self.bone), None)


GIZMO_MODES = ("none", "translate", "rotate")


@dataclass
class GizmoState:
    """The viewport gizmo (Blender's move / rotate tool choice): ``mode`` is one of
    ``GIZMO_MODES``; ``over`` says the pointer is on the gizmo (the viewport tools keep off);
    ``shown`` that the gizmo was drawn this frame (ImGuizmo can hit-test it); ``drag`` is the
    DragState the gizmo's current press began, so after Escape or a right click cancels it the
    gizmo ignores that press until the button comes up."""
    mode: str = "none"
    over: bool = False
    shown: bool = False
    drag: DragState | None = None


@dataclass
class Stats:
    frame_ms: float = 0.0
    solve_us: float = 0.0
    iterations: int = 0
    error: float | None = 0.0  # the worst position residual, metres (None: no position goal solved)
    angle_error: float | None = None  # the worst angle residual (one-bone chains, rotation goals), radians
    at_limit: int = 0


@dataclass
class AppState:
    """``deterministic`` (headless runs, tests) fixes ImGui's clock at 1/60 s a frame and hides
    wall-clock timings, so the same input renders the same bytes."""
    rig: object
    rig_path: str
    pose: Pose
    camera: OrbitCamera
    view: ViewState = field(default_factory=ViewState)
    outliner: OutlinerState = field(default_factory=OutlinerState)
    world: np.ndarray = None
    reports: list = field(default_factory=list)
    drag: DragState | None = None
    stats: Stats = field(default_factory=Stats)
    _message: str = ""  # ``message``
    message_shown_at: float | None = None  # when the status bar first showed the message (``ui.status``)
    message_lasts: bool = False  # the message tells of work still running: it stays until replaced
    error: str = ""  # an error the user has not dismissed yet (its toast is shown)
    deterministic: bool = False
    auto_ik: bool = False
    auto_ik_length: int = 0
    mesh: object = None  # the rig's rig.skinned_mesh.SkinnedMesh, when its file had one
    history: History = None
    auto_setup: object = None  # ui.auto_setup.AutoSetup: what automatic IK set-up recognised
    view_insets: tuple = DEFAULT_INSETS
    window_size: tuple = None  # (width, height) pixels the insets were last measured in
    floating: tuple = ()  # (left, top, right, bottom) window pixels of panels floating over the viewport
    gizmo: GizmoState = field(default_factory=GizmoState)
    animation: Animation | None = None  # the file's clips, to take a starting pose from
    skins: tuple = ()  # the names of the file's skins when it has several (File > Skin)
    skin: int = 0  # which of them is open
    solve_pending: bool = False  # an edit asked for a solve that the frame has not run yet
    source: object = None  # ui.source.SourceFile: the file opened and how, for crash recovery
    ground: object = field(default_factory=PlaneGround)  # what the figure stands on (``ui.ground_state``)
    ground_path: str = ""  # the scene file ``ground`` came from; "" for the grid's plane
    ground_contact: bool = False  # no bone below the ground in any solve (the solve reads it)
    plant_feet: bool = False  # plant the feet after every solve
    legs_cache: tuple = None  # (key, rig.feet.Legs) for planting, ``ui.ground_state.legs_of``
    timeline: TimelineState = None  # the keys and the current frame (ui.timeline)
    tracks: object = None  # ui.tracks.OpenedTracks: a tracker stream playing as the keys
    pins: dict = field(default_factory=dict)  # bone name -> rig.pins.Pin: held above every other goal
    whole_body: bool | None = None  # the root and spine join a solve with pins (None: the user has not said)
    simulation_clock: SimulationClock = field(default_factory=SimulationClock)  # iTaSC Simulation mode's time

    def __post_init__(self):
        if self.world is None:  # plain FK until the first resolve: the history keeps a world with each pose
            self.world = world_matrices(self.rig.skeleton, self.pose)
        if self.timeline is None:
            self.timeline = timeline_for(None, self.rig.skeleton, self.pose)
        if self.history is None:
            self.history = History(self)

    @classmethod
    def for_rig(cls, rig, rig_path, pose=None, aspect=16 / 9, mesh=None, size=None, insets=DEFAULT_INSETS,
                floating=(), pins=None):
        """State for a freshly opened rig (with its skinned mesh, and ``pins``), solved once and
        framed for a view of ``aspect``, or with ``size`` (width, height pixels) into the part of
        that window the panels leave free (``insets`` and ``floating``: as ``view_insets`` and ``floating``,
        the default layout's unless the window knows better)."""
        state = cls(rig, rig_path, pose if pose is not None else Pose.rest(len(rig.skeleton)), OrbitCamera(),
                    mesh=mesh, view_insets=insets, floating=tuple(floating), pins=dict(pins or {}))
        state.resolve()
        heads, tails = heads_tails(rig.skeleton, state.world)
        points = [heads, tails] if mesh is None else [heads, tails, mesh.skinned_positions(state.world)]
        if size is None:
            state.camera.frame_points(np.vstack(points), aspect=aspect)
        else:
            state.camera.frame_points(np.vstack(points), aspect=size[0] / size[1], rect=state.free_rect(*size))
        state.history.reset(state)  # the solved pose is where undo stops
        return state

    @classmethod
    def for_document(cls, document, pose=None, size=None, animation=None, source=None, insets=DEFAULT_INSETS,
                     floating=(), pins=None):
        """State for a rig opened from a file (a ``rig.formats.document.RigDocument``, fingerprinted
        as ``source``): its mesh, its animation clips (``animation``, else
        ``Animation.of(document)``), and ``pose`` (with ``pins``) or else the pose the file holds;
        framed as ``for_rig`` frames it."""
        state = cls.for_rig(document.rig, document.path, document.pose if pose is None else pose,
                            mesh=document.mesh, size=size, insets=insets, floating=floating, pins=pins)
        state.animation = animation if animation is not None else Animation.of(document)
        state.skins, state.skin = document.skins, document.skin
        state.source = source
        state.timeline = timeline_for(state.animation, document.rig.skeleton, state.pose)
        state.history.reset(state)  # the file's keys are where undo stops
        return state

    @property
    def body_follows(self):
        """Whether a solve with pins moves the whole body: the user's choice once made, until then
        on exactly while pins exist."""
        return bool(self.pins) if self.whole_body is None else self.whole_body

    def free_rect(self, width, height):
        """The viewport part no panel covers, docked or floating over it (``ui.free_space``), as
        (left, top, right, bottom) fractions of the window for ``OrbitCamera.frame_points``; None
        (the whole window) when too little is free."""
        left, top, right, bottom = uncovered(self.free_pixels(width, height), self.floating)
        rect = (left / width, top / height, right / width, bottom / height)
        if min(rect[2] - rect[0], rect[3] - rect[1]) < MIN_FREE_FRACTION:
            return None
        return rect

    def mark_dirty(self):
        """Ask for a solve. Tools, panels and commands call this; the frame solves once, after
        its input, however many events and edits came in since the last one."""
        self.solve_pending = True

    def solve_if_pending(self):
        """The frame's one solve, when something asked for it, timed into ``stats.solve_us``."""
        if not self.solve_pending:
            return
        start = time.perf_counter()
        self.resolve()
        self.stats.solve_us = (time.perf_counter() - start) * 1e6
        self.solve_pending = False

    def free_pixels(self, width, height):
        """The viewport part no docked panel covers, as (left, top, right, bottom) window pixels."""
        left, top, right, bottom = self.view_insets
        return left, top, width - right, height - bottom

    def set_free_pixels(self, rect, width, height, floating=()):
        """The docked panels now leave ``rect`` (left, top, right, bottom window pixels) free and
        the ``floating`` ones cover those rectangles: framing fills what is left. When the docked
        panels or the window change the view is centred again, as Blender's viewport keeps its
        view centred when a panel beside it is resized; a floating panel moved about leaves it be."""
        left, top, right, bottom = rect
        insets = (left, top, width - right, height - bottom)
        resized = (insets, (width, height)) != (self.view_insets, self.window_size)
        self.view_insets, self.window_size, self.floating = insets, (width, height), tuple(floating)
        if resized:
            self.camera.centre_in(self.free_rect(width, height))

    @property
    def message(self):
        """The last thing done or gone wrong, for the status bar (``ui.status``: an error stays
        until its toast is dismissed, anything else clears a few seconds after it first shows)."""
        return self._message

    @message.setter
    def message(self, text):
        self._message, self.message_shown_at = text, None  # a new message, or the same again, shows afresh
        self.message_lasts = False

    def report_progress(self, text):
        """A message about work still running (a compile): it stays until the next message replaces it."""
        self.message = text
        self.message_lasts = True

    def report_error(self, text):
        """An error: the status bar's message, and a toast until the user dismisses it."""
        self.message = self.error = text

    def resolve(self):
        """Evaluate constraints on the current channels, with the active drag's temporary Auto
        IK goal if there is one, holding the pins (a running drag's pinned bones as ``ui.pins.held_pins``
        says), the dragged goal next, the whole body moving
        when it follows, then plants the feet when asked (the frame calls it through ``solve_if_pending``)."""
        drag = self.drag
        goals = drag.goals() if drag is not None else []
        dragged = drag.dragged_constraint(self.rig) if drag is not None else None
        self.pose, self.world, reports = planted_after_solve(
            self, evaluate(self.rig, self.pose, goals, held_pins(self), dragged, self.body_follows,
                           self.ground if self.ground_contact else None))
        self.take_reports(reports)

    def take_reports(self, reports):
        """Show ``reports`` (ChainReports of the last solve) in the stats and the solver overlay."""
        self.reports = reports
        self.stats.angle_error = max((r.error for r in self.reports if r.unit == "rad"), default=None)
        self.stats.error = max((r.error for r in self.reports if r.unit == "m"),
                               default=0.0 if self.stats.angle_error is None else None)
        self.stats.iterations = sum(r.iterations for r in self.reports)
        self.stats.at_limit = sum(r.at_limit for r in self.reports)

    def selected_constraint(self):
        """The IK constraint that the selection refers to: one on, targeting or poled by the
        active bone first, else by any selected bone."""
        for names in ({self.view.active}, self.view.selected):
            for constraint in self.rig.ik:
                if {constraint.bone, constraint.target, constraint.pole_target} & names:
                    return constraint
        return None
