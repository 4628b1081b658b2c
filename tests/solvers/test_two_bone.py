import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from solvers.chain import Chain, chain_pose, straight_chain
from solvers.transforms import (compose, matrix3_to_quat, quat_angle, quat_from_axis_angle, quat_mul, quat_normalize,
                                quat_to_matrix3, safe_acos)
from solvers import two_bone
from solvers.two_bone import TwoBoneLimbs, solve_two_bone, solve_two_bone_batch, validate_two_bone

ROOT = Path(__file__).resolve().parents[2]
IDENTITY = np.tile([0.0, 0.0, 0.0, 1.0], (2, 1))
coord = st.floats(-2.5, 2.5)
SETTINGS = settings(max_examples=50, derandomize=True, deadline=None)


def arm():
    """Upper 1.0 (head offset along Y), lower 0.8, a tilted base, a rest bend in the lower bone."""
    base = compose([0.2, 1.0, -0.3], quat_from_axis_angle([0.3, 1.0, 0.2], 0.9))
    rest = np.stack([quat_from_axis_angle([0.0, 1.0, 0.0], 0.2), quat_from_axis_angle([1.0, 0.0, 0.0], 0.3)])
    return Chain(base, [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]], rest, [1.0, 0.8])


def points(chain, result):
    return chain_pose(chain, result.rotations, result.stretch)[1]


@SETTINGS
@given(st.tuples(coord, coord, coord))
def test_reachable_targets_are_reached_and_lengths_kept(offset):
    chain = arm()
    root = chain_pose(chain, IDENTITY)[1][0]
    target = root + np.asarray(offset)
    distance = np.linalg.norm(offset)
    result = solve_two_bone(chain, IDENTITY, target)
    p = points(chain, result)
    assert np.linalg.norm(p[1] - p[0]) == pytest.approx(1.0, abs=1e-9)
    assert np.linalg.norm(p[2] - p[1]) == pytest.approx(0.8, abs=1e-9)
    if 0.2 + 1e-6 < distance < 1.8 - 1e-6:
        assert result.converged and np.linalg.norm(p[2] - target) < 1e-9
    elif distance >= 1.8:
        assert result.errors[0] == pytest.approx(distance - 1.8, abs=1e-9)
        np.testing.assert_allclose((p[2] - p[0]) / 1.8, (target - root) / distance, atol=1e-9)


@SETTINGS
@given(st.tuples(coord, coord, coord), st.tuples(coord, coord, coord))
def test_pole_puts_middle_joint_in_pole_half_plane(offset, pole_offset):
    chain = straight_chain([1.0, 0.8])
    bent = np.stack([IDENTITY[0], quat_from_axis_angle([1.0, 0.0, 0.0], 0.5)])
    target, pole = np.asarray(offset), np.asarray(pole_offset)
    axis = target / max(np.linalg.norm(target), 1e-12)
    pole_perp = pole - axis * np.dot(pole, axis)
    assume(0.3 < np.linalg.norm(target) < 1.7 and np.linalg.norm(pole_perp) >= 1e-2)
    # Bending about +X swings the lower bone toward +Z, so the knee sits on the first bone's -Z side.
    result = solve_two_bone(chain, bent, target, pole=pole, pole_angle=-np.pi / 2)
    p = points(chain, result)
    knee_perp = p[1] - axis * np.dot(p[1], axis)
    assert result.converged
    assert np.dot(knee_perp, pole_perp) / np.linalg.norm(knee_perp) / np.linalg.norm(pole_perp) > 1.0 - 1e-9


unit = st.tuples(coord, coord, coord).filter(lambda v: np.linalg.norm(v) > 0.1).map(lambda v: np.divide(
    v, np.linalg.norm(v)))


def posed_start(axis, turn, bend):
    """A continuous-mode start pose: the first bone turned ``turn`` about ``axis``, the elbow
    bent ``bend`` more than at rest (arm()'s rest bend is 0.3, so -0.3 is straight)."""
    return np.stack([quat_from_axis_angle(axis, turn), quat_from_axis_angle([1.0, 0.0, 0.0], bend)])


