"""The priority solver (``solvers.priority``): the first level holds exactly whatever the levels
below ask, lower levels never disturb higher ones, limits and locks hold, the ground is one-sided,
inertia slows its columns on the lower levels only, and no input gives a NaN."""
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from solvers.goals import BoneDofs
from solvers.kinematics import pose_bones, pose_matrices
from solvers.limits import limit_violation, swing_twist_angles
from solvers.priority import solve_priority
from solvers.priority_plan import GROUND, POSITION, ROTATION, SHIFT, Task, column_layout, priority_plan
from solvers.priority_tasks import level_system, turn_axes
from solvers.problem import swing_twist_limit
from solvers.tolerances import PIN_POSITION, PIN_ROTATION
from solvers.transforms import matrix3_to_quat, quat_angle, quat_from_rotvec, quat_mul, quat_to_matrix3
from solvers.tree import Tree

# A body: a hip (0) on a free root, two legs of three bones (1-3, 4-6) and a spine (7) with an arm
# of two bones (8, 9): the humanoid's shape in miniature.
PARENTS = [-1, 0, 1, 2, 0, 4, 5, 0, 7, 8]
OFFSETS = [[0, 1, 0], [0.1, 0, 0], [0, 0.45, 0], [0, 0.45, 0], [-0.1, 0, 0], [0, 0.45, 0], [0, 0.45, 0], [0, 0.1, 0],
           [0, 0.5, 0], [0, 0.3, 0]]
DOWN = quat_from_rotvec([0.0, 0.0, np.pi])  # legs point down (-Y)
REST = [[0, 0, 0, 1], DOWN, [0, 0, 0, 1], [0, 0, 0, 1], DOWN, [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 1],
        quat_from_rotvec([0.0, 0.0, -np.pi / 2]), [0, 0, 0, 1]]
LENGTHS = [0.1, 0.45, 0.45, 0.1, 0.45, 0.45, 0.1, 0.5, 0.3, 0.3]
TREE = Tree(np.eye(4), PARENTS, OFFSETS, REST, LENGTHS)
N = len(PARENTS)
FEET, HAND = (3, 6), 9
ALL = tuple(range(N))
IDENTITY = np.tile([0.0, 0.0, 0.0, 1.0], (N, 1))
LIMITED = BoneDofs(lock=(False, True, False), use_limit=(True, False, True), limit_min=(-1.2, -3, -0.3),
                   limit_max=(0.3, 3, 0.4))

vectors = st.tuples(*[st.floats(-1.0, 1.0)] * 3)
far = st.sampled_from([1.0, 3.0, 50.0, 1e6])


def world_of(rotations, shift=(0.0, 0.0, 0.0)):
    """Heads, tails and world rotations (xyzw) of TREE at ``rotations``, its root moved by ``shift``."""
    offsets = np.array(OFFSETS, dtype=float)
    offsets[0] += shift
    bones = Tree(np.eye(4), PARENTS, offsets, REST, LENGTHS).bone_tree
    posed = pose_matrices(*bones, np.ones(N), np.asarray(rotations, dtype=float))
    return posed[:, 6], posed[:, 7], matrix3_to_quat(posed[:, 3:6])


def pins_at(rotations, bones=FEET):
    heads, _, world = world_of(rotations)
    return [t for b in bones for t in (Task(POSITION, b, 0, tuple(heads[b])), Task(ROTATION, b, 0, tuple(world[b])))]


def solve(tasks, dofs=(None,) * N, start=IDENTITY, root_free=True, iterations=100):
    plan = priority_plan(TREE.bone_tree, tasks, column_layout(TREE.bone_tree, dofs, ALL, root_free))
    return solve_priority(plan, start, iterations, 1e-6)


def pose_from(turns):
    return np.array([quat_from_rotvec(np.asarray(t) * 0.5) for t in turns])


@settings(max_examples=40, deadline=None, derandomize=True)
@given(start=st.lists(vectors, min_size=N, max_size=N), direction=vectors, distance=far, other=vectors,
       limited=st.booleans())
def test_pins_hold_whatever_the_goals_below_ask(start, direction, distance, other, limited):
    """Both feet pinned where they start; a hand target near or absurdly far, a second goal
    pulling elsewhere: the feet hold to the stated tolerances, and nothing is NaN."""
    assume(np.linalg.norm(direction) > 0.1)
    rotations = pose_from(start)
    dofs = tuple(LIMITED if b in (2, 5, 8) else None for b in range(N))
    target = np.asarray(direction) / np.linalg.norm(direction) * distance
    tasks = pins_at(rotations) + [Task(POSITION, HAND, 1, tuple(target), use_tail=True),
                                  Task(POSITION, 7, 2, tuple(other), use_tail=True)]
    result = solve(tasks, dofs if limited else (None,) * N, rotations)
    assert np.isfinite(result.rotations).all() and np.isfinite(result.shift).all()
    heads, _, world = world_of(result.rotations, result.shift)
    start_heads, _, start_world = world_of(rotations)
    for foot in FEET:
        assert np.linalg.norm(heads[foot] - start_heads[foot]) <= PIN_POSITION
        assert quat_angle(world[foot], start_world[foot]) <= PIN_ROTATION


