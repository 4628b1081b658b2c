"""Feet without trackers: planted where they landed, stepping when the body moves away (no skating).

Each foot has a stance: where it would stand under the body (under its hip: a rest pose's legs
are often splayed, a standing body's are not), on the floor or, where the pelvis is higher than a
standing leg reaches down to the floor, as low as the leg reaches (as at rest, or nearly straight,
``STANCE_REACH``, where the rest pose splays it): a body standing on something, as when climbing;
and no lower than an upright body's feet under the head where the head is higher than standing by
more than a planted foot's ``STEP_RISE`` (the estimated hips may sit low: on CMU 01_03's platform
by 3.6 cm, which the leg's reach took down to the feet; a head a little high is a body on tiptoe).
A planted foot stays exactly where it landed until the stance leaves a support region around it
(``STEP_DISTANCE`` of the leg's length away across, reaching a stride further ahead for a walking
body; ``STEP_RISE`` up or down; or turned by more than ``STEP_TURN``) or its hip moves out of the
leg's reach (a tracked pelvis pulling away: the foot steps rather than slides); then it steps
over ``STEP_TIME`` to the stance, led by the body's velocity and a walk's stride (and a climb's
rise: a step up lands where the rising hips will stand it, coming down onto the stance's
height as it is then, ``Feet._step``), one foot at a
time (unless the hip has left a foot behind, ``OUT_OF_REACH``: a run). A walking body (faster
than ``WALK``, both feet untracked) steps as a walker does instead: the feet alternate, the rear
one leaving each time the pelvis turns up from its lowest (a walker's pelvis is lowest with both
feet down; a foot landing on that frame counts as down), the rear foot told
by the arms where the hands are known (they swing against the legs), each step taking
``WALK_STEP_TIME``; its feet are planted otherwise (a foot that stepped when its support region
or its leg's reach said stepped twice in a row, a second short step from 26-37 cm ahead of its
hip, and the walk's steps came at another time than the truth's). Outside a walk, a foot stands
at least the frame it lands. A step lifts, crosses only while fully up, above the higher of the
spots it leaves and lands on, and drops straight onto its new spot, fixed once it stops crossing
(a foot crossing near a floor would scuff along it, and one dropping while it follows the body
would slide). A tracked foot goes where its tracker says, locked while the tracker stands
(``rig.tracking.plant``), and, lost, steps from there as an untracked foot. Both feet standing
under a body slower than a shuffle are the support the pelvis estimate balances the body over
(``Feet.support``, ``rig.tracking.balance``).
"""
from collections import deque
from dataclasses import dataclass

import numpy as np

from rig.limb_roles import UP
from rig.tracking.body import facing_frame
from rig.tracking.calibration import BoneTarget
from rig.tracking.estimate import ease, smoothing, yaw_between
from rig.tracking.plant import Plant, Velocity
from solvers.transforms import quat_angle, quat_mul, quat_slerp

FEET = ("foot.L", "foot.R")
STEP_DISTANCE = 0.25  # of the leg's length: the support region's radius around a planted foot
STEP_RISE = 0.15  # of the leg's length: how far above or below its stance a planted foot may be
STANCE_REACH = 0.97  # of the leg's length: how far below its hip a stance is at most
STEP_TURN = 0.6  # radians a planted foot may differ from its stance's heading
STEP_TIME = 0.3  # seconds a step takes
WALK_STEP_TIME = 0.44  # seconds a walk's step takes (a walker's swing: ~0.4 of a 0.9 Hz gait)
RISE_SHARE = 0.2  # of a step's time the foot takes to lift (and, at its end, to drop)
ACROSS_FROM = 0.25  # of a step's time it starts crossing at, and stops as long before its end: while fully up
# (>= RISE_SHARE: a foot crossing as it lifts or drops slides along the ground it is just off)
LIFT = 0.12  # of the leg's length: how high a step lifts the foot (CMU 01_03's walking ankles: ~0.15)
LEAD = 0.5  # of the step time: how far ahead along the body's velocity a step lands
VELOCITY_TIME = 0.1  # seconds: the body velocity's smoothing
RISE_TIME = 0.04  # seconds: the pelvis's vertical velocity's smoothing (its lowest tells a walk's steps)
GOAL_TIME = 0.01  # seconds: a step's goal follows its aim with this time constant (``Feet._step``)
SHUFFLE, WALK = 0.5, 0.9  # metres a second: the body shuffles below the first, walks (long strides) above the second
OUT_OF_REACH = 1.05  # of the leg's length: a foot this far from its hip steps even while the other does
AIRBORNE = 1e-3  # metres above its stance's height: a foot lost there lands by a step


