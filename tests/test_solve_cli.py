"""`python app.py solve RIG GOALS.json -o OUT.json`: scripted posing from the rest pose."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import app
from rig.constraints import IKConstraint
from rig.formats.rigfile import load_rig
from solvers.transforms import quat_to_matrix3

RIG = "assets/humanoid.json"
GLB = "assets/humanoid_skinned.glb"


def run(tmp_path, document, rig=RIG):
    goals = tmp_path / "goals.json"
    goals.write_text(json.dumps(document))
    out = tmp_path / "out.json"
    status = app.main(["solve", rig, str(goals), "-o", str(out)])
    return status, (json.loads(out.read_text()) if status == 0 else None)


def arm_goal(**extra):
    return {"bone": "forearm.L", "chain_length": 2, "target": [0.45, 1.15, 0.25], **extra}


def test_each_case_reaches_its_target_and_reports_error_iterations_and_time(tmp_path):
    status, out = run(tmp_path, {"cases": [{"goals": [arm_goal()]}, {"goals": [arm_goal(target=[0.5, 1.3, 0.1])]}]})
    assert status == 0 and len(out["cases"]) == 2
    for case, target in zip(out["cases"], ([0.45, 1.15, 0.25], [0.5, 1.3, 0.1])):
        assert np.linalg.norm(np.array(case["bones"]["forearm.L"]["tail"]) - target) < 1e-9
        assert case["error"] < 1e-9 and case["iterations"] >= 1 and 0 < case["seconds"] < 1
    rig = load_rig(RIG)
    bones = out["cases"][0]["bones"]
    assert set(bones) == set(rig.skeleton.names)
    lengths = [np.linalg.norm(np.subtract(bones[n]["tail"], bones[n]["head"])) for n in rig.skeleton.names]
    np.testing.assert_allclose(lengths, rig.skeleton.lengths, atol=1e-12)
    # Each case starts from rest: bones outside the chain did not move.
    rest_tail = rig.skeleton.rest_tails[rig.skeleton.index["forearm.R"]]
    np.testing.assert_allclose(out["cases"][1]["bones"]["forearm.R"]["tail"], rest_tail, atol=1e-12)


def test_pole_swings_the_elbow_toward_it(tmp_path):
    # The rig's own pole angle for this arm is the one that makes the elbow face the pole.
    pole_angle = next(c.pole_angle for c in load_rig(RIG).ik if c.bone == "forearm.L")
    for pole in ([0.3, 1.2, -0.6], [0.3, 1.2, 0.8]):
        _, out = run(tmp_path, {"cases": [{"goals": [arm_goal(pole=pole, pole_angle=pole_angle)]}]})
        bones = out["cases"][0]["bones"]
        shoulder, elbow = np.array(bones["upper_arm.L"]["head"]), np.array(bones["upper_arm.L"]["tail"])
        axis = np.array([0.45, 1.15, 0.25]) - shoulder
        axis /= np.linalg.norm(axis)

        def off_axis(p):
            v = np.asarray(p) - shoulder
            return v - axis * (v @ axis)
        assert off_axis(elbow) @ off_axis(pole) > 0


def test_unreachable_target_straightens_the_chain_toward_it(tmp_path):
    far = [2.0, 1.4, 0.0]
    _, out = run(tmp_path, {"solver": "fabrik", "cases": [{"goals": [arm_goal(target=far)]}]})
    bones = out["cases"][0]["bones"]
    shoulder = np.array(bones["upper_arm.L"]["head"])
    reach = sum(np.linalg.norm(np.subtract(bones[n]["tail"], bones[n]["head"])) for n in ("upper_arm.L", "forearm.L"))
    assert out["cases"][0]["error"] == pytest.approx(np.linalg.norm(far - shoulder) - reach, abs=1e-6)
    direction = (far - shoulder) / np.linalg.norm(far - shoulder)
    np.testing.assert_allclose(bones["forearm.L"]["tail"], shoulder + direction * reach, atol=1e-6)


@pytest.mark.parametrize("solver", ["auto", "two_bone", "fabrik", "ccd", "dls"])
def test_every_solver_name_solves_and_repeats_bit_for_bit(tmp_path, solver):
    document = {"solver": solver, "iterations": 200, "tolerance": 1e-6, "cases": [{"goals": [arm_goal()]}]}
    _, first = run(tmp_path, document)
    _, second = run(tmp_path, document)
    assert first["cases"][0]["error"] < 1e-4
    assert first["cases"][0]["bones"] == second["cases"][0]["bones"]


def test_goals_sharing_bones_solve_as_one_tree(tmp_path):
    goals = [{"bone": "forearm.L", "target": [0.4, 1.5, 0.3]},
             {"bone": "forearm.R", "target": [-0.4, 1.5, 0.3]}]
    _, out = run(tmp_path, {"cases": [{"goals": goals}]})
    bones = out["cases"][0]["bones"]
    assert out["cases"][0]["error"] < 1e-4
    for goal in goals:
        assert np.linalg.norm(np.subtract(bones[goal["bone"]]["tail"], goal["target"])) < 1e-4


@pytest.mark.parametrize("case, field", [
    ({"goals": [{"bone": "nope", "target": [0, 1, 0]}]}, "cases[0].goals[0].bone"),
    ({"goals": [{"bone": "forearm.L"}]}, "cases[0].goals[0].target"),
    ({"goals": [{"bone": "forearm.L", "target": [0, "x", 0]}]}, "cases[0].goals[0].target"),
    ({"goals": [{"bone": "forearm.L", "target": [0, 1, 0], "rotation": [0, 0, 0, 0]}]}, "cases[0].goals[0].rotation"),
    ({"goals": [{"bone": "forearm.L", "target": [0, 1, 0], "weight": -1}]}, "cases[0].goals[0].weight"),
    ({"goals": []}, "cases[0].goals"),
])
def test_bad_goals_exit_2_naming_the_case_and_field(tmp_path, capsys, case, field):
    status, _ = run(tmp_path, {"cases": [case]})
    assert status == 2
    message = capsys.readouterr().err
    assert f"field '{field}'" in message and message.count("\n") == 1


def test_non_finite_numbers_are_rejected(tmp_path, capsys):
    goals = tmp_path / "goals.json"
    goals.write_text('{"cases": [{"goals": [{"bone": "forearm.L", "target": [NaN, 1, 0]}]}]}')
    assert app.main(["solve", RIG, str(goals), "-o", str(tmp_path / "out.json")]) == 2
    assert "cases[0].goals[0].target" in capsys.readouterr().err
    assert not (tmp_path / "out.json").exists()


def test_each_goal_reports_its_residual_in_its_own_unit_and_the_method_that_ran(tmp_path):
    one_bone = {"bone": "head", "chain_length": 1, "target": [0.3, 2.0, 0.4]}
    status, out = run(tmp_path, {"cases": [{"goals": [arm_goal(target=[3.0, 1.2, 0.2])]}, {"goals": [one_bone]}]})
    assert status == 0
    [far], [aim] = out["cases"][0]["residuals"], out["cases"][1]["residuals"]
    assert (far["bone"], far["method"], far["unit"]) == ("forearm.L", "two_bone", "m") and far["residual"] > 2.0
    assert far["reached"] is False and aim["reached"] is True
    assert out["cases"][0]["error"] == far["residual"]
    assert (aim["bone"], aim["method"], aim["unit"]) == ("head", "one_bone", "rad") and aim["residual"] < 1e-9
    assert out["cases"][1]["error"] == 0.0  # no position goal: the metres figure does not take an angle


def test_each_bone_reports_its_pose_rotation_and_scale_so_a_script_can_apply_the_solution(tmp_path):
    from rig.pose import Pose, heads_tails, world_matrices
    status, out = run(tmp_path, {"cases": [{"goals": [arm_goal()]}]})
    assert status == 0
    rig = load_rig(RIG)
    bones = out["cases"][0]["bones"]
    pose = Pose.rest(len(rig.skeleton))
    for i, name in enumerate(rig.skeleton.names):
        pose.rotations[i] = bones[name]["rotation"]
        pose.scales[i] = bones[name]["scale"]
    heads, tails = heads_tails(rig.skeleton, world_matrices(rig.skeleton, pose))
    np.testing.assert_allclose(tails, [bones[n]["tail"] for n in rig.skeleton.names], atol=1e-9)
    np.testing.assert_allclose(heads, [bones[n]["head"] for n in rig.skeleton.names], atol=1e-9)
    assert not np.allclose(bones["forearm.L"]["rotation"], [0, 0, 0, 1])


def test_a_forced_method_that_cannot_take_the_chain_is_named_with_the_reason(tmp_path):
    goal = {"bone": "hand.L", "chain_length": 3, "target": [0.45, 1.15, 0.25]}
    status, out = run(tmp_path, {"solver": "two_bone", "cases": [{"goals": [goal]}]})
    assert status == 0
    residual = out["cases"][0]["residuals"][0]
    assert residual["method"] != "two_bone"
    assert residual["not_honoured"] == ["two_bone takes chains of 2 bones, this one has 3: auto's methods ran instead"]


def test_a_goal_with_a_rotation_reports_both_residuals_each_in_its_unit(tmp_path):
    turned = arm_goal(rotation=[0.0, 0.0, 0.3826834, 0.9238795])
    status, out = run(tmp_path, {"solver": "dls", "cases": [{"goals": [turned]}]})
    assert status == 0
    [report] = out["cases"][0]["residuals"]
    assert [(g["goal"], g["unit"]) for g in report["goals"]] == [("position", "m"), ("rotation", "rad")]
    assert report["goals"][0]["residual"] == report["residual"] and report["unit"] == "m"
    assert all(np.isfinite(g["residual"]) and g["residual"] >= 0.0 for g in report["goals"])


@pytest.mark.parametrize("mode, radius", [("inside", 0.2), ("outside", 0.5), ("on_surface", 0.3)])
def test_a_distance_goal_keeps_the_tip_inside_outside_or_on_its_sphere(tmp_path, mode, radius):
    """iTaSC's distance goal, as a rig constraint has it: ``ik_type`` "distance" with ``distance``
    and ``limit_mode``; the tip ends within, beyond or on that distance of the target."""
    target = np.array([0.45, 1.15, 0.25])
    goal = arm_goal(ik_type="distance", distance=radius, limit_mode=mode)
    status, out = run(tmp_path, {"solver": "dls", "cases": [{"goals": [goal]}]})
    assert status == 0
    away = np.linalg.norm(np.array(out["cases"][0]["bones"]["forearm.L"]["tail"]) - target)
    held = {"inside": away <= radius + 1e-4, "outside": away >= radius - 1e-4, "on_surface": abs(away - radius) < 1e-4}
    assert held[mode], (mode, away)  # a position goal dropping the distance would end on the target


def test_soft_reach_in_a_goals_file_eases_the_reach_in(tmp_path):
    """Without soft reach the arm lies straight at a target just inside its reach; with it the
    tip stays visibly short of straight (``tests/rig/test_soft_reach.py``)."""
    rig = load_rig(RIG)
    bones = rig.ik_chain(IKConstraint("forearm.L", chain_count=2))
    root = rig.skeleton.rest_heads[bones[0]]
    reach = rig.skeleton.lengths[bones].sum()
    target = (root + np.array([0.6, -0.8, 0.0]) * (reach - 0.005)).tolist()
    distances = []
    for soft in (0.0, 0.05):
        status, out = run(tmp_path, {"solver": "two_bone", "cases": [{"goals": [arm_goal(target=target,
                                                                                          soft_reach=soft)]}]})
        assert status == 0 and out["cases"][0]["residuals"][0]["not_honoured"] == []
        distances.append(np.linalg.norm(np.array(out["cases"][0]["bones"]["forearm.L"]["tail"]) - root))
    assert distances[0] == pytest.approx(reach - 0.005, abs=1e-9) and distances[1] < distances[0] - 1e-3


@pytest.mark.parametrize("key, near", [("chain_lenght", "chain_length"), ("ik_typ", "ik_type"),
                                       ("distanse", "distance"), ("soft_rech", "soft_reach")])
def test_a_misspelt_goal_key_is_refused_naming_it_and_the_known_key(tmp_path, capsys, key, near):
    goal = {"bone": "forearm.L", key: 2, "target": [0.45, 1.15, 0.25]}
    status, _ = run(tmp_path, {"cases": [{"goals": [goal]}]})
    err = capsys.readouterr().err.strip()
    assert status == 2 and "\n" not in err and "Traceback" not in err
    assert "goals.json" in err and f"'cases[0].goals[0].{key}'" in err and f"did you mean '{near}'" in err
    assert not (tmp_path / "out.json").exists()


def standard_fk(rig, bones):
    """Heads and tails of solve's output by a textbook inherited-scale forward kinematics (as
    glTF or Blender's default Inherit Scale): world = parent world @ rest_local @ R(rotation) @
    S(scale), tail = world @ (0, length, 0)."""
    skeleton = rig.skeleton
    world = np.empty((len(skeleton), 4, 4))
    for i, name in enumerate(skeleton.names):
        local = np.eye(4)
        local[:3, :3] = quat_to_matrix3(np.array(bones[name]["rotation"])) * bones[name]["scale"]
        parent = skeleton.parents[i]
        world[i] = (world[parent] if parent >= 0 else np.eye(4)) @ skeleton.rest_local[i] @ local
    tails = world[:, :3, 3] + world[:, :3, 1] * skeleton.lengths[:, None]
    return world[:, :3, 3], tails


def test_a_standard_inherited_scale_fk_of_a_stretched_solve_reproduces_its_heads_and_tails(tmp_path):
    """The output's ``scale`` is Blender's (inherited by children): a far target stretches the arm,
    the hand below inherits the forearm's scale, and any standard FK lands every bone where the
    output lists it."""
    data = json.loads(open(RIG).read())
    for bone in data["bones"]:
        if bone["name"] in ("upper_arm.L", "forearm.L"):
            bone["ik"] = {"stretch": 1.0}
    rig_path = tmp_path / "stretchy.json"
    rig_path.write_text(json.dumps(data))
    status, out = run(tmp_path, {"cases": [{"goals": [arm_goal(target=[1.4, 1.2, 0.4])]}]}, rig=str(rig_path))
    assert status == 0
    bones = out["cases"][0]["bones"]
    assert bones["upper_arm.L"]["scale"][0] > 1.1 and out["cases"][0]["error"] < 1e-6  # it did stretch to reach
    rig = load_rig(rig_path)
    heads, tails = standard_fk(rig, bones)
    names = rig.skeleton.names
    np.testing.assert_allclose(heads, [bones[n]["head"] for n in names], atol=1e-9)
    np.testing.assert_allclose(tails, [bones[n]["tail"] for n in names], atol=1e-9)


FRAME_BUDGET_S = 0.05  # far above a solve (about 10 us), far below loading the kernels (0.16 s here)


def test_a_fresh_command_times_its_first_case_as_a_frame_not_a_kernel_load(tmp_path):
    """The window loads the solvers' kernels at start; `solve` does too, so its first case's seconds
    are a frame's solve, not the one-time load of the kernels it runs."""
    goals, out = tmp_path / "goals.json", tmp_path / "out.json"
    goals.write_text(json.dumps({"solver": "two_bone", "cases": [{"goals": [arm_goal()]}]}))
    subprocess.run([sys.executable, "app.py", "solve", str(RIG), str(goals), "-o", str(out)], check=True,
                   cwd=Path(app.__file__).parent, timeout=120)
    assert json.loads(out.read_text())["cases"][0]["seconds"] < FRAME_BUDGET_S


