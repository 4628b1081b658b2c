"""One frame of tracking: the whole body solved by the priority solver (``solvers.priority``),
warm-started from the previous frame's pose, with the body's top bone free to move.

Two levels: the trackers first (head and hands, and a pelvis or feet where worn), then, weighted
within one level, the planted or stepping feet, the estimated pelvis, and the knees and elbows
toward their natural poles. An elbow's is the point it would be at with the wrist unbent (the
hand's rotation carried up its arm), so the arm's swivel follows its hand as a real one does. A
knee's is where a leg of its bones' lengths hanging from its hip (this frame's, where known) to the ankle's
goal has its knee, bent toward the foot's forward: a knee bends in the plane the foot points in,
and a leg that straightens and bends again (a step's reach) bends forward, never flipping back
(the rest leg's own shape, often splayed or bent, plays no part). Below them
all the solver pulls gently toward the previous frame's pose: the temporal smoothing, so joints
no tracker pins down stay where they were rather than jump. (One level for the body's own goals,
not three: the solver finishes each level above the last alone, and goals that cannot all be met,
a pelvis estimate against planted feet, would each cost a finishing pass every frame.)

The trunk's joints (spine, neck, clavicles) carry inertia on the body level (``solvers.priority``):
with the head held, a spine bending one way low and back higher up moves the pelvis a little, so
the body level's least-squares answer along that bend is large and flips with the trackers' noise
(on CMU 01_03 the spine zigzagged 3 degrees a frame, Spine1 accelerating 5x the truth's); damped
there, the bend follows slowly while the pelvis still goes where the body level sends it.
"""
from dataclasses import dataclass

import numpy as np

from rig.ik_plan import bone_dofs
from rig.pose import update_world
from rig.solver_views import HangingBones, kept_bone_tree
from rig.tracking.body import trunk_joints
from solvers import kinematics, priority
from solvers.priority import solve_priority
from solvers.priority_plan import POSITION, ROTATION, SHIFT, Task, column_layout, priority_plan
from solvers.transforms import normalize, quat_conjugate, quat_mul, quat_rotate

TRACKED, BODY = range(2)  # priority levels, first first
FOOT_WEIGHT, PELVIS_WEIGHT, POLE_WEIGHT = 1.0, 0.3, 0.1  # the body level's goals, weighed against each other
ITERATIONS = 2  # a frame's budget after the first (warm-started: a frame's change is small)
FIRST_ITERATIONS = 80  # the first frame starts from the rest pose
TOLERANCE = 1e-4  # metres (radians at the tree's scale): a goal this close is met
DAMPING = 0.1
TRUNK_INERTIA = 0.05  # the trunk joints' least damping on the body level (times the scale): module doc
PULL = 0.1  # of the way back to the previous frame's pose per iteration, in the freedom the goals leave


@dataclass(frozen=True)
class Goal:
    """Bring ``bone``'s head to ``position`` and (unless None) its world rotation to ``rotation``
    (xyzw), at priority ``level`` with ``weight`` among its level's goals."""
    bone: int
    level: int
    position: np.ndarray
    rotation: np.ndarray = None
    weight: float = 1.0


def pole_goal(skeleton, limb, end_target, rest_rotation):
    """The Goal of arm ``limb`` (upper, lower, end)'s elbow: the end's BoneTarget with its rotation
    from rest (``rest_rotation``, xyzw) carried up the lower bone."""
    _, lower, end = limb
    turned = quat_mul(end_target.rotation, quat_conjugate(rest_rotation))
    along = skeleton.rest_heads[end] - skeleton.rest_heads[lower]
    return Goal(lower, BODY, end_target.position - quat_rotate(turned, along), weight=POLE_WEIGHT)


