"""`app.py solve` with a top-level "simulation": the cases as frames in time (iTaSC's Simulation
mode), measured as the issue asks: no bone faster than its max velocity over 1,000 seeded target
jumps, a still target reached as the Animation mode reaches it within 2 s of simulated time, a
target jumping across the body followed smoothly; reiteration; and bad input refused in one line."""
import json
from pathlib import Path

import numpy as np
import pytest

import app
from rig.motion import case_rotations, motion
from solvers.tolerances import VELOCITY_BOUND

RIG = "assets/humanoid.json"
SHOULDER = np.array([0.19, 1.42, -0.04])  # upper_arm.L's head at rest
ARM, REACH_CHAIN = ("forearm.L", 2), ("hand.L", 4)  # a two-bone arm; clavicle to hand
JOINTS = {ARM: ("upper_arm.L", "forearm.L"), REACH_CHAIN: ("clavicle.L", "upper_arm.L", "forearm.L", "hand.L")}
DT, MAX_VELOCITY = 1.0 / 30.0, 5.0
CLOSE = 1e-4  # metres: the "converged to the animation-mode answer"


def run(tmp_path, document, name="goals.json"):
    goals = tmp_path / name
    goals.write_text(json.dumps(document))
    out = tmp_path / "out.json"
    status = app.main(["solve", RIG, str(goals), "-o", str(out)])
    return status, (json.loads(out.read_text()) if status == 0 else None)


def frames(chain, targets):
    bone, length = chain
    return [{"goals": [{"bone": bone, "chain_length": length, "target": [float(x) for x in t]}]} for t in targets]


def simulated(tmp_path, chain, targets, reiteration="never", max_velocity=MAX_VELOCITY, solver="auto"):
    sim = {"dt": DT, "max_velocity": max_velocity, "feedback": 20.0, "reiteration": reiteration}
    status, out = run(tmp_path, {"solver": solver, "simulation": sim, "cases": frames(chain, targets)})
    assert status == 0
    return out


def tips(out, bone):
    return np.array([case["bones"][bone]["tail"] for case in out["cases"]])


@pytest.mark.parametrize("chain", [ARM, REACH_CHAIN])
def test_no_bone_turns_faster_than_max_velocity_over_1000_seeded_target_jumps(tmp_path, chain):
    targets = SHOULDER + np.random.default_rng(7).uniform(-0.75, 0.75, (1000, 3))  # a new target every frame
    speed = motion(case_rotations(simulated(tmp_path, chain, targets)), DT).speed
    assert (speed * DT <= MAX_VELOCITY * DT + VELOCITY_BOUND).all()
    assert speed.max() > 0.9 * MAX_VELOCITY  # the bound was reached, not avoided


@pytest.mark.parametrize("chain", [ARM, REACH_CHAIN])
def test_a_still_target_is_met_as_the_animation_mode_meets_it_within_2_seconds(tmp_path, chain):
    targets = SHOULDER + np.random.default_rng(11).uniform(-0.4, 0.4, (6, 3))
    _, animation = run(tmp_path, {"cases": frames(chain, targets)}, "animation.json")
    for target, answer in zip(targets, animation["cases"]):
        if answer["error"] > CLOSE:
            continue  # beyond reach: the next test
        out = simulated(tmp_path, chain, [target] * round(2.0 / DT))
        assert np.linalg.norm(tips(out, chain[0])[-1] - answer["bones"][chain[0]]["tail"]) <= CLOSE
        assert out["cases"][0]["error"] > 10 * CLOSE  # it moved there in time, not at once


def joints(case, chain):
    """The chain's joints in an output case: every bone's head, then the tip (the tail of the
    last). A straight chain's answer fixes them, not each bone's twist about its own line."""
    bones = JOINTS[chain]
    return np.array([case["bones"][b]["head"] for b in bones] + [case["bones"][bones[-1]]["tail"]])


@pytest.mark.parametrize("chain", [ARM, REACH_CHAIN])
def test_a_still_target_beyond_reach_is_met_as_the_animation_mode_stretches_to_it_within_2_seconds(tmp_path, chain):
    """Beyond reach the Animation mode's answer is the chain stretched straight at the target:
    the tip and every joint of the simulated chain are within 1e-4 m of it after 2 s, from
    targets just out of reach (where the set damping made the chain creep) to twice its reach
    (where the chain rocked across the straight pose), and stay there."""
    rest = {bone["name"]: bone for bone in json.loads(Path(RIG).read_text())["bones"]}
    points = np.array([rest[b]["head"] for b in JOINTS[chain]] + [rest[JOINTS[chain][-1]]["tail"]])
    reach = np.linalg.norm(np.diff(points, axis=0), axis=1).sum()
    rng = np.random.default_rng(13)
    toward = rng.normal(size=(6, 3))
    targets = points[0] + toward / np.linalg.norm(toward, axis=1)[:, None] * reach * rng.uniform(1.02, 2.0, (6, 1))
    _, animation = run(tmp_path, {"cases": frames(chain, targets)}, "animation.json")
    for target, answer in zip(targets, animation["cases"]):
        assert answer["error"] > 0.01  # out of reach indeed
        out = simulated(tmp_path, chain, [target] * round(3.0 / DT))
        gaps = [np.linalg.norm(joints(case, chain) - joints(answer, chain), axis=1).max() for case in out["cases"]]
        assert max(gaps[round(2.0 / DT) - 1:]) <= CLOSE