@SETTINGS
@given(unit, st.floats(0.0, 3.0), st.floats(-2.5, 2.5), unit, st.floats(0.3, 0.95), unit, st.floats(1e-4, 0.01))
def test_no_pole_small_target_moves_move_the_elbow_little(axis, turn, bend, direction, reach, step_dir, step):
    """Dragging the hand without a pole (continuous mode: each solve starts from the last) never
    flips the elbow: it moves at most 3 times as far as the target did (1.84 is the most seen in
    20,000 random tries with the target between 30% and 95% of the reach)."""
    chain = arm()
    root = chain_pose(chain, IDENTITY)[1][0]
    target = root + direction * reach * 1.8
    before = solve_two_bone(chain, posed_start(axis, turn, bend), target)
    after = solve_two_bone(chain, before.rotations, target + step_dir * step)
    assert after.converged
    assert np.linalg.norm(points(chain, after)[1] - points(chain, before)[1]) <= 3.0 * step


@SETTINGS
@given(unit, st.floats(0.0, 3.0), st.floats(-0.32, 2.5), unit, st.floats(0.3, 0.999), unit, st.floats(1e-4, 0.02))
def test_no_pole_sideways_drag_turns_the_limb_no_more_than_the_target(axis, turn, bend, direction, reach, side, step):
    """A target moved at a constant distance from the root keeps the bend, and the first bone
    turns by the least rotation that follows it, the angle the target turned about the root:
    no roll about the root-to-target line, so no twist flip even with the limb almost straight
    (an implicit pole, the elbow's side of that line, rolls up to 18 degrees per cm there)."""
    chain = arm()
    root = chain_pose(chain, IDENTITY)[1][0]
    distance = reach * 1.8
    target = root + direction * distance
    sideways = direction + step * (side - direction * (side @ direction))
    moved = root + sideways / np.linalg.norm(sideways) * distance
    before = solve_two_bone(chain, posed_start(axis, turn, bend), target)
    after = solve_two_bone(chain, before.rotations, moved)
    frames = [matrix3_to_quat(chain_pose(chain, r.rotations)[0]) for r in (before, after)]
    target_turn = safe_acos((target - root) @ (moved - root) / distance ** 2)
    assert after.converged
    assert np.all(quat_angle(frames[0], frames[1]) <= target_turn + 1e-7)


@SETTINGS
@given(unit, st.floats(0.0, 3.0), st.one_of(st.sampled_from([0.0, 1e-9, -1e-9]), st.floats(0.0, 2.8)),
       st.tuples(coord, coord, coord), st.booleans())
def test_single_and_batch_entries_agree_from_straight_and_bent_starts(axis, turn, bend, offset, tilted):
    """Both entry points run the one compiled solve, so a limb solved alone and in a batch gets
    the same pose and error to 1e-12. ``bend`` is counted from straight, so straight and all but
    straight starts are drawn: there the hinge comes from the rest bend."""
    chain = arm() if tilted else straight_chain([1.0, 0.8])
    start = posed_start(axis, turn, bend - (0.3 if tilted else 0.0))  # arm()'s rest bend is 0.3
    target = chain_pose(chain, IDENTITY)[1][0] + np.asarray(offset)
    result = solve_two_bone(chain, start, target)
    batch = solve_two_bone_batch(TwoBoneLimbs.from_chains([chain]), start[None], target[None])
    np.testing.assert_allclose(quat_to_matrix3(result.rotations), quat_to_matrix3(batch.rotations[0]), atol=1e-12)
    assert result.errors[0] == pytest.approx(batch.errors[0, 0], abs=1e-12)
    assert result.converged == batch.converged[0]
    assert (result.rotations[:, 3] >= 0.0).all()


