"""The pelvis estimated from the head when no pelvis tracker is worn (the IK overview's VR
technique): down from the head by the rest pose's head-to-pelvis offset, turned to the body's
heading and leaned forward by a share of the head's tilt toward that heading; the pelvis itself
faces the heading and tilts by a share of the lean (a bending trunk bends mostly in the spine).

The heading is where the elbows face (square to the line from the right elbow to the left: the
shoulders hold them either side of the chest; the hands' line turned half as far again with a
walk's arm swing), the more so the further apart across they are, with where the head looks
counting as much as elbows ``LOOK_WEIGHT`` apart, followed with a lag: a head looks around while
the chest stays (on CMU 01_03 the head looks 58 degrees off the pelvis's heading on average while
the subject climbs, the hands' line 8). The lean is the head's tilt toward the heading, not its
pitch: a head turned to look sideways from a leaning trunk stays tilted toward the trunk's front
(the neck turns it about the leaning trunk); over CMU 01_03's climbs the tilt follows the trunk's
lean with correlation 0.70, the pitch 0.50. But a trunk bent far over often holds the head level
(the gaze kept ahead): the arms then tell the lean, as the hand trackers' rotations place the
elbows and the shoulders must sit an upper arm's length from them (``arms_lean``, read along a
steadier heading than the body's, as the swing still sways the elbows' line; on CMU 01_03 that lean
follows the trunk's with correlation 0.80). While both feet stand under a body about where it is,
balance reads the lean too: the centre of mass stays over the feet, so a head far ahead of them is a
trunk bent over with the hips behind (``rig.tracking.balance``; read from the truth's head and feet
over the 878 frames of CMU 01_03 both its feet stand, it follows the trunk's lean with correlation
0.82; but ours stand where the estimate put them, so it tells most when the trunk bends over feet
planted before); it is weighed in with the arms' read, each by how sure it is (a loose read: the
centre of mass may be anywhere over the feet). The lean is the larger of the head's read and the
arms' (with balance's), as each reads low where it misses (a level head; shoulders drawn forward by
reaching hands), followed in time.
A head rising or sinking faster than a walk's bob adds to that lean or takes from it, down to upright
at most (``risen_lean``): a body lifting itself onto something pitches its trunk over the lead leg, to
carry its centre of mass over the raised foot, while one lowering itself holds it upright over the
stance foot (not leaned back: a crouch bends forward); over CMU
01_03's climbs up and down that speed follows what the head and arms miss of the lean with
correlation 0.79 (0.53 over all frames; it is past its deadband on a quarter of them). A head
rising or sinking faster than any climb (``CLIMB_SPEED``) is a jump or a fall, whose flight says
nothing of the trunk: the read starts over (read as a climb, a 0.3 m jump leaned the trunk 24 degrees).
The head's tilt counts only up to the lean its drop below standing height allows (``drop_lean``): a
head nodding down in place (looking at the feet) turns about its neck, and leaned the trunk by its
tilt it swung the pelvis up and forward and lifted the feet 6.5 cm.
Nothing caps the pelvis's height: a head higher than standing is a body standing on something
(climbing), and the feet follow the pelvis up (``rig.tracking.steps``), nor do the planted feet
pull it down (the solve meets it within 0.2 cm on CMU 01_03's raised frames). Climbing up there it
sits 7 cm low and 12 cm off, as the lean reads 14 degrees short on average (the head held level, 2-10
degrees of tilt, while the trunk leans 35-48), most before the head rises, while the hands reach onto
the platform and the lead leg lifts (21 short); climbing down it reads 2.5 long (the estimate alone,
without balance; before the rise's read, 19 short up and 10 long down)."""
import math

import numpy as np

from rig.limb_roles import UP
from rig.tracking.balance import balance_miss, balance_of
from rig.tracking.body import facing_frame
from rig.tracking.calibration import BoneTarget
from solvers.transforms import cross, normalize, quat_conjugate, quat_from_axis_angle, quat_mul, quat_rotate, \
    signed_angle