def knee_goal(skeleton, limb, hip, end_target, rest_rotation, forward):
    """The Goal of leg ``limb``'s knee: the two-bone leg from ``hip`` (3,) to the ankle's
    BoneTarget, bent toward the foot's forward (the figure's rest ``forward`` turned as the foot
    is from ``rest_rotation``); module doc."""
    upper, lower, end = limb
    heads = skeleton.rest_heads
    thigh, shin = np.linalg.norm(heads[lower] - heads[upper]), np.linalg.norm(heads[end] - heads[lower])
    reach = end_target.position - hip
    span = max(float(np.linalg.norm(reach)), 1e-9)
    along = reach / span
    ahead = quat_rotate(quat_mul(end_target.rotation, quat_conjugate(rest_rotation)), forward)
    bend = normalize(ahead - along * np.dot(ahead, along), fallback=forward)
    down = min((thigh * thigh - shin * shin + span * span) / (2.0 * span), thigh)
    knee = hip + along * down + bend * np.sqrt(max(thigh * thigh - down * down, 0.0))
    return Goal(lower, BODY, knee, weight=POLE_WEIGHT)


def warm():
    """Compile (or load from numba's cache) the kernels a frame runs: a user pays it once, before
    the first frame, so no frame's time holds it."""
    kinematics.warm()
    priority.warm()


class FrameSolver:
    """Solves frames of ``body`` (a ``rig.tracking.body.Body``) of ``rig`` in place; keeps what
    stays from frame to frame: the tree's rest arrays, the solver's column layout (while the rig's
    bone settings stay) and the plan's task fields (while the goals ask the same of the same bones)."""

    def __init__(self, rig, body):
        skeleton = rig.skeleton
        self.rig, self.tree = rig, body.tree
        self.place = {bone: k for k, bone in enumerate(self.tree)}
        ends = list(body.bones.values())
        self.moving = sorted({self.place[a] for b in ends for a in [b, *skeleton.ancestors(b)]
                              if a in self.place and a not in body.pelvis_links})
        self.rows = np.array(self.tree)  # the tree's rows of the pose
        self.moved_rows = self.rows[self.moving]
        self.hanging = HangingBones(skeleton, self.tree)
        self.dofs = tuple(bone_dofs(rig, bone).dofs for bone in self.tree)
        self.body, self.layout, self.inertia = body, None, None
        self.asked, self.plan = None, None  # what the goals last asked of which bones, and their plan
        warm()

    def _plan(self, bones, goals):
        """The ``PriorityPlan`` of ``goals`` on ``bones`` (a ``BoneTree``): the task fields built
        again only when the goals ask something else of the bones, the targets written each frame."""
        asked = [(goal.bone, goal.level, goal.weight, goal.rotation is None) for goal in goals]
        if asked != self.asked:
            tasks = []
            for goal in goals:
                bone = self.place[goal.bone]
                tasks.append(Task(POSITION, bone, goal.level, tuple(goal.position), weight=goal.weight))
                if goal.rotation is not None:
                    tasks.append(Task(ROTATION, bone, goal.level, tuple(goal.rotation), weight=goal.weight))
            self.asked, self.plan = asked, priority_plan(bones, tasks, self.layout)
            return self.plan
        targets = np.zeros_like(self.plan.task_target)
        targets[self.plan.task_kind == POSITION, :3] = np.array([goal.position for goal in goals])
        turned = [goal.rotation for goal in goals if goal.rotation is not None]
        if turned:
            targets[self.plan.task_kind == ROTATION] = np.array(turned)
        return self.plan._replace(bones=bones, task_target=targets)

    def solve(self, pose, world, goals, iterations=ITERATIONS):
        """Bring ``pose`` and ``world`` (N, 4, 4) toward ``goals`` (Goal), in place; the
        ``solvers.priority.PriorityResult``."""
        skeleton = self.rig.skeleton
        bones = kept_bone_tree(self.hanging, pose, world)
        if self.layout is None:
            self.layout = column_layout(bones, self.dofs, self.moving, root_free=True)
            trunk = [self.place[b] for b in trunk_joints(skeleton, self.body)]
            self.inertia = np.where(np.isin(self.layout.column_bone, trunk) & (self.layout.column_kind != SHIFT),
                                    TRUNK_INERTIA, 0.0)
        result = solve_priority(self._plan(bones, goals), pose.rotations[self.rows], iterations, TOLERANCE, DAMPING,
                                PULL, self.inertia)
        pose.rotations[self.moved_rows] = result.rotations[self.moving]
        top = self.tree[0]
        pose.locations[top] += skeleton.rest_local[top, :3, :3].T @ result.shift  # the shift is in the base frame
        update_world(skeleton, pose, world, [top])
        return result
