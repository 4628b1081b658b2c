import os

import numpy as np
import pytest

from rig.formats.ground_file import GROUND_READERS, read_ground
from rig.formats.jsonfields import FileFormatError
from rig.formats.obj import read_obj

ASSETS = os.path.join(os.path.dirname(__file__), "..", "..", "assets")


def write(tmp_path, text, name="g.obj"):
    path = tmp_path / name
    path.write_text(text) if isinstance(text, str) else path.write_bytes(text)
    return str(path)


def test_polygons_fan_out_and_negative_indices_count_back(tmp_path):
    path = write(tmp_path, "# a square and a triangle\nv 0 0 0\nv 1 0 0\nv 1 0 1 1.0\nv 0 0 1\n"
                           "vn 0 1 0\nvt 0 0\ng part\nf 1/1/1 2//1 3 4  # quad\nf -1 -2 -3\n\n")
    soup = read_obj(path)
    assert soup.triangles.tolist() == [[0, 1, 2], [0, 2, 3], [3, 2, 1]]
    assert soup.positions.shape == (4, 3)


@pytest.mark.parametrize("text, field", [
    ("v 0 0\nf 1 1 1\n", "line 1, v"),
    ("v 0 nan 0\n", "line 1, v y"),
    ("v 0 0 1e300\n", "line 1, v z"),
    ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2\n", "line 4, f"),
    ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 4\n", "line 4, f corner 3"),
    ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 0\n", "line 4, f corner 3"),
    ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 -4\n", "line 4, f corner 3"),
    ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 x/1\n", "line 4, f corner 3"),
    ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3/0\n", "line 4, f corner 3"),
    ("v 0 0 0\nv 1 0 0\nl 1 2\n", "line 3"),
    ("v 0 0 0\n", "f"),
    (b"v 0 0 0\n\xff\n", "byte 8"),
    ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 " + "9" * 5000 + "\n", "line 4, f corner 3"),
])
def test_bad_lines_are_one_line_errors_naming_file_line_and_field(tmp_path, text, field):
    path = write(tmp_path, text)
    with pytest.raises(FileFormatError) as error:
        read_obj(path)
    message = str(error.value)
    assert message.startswith(path) and f"'{field}'" in message and "\n" not in message and len(message) < 300


def test_the_shipped_scene_reads_the_same_from_glb_and_obj():
    glb, obj = (read_ground(os.path.join(ASSETS, f"ground_test.{ext}")) for ext in ("glb", "obj"))
    assert len(glb.ground) == len(obj.ground) > 1000 and not glb.warnings
    rng = np.random.default_rng(2)
    points = np.c_[rng.uniform(-4.6, 4.6, 500), rng.uniform(0.0, 1.0, 500), rng.uniform(-1.2, 1.2, 500)]
    a, b = glb.ground.surface_under(points), obj.ground.surface_under(points)
    both = a.hit & b.hit
    assert both.sum() > 300 and (a.hit == b.hit).mean() > 0.99  # the .glb's float32 corners may differ at edges
    assert np.abs(a.point[both] - b.point[both]).max() < 1e-4


def test_unknown_extensions_and_scenes_without_triangles_are_refused(tmp_path):
    with pytest.raises(FileFormatError, match="ground scene file"):
        read_ground(write(tmp_path, "x", "g.stl"))
    empty = write(tmp_path, '{"asset": {"version": "2.0"}, "nodes": [{"name": "n"}]}', "g.gltf")
    with pytest.raises(FileFormatError, match="'meshes'.*at least one triangle"):
        read_ground(empty)
    assert set(GROUND_READERS) == {".glb", ".gltf", ".obj"}
