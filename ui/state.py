"""The application's state objects. Panels and tools read and write these; nothing is hidden
in statics. ``pose`` holds the channels as last solved (IK results included, so continuous
solving starts from what is on screen and a saved pose is what was seen); ``world`` derives from it."""
from dataclasses import dataclass, field

import numpy as np

from render.camera import OrbitCamera
from render.view_state import ViewState
from rig.evaluate import evaluate
from rig.pose import Pose, heads_tails
from ui.history import History


@dataclass
class DragState:
    """An interactive drag of one bone's head in the camera-facing plane through its start point."""
    bone: str
    plane_point: np.ndarray
    plane_normal: np.ndarray
    grab_offset: np.ndarray
    pose_before: Pose


@dataclass
class Stats:
    frame_ms: float = 0.0
    solve_us: float = 0.0
    iterations: int = 0
    error: float = 0.0


@dataclass
class AppState:
    """``deterministic`` (headless runs, tests) fixes ImGui's clock at 1/60 s a frame and hides
    wall-clock timings, so the same input renders the same bytes."""
    rig: object
    rig_path: str
    pose: Pose
    camera: OrbitCamera
    view: ViewState = field(default_factory=ViewState)
    world: np.ndarray = None
    reports: list = field(default_factory=list)
    drag: DragState | None = None
    stats: Stats = field(default_factory=Stats)
    message: str = ""
    deterministic: bool = False
    mesh: object = None  # the rig's rig.skinned_mesh.SkinnedMesh, when its file had one
    history: History = None

    def __post_init__(self):
        if self.history is None:
            self.history = History(self)

    @classmethod
    def for_rig(cls, rig, rig_path, pose=None, aspect=16 / 9, mesh=None):
        """State for a freshly opened rig (and its skinned mesh), solved once and framed for a
        view of ``aspect``."""
        state = cls(rig, rig_path, pose if pose is not None else Pose.rest(len(rig.skeleton)), OrbitCamera(),
                    mesh=mesh)
        state.resolve()
        heads, tails = heads_tails(rig.skeleton, state.world)
        points = [heads, tails] if mesh is None else [heads, tails, mesh.skinned_positions(state.world)]
        state.camera.frame_points(np.vstack(points), aspect=aspect)
        state.history.reset(state)  # the solved pose is where undo stops
        return state

    def resolve(self):
        """Evaluate constraints on the current channels (called once per frame when dirty)."""
        self.pose, self.world, self.reports = evaluate(self.rig, self.pose)
        self.stats.error = max((r.error for r in self.reports), default=0.0)
        self.stats.iterations = sum(r.iterations for r in self.reports)

    def selected_constraint(self):
        """The IK constraint that the selection refers to: one on the selected bone, or one whose
        target or pole is selected."""
        for constraint in self.rig.ik:
            if {constraint.bone, constraint.target, constraint.pole_target} & self.view.selected:
                return constraint
        return None