LEAN_SHARE = 0.8  # of the head's tilt toward the heading that is the torso's lean
PELVIS_TILT = 0.4  # of the lean the pelvis tilts: the spine bends the rest (CMU 01_03's pelvis tilts 0.38 of it)
MAX_LEAN = 1.2  # radians forward (0.3 back): past this the head nods alone
LEANS = np.linspace(-0.3, MAX_LEAN, 76)  # the leans the arms are tried at (2 degrees apart)
LEAN_COS, LEAN_SIN = np.cos(LEANS), np.sin(LEANS)
ARM_SLACK = 0.03  # metres a shoulder's distance from its elbow may seem off (a bent wrist, a shrug)
LEAN_SPREAD = 1.2  # radians the trunk's lean strays from the head's tilt's share (the arms' read is
# weighed against it: only their ratio to ARM_SLACK counts)
TIPTOE = 0.05  # metres above standing height a head rises on tiptoe: higher, it stands on something
HEADING_TIME = 0.3  # seconds: the body's heading follows the head and elbows with this time constant
LEAN_TIME = 0.05  # seconds: the lean follows its reads with this time constant (the arms' read shakes
# with the hand trackers' turns, which place the elbows: on CMU 01_03 unfollowed, the trunk shook)
ARMS_HEADING_TIME = 0.6  # seconds: the steadier heading the arms' lean is read along (a walk's arm swing
# turns the elbows' line a few degrees each way every step; a lean read across a turned frame sways)
ARMS_HEADING_LAG = 0.15  # radians that steadier heading may lag the body's (in a turn it must keep up)
HEAD_RISE_TIME = 0.2  # seconds: the head's vertical speed is followed twice over with this time constant: a walk's
# bob (a few cm twice a second) is cut sevenfold, a climb's rise (a second or more) passes
RISE_DEADBAND = 0.1  # metres a second of followed vertical speed that says nothing (the humanoid walk's bob: 0.08)
CLIMB_SPEED = 1.0  # metres a second the head rises or sinks at most while a body climbs or lowers itself
# (stair climbing: 0.3-0.6 m/s up); faster is a jump or a fall (a 0.3 m jump leaves the floor at 2.4 m/s)
JUMP_TIME = 0.05  # seconds: that speed is followed this briefly (a tracker's frame-to-frame shake alone
# reads over 1 m/s on 1% of CMU 01_03's frames)
RISE_LEAN = 1.0  # radians of lean per metre a second of rise past the deadband: a round figure of the order
# climbing shows (CMU 01_03 rises at 0.2-0.5 m/s with its trunk 20-30 degrees further over than it seems)
LOOK_WEIGHT = 0.15  # metres: the head's look counts as much as the elbows this far apart across
LEVEL_LOOK = 0.2  # the head's look must have this much horizontal part to give a heading
HANDS = ("hand.L", "hand.R")


def yaw_between(a, b):
    """The turn about +Y taking horizontal direction ``a`` onto ``b`` (xyzw; a half turn stays upright)."""
    return quat_from_axis_angle(UP, signed_angle(a, b, UP))


def ease(s):
    """Smoothstep of ``s`` clipped to [0, 1]: starts and ends at rest, so an eased move never jumps."""
    s = min(max(s, 0.0), 1.0)
    return s * s * (3.0 - 2.0 * s)


def smoothing(dt, time_constant):
    """The share of the way to a new value a first-order filter moves in ``dt`` seconds."""
    return 1.0 - math.exp(-dt / time_constant)