def pinned_feet_case(**case):
    return {"goals": [{"bone": "foot.L", "pin": True}, {"bone": "foot.R", "pin": True},
                      arm_goal(target=[1.2, 0.5, 0.4], priority=0)], **case}


def test_pinned_feet_stay_while_a_free_root_lets_the_body_reach(tmp_path):
    """Pins hold the feet where they start; a free root brings a hand past the arm's reach far
    nearer than a fixed one; residuals list the goal, then each pin (position, rotation)."""
    _, out = run(tmp_path, {"cases": [pinned_feet_case(root="free"), pinned_feet_case()]})
    rest = load_rig(RIG).skeleton
    free, fixed = out["cases"]
    for case in (free, fixed):
        assert [r["bone"] for r in case["residuals"]] == ["forearm.L", "foot.L", "foot.R"]
        assert all(r["method"] == "priority" for r in case["residuals"])
        for foot in ("foot.L", "foot.R"):
            np.testing.assert_allclose(case["bones"][foot]["head"], rest.rest_heads[rest.index[foot]], atol=1e-5)
            np.testing.assert_allclose(case["bones"][foot]["tail"], rest.rest_tails[rest.index[foot]], atol=1e-5)
        assert [g["unit"] for g in case["residuals"][1]["goals"]] == ["m", "rad"]
    assert free["residuals"][0]["residual"] < 1e-4 < fixed["residuals"][0]["residual"]
    assert free["bones"]["pelvis"]["head"] != fixed["bones"]["pelvis"]["head"]