@pytest.mark.parametrize("bend", [0.8, -0.3, 0.0])  # bent, straight, the rest bend
@pytest.mark.parametrize("along, error", [(1.2, 0.0), (0.3, 0.0), (2.0, 0.2), (0.0, 0.2)])
def test_no_pole_targets_on_the_root_elbow_line(bend, along, error):
    """Targets on the line through the root and the current elbow (at the root too) from bent
    and straight continuous starts: finite poses, the tip as near as the bones allow (reach 1.8,
    inner radius 0.2), and the batch path agrees."""
    chain, start = arm(), posed_start([0.0, 0.0, 1.0], 0.4, bend)
    root, elbow, _ = chain_pose(chain, start)[1]
    target = root + (elbow - root) * along
    result = solve_two_bone(chain, start, target)
    batch = solve_two_bone_batch(TwoBoneLimbs.from_chains([chain]), start[None], target[None])
    assert np.isfinite(result.rotations).all()
    assert result.errors[0] == pytest.approx(error, abs=1e-9)
    np.testing.assert_allclose(batch.rotations[0], result.rotations, atol=1e-12)


def test_hand_solved_right_angle():
    chain = straight_chain([1.0, 1.0])
    result = solve_two_bone(chain, IDENTITY, [1.0, 1.0, 0.0], pole=[1.0, 1.0, -5.0], pole_angle=-np.pi / 2)
    p = points(chain, result)
    # Target at (1, 1, 0) with equal bones of 1: the elbow bends 90 degrees; either (0, 1, 0) or
    # (1, 0, 0) solves it, and the pole at -Z rolls the knee out of the XY plane: the two
    # candidates rotate about the root-target line toward -Z, landing at (0.5, 0.5, -0.7071).
    np.testing.assert_allclose(p[1], [0.5, 0.5, -np.sqrt(0.5)], atol=1e-12)
    np.testing.assert_allclose(p[2], [1.0, 1.0, 0.0], atol=1e-12)