def drop_lean(body, head):
    """The most the trunk can be leaning forward (radians) with the head (BoneTarget ``head``) this far
    below its standing height: a lean turns the head down about the hips, a nod turns it about the
    neck and leaves it where it was, so the head's tilt beyond this is a nod. A head above standing
    height stands on something of unknown height (tiptoe, a step) and says ever less: eased to any lean
    ``TIPTOE`` up (not a jump that would pop the lean)."""
    drop = body.standing - float(head.position[1])
    if drop < 0.0:
        return MAX_LEAN * ease(-drop / TIPTOE)
    return math.acos(max(1.0 - drop / float(np.linalg.norm(body.pelvis_below_head)), -1.0))


def turned(body, role, target, direction):
    """``direction`` (3,) of the rest figure turned as ``role``'s bone at BoneTarget ``target`` turned
    from rest."""
    return quat_rotate(quat_mul(target.rotation, quat_conjugate(body.rest_rotations[role])), direction)


def elbows(body, hands):
    """Each hand's elbow (3,): the wrist less the forearm turned as the hand tracker turned (a wrist
    near its rest bend)."""
    return [hand.position - turned(body, role, hand, body.arms[role].forearm) for role, hand in zip(HANDS, hands)]


def arms_lean(body, head, elbows, frame, prior, balanced=None):
    """The trunk's lean (radians forward, toward ``frame``'s forward) that best sets each shoulder an
    upper arm's length from its elbow (``elbows``, left and right), near the lean ``prior`` (the
    head's): the shoulders hang from the head as at rest, leaned. Arms hanging straight down say little
    (their elbows keep their distance as the shoulders swing forward or back), so the prior holds there.
    ``balanced``: each of ``LEANS``' miss of balance (``rig.tracking.balance.balance_miss``), weighed in
    where the feet stand."""
    miss = ((LEANS - prior) / LEAN_SPREAD) ** 2
    if balanced is not None:
        miss = miss + balanced ** 2
    for role, elbow in zip(HANDS, elbows):
        arm = body.arms[role]
        elbow = frame.T @ (elbow - head.position)
        left, up, ahead = arm.shoulder_from_head
        gap = np.sqrt((elbow[0] - left) ** 2 + (elbow[1] - up * LEAN_COS + ahead * LEAN_SIN) ** 2
                      + (elbow[2] - up * LEAN_SIN - ahead * LEAN_COS) ** 2)
        miss += ((gap - arm.upper_length) / ARM_SLACK) ** 2
    k = int(min(max(np.argmin(miss), 1), len(LEANS) - 2))
    below, at, above = miss[k - 1:k + 2]
    bend = below - 2.0 * at + above  # the parabola through the three, for a lean between the grid's
    step = 0.5 * (below - above) / bend if bend > 0.0 else 0.0
    return float(LEANS[k] + min(max(step, -1.0), 1.0) * (LEANS[1] - LEANS[0]))


def risen_lean(lean, speed):
    """``lean`` (radians, forward) as the head's followed vertical speed (metres a second, up) changes
    it: a body lifting itself onto something pitches its trunk over the lead leg to carry its centre of
    mass over the raised foot; one lowering itself holds it upright over the stance foot, so sinking
    takes from a forward lean, down to upright at most (a crouch bends forward, and leaned back by its
    sinking it put the hips ahead of the head); a walk's bob says nothing."""
    past = RISE_LEAN * max(abs(speed) - RISE_DEADBAND, 0.0)
    return lean + past if speed >= 0.0 else max(lean - past, min(lean, 0.0))


def worn_heading(body, pelvis, fallback):
    """The heading (3,) a worn pelvis tracker (BoneTarget ``pelvis``) gives: where the pelvis faces,
    level; ``fallback`` where it faces too near straight up or down to say (a body lying down)."""
    facing = turned(body, "pelvis", pelvis, body.forward)
    flat = facing - UP * facing[1]
    level = float(np.linalg.norm(flat))
    return flat / level if level > LEVEL_LOOK else fallback


def followed(last, heading, dt, time_constant):
    """Horizontal unit ``last`` turned toward ``heading`` over ``dt`` seconds (``heading`` if none yet)."""
    if last is None or dt <= 0.0:
        return heading
    return normalize(last + (heading - last) * smoothing(dt, time_constant), fallback=heading)


