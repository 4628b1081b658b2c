"""Fuzzing the ground readers (hypothesis, seeded): a small OBJ with one word replaced by something
hostile, and a small glTF scene with one value replaced. Each either reads into a ground whose
every answer is finite, or fails with one line naming the file."""
import base64
import json

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from rig.formats.ground_file import read_ground
from rig.formats.jsonfields import FileFormatError
from tests.fuzz.test_fuzz_files import HOSTILE, mutated, write_json

SETTINGS = settings(max_examples=120, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
OBJ = "# quad\nv -1 0 -1\nv 1 0.2 -1\nv 1 0.2 1\nv -1 0 1\nvt 0 0\nf 1/1 2 3 4\nf -4 -2 -1\n"
WORDS = st.one_of(st.sampled_from(["nan", "inf", "-inf", "1e400", "1e7", "-0", "", "0", "-99", "99", "1/2/3/4",
                                   "1//", "/1", "l", "curv", "\x00", "\ud800", "9" * 5000, "f", "v", "#"]),
                  st.text(max_size=6))
PROBES = np.array([[0.0, 0.5, 0.0], [0.9, 2.0, 0.9], [-0.5, -0.2, 0.3], [5.0, 0.0, 5.0]])


def answers_finitely(ground):
    hits = ground.surface_under(PROBES)
    assert np.isfinite(hits.point).all() and np.isfinite(hits.normal).all()


def read_or_refuse(path):
    try:
        ground = read_ground(str(path)).ground
    except FileFormatError as error:
        message = str(error)
        assert message.startswith(str(path)) and "\n" not in message and len(message) < 400
        return
    answers_finitely(ground)


@SETTINGS
@given(st.data())
def test_a_hostile_word_in_an_obj_reads_or_is_refused_on_one_line(tmp_path, data):
    words = [line.split(" ") for line in OBJ.splitlines()]
    row = data.draw(st.integers(0, len(words) - 1))
    column = data.draw(st.integers(0, len(words[row]) - 1))
    words[row][column] = data.draw(WORDS)
    path = tmp_path / "ground.obj"
    path.write_bytes("\n".join(" ".join(w) for w in words).encode("utf-8", "surrogatepass"))
    read_or_refuse(path)


def scene():
    positions = np.array([[-1, 0, -1], [1, 0.2, -1], [1, 0.2, 1], [-1, 0, 1]], dtype="<f4")
    indices = np.array([0, 1, 2, 0, 2, 3], dtype="<u2")
    blob = positions.tobytes() + indices.tobytes()
    return {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
            "nodes": [{"name": "block", "mesh": 0, "translation": [0.5, 0.0, 0.0], "scale": [1, 1, 1]}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "mode": 4}]}],
            "buffers": [{"byteLength": len(blob),
                         "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
            "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48},
                            {"buffer": 0, "byteOffset": 48, "byteLength": 12}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"},
                          {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}]}


def test_the_scene_reads_as_written(tmp_path):
    path = tmp_path / "ground.gltf"
    path.write_text(json.dumps(scene()))
    ground = read_ground(str(path)).ground
    assert len(ground) == 2 and np.allclose(ground.surface_under([[1.5, 1.0, 0.0]]).point, [[1.5, 0.2, 0.0]])


@SETTINGS
@given(mutated(scene()))
def test_a_hostile_value_in_a_gltf_scene_reads_or_is_refused_on_one_line(tmp_path, document):
    path = tmp_path / "ground.gltf"
    write_json(path, document)
    read_or_refuse(path)