def test_stretch_reaches_far_target_with_weighted_scales():
    chain = straight_chain([1.0, 1.0])
    result = solve_two_bone(chain, IDENTITY, [0.0, 0.0, 3.0], stretch=[1.0, 0.0])
    np.testing.assert_allclose(result.stretch, [2.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(points(chain, result)[-1], [0.0, 0.0, 3.0], atol=1e-9)
    assert result.converged
    near = solve_two_bone(chain, IDENTITY, [0.0, 0.0, 1.5], stretch=[1.0, 1.0])
    np.testing.assert_array_equal(near.stretch, [1.0, 1.0])


def test_soft_reach_eases_and_stays_continuous():
    chain = straight_chain([1.0, 1.0])
    distances = np.linspace(1.5, 2.5, 201)
    tips = np.array([np.linalg.norm(points(chain, solve_two_bone(chain, IDENTITY, [0.0, d, 0.1], soft=0.2))[-1])
                     for d in distances])
    reach_of = np.hypot(distances, 0.1)
    assert np.all(np.diff(tips) > 0) and np.all(tips < 2.0)
    np.testing.assert_allclose(tips[reach_of < 1.8], reach_of[reach_of < 1.8], atol=1e-9)
    assert tips[-1] > 2.0 - 0.2 * np.exp(-3.0)
    stretched = solve_two_bone(chain, IDENTITY, [0.0, 1.95, 0.0], soft=0.2, stretch=[1.0, 1.0])
    assert stretched.converged and stretched.stretch[0] > 1.0


def test_no_jitter_at_full_extension():
    chain = straight_chain([1.0, 1.0])
    pose = IDENTITY
    knees = []
    for step in range(20):
        result = solve_two_bone(chain, pose, [0.0, 2.0 + 1e-12 * (-1) ** step, 0.0])
        knees.append(points(chain, result)[1])
        pose = result.rotations
    knees = np.array(knees)
    # A target hovering at full reach keeps the knee within microns and on one side of the line.
    assert np.abs(knees - [0.0, 1.0, 0.0]).max() < 1e-5
    assert np.all(knees[:, 2] <= 1e-15) or np.all(knees[:, 2] >= -1e-15)
    assert np.abs(knees[:, 0]).max() < 1e-15
    bend = solve_two_bone(chain, pose, [0.0, 1.9, 0.0])
    assert abs(points(chain, bend)[1][0]) < 1e-12


def test_end_rotation_goal_twists_end_bone_without_moving_tip():
    chain = straight_chain([1.0, 1.0])
    goal = quat_normalize(quat_mul(quat_from_axis_angle([0.0, 1.0, 0.0], 1.0), quat_from_axis_angle([1.0, 0, 0], 0.4)))
    free = solve_two_bone(chain, IDENTITY, [0.3, 1.2, 0.4])
    full = solve_two_bone(chain, IDENTITY, [0.3, 1.2, 0.4], end_rotation=goal, end_weight=1.0)
    half = solve_two_bone(chain, IDENTITY, [0.3, 1.2, 0.4], end_rotation=goal, end_weight=0.5)
    assert full.converged and half.converged
    np.testing.assert_allclose(points(chain, full)[-1], [0.3, 1.2, 0.4], atol=1e-9)
    world = lambda r: chain_pose(chain, r.rotations)[0][1]
    free_angle = np.arccos(np.clip((np.trace(world(free).T @ chain_pose(chain, IDENTITY)[0][1] @ np.eye(3)) - 1) / 2, -1, 1))
    assert full.errors[1] < half.errors[1]
    assert full.errors[1] < free_angle
    ends = [chain_pose(chain, r.rotations)[1][-1] for r in (full, half)]
    np.testing.assert_allclose(ends[0], ends[1], atol=1e-9)


def test_degenerate_inputs_never_nan():
    chain = straight_chain([1.0, 1.0])
    start = np.stack([quat_from_axis_angle([0, 0, 1.0], 0.2), quat_from_axis_angle([1.0, 0, 0], 0.3)])
    for target, pole in [([0.0, 0.0, 0.0], None), ([0.0, 1.0, 0.0], [0.0, 3.0, 0.0]), ([0.0, 1.5, 0.0], None)]:
        result = solve_two_bone(chain, IDENTITY, target, pole=pole)
        assert np.isfinite(result.rotations).all() and np.isfinite(result.errors).all()
    colinear = solve_two_bone(chain, IDENTITY, [0.0, 1.5, 0.0])
    assert colinear.converged
    folded = np.array([[0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0]])  # exactly: no rounding picks the axis
    # Half turns: the elbow unfolds from folded flat, the tip turns from straight up to straight down.
    for rotations, target in [(folded, [0.0, 2.5, 0.0]), (folded, [0.0, 1.9, 0.0]), (IDENTITY, [0.0, -2.5, 0.0])]:
        result = solve_two_bone(chain, rotations, target)
        assert np.isfinite(result.rotations).all()
        tip = chain_pose(chain, result.rotations)[1][-1]
        np.testing.assert_allclose(tip, np.asarray(target) * min(1.0, 2.0 / np.linalg.norm(target)), atol=1e-9)
    for bad in ([np.nan, 0.0, 0.0], [np.inf, 1.0, 0.0]):
        result = solve_two_bone(chain, start, bad)
        np.testing.assert_array_equal(result.rotations, start)
        assert not result.converged
    zero = Chain(np.eye(4), [[0, 0, 0], [0, 0, 0]], IDENTITY, [0.0, 1.0])
    result = solve_two_bone(zero, IDENTITY, [0.0, 0.0, 1.0])
    assert result.converged and np.isfinite(result.rotations).all()


def test_batch_matches_single_solves_and_is_deterministic():
    rng = np.random.default_rng(7)
    chains = [arm(), straight_chain([0.5, 1.5]), straight_chain([1.0, 1.0])] * 10
    limbs = TwoBoneLimbs.from_chains(chains)
    count = len(chains)
    rotations = quat_normalize(np.tile(IDENTITY, (count, 1, 1)) + 0.2 * rng.normal(size=(count, 2, 4)))
    targets = rng.normal(size=(count, 3)) * 1.5
    targets[3] = np.nan
    poles = rng.normal(size=(count, 3)) * 3
    stretch = rng.uniform(0, 1, size=(count, 2))
    goals = quat_normalize(rng.normal(size=(count, 4)))
    kwargs = dict(stretch=stretch, soft=0.1, end_rotations=goals, end_weights=0.7)
    batch = solve_two_bone_batch(limbs, rotations, targets, poles, 0.3, **kwargs)
    again = solve_two_bone_batch(limbs, rotations, targets, poles, 0.3, **kwargs)
    assert batch.rotations.tobytes() == again.rotations.tobytes()
    for i, chain in enumerate(chains):
        single = solve_two_bone(chain, rotations[i], targets[i], poles[i], 0.3, stretch=stretch[i], soft=0.1,
                                end_rotation=goals[i], end_weight=0.7)
        np.testing.assert_allclose(batch.rotations[i], single.rotations, atol=1e-9)
        np.testing.assert_allclose(batch.stretch[i], single.stretch, atol=1e-9)
        assert batch.converged[i] == single.converged
    np.testing.assert_array_equal(batch.rotations[3], rotations[3])


def random_limbs(rng, count):
    """Seeded limbs: tilted bases, rest bends, offsets off the Y axis, a zero-length lower bone."""
    chains = []
    for i in range(count):
        base = compose(rng.normal(size=3), quat_normalize(rng.normal(size=4)))
        rest = quat_normalize(np.array([[0, 0, 0, 1.0], [0, 0, 0, 1.0]]) + 0.3 * rng.normal(size=(2, 4)) * (i % 3 > 0))
        offsets = [rng.normal(size=3) * 0.1, [0.05 * rng.normal(), rng.uniform(0.3, 1.5), 0.05 * rng.normal()]]
        chains.append(Chain(base, offsets, rest, [rng.uniform(0.3, 1.5), 0.0 if i == 7 else rng.uniform(0.3, 1.5)]))
    return chains


def degenerate_inputs(chains, rotations, targets, poles):
    """Targets at the root and far away, poles on the aim line and at the root, NaN and inf."""
    roots = [chain_pose(c, r)[1][0] for c, r in zip(chains, rotations)]
    targets[4], targets[5], targets[6] = roots[4], roots[5] + [0.0, 9.0, 0.0], [np.nan, 0.0, 0.0]
    poles[8], poles[9], poles[10] = targets[8] + 2.0 * (targets[8] - roots[8]), roots[9], [0.0, np.inf, 0.0]
    rotations[:3] = IDENTITY  # straight limbs: the hinge falls back to the rest bend or X


@pytest.mark.parametrize("use_pole, stretchy, use_end", [(False, False, False), (True, False, False),
                                                         (True, True, True), (False, True, True)])
def test_batch_matches_single_solves_to_the_last_bits(use_pole, stretchy, use_end):
    """Batch lanes and single float solves run one algorithm: same poses to 1e-12, per limb."""
    rng = np.random.default_rng(11)
    count = 60
    chains = random_limbs(rng, count)
    rotations = quat_normalize(np.tile(IDENTITY, (count, 1, 1)) + 0.3 * rng.normal(size=(count, 2, 4)))
    targets = np.array([chain_pose(c, IDENTITY)[1][0] for c in chains]) + rng.normal(size=(count, 3)) * 1.5
    poles = rng.normal(size=(count, 3)) * 3
    degenerate_inputs(chains, rotations, targets, poles)
    poles = poles if use_pole else None
    angles, soft = rng.uniform(-np.pi, np.pi, count), np.where(rng.uniform(size=count) < 0.5, 0.0, 0.2)
    stretch = rng.uniform(0, 1, size=(count, 2)) * (rng.uniform(size=(count, 1)) < 0.7) if stretchy else None
    goals, weights = (quat_normalize(rng.normal(size=(count, 4))), rng.uniform(0, 1, count)) if use_end else (None, 1.0)
    batch = solve_two_bone_batch(TwoBoneLimbs.from_chains(chains), rotations, targets, poles, angles, stretch=stretch,
                                 soft=soft, end_rotations=goals, end_weights=weights)
    for i, chain in enumerate(chains):
        single = solve_two_bone(chain, rotations[i], targets[i], None if poles is None else poles[i], angles[i],
                                stretch=None if stretch is None else stretch[i], soft=soft[i],
                                end_rotation=None if goals is None else goals[i],
                                end_weight=weights[i] if use_end else 1.0)
        np.testing.assert_allclose(quat_to_matrix3(single.rotations), quat_to_matrix3(batch.rotations[i]), atol=1e-12)
        np.testing.assert_allclose(single.stretch, batch.stretch[i], atol=1e-12)
        np.testing.assert_allclose(single.errors, batch.errors[i], atol=1e-12)
        assert single.converged == batch.converged[i]
    assert np.isfinite(batch.rotations).all()
    assert not batch.converged[6] and (batch.errors[6] == np.inf).all()
    np.testing.assert_array_equal(batch.rotations[6], rotations[6])


def test_validation():
    with pytest.raises(ValueError):
        validate_two_bone(straight_chain([1.0, 1.0, 1.0]))


def test_each_kernel_is_compiled_for_one_set_of_argument_types():
    """Whatever array kinds and number types the entry points get, they hand the kernels one set of
    argument types, so the kernels ``warm`` loads are the only ones (no compile mid-session)."""
    two_bone.warm()
    chain = arm()
    readonly = np.tile(IDENTITY, (3, 1, 1))
    readonly.flags.writeable = False
    fortran = np.asfortranarray(np.tile([0.3, 1.0, 0.2], (3, 1)))
    for start, target in [(IDENTITY.tolist(), (1, 1, 0)), (tuple(map(tuple, IDENTITY)), [0.5, 1.0, 0.0]),
                          (readonly[0], np.array([1, 2, 0])), (IDENTITY.astype(np.float32), fortran[0])]:
        solve_two_bone(chain, start, target)
        solve_two_bone(chain, start, target, (0, 0, 1), 1, stretch=(1, 0), soft=0, end_rotation=(0, 0, 0, 1),
                       end_weight=1)
    limbs = TwoBoneLimbs.from_chains([chain] * 3)
    solve_two_bone_batch(limbs, readonly, fortran)
    solve_two_bone_batch(limbs, readonly[:, :, :], fortran, fortran, 1, stretch=[1, 0], soft=np.float32(0.1),
                         end_rotations=[0, 0, 0, 1], end_weights=[1, 0, 1])
    assert len(two_bone._solve_one.signatures) == 1 and len(two_bone._solve_many.signatures) == 1


def batch_poses(seed):
    """Seeded limbs solved by the batch entry with pole, stretch, soft reach and end rotation."""
    rng = np.random.default_rng(seed)
    count = 20
    chains = random_limbs(rng, count)
    rotations = quat_normalize(np.tile(IDENTITY, (count, 1, 1)) + 0.3 * rng.normal(size=(count, 2, 4)))
    targets = np.array([chain_pose(c, IDENTITY)[1][0] for c in chains]) + rng.normal(size=(count, 3)) * 1.5
    batch = solve_two_bone_batch(TwoBoneLimbs.from_chains(chains), rotations, targets, rng.normal(size=(count, 3)),
                                 0.4, stretch=rng.uniform(0, 1, (count, 2)), soft=0.1,
                                 end_rotations=quat_normalize(rng.normal(size=(count, 4))), end_weights=0.6)
    return np.concatenate([batch.rotations.reshape(count, -1), batch.stretch, batch.errors], axis=1)


def test_compiled_kernels_run_the_source_as_it_is_now(tmp_path):
    """The kernels run the Python source (this module's and ``scalar``'s helpers) compiled; the same
    source run as plain Python (numba's jit off) gives the same poses. numba keys its cache on
    two_bone.py alone, so this fails on a kernel cached before an edit to ``scalar``: then delete
    solvers/__pycache__/two_bone*.nb*."""
    script = f"import sys; sys.path.insert(0, {str(ROOT)!r}); import numpy as np; " \
             "from tests.solvers.test_two_bone import batch_poses; np.save(sys.argv[1], batch_poses(3))"
    out = tmp_path / "poses.npy"
    subprocess.run([sys.executable, "-c", script, str(out)], check=True, env=dict(os.environ, NUMBA_DISABLE_JIT="1"))
    np.testing.assert_allclose(batch_poses(3), np.load(out), atol=1e-12)