@settings(max_examples=30, deadline=None, derandomize=True)
@given(target=vectors, start=st.lists(vectors, min_size=N, max_size=N))
def test_limits_and_locks_hold_throughout(target, start):
    dofs = tuple(LIMITED if b not in (0,) else None for b in range(N))
    tasks = [Task(POSITION, HAND, 1, tuple(np.asarray(target) * 2), use_tail=True),
             Task(POSITION, 3, 2, (0.5, -0.5, 0.5), use_tail=True)]
    result = solve(tasks, dofs, pose_from(start))
    limit = (swing_twist_limit(LIMITED),)
    for b in range(1, N):
        assert limit_violation(limit, result.rotations[b]) <= 1e-9
        assert abs(swing_twist_angles(tuple(result.rotations[b]))[1]) <= 1e-9  # Y locked: no twist


@settings(max_examples=30, deadline=None, derandomize=True)
@given(first=vectors, second=vectors)
def test_a_lower_goal_never_disturbs_a_higher_one(first, second):
    """The hand's goal at level 1 is met as well with a conflicting goal at level 2 (on the elbow)
    as without it, and the level-2 goal does what it can in the freedom left."""
    target = tuple(np.array([0.4, 0.8, 0.2]) + 0.3 * np.asarray(first))
    alone = solve([Task(POSITION, HAND, 1, target, use_tail=True)], root_free=False)
    both = solve([Task(POSITION, HAND, 1, target, use_tail=True),
                  Task(POSITION, 8, 2, tuple(np.asarray(second) * 3), use_tail=True)], root_free=False)
    assume(alone.errors[0] <= 1e-6)  # reachable
    assert both.errors[0] <= 1e-6


def test_the_ground_pushes_up_and_never_pulls_down():
    """A hand dragged below the ground stops on it; one above it is left where it reaches."""
    ground = [Task(GROUND, b, 0, (0.0, 0.0, 0.0), use_tail=tail) for b in range(N) for tail in (False, True)]
    below = solve(pins_at(IDENTITY) + ground + [Task(POSITION, HAND, 1, (0.5, -0.5, 0.0), use_tail=True)])
    heads, tails, _ = world_of(below.rotations, below.shift)
    assert min(heads[:, 1].min(), tails[:, 1].min()) >= -PIN_POSITION
    assert np.linalg.norm(tails[HAND] - (0.5, 0.0, 0.0)) <= 1e-3  # as near as the ground lets it
    above = solve(pins_at(IDENTITY) + ground + [Task(POSITION, HAND, 1, (0.6, 0.2, 0.0), use_tail=True)])
    assert above.errors[-1] <= 1e-6


def test_the_root_moves_only_when_free():
    reach = [Task(POSITION, HAND, 1, (1.5, 0.5, 0.0), use_tail=True)]
    assert not solve(reach, root_free=False).shift.any()
    free = solve(reach)
    assert free.shift.any() and free.errors[0] < solve(reach, root_free=False).errors[0]


def test_inertia_slows_its_columns_on_the_lower_levels_and_leaves_their_answer():
    """The spine given inertia (as much as the scale) turns less than half as far in a step toward
    the hand's goal (level 1), the feet's pins (level 0) held as exactly; iterated, the goal is met
    all the same; inertia zero is none."""
    reach = Task(POSITION, HAND, 1, (0.55, 1.65, 0.05), use_tail=True)  # near: no step bound scales it
    layout = column_layout(TREE.bone_tree, (None,) * N, ALL, True)
    plan = priority_plan(TREE.bone_tree, pins_at(IDENTITY) + [reach], layout)
    spine = (layout.column_bone == 7) & (layout.column_kind != SHIFT)
    inertia = np.where(spine, 1.0, 0.0)

    def spine_turn(result):
        return quat_angle(result.rotations[7], IDENTITY[7])

    free, held = (solve_priority(plan, IDENTITY, 1, 1e-6, inertia=i) for i in (None, inertia))
    assert spine_turn(held) < 0.5 * spine_turn(free)
    heads, _, world = world_of(held.rotations, held.shift)
    start_heads, _, start_world = world_of(IDENTITY)
    for foot in FEET:
        assert np.linalg.norm(heads[foot] - start_heads[foot]) <= PIN_POSITION
        assert quat_angle(world[foot], start_world[foot]) <= PIN_ROTATION
    assert solve_priority(plan, IDENTITY, 200, 1e-6, inertia=inertia).errors[-1] <= 1e-6
    none, zero = (solve_priority(plan, IDENTITY, 3, 1e-6, inertia=i) for i in (None, np.zeros(len(spine))))
    assert np.array_equal(none.rotations, zero.rotations) and np.array_equal(none.shift, zero.shift)
    for wrong in (inertia[:-1], np.where(spine, np.nan, 0.0), -inertia):
        with pytest.raises(ValueError, match="inertia must be one finite value >= 0 per column"):
            solve_priority(plan, IDENTITY, 1, 1e-6, inertia=wrong)