@dataclass
class Foot:
    """A foot's state: where it is (``at``), whether a tracker put it there, and while stepping
    where from, for how long (``time`` seconds in all) and where it is going (BoneTarget; fixed
    once it stops crossing)."""
    at: BoneTarget
    tracked: bool = False
    start: BoneTarget = None
    clock: float = 0.0
    time: float = STEP_TIME
    goal: BoneTarget = None


class Climb:
    """The pelvis's mean vertical velocity (m/s, ``rate``) over the last ``WALK_STEP_TIME`` seconds: call
    each frame with its height and the frame time. A walker's pelvis bobs once a step (lowest with both
    feet down), so over about a step's time its bob mostly cancels while a climb's rise stays: the
    step up a climb needs, not a walk's bob carried on as if it went on rising (filtered over
    ``VELOCITY_TIME`` instead, the walk's head+hands MPJPE rose 3.27 -> 3.34 cm)."""

    def __init__(self):
        self.heights, self.clock, self.rate = deque(), 0.0, 0.0

    def __call__(self, height, dt):
        self.clock += dt
        self.heights.append((self.clock, height))
        while self.clock - self.heights[0][0] > WALK_STEP_TIME:
            self.heights.popleft()
        then, earlier = self.heights[0]
        self.rate = (height - earlier) / (self.clock - then) if self.clock > then else 0.0


