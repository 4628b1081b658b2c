"""The scripted commands on imported rigs as on our JSON rigs: ``solve`` on glTF and BVH files
reaches the targets and matches the JSON rig's result; ``--headless --screenshot`` draws them
(goldens) and takes the BVH import options."""
import json

import numpy as np
import pytest

import app
from render.capture import load_png
from rig.formats.reader import open_rig
from tests.golden import assert_matches_golden
from tests.test_app_cli import run_app
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED

JSON_RIG, GLB, CMU = "assets/humanoid.json", "assets/humanoid_skinned.glb", CMU_EXCERPT
ARM_TARGETS = ([0.45, 1.15, 0.25], [0.5, 1.3, 0.1])


def solve(tmp_path, rig, goals, *options):
    path, out = tmp_path / "goals.json", tmp_path / "out.json"
    path.write_text(json.dumps({"cases": [{"goals": [goal]} for goal in goals]}))
    assert app.main(["solve", str(rig), str(path), "-o", str(out), *options]) == 0
    return json.loads(out.read_text())["cases"]


def arm_goals(bone="forearm.L"):
    return [{"bone": bone, "chain_length": 2, "target": target} for target in ARM_TARGETS]


@pytest.fixture
def humanoid_bvh(tmp_path):
    path = tmp_path / "humanoid.bvh"
    assert app.main(["export", JSON_RIG, "-o", str(path)]) == 0  # written in centimetres
    return path


@pytest.mark.parametrize("source", ["glb", "bvh"])
def test_solve_on_an_imported_humanoid_is_the_json_rigs_solve(tmp_path, humanoid_bvh, source):
    rig = GLB if source == "glb" else humanoid_bvh
    imported = solve(tmp_path, rig, arm_goals(), "--bvh-scale", "0.01")  # BVH only: the glTF is in metres
    reference = solve(tmp_path, JSON_RIG, arm_goals())
    for case, expected, target in zip(imported, reference, ARM_TARGETS):
        assert np.linalg.norm(np.subtract(case["bones"]["forearm.L"]["tail"], target)) < 1e-6
        assert case["error"] < 1e-6
        for name, bone in case["bones"].items():  # the BVH has no IK handles: compare what it has
            np.testing.assert_allclose(bone["head"], expected["bones"][name]["head"], atol=1e-6, err_msg=name)


@NEEDS_SHARED
def test_solve_on_a_real_bvh_reaches_reachable_targets(tmp_path):
    skeleton = open_rig(CMU).rig.skeleton
    upper, lower = skeleton.index["LeftArm"], skeleton.index["LeftForeArm"]
    shoulder = skeleton.rest_heads[upper]
    reach = skeleton.lengths[upper] + skeleton.lengths[lower]
    targets = [shoulder + 0.8 * reach * np.array(d) / np.linalg.norm(d) for d in ([1, -1, 1], [0.5, 0.5, 1])]
    goals = [{"bone": "LeftForeArm", "chain_length": 2, "target": list(t)} for t in targets]
    for case, target in zip(solve(tmp_path, CMU, goals), targets):
        assert np.linalg.norm(np.subtract(case["bones"]["LeftForeArm"]["tail"], target)) < 1e-6
        lengths = [np.linalg.norm(np.subtract(case["bones"][n]["tail"], case["bones"][n]["head"]))
                   for n in skeleton.names]
        np.testing.assert_allclose(lengths, skeleton.lengths, atol=1e-9)


@pytest.mark.parametrize("name, args", [
    ("cli_glb", [GLB]),
    pytest.param("cli_bvh_frame", [CMU, "--frame", "3"], marks=NEEDS_SHARED),
])
def test_headless_screenshot_of_an_imported_rig_matches_its_golden(tmp_path, name, args):
    out = tmp_path / "shot.png"
    result = run_app("--headless", "--screenshot", str(out), "--size", "960x600", *args)
    assert result.returncode == 0, result.stderr
    assert_matches_golden(load_png(out), name)


@NEEDS_SHARED
def test_headless_run_takes_the_bvh_import_options(tmp_path):
    """In metres the CMU figure (26 units across) is 26 m tall; Z-up it lies along -Z."""
    shot, scene = tmp_path / "shot.png", tmp_path / "scene.json"
    result = run_app("--headless", "--screenshot", str(shot), "--dump-scene", str(scene), "--size", "320x200",
                     "--bvh-scale", "1", "--bvh-up", "z", CMU)
    assert result.returncode == 0 and "units guessed" not in result.stderr
    bones = json.loads(scene.read_text())["bones"]
    up = np.subtract(bones["Head"]["head"], bones["LeftFoot"]["head"])
    assert up[2] < -15 and abs(up[1]) < 5
    assert shot.exists()


@NEEDS_SHARED
def test_a_files_warnings_reach_the_status_bar_as_well_as_stderr(capsys):
    import app
    from tests.shared_data import CMU_EXCERPT
    state = app.load_state(app.parse_args([str(CMU_EXCERPT)]))
    assert "units guessed" in state.message and "units guessed" in capsys.readouterr().err