def test_degenerate_input_gives_a_finite_answer():
    """A NaN start, zero-length bones and a target on a bone's head: finite rotations, pins held."""
    start = IDENTITY.copy()
    start[4] = np.nan
    result = solve(pins_at(IDENTITY) + [Task(POSITION, HAND, 1, (0.0, 1.0, 0.0), use_tail=True)], start=start)
    assert np.isfinite(result.rotations).all() and np.isfinite(result.errors).all()
    flat = Tree(np.eye(4), [-1, 0], [[0, 0, 0], [0, 0, 0]], [[0, 0, 0, 1]] * 2, [0.0, 0.0])
    plan = priority_plan(flat.bone_tree, [Task(POSITION, 1, 1, (1.0, 0.0, 0.0), use_tail=True)],
                         column_layout(flat.bone_tree, (None, None), (0, 1)))
    assert np.isfinite(solve_priority(plan, IDENTITY[:2]).rotations).all()


def offset_point(rotations, shift, bone, offset, turns):
    """Where a task's point at ``offset`` from ``bone``'s head is: turned with the bone, or not."""
    heads, _, world = world_of(rotations, shift)
    if not turns:
        return heads[bone] + offset
    return heads[bone] + quat_to_matrix3(world[bone]) @ offset


@settings(max_examples=20, deadline=None, derandomize=True)
@given(turns=st.booleans(), offset=vectors, target=vectors)
def test_a_point_at_an_offset_from_a_bone_stays_above_the_ground(turns, offset, target):
    """A point carried by the hand (in its axes, or in world axes along with its head) is held
    above the ground at the first level while the hand's tail is pulled down through it; without
    that task the same pull takes it below, so the task is what holds it."""
    offset = 0.2 * np.asarray(offset)
    goal = Task(POSITION, HAND, 1, (0.5 + 0.3 * target[0], -0.6, 0.3 * target[2]), use_tail=True)
    point = Task(GROUND, HAND, 0, (0.0, 0.0, 0.0), offset=tuple(offset), offset_turns=turns)
    free = solve(pins_at(IDENTITY) + [goal])
    assume(offset_point(free.rotations, free.shift, HAND, offset, turns)[1] < -0.01)
    held = solve(pins_at(IDENTITY) + [point, goal])
    assert offset_point(held.rotations, held.shift, HAND, offset, turns)[1] >= -PIN_POSITION
    assert held.errors[-2] <= PIN_POSITION


@settings(max_examples=20, deadline=None, derandomize=True)
@given(start=st.lists(vectors, min_size=N, max_size=N), offset=vectors, normal=vectors, turns=st.booleans())
def test_an_offset_points_ground_row_is_its_motion_along_the_normal(start, offset, normal, turns):
    """The ground row of a point at an offset, against finite differences of the point's height
    along the normal, column by column (each bone's own axes, then the root's shift)."""
    assume(np.linalg.norm(normal) > 0.1)
    normal = np.asarray(normal) / np.linalg.norm(normal)
    rotations, offset = pose_from(start), 0.3 * np.asarray(offset)
    task = Task(GROUND, HAND, 0, (0.0, 0.0, 0.0), normal=tuple(normal), offset=tuple(offset), offset_turns=turns)
    plan = priority_plan(TREE.bone_tree, [task], column_layout(TREE.bone_tree, (None,) * N, ALL, True))
    before, world, heads, tails = np.empty((N, 4)), np.empty((N, 4)), np.empty((N, 3)), np.empty((N, 3))
    pose_bones(plan.bones, None, rotations, before, world, heads, tails)
    axes = turn_axes(plan, np.zeros((N, 3)), before, world)
    row, _ = level_system(plan, 0, axes, world, heads, tails, np.ones(1, dtype=np.bool_))
    step = 1e-6
    for col, (kind, bone, axis) in enumerate(zip(plan.column_kind, plan.column_bone, plan.column_axis)):
        turned, shift = rotations.copy(), np.zeros(3)
        if kind == SHIFT:
            shift[axis] = step
        else:
            turned[bone] = quat_mul(turned[bone], quat_from_rotvec(np.eye(3)[axis] * step))
        moved = offset_point(turned, shift, HAND, offset, turns) - offset_point(rotations, np.zeros(3), HAND, offset, turns)
        assert abs(row[0, col] - normal @ moved / step) <= 1e-5
