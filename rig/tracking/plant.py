"""A tracked foot planted while its tracker stands, as VR's full-body IK locks a foot: a foot
tracker slower than ``LOCK_SPEED`` locks its foot where it is (position and rotation), and the foot
stays there until the tracker moves off faster than ``RELEASE_SPEED`` or strays
``RELEASE_DISTANCE`` from the lock (a foot that creeps or rolls); then the foot follows its tracker
again, the lock's offset from it easing out over ``CATCH_TIME`` (the foot keeps up with a fast
swing, trailing it by no more than it had strayed). A tracked ankle never stands quite still
(CMU 01_03's creeps 1.3 cm/s where it stands, and moves a median 5-8 cm/s over a stance), while a
step leaves at tens of cm/s, so the lock is held loosely and let go quickly.
"""
import numpy as np

from rig.tracking.calibration import BoneTarget
from rig.tracking.estimate import ease, smoothing
from solvers.transforms import IDENTITY_QUAT, quat_conjugate, quat_mul, quat_slerp

LOCK_SPEED = 0.1  # metres a second: a tracker slower than this stands (its foot locks)
RELEASE_SPEED = 0.3  # metres a second: a tracker faster than this has left (its foot lets go)
RELEASE_DISTANCE = 0.03  # metres a tracker may stray from its locked foot
CATCH_TIME = 0.07  # seconds a released foot's offset from its tracker takes to ease out
SPEED_TIME = 0.04  # seconds: the tracker's velocity is smoothed over this (a first-order filter)


class Velocity:
    """A position's velocity (3,), per-frame differences through a first-order filter of
    ``time_constant`` seconds; ``horizontal`` keeps its vertical part 0. ``known`` once two
    positions have been seen."""

    def __init__(self, time_constant, horizontal=False):
        self.time_constant, self.horizontal = time_constant, horizontal
        self.value, self.last, self.known = np.zeros(3), None, False

    def __call__(self, position, dt):
        if self.last is not None and dt > 0.0:
            moved = (position - self.last) / dt
            if self.horizontal:
                moved[1] = 0.0
            self.value += (moved - self.value) * smoothing(dt, self.time_constant)
            self.known = True
        self.last = position.copy()
        return self.value


class Plant:
    """One tracked foot: call each frame with its tracker's BoneTarget and the frame time; returns
    the foot's BoneTarget (module doc)."""

    def __init__(self):
        self.velocity, self.lock, self.offset, self.clock = Velocity(SPEED_TIME), None, None, 0.0

    def __call__(self, tracker, dt):
        speed = float(np.linalg.norm(self.velocity(tracker.position, dt)))
        if self.lock is not None and (speed > RELEASE_SPEED or
                                      np.linalg.norm(tracker.position - self.lock.position) > RELEASE_DISTANCE):
            self.offset = BoneTarget(self.lock.position - tracker.position,
                                     quat_mul(quat_conjugate(tracker.rotation), self.lock.rotation))
            self.lock, self.clock = None, 0.0
        if self.lock is None and self.offset is None and self.velocity.known and speed <= LOCK_SPEED:
            self.lock = tracker
        if self.lock is not None:
            return self.lock
        if self.offset is None:
            return tracker
        self.clock += dt
        left = 1.0 - ease(self.clock / CATCH_TIME)
        caught = BoneTarget(tracker.position + self.offset.position * left,
                            quat_mul(tracker.rotation, quat_slerp(IDENTITY_QUAT, self.offset.rotation, left)))
        if self.clock >= CATCH_TIME:
            self.offset = None
        return caught
