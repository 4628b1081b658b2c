"""A full body from three to six trackers, frame by frame (issue 23).

Per frame: the trackers' bone targets (through their offsets, ``rig.tracking.calibration``; lost
ones held and found ones eased in, ``rig.tracking.continuity``), the pelvis estimated from the head
where none is worn (``rig.tracking.estimate``; balanced over the feet as they stood the frame before
while both stand), the untracked feet planted or stepping and the
tracked ones locked while they stand (``rig.tracking.steps``), then one priority solve of the
whole body warm-started from the previous frame (``rig.tracking.frame_solve``). The temporal
smoothing is that warm start with the solver's pull toward the previous pose, the heading's and
velocity's first-order filters, and the eased steps and found trackers; no later filter runs on
the solved pose (it would lag the trackers).
"""
import time
from dataclasses import dataclass

import numpy as np

from rig.pose import Pose, location_for_head, world_matrices
from rig.tracking.body import find_body, trunk_joints
from rig.tracking.calibration import bone_target, calibrate, default_offsets
from rig.tracking.continuity import Continuity
from rig.tracking.estimate import PelvisEstimate, smoothing, turned, worn_heading
from rig.tracking.frame_solve import BODY, FIRST_ITERATIONS, FOOT_WEIGHT, ITERATIONS, PELVIS_WEIGHT, TRACKED, \
    FrameSolver, Goal, knee_goal, pole_goal
from rig.tracking.steps import FEET, Feet

SETTLE_TIME = 0.5  # seconds: the trunk's joints ease back toward rest with this time constant


@dataclass(frozen=True)
class Tracked:
    """What a reconstruction gives: ``poses`` one Pose per stream frame, ``fps`` the stream's rate,
    ``solve_seconds`` the time spent reconstructing (reading and writing left out) and
    ``solve_cpu_seconds`` this thread's CPU time in it (steady on a busy machine, where the wall
    clock counts other processes' turns), ``body`` the ``rig.tracking.body.Body`` driven,
    ``setup_seconds`` the time spent before the first frame (finding the body, and compiling or
    loading the solver's kernels once a process: ``frame_solve.warm``)."""
    poses: list
    fps: float
    solve_seconds: float
    solve_cpu_seconds: float
    body: object
    setup_seconds: float