def test_a_lower_priority_gives_way_to_a_higher_one(tmp_path):
    """Both hands pulled where they cannot both go: the priority 0 goal is met."""
    goals = [arm_goal(target=[0.4, 0.4, 0.3], priority=0),
             {"bone": "forearm.R", "chain_length": 2, "target": [-0.4, 2.4, 0.3], "priority": 1}]
    _, out = run(tmp_path, {"cases": [{"root": "free", "goals": [{"bone": "foot.L", "pin": True}] + goals}]})
    residuals = out["cases"][0]["residuals"]
    assert residuals[0]["residual"] < 1e-5 and residuals[1]["residual"] > 1e-2


def test_with_a_ground_no_bone_goes_below_it(tmp_path):
    document = {"ground": {"height": 0.0}, "cases": [pinned_feet_case(root="free", goals=[
        {"bone": "foot.L", "pin": True}, arm_goal(target=[0.5, -0.5, 0.3])])]}
    _, out = run(tmp_path, document)
    lowest = min(min(b["head"][1], b["tail"][1]) for b in out["cases"][0]["bones"].values())
    assert lowest >= -1e-5


@pytest.mark.parametrize("document, field", [
    ({"cases": [{"goals": [{"bone": "foot.L", "pin": True, "target": [0, 0, 0]}]}]}, "cases[0].goals[0].target"),
    ({"cases": [{"goals": [{"bone": "foot.L", "pin": True, "priority": 1}]}]}, "cases[0].goals[0].priority"),
    ({"cases": [{"goals": [{"bone": "foot.L", "pin": "yes"}]}]}, "cases[0].goals[0].pin"),
    ({"cases": [{"goals": [{"bone": "nope", "pin": True}]}]}, "cases[0].goals[0].bone"),
    ({"cases": [{"goals": [arm_goal(priority=-1)]}]}, "cases[0].goals[0].priority"),
    ({"cases": [{"goals": [arm_goal(priority=1.5)]}]}, "cases[0].goals[0].priority"),
    ({"cases": [{"root": "loose", "goals": [arm_goal()]}]}, "cases[0].root"),
    ({"ground": {"height": "low"}, "cases": [{"goals": [arm_goal()]}]}, "ground.height"),
    ({"ground": {"height": 1e300}, "cases": [{"goals": [arm_goal()]}]}, "ground.height"),
])
def test_bad_whole_body_keys_exit_2_naming_the_field(tmp_path, capsys, document, field):
    status, _ = run(tmp_path, document)
    message = capsys.readouterr().err
    assert status == 2 and f"field '{field}'" in message and message.count("\n") == 1 and "Traceback" not in message