class PelvisEstimate:
    """Call with the head's and hands' BoneTargets and the frame time: the pelvis BoneTarget and the body's
    heading (3,); keeps the headings and the lean between frames."""

    def __init__(self, body):
        self.body, self.heading, self.arms_heading, self.lean = body, None, None, None
        self.height, self.rises, self.quick = None, [0.0, 0.0], 0.0
        self.balance = balance_of(body)

    def follow(self, heading, dt):
        """Turn the body's heading, and the steadier one the arms are read along, toward ``heading``
        (horizontal, unit) over ``dt`` seconds."""
        self.heading = followed(self.heading, heading, dt, HEADING_TIME)
        steady = followed(self.arms_heading, heading, dt, ARMS_HEADING_TIME)
        lag = signed_angle(self.heading, steady, UP)
        if abs(lag) > ARMS_HEADING_LAG:
            steady = quat_rotate(quat_from_axis_angle(UP, math.copysign(ARMS_HEADING_LAG, lag)), self.heading)
        self.arms_heading = steady
        return self.heading

    def rise(self, height, dt):
        """The head's vertical speed (metres a second, up), followed twice over (``HEAD_RISE_TIME``), with the
        head ``height`` metres up ``dt`` seconds after the last call."""
        if self.height is not None and dt > 0.0:
            speed = (height - self.height) / dt
            self.quick += (speed - self.quick) * smoothing(dt, JUMP_TIME)
            for stage, rise in enumerate(self.rises):
                speed = self.rises[stage] = rise + (speed - rise) * smoothing(dt, HEAD_RISE_TIME)
            if abs(self.quick) > CLIMB_SPEED:  # a jump or a fall, not a climb: its flight says nothing of the trunk
                self.rises = [0.0] * len(self.rises)
        self.height = height
        return self.rises[-1]

    def __call__(self, head, hands, dt, support=None):
        """``hands`` (left, right) BoneTargets; ``support`` (2, 3) the planted feet's positions, None
        unless both stand."""
        body = self.body
        look = turned(body, "head", head, body.forward)
        flat = look - UP * look[1]
        level = float(np.linalg.norm(flat))
        left, right = elbows(body, hands)
        across = cross(left - right, UP)
        facing = across - UP * across[1]  # metres long: elbows further apart across say more
        if level > LEVEL_LOOK:
            facing = facing + LOOK_WEIGHT * flat / level
        last = self.heading if self.heading is not None else body.forward
        heading = self.follow(normalize(facing, fallback=last), dt)
        frame = facing_frame(heading)
        toward = float(np.clip(np.dot(turned(body, "head", head, UP), heading), -1.0, 1.0))
        prior = min(LEAN_SHARE * math.asin(toward), drop_lean(body, head))
        arms_frame = facing_frame(self.arms_heading)
        balanced = None
        if support is not None:
            balanced = balance_miss(self.balance, (head.position - support) @ arms_frame[:, 2], LEAN_SIN, LEAN_COS)
        arms = arms_lean(body, head, (left, right), arms_frame, prior, balanced)
        lean = float(np.clip(risen_lean(max(prior, arms), self.rise(float(head.position[1]), dt)), -0.3, MAX_LEAN))
        if self.lean is not None and dt > 0.0:
            lean = self.lean + (lean - self.lean) * smoothing(dt, LEAN_TIME)
        self.lean = lean
        tilt = quat_from_axis_angle(frame[:, 0], lean)
        position = head.position + quat_rotate(tilt, frame @ body.pelvis_below_head)
        yaw = yaw_between(body.forward, heading)
        pitch = quat_from_axis_angle(frame[:, 0], PELVIS_TILT * lean)
        return BoneTarget(position, quat_mul(pitch, quat_mul(yaw, body.rest_rotations["pelvis"]))), heading