class Feet:
    """Call each frame with the pelvis BoneTarget, the heading, the frame time, the tracked
    feet ({role: BoneTarget}) and, where known, the hands' positions (hand.L, hand.R) and the
    head's (3,): {role: BoneTarget} of both feet, the untracked planted or stepping, the tracked
    locked while they stand."""

    def __init__(self, body, floor=0.0):
        self.body, self.floor = body, floor
        self.feet, self.plants, self.body_velocity = {}, {}, Velocity(VELOCITY_TIME, horizontal=True)
        self.velocity = np.zeros(3)
        self.rise, self.rising, self.turned_up = Velocity(RISE_TIME), False, False
        self.climb = Climb()

    def support(self):
        """The feet's positions (2, 3) while both stand (neither stepping nor following a tracker that
        has not locked) under a body slower than a shuffle, else None: what a standing body balances
        over (``rig.tracking.balance``; a moving body's centre of mass passes over its feet: read in
        a walk's double support, the balance leaned our walk's trunk wrongly, MPJPE 3.27 -> 5.57 cm)."""
        standing = [foot.at.position for role, foot in self.feet.items()
                    if foot.start is None and (not foot.tracked or self.plants[role].lock is not None)]
        if len(standing) < len(FEET) or float(np.linalg.norm(self.velocity)) > SHUFFLE:
            return None
        return np.array(standing)

    def hip(self, role, pelvis, heading):
        """Where the ``role`` foot's leg hangs from (3,)."""
        return pelvis.position + facing_frame(heading) @ self.body.hips_from_pelvis[role]

    def _risen(self, pelvis, head, time):
        """The pelvis (BoneTarget) and head ((3,) or None) raised by a climb's rise over ``time``
        seconds: the step-long mean (``Climb``) while the pelvis rises now, nothing once it stops; a
        sinking body's left where they are (its stance is already as low as the leg reaches: a foot
        led below it would be out of reach)."""
        rise = UP * max(min(self.climb.rate, self.rise.value[1]), 0.0) * time
        return BoneTarget(pelvis.position + rise, pelvis.rotation), None if head is None else head + rise

    def stance(self, role, pelvis, heading, head=None):
        body = self.body
        position = self.hip(role, pelvis, heading)
        reach = max(body.leg_drop, STANCE_REACH * body.leg_length)
        ground = self.floor
        if head is not None and head[1] - body.standing > self.floor + STEP_RISE * body.leg_length:
            ground = head[1] - body.standing  # standing upright on something (a head a little high: on tiptoe)
        position[1] = max(ground + body.ankle_height, position[1] - reach)
        return BoneTarget(position, quat_mul(yaw_between(body.forward, heading), body.rest_rotations[role]))

    def _need(self, foot, stance, hip):
        """How far past its support region (module doc) the foot is (> 0: it must step)."""
        length, stride = self.body.leg_length, self._stride()
        apart = stance.position + stride / 2.0 - foot.at.position
        across = float(np.hypot(apart[0], apart[2]))
        radius = STEP_DISTANCE * length + float(np.linalg.norm(stride)) / 2.0
        return max(across / radius - 1.0, abs(apart[1]) / (STEP_RISE * length) - 1.0,
                   float(np.linalg.norm(foot.at.position - hip)) / length - 1.0,
                   quat_angle(foot.at.rotation, stance.rotation) / STEP_TURN - 1.0)

    def _stride(self):
        """How far ahead of its stance a walking body lands a foot (the support region reaches as
        far ahead, ``_need``), so a walk's foot stands as long as it can: what the body moves in
        a step, at most the region's radius."""
        speed = float(np.linalg.norm(self.velocity))
        if speed <= 0.0:
            return np.zeros(3)
        walking = min(max((speed - SHUFFLE) / (WALK - SHUFFLE), 0.0), 1.0)
        return self.velocity / speed * walking * min(speed * STEP_TIME, STEP_DISTANCE * self.body.leg_length)

    def _swing(self, foot, goal):
        """Where a stepping ``foot`` is (BoneTarget) on its way to ``goal`` (BoneTarget): up over the
        first ``RISE_SHARE`` of the step, across while up (``LIFT`` above the higher of the two
        spots: a step down crossing while it descends would slide along the lower ground), down
        over the last."""
        s = foot.clock / foot.time
        across = ease((s - ACROSS_FROM) / (1.0 - 2.0 * ACROSS_FROM))
        position = foot.start.position + (goal.position - foot.start.position) * across
        low = foot.start.position[1] if s < 0.5 else goal.position[1]
        top = max(foot.start.position[1], goal.position[1]) + LIFT * self.body.leg_length
        position[1] = low + (top - low) * ease(min(s, 1.0 - s) / RISE_SHARE)
        return BoneTarget(position, quat_slerp(foot.start.rotation, goal.rotation, across))

    def _rear(self, hips, hands):
        """The walking body's rear foot: on the side of the hand further ahead where the hands are
        known (``hands``: their positions, L and R), else the foot furthest behind its hip."""
        if hands is not None:
            return FEET[int(np.dot(hands[1] - hands[0], self.velocity) > 0.0)]
        return min(FEET, key=lambda role: float(np.dot(self.feet[role].at.position - hips[role], self.velocity)))

    def _start_steps(self, free, stances, pelvis, heading, hands, landed):
        """Start the steps the ``free`` feet need, the neediest first: one foot at a time, but a foot
        its hip has left (``OUT_OF_REACH``) steps even while the other does; a walk's (module doc)
        rear foot as the pelvis turns up. A foot ``landed`` this frame counts as standing and, outside a
        walk, stays down this frame (lifting as it landed, it bore no weight: a step down off a platform
        landed and stepped on at once, crossing below the spot it had left); in a walk the gait says
        which foot leaves (held a frame, the walk's first turn-up at full speed was lost where the arms
        said the foot just landed was the rear one, as the truth's was). Returns the roles whose steps
        it started."""
        stepping = any(self.feet[role].start is not None for role in free)
        hips = {role: self.hip(role, pelvis, heading) for role in free}
        needs = {role: self._need(self.feet[role], stances[role], hips[role])
                 for role in free if self.feet[role].start is None}
        walk = len(needs) == len(FEET) and float(np.linalg.norm(self.velocity)) > WALK
        if walk:
            rear = self._rear(hips, hands)
            needs = {role: 1.0 if role == rear and self.turned_up else -1.0 for role in needs}
        started = []
        for role in sorted(needs, key=needs.get, reverse=True):
            foot = self.feet[role]
            left = np.linalg.norm(foot.at.position - hips[role]) > OUT_OF_REACH * self.body.leg_length
            if needs[role] > 0.0 and (walk or role not in landed) and (left or not stepping):
                foot.start, foot.clock, stepping = foot.at, 0.0, True
                foot.time = WALK_STEP_TIME if walk else STEP_TIME
                started.append(role)
        return started

    def _step(self, foot, role, pelvis, heading, head, dt):
        """Carry stepping ``foot`` (``role``'s) on by ``dt`` seconds toward its stance under ``pelvis``
        (BoneTarget), ``heading`` and ``head`` (``stance``), led by the body's velocity and a walk's
        stride; once it stops crossing, where it lands across stays put (a foot over a goal that moves
        with the body would slide as it comes down). The goal is where the stance will be when the step
        ends, so it stands still while the body keeps its velocity and fixing it changes nothing (it
        jumped 4-11 cm in a frame when it was the stance now and the rest of the step was added as it
        was fixed); it follows that aim through a ``GOAL_TIME`` filter, as the velocity and stance of
        an estimated pelvis shake by a few cm a frame, which a crossing foot shook with. Up, not as
        across, a climbing body's stance is where its rise (``Climb``) will have taken it when the
        step lands, so a step up lands on the bent leg a climber plants on the higher surface and
        stands while the hips rise past it, not a nearly straight leg's reach below the hips now (it landed 2.6-4.4
        cm below the stance of a body rising 0.3-0.5 m/s, and the feet climbed in half again as many
        steps); a sinking body's is where it is, as a stance is already as low as the leg reaches (a
        foot led below it would be out of the leg's reach). While it drops the foot comes straight
        down onto the stance's height as it is then: a climb that stops as a step lands leaves no
        foot above the surface (led by the rise over the lead too, or fixed as it stopped crossing,
        feet stood 5-12 cm above it)."""
        foot.clock += dt
        landing = max(foot.time - foot.clock, 0.0)
        risen, risen_head = self._risen(pelvis, head, landing)
        stance = self.stance(role, risen, heading, risen_head)
        ahead = landing + LEAD * STEP_TIME  # the stance's way till it lands, and the lead
        aim = BoneTarget(stance.position + self.velocity * ahead + self._stride(), stance.rotation)
        if foot.goal is not None and foot.clock >= (1.0 - ACROSS_FROM) * foot.time:  # dropping: straight down
            aim = BoneTarget(np.array([foot.goal.position[0], aim.position[1], foot.goal.position[2]]),
                             foot.goal.rotation)
        share = 1.0 if foot.goal is None else smoothing(dt, GOAL_TIME)
        foot.goal = aim if foot.goal is None else BoneTarget(
            foot.goal.position + (aim.position - foot.goal.position) * share,
            quat_slerp(foot.goal.rotation, aim.rotation, share))
        foot.at = self._swing(foot, foot.goal)
        if foot.clock >= foot.time:
            foot.start, foot.goal = None, None

    def _tracked(self, role, tracker, dt):
        """The Foot of tracked ``role`` (locked while its tracker stands, ``rig.tracking.plant``)."""
        plant = self.plants.setdefault(role, Plant())
        return Foot(plant(tracker, dt), tracked=True)

    def __call__(self, pelvis, heading, dt, tracked, hands=None, head=None):
        self.velocity = self.body_velocity(pelvis.position, dt)
        self.climb(pelvis.position[1], dt)
        rising = self.rise(pelvis.position, dt)[1] > 0.0
        self.turned_up, self.rising = rising and not self.rising, rising
        # A tracked foot goes where its tracker says: only the free ones need a stance.
        stances = {role: self.stance(role, pelvis, heading, head) for role in FEET if role not in tracked}
        for role in FEET:
            if role in tracked:
                self.feet[role] = self._tracked(role, tracked[role], dt)
            elif role not in self.feet:
                self.feet[role] = Foot(stances[role])
            elif self.feet[role].tracked:  # just lost: planted there, or landing by a step if in the air
                self.feet[role].tracked = False
                del self.plants[role]
                if self.feet[role].at.position[1] > stances[role].position[1] + AIRBORNE:
                    self.feet[role].clock, self.feet[role].start = 0.0, self.feet[role].at
        free = [role for role in FEET if role not in tracked]
        # the steps under way go on (and land) before new ones start: a foot landing this frame stands,
        # so the walk's turn-up this frame starts the next step (counted as stepping, it lost the turn-up
        # and the walk fell out of its gait)
        stepping = [role for role in free if self.feet[role].start is not None]
        for role in stepping:
            self._step(self.feet[role], role, pelvis, heading, head, dt)
        landed = [role for role in stepping if self.feet[role].start is None]
        for role in self._start_steps(free, stances, pelvis, heading, hands, landed):
            self._step(self.feet[role], role, pelvis, heading, head, dt)
        return {role: self.feet[role].at for role in FEET}