def test_an_unknown_ground_key_is_refused_naming_the_nearest(tmp_path, capsys):
    status, _ = run(tmp_path, {"ground": {"height": 0.0, "hieght": 0.0}, "cases": [{"goals": [arm_goal()]}]})
    err = capsys.readouterr().err
    assert status == 2 and "'ground.hieght'" in err and "did you mean 'height'" in err


def test_a_mesh_ground_holds_every_bone_above_its_surface(tmp_path):
    """A sloping floor from an OBJ beside the goals file: the hand pulled through it stays on it."""
    (tmp_path / "slope.obj").write_text("v -3 -0.5 -3\nv 3 -0.5 -3\nv 3 0.1 3\nv -3 0.1 3\nf 1 2 3 4\n")
    document = {"ground": {"mesh": "slope.obj"}, "cases": [pinned_feet_case(root="free", goals=[
        {"bone": "foot.L", "pin": True}, arm_goal(target=[0.5, -0.8, 0.3])])]}
    _, out = run(tmp_path, document)
    points = [p for b in out["cases"][0]["bones"].values() for p in (b["head"], b["tail"])]
    assert min(y - (-0.2 + 0.1 * z) for _, y, z in points) >= -1e-5


def test_a_ground_is_a_plane_or_a_mesh_not_both(tmp_path, capsys):
    (tmp_path / "floor.obj").write_text("v -1 0 -1\nv 1 0 -1\nv 0 0 1\nf 1 2 3\n")
    status, _ = run(tmp_path, {"ground": {"mesh": "floor.obj", "height": 0.0}, "cases": [{"goals": [arm_goal()]}]})
    assert status == 2 and "field 'ground.height'" in capsys.readouterr().err