@pytest.mark.parametrize("chain", [ARM, REACH_CHAIN])
def test_a_target_jumping_across_the_body_is_followed_with_no_pop(tmp_path, chain):
    left, right = SHOULDER + (0.3, -0.25, 0.25), SHOULDER + (-0.3, -0.2, 0.3)  # across the midline
    out = simulated(tmp_path, chain, [left] * 30 + [right] * 60, reiteration="initial")
    moving = motion(case_rotations(out), DT)
    assert (moving.speed * DT <= MAX_VELOCITY * DT + VELOCITY_BOUND).all()
    # The velocity changes by at most max velocity a frame: from rest to full speed, never a
    # reversal at full speed (a pop or a shudder would be up to twice that).
    assert moving.acceleration.max() * DT <= MAX_VELOCITY * (1 + 1e-6)
    assert out["cases"][29]["error"] < CLOSE and out["cases"][30]["error"] > 0.3 and out["cases"][-1]["error"] < CLOSE


def test_reiteration_never_initial_always(tmp_path):
    far = [SHOULDER + (0.3, -0.25, 0.25)] * 2 + [SHOULDER + (-0.3, -0.2, 0.3)] * 2
    errors = {r: [c["error"] for c in simulated(tmp_path, ARM, far, r, max_velocity=1.0)["cases"]]
              for r in ("never", "initial", "always")}
    assert errors["never"][0] > 0.1  # from rest, one step only, even on the first frame
    assert errors["initial"][0] < CLOSE and errors["initial"][2] > 0.1  # converged first, then steps
    assert max(errors["always"]) < CLOSE  # converges every frame, the velocity bound given up


def test_a_forced_geometric_method_says_it_does_not_step_in_time_and_sdls_does(tmp_path):
    target = [SHOULDER + (0.3, -0.25, 0.25)]
    jumped = simulated(tmp_path, REACH_CHAIN, target, solver="fabrik")["cases"][0]
    assert jumped["error"] < CLOSE
    assert [n.split(":")[0] for n in jumped["residuals"][0]["not_honoured"]] == ["simulation"]
    stepped = simulated(tmp_path, REACH_CHAIN, target, solver="sdls")["cases"][0]
    assert stepped["error"] > 0.1 and stepped["residuals"][0]["not_honoured"] == []


@pytest.mark.parametrize("simulation, field", [
    ({}, "simulation.dt"),
    ({"dt": 0}, "simulation.dt"),
    ({"dt": "0.1"}, "simulation.dt"),
    ({"dt": 1e9}, "simulation.dt"),
    ({"dt": 0.1, "max_velocity": -1}, "simulation.max_velocity"),
    ({"dt": 0.1, "feedback": 1e6}, "simulation.feedback"),
    ({"dt": 0.1, "reiteration": "sometimes"}, "simulation.reiteration"),
    ({"dt": 0.1, "substeps": 4}, "simulation.substeps"),
])
def test_bad_simulation_settings_exit_2_naming_the_file_and_field(tmp_path, capsys, simulation, field):
    status, _ = run(tmp_path, {"simulation": simulation, "cases": frames(ARM, [SHOULDER])})
    assert status == 2
    message = capsys.readouterr().err
    assert str(tmp_path / "goals.json") in message and f"'{field}'" in message and message.count("\n") == 1


def test_pins_beside_a_simulation_are_refused_the_priority_solver_does_not_step_in_time(tmp_path, capsys):
    case = {"goals": frames(ARM, [SHOULDER])[0]["goals"] + [{"bone": "foot.L", "pin": True}]}
    status, _ = run(tmp_path, {"simulation": {"dt": 0.1}, "cases": [case]})
    assert status == 2 and "'simulation'" in capsys.readouterr().err


def test_a_non_finite_dt_and_a_simulation_that_is_no_object_are_refused(tmp_path, capsys):
    goals = tmp_path / "goals.json"
    for text, field in (('{"simulation": {"dt": NaN}, "cases": []}', "simulation.dt"),
                        ('{"simulation": 0.1, "cases": []}', "simulation")):
        goals.write_text(text)
        assert app.main(["solve", RIG, str(goals), "-o", str(tmp_path / "out.json")]) == 2
        assert f"'{field}'" in capsys.readouterr().err
    assert not (tmp_path / "out.json").exists()