class Tracker:
    """The reconstruction's state between frames: call ``step(frame, dt)`` with each frame's
    {role: Sample} in turn; ``pose`` and ``world`` are the body solved so far."""

    def __init__(self, rig, offsets=None, body=None):
        self.rig = rig
        self.body = body or find_body(rig)
        self.offsets = offsets or default_offsets(self.body)
        self.solver = FrameSolver(rig, self.body)
        self.continuity, self.pelvis, self.feet = Continuity(self.body), PelvisEstimate(self.body), Feet(self.body)
        self.pose, self.world = Pose.rest(len(rig.skeleton)), None
        self.settling = trunk_joints(rig.skeleton, self.body)
        self.estimated = None  # the last frame's pelvis estimate (position)

    def _settle(self, dt):
        """Ease the trunk's joints (spine, neck, clavicles) back toward rest, ``SETTLE_TIME``: the
        solve moves them to meet the trackers and nothing else brings them back, so without this
        they drift (a clavicle wandered 10 cm on CMU 01_03)."""
        rotations = self.pose.rotations[self.settling]
        rotations *= np.where(rotations[:, 3:] < 0.0, -1.0, 1.0)
        share = smoothing(dt, SETTLE_TIME)
        rotations = rotations * (1.0 - share) + np.array([0.0, 0.0, 0.0, 1.0]) * share
        self.pose.rotations[self.settling] = rotations / np.linalg.norm(rotations, axis=1, keepdims=True)
        # No world update here: the solve that follows reads the pose, and the world only where
        # the body hangs from (above the trunk), and updates the world itself.

    def _hip(self, role, tracked_pelvis, moved):
        """Where the ``role`` leg's hip will be this frame: a tracked pelvis's is known (the solve
        meets it); with an estimated one (a soft goal the solve meets only in part) it is the hip
        as last solved, ``moved`` (3,) as the estimate moved since (a walk's hip moves 3 cm a
        frame: a knee aimed from where it was pulls against the planted foot)."""
        if tracked_pelvis is None:
            return self.world[self.body.limbs[role][0], :3, 3] + moved
        return tracked_pelvis.position + turned(self.body, "pelvis", tracked_pelvis, self.body.hips_from_pelvis[role])

    def _start(self, pelvis):
        """The rest pose with the body's top bone moved so the pelvis sits at its first target."""
        skeleton, top = self.rig.skeleton, self.body.tree[0]
        world = world_matrices(skeleton, self.pose)
        shift = pelvis.position - world[self.body.bones["pelvis"], :3, 3]
        self.pose.locations[top] = location_for_head(skeleton, self.pose, world, top, world[top, :3, 3] + shift)
        self.world = world_matrices(skeleton, self.pose)

    def step(self, frame, dt):
        """Solve one frame ({role: Sample}) ``dt`` seconds after the last; returns the Pose (a copy)."""
        body, skeleton = self.body, self.rig.skeleton
        seen = {role: bone_target(sample, self.offsets[role]) for role, sample in frame.items()}
        targets = self.continuity(seen, dt, self.world)
        # the feet as they stood last frame balance the estimate; a worn pelvis tracker leaves its lean unused
        support = None if "pelvis" in targets else self.feet.support()
        estimate, heading = self.pelvis(targets["head"], (targets["hand.L"], targets["hand.R"]), dt, support)
        pelvis = targets.get("pelvis", estimate)
        if "pelvis" in targets:  # the worn tracker says where the hips face: no guess from head and elbows
            heading = worn_heading(body, pelvis, heading)
        moved = estimate.position - (estimate.position if self.estimated is None else self.estimated)
        self.estimated = estimate.position
        first = self.world is None
        if first:
            self._start(pelvis)
        placed = self.feet(pelvis, heading, dt, {role: targets[role] for role in FEET if role in targets},
                           (targets["hand.L"].position, targets["hand.R"].position), targets["head"].position)
        goals = [Goal(body.bones[role], TRACKED, t.position, t.rotation) for role, t in targets.items()
                 if role not in FEET]
        goals += [Goal(body.bones[role], TRACKED if role in targets else BODY, t.position, t.rotation, FOOT_WEIGHT)
                  for role, t in placed.items()]  # a tracked foot, locked or not, is held as its tracker is
        if "pelvis" not in targets:
            goals.append(Goal(body.bones["pelvis"], BODY, estimate.position, estimate.rotation, PELVIS_WEIGHT))
        ends = {**targets, **placed}
        goals += [knee_goal(skeleton, body.limbs[role], self._hip(role, targets.get("pelvis"), moved), ends[role],
                            body.rest_rotations[role], body.forward) if role in FEET else
                  pole_goal(skeleton, body.limbs[role], ends[role], body.rest_rotations[role]) for role in body.limbs]
        if not first:
            self._settle(dt)
        self.solver.solve(self.pose, self.world, goals, FIRST_ITERATIONS if first else ITERATIONS)
        return self.pose.copy()


def reconstruct(rig, stream, calibrate_frame=None):
    """A Tracked of ``rig`` driven by ``stream`` (a TrackStream); ``calibrate_frame``: take the
    trackers' offsets at that frame with the user standing in the rest pose (else each tracker
    sits on its bone). ValueError when the rig has no humanoid body to drive or the frame is not
    in the stream."""
    setup = time.perf_counter()
    body = find_body(rig)
    offsets = None
    if calibrate_frame is not None:
        if not 0 <= calibrate_frame < len(stream.frames):
            raise ValueError(f"no frame {calibrate_frame} to calibrate at: the stream has frames 0 to "
                             f"{len(stream.frames) - 1}")
        offsets = calibrate(rig.skeleton, body, stream.frames[calibrate_frame])
    tracker = Tracker(rig, offsets, body)
    dt, poses = 1.0 / stream.fps, []
    started, cpu = time.perf_counter(), time.thread_time()
    for k, frame in enumerate(stream.frames):
        poses.append(tracker.step(frame, 0.0 if k == 0 else dt))
    return Tracked(poses, stream.fps, time.perf_counter() - started, time.thread_time() - cpu, body,
                   started - setup)