def test_a_missing_mesh_ground_is_named_in_one_line(tmp_path, capsys):
    status, _ = run(tmp_path, {"ground": {"mesh": "floor.glb"}, "cases": [{"goals": [arm_goal()]}]})
    message = capsys.readouterr().err
    assert status == 2 and "floor.glb" in message and message.count("\n") == 1 and "Traceback" not in message


@pytest.mark.parametrize("case, sunk", [
    ({"goals": [arm_goal()]}, -0.02),  # the rest soles' 2 cm: the solve lifts them out
    ({"root": "free", "goals": [arm_goal(target=[0.5, -0.6, 0.4])]}, -1.0),  # the body drops to the hand
])
def test_with_a_ground_a_skinned_rigs_feet_keep_their_skin_above_it(tmp_path, case, sunk):
    """The skinned humanoid on the grid's plane (its rest soles 2 cm under it): with the ground no
    vertex of the feet's skin, as the app skins the pose written, is below it by more than the
    skin's tolerance, whether a hand is moved within reach or pulled far down through the plane
    with the root free; without the ground the skin ends ``sunk`` or lower."""
    from rig.formats.reader import open_rig
    from rig.pose import Pose, world_matrices
    from tests.rig.test_ground_contact import SKIN_TOLERANCE
    document = open_rig(GLB)
    skeleton, skin = document.rig.skeleton, document.rig.skin_contacts

    def lowest(out):
        bones = out["cases"][0]["bones"]
        pose = Pose.rest(len(skeleton))
        pose.rotations[:] = [bones[name]["rotation"] for name in skeleton.names]
        pose.scales[:] = [bones[name]["scale"] for name in skeleton.names]
        world = world_matrices(skeleton, pose)
        body = skeleton.subtree(skeleton.index["pelvis"])  # a free root moves it as a whole
        world[body, :3, 3] += np.subtract(bones["pelvis"]["head"], world[skeleton.index["pelvis"], :3, 3])
        np.testing.assert_allclose(world[:, :3, 3], [bones[name]["head"] for name in skeleton.names], atol=1e-9)
        return float(document.mesh.skinned_positions(world)[skin.vertices, 1].min())
    _, free = run(tmp_path, {"cases": [case]}, rig=GLB)
    _, held = run(tmp_path, {"ground": {"height": 0.0}, "cases": [case]}, rig=GLB)
    assert lowest(free) <= sunk and lowest(held) >= -SKIN_TOLERANCE
