"""`python app.py plant RIG [--pose P.json] --ground SCENE -o OUT.json`: foot planting from the command line."""
import numpy as np
import pytest

import app
from rig.autorig import auto_rig
from rig.evaluate import evaluation
from rig.feet import find_legs
from rig.formats.ground_file import read_ground
from rig.formats.reader import open_rig
from rig.formats.rigfile import load_pose, save_pose
from rig.planting import sole_report
from tests.rig.test_planting import PARTS, SOLE_ANGLE_TOLERANCE, SOLE_GAP_TOLERANCE, standing_over
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED

RIG, SCENE = "assets/humanoid.json", "assets/ground_test.glb"


def tilted_plane(tmp_path, degrees, size=20.0):
    """An OBJ of one square plane ``size`` metres wide through the origin, rising toward +Z."""
    rise = np.tan(np.radians(degrees)) * size / 2
    path = tmp_path / "plane.obj"
    path.write_text(f"v {-size / 2} {-rise} {-size / 2}\nv {-size / 2} {rise} {size / 2}\n"
                    f"v {size / 2} {rise} {size / 2}\nv {size / 2} {-rise} {-size / 2}\nf 1 2 3 4\n")
    return str(path)


def check_soles(rig, pose, ground):
    """The soles of ``pose`` of ``rig``, its constraints evaluated (set up automatically where its
    legs have no IK, whose pose then holds every effect), are flush."""
    legs = find_legs(rig)
    if not legs.legs:
        rig, _, pose = auto_rig(rig, pose)
        legs = find_legs(rig)
    report = sole_report(rig, evaluation(rig, pose).world, legs, ground)
    assert len(report) == 2
    assert all(angle <= SOLE_ANGLE_TOLERANCE and gap <= SOLE_GAP_TOLERANCE for _, angle, gap in report), report


def test_a_pose_planted_on_the_stairs_is_written(tmp_path):
    rig = open_rig(RIG).rig
    start = tmp_path / "start.json"
    save_pose(rig.skeleton, standing_over(rig, PARTS["stairs"], stride=True), str(start), rig.name)
    out = tmp_path / "planted.json"
    assert app.main(["plant", RIG, "--pose", str(start), "--ground", SCENE, "-o", str(out)]) == 0
    planted, _ = load_pose(str(out), rig.skeleton)
    check_soles(rig, planted, read_ground(SCENE).ground)


@NEEDS_SHARED
def test_a_bvh_figure_without_ik_is_set_up_and_planted_on_a_slope(tmp_path):
    ground = tilted_plane(tmp_path, 20.0)
    out = tmp_path / "planted.json"
    assert app.main(["plant", CMU_EXCERPT, "--ground", ground, "-o", str(out)]) == 0
    document = open_rig(CMU_EXCERPT)
    planted, _ = load_pose(str(out), document.rig.skeleton)
    check_soles(document.rig, planted, read_ground(ground).ground)


@pytest.mark.parametrize("arguments, expected", [
    (["--ground", "missing.obj"], "missing.obj: expected a readable file"),
    (["--ground", "assets/humanoid.json"], "a ground scene file"),
    (["--ground", SCENE, "--pose", "assets/humanoid.json"], "assets/humanoid.json"),
    (["--ground", SCENE], "no foot planted: leg.L: no ground under 'foot.L'"),  # the figure stands between blocks
])
def test_bad_input_gets_one_line_and_status_2(tmp_path, capsys, arguments, expected):
    assert app.main(["plant", RIG, *arguments, "-o", str(tmp_path / "out.json")]) == 2
    error = capsys.readouterr().err
    assert error.startswith("posekit: error: ") and expected in error and error.count("\n") == 1
    assert not (tmp_path / "out.json").exists()


def test_the_ground_and_output_are_required(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_status:
        app.main(["plant", RIG, "-o", str(tmp_path / "out.json")])
    assert exit_status.value.code == 2 and "--ground" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        app.main(["plant", RIG, "--ground", SCENE])


def test_an_unwritable_output_is_an_error(tmp_path, capsys):
    rig = open_rig(RIG).rig
    start = tmp_path / "start.json"
    save_pose(rig.skeleton, standing_over(rig, PARTS["flat"]), str(start), rig.name)
    assert app.main(["plant", RIG, "--pose", str(start), "--ground", SCENE,
                     "-o", str(tmp_path / "no" / "such" / "dir" / "out.json")]) == 2
    assert "cannot write" in capsys.readouterr().err
