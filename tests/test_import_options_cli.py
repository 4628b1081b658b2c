"""The import options on the command line (--bvh-up, --bvh-scale), the same for every command."""
import pytest

from rig.formats.rigfile import load_rig
from tests.rig.test_bvh_options import z_up_text
from tests.test_app_cli import run_app
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED

BVH = CMU_EXCERPT


def standing_height(path):
    skeleton = load_rig(path).skeleton
    heads = skeleton.rest_heads
    return heads[skeleton.index["Head"]] - heads[skeleton.index["LeftFoot"]]


@NEEDS_SHARED
def test_export_reads_a_z_up_bvh_standing_in_the_given_units(tmp_path):
    source, out = tmp_path / "zup.bvh", tmp_path / "rig.json"
    source.write_text(z_up_text(open(BVH).read()))
    result = run_app("export", str(source), "--bvh-up", "z", "--bvh-scale", "0.05", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "units guessed" not in result.stderr
    up = standing_height(out)
    assert up[1] > 1.0 and abs(up[2]) < 0.3


@pytest.mark.parametrize("args, message", [
    (["--bvh-scale", "0"], "expected metres per file unit above 0 and at most 1000, got '0'"),
    (["--bvh-scale", "nan"], "above 0 and at most 1000"),
    (["--bvh-scale", "1e300"], "above 0 and at most 1000, got '1e300'"),
    (["--bvh-up", "x"], "invalid choice: 'x'"),
])
@pytest.mark.parametrize("command", [["--headless", "--save-pose", "{tmp}/p.json"], ["export", "-o", "{tmp}/r.json"],
                                     ["solve", "{tmp}/goals.json", "-o", "{tmp}/out.json"]])
def test_bad_import_options_exit_non_zero_with_one_line(tmp_path, command, args, message):
    command = command + [BVH] if command[0] == "--headless" else command[:1] + [BVH] + command[1:]
    result = run_app(*[a.format(tmp=tmp_path) for a in command], *args)
    assert result.returncode == 2
    assert message in result.stderr.strip().splitlines()[-1] and "Traceback" not in result.stderr
    assert not list(tmp_path.iterdir())


def test_skin_option_picks_a_glb_skin_and_refuses_a_missing_one(tmp_path):
    from tests.rig import gltf_builder as gb
    source = gb.write_glb(tmp_path, *gb.document(second_skin=True))
    out = tmp_path / "rig.json"
    result = run_app("export", str(source), "--skin", "1", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert load_rig(out).skeleton.names == ["lower", "hand"]
    missing = run_app("export", str(source), "--skin", "2", "-o", str(tmp_path / "no.json"))
    assert missing.returncode != 0 and "skin index 2 to exist" in missing.stderr.strip().splitlines()[-1]
    negative = run_app("export", str(source), "--skin", "-1", "-o", str(tmp_path / "no.json"))
    assert negative.returncode == 2 and "expected a skin index from 0" in negative.stderr
