"""Fuzzing every reader and writer (hypothesis, seeded): valid documents of each kind with one value
replaced by something hostile (huge, non-finite, of the wrong type, deeply nested, a lone surrogate).
Each either reads, and then writes and reads back finite in every format, or fails with one line
naming the file. Every JSON we write is strict."""
import base64
import copy
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from rig.formats.bvh_write import bvh_text, save_bvh
from rig.formats.export import export_rig
from rig.formats.jsonfields import FileFormatError, load_json
from rig.formats.reader import open_rig
from rig.formats.rigfile import load_pose, load_rig, pose_to_dict, rig_to_dict
from rig.pose import Pose, heads_tails, world_matrices
from rig.scripted_solve import read_goals, run_job
from tests.rig import gltf_builder
from ui.replay import events_from_dict

SETTINGS = settings(max_examples=80, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
RIG = load_rig("assets/robot_arm.json")
GOALS = {"solver": "auto", "iterations": 50,
         "cases": [{"goals": [{"bone": RIG.skeleton.names[-1], "chain_length": 2, "target": [0.2, 0.5, 0.1],
                               "pole": [0.0, 0.5, -1.0], "rotation": [0, 0, 0, 1]}]}]}
EVENTS = {"events": [{"type": "move", "x": 10, "y": 20}, {"type": "scroll", "x": 1, "y": 2, "dy": 1, "mods": ["ctrl"]},
                     {"type": "key", "key": "NUM_5"}, {"type": "frame", "count": 2}]}
HOSTILE = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1e308, -1e308, 1e154, 1e-320, 0.0, -0.0]),
    st.integers(-10 ** 400, 10 ** 400), st.text(max_size=8), st.just("\ud800"), st.booleans(), st.none(),
    st.just([[[[[]]]]]), st.just({}), st.lists(st.floats(-1e9, 1e9), max_size=5))


def paths(value, prefix=()):
    """Every path (tuple of keys and indices) to a value inside ``value``."""
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield from paths(child, prefix + (key,))


@st.composite
def mutated(draw, document):
    """``document`` with the value at one drawn path replaced by a drawn hostile value."""
    document = copy.deepcopy(document)
    path = draw(st.sampled_from([p for p in paths(document) if p]))
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = draw(HOSTILE)
    return document


def write_json(path, document):
    """As any tool might write it: non-finite numbers as NaN / Infinity, big integers in full."""
    try:
        path.write_text(json.dumps(document, allow_nan=True), encoding="utf-8", errors="surrogatepass")
    except ValueError:  # an integer Python will not print in full: write it by hand
        path.write_text(json.dumps(document, allow_nan=True, default=str), encoding="utf-8", errors="surrogatepass")
    return path


def assert_one_line(error, path):
    message = str(error)
    assert "\n" not in message and str(path) in message, message


def assert_round_trips(document, tmp_path):
    """Write ``document`` in every format and read each back: finite, same bones."""
    for name in ("again.json", "again.bvh", "again.glb"):
        out = tmp_path / name
        try:
            export_rig(document, str(out))
        except FileFormatError as error:
            assert_one_line(error, out)
            continue
        if name.endswith(".json"):
            load_json(out)  # parses strictly below
            json.loads(out.read_text(), parse_constant=pytest.fail)
        again = open_rig(out).rig.skeleton
        assert len(again) == len(document.rig.skeleton)
        heads, tails = heads_tails(again, again.rest_world)
        assert np.isfinite(heads).all() and np.isfinite(tails).all()


def check_reader(path, read):
    try:
        return read(path)
    except FileFormatError as error:
        assert_one_line(error, path)
        return None


@SETTINGS
@given(mutated(rig_to_dict(RIG)))
def test_rig_files(tmp_path_factory, document):
    tmp_path = tmp_path_factory.mktemp("rig")
    opened = check_reader(write_json(tmp_path / "rig.json", document), open_rig)
    if opened is not None:
        assert_round_trips(opened, tmp_path)


@SETTINGS
@given(mutated(pose_to_dict(RIG.skeleton, Pose.rest(len(RIG.skeleton)), RIG.name)))
def test_pose_files(tmp_path_factory, document):
    tmp_path = tmp_path_factory.mktemp("pose")
    read = check_reader(write_json(tmp_path / "pose.json", document), lambda p: load_pose(p, RIG.skeleton))
    if read is not None:
        pose, _ = read
        assert pose.is_finite() and np.isfinite(world_matrices(RIG.skeleton, pose)).all()
        save_bvh(tmp_path / "p.bvh", RIG.skeleton, pose)


@SETTINGS
@given(mutated(GOALS))
def test_goals_files_solve_to_strict_json(tmp_path_factory, document):
    tmp_path = tmp_path_factory.mktemp("goals")
    job = check_reader(write_json(tmp_path / "goals.json", document), lambda p: read_goals(p, RIG))
    if job is not None:
        json.dumps(run_job(RIG, job), allow_nan=False)  # strict: raises on NaN or Infinity


@SETTINGS
@given(mutated(EVENTS))
def test_event_files(tmp_path_factory, document):
    path = write_json(tmp_path_factory.mktemp("events") / "events.json", document)
    check_reader(path, lambda p: events_from_dict(load_json(p), str(p)))


BVH_TEXT = bvh_text(RIG.skeleton, [Pose.rest(len(RIG.skeleton))] * 2)[0]


@st.composite
def mutated_bvh(draw):
    """The arm rig's BVH export with one token replaced by hostile text."""
    tokens = BVH_TEXT.split(" ")
    k = draw(st.integers(0, len(tokens) - 1))
    tokens[k] = draw(st.one_of(st.sampled_from(["1e308", "nan", "-inf", "9" * 5000, "{", "}", "JOINT", "", "\u00b2"]),
                               st.text(max_size=6)))
    return " ".join(tokens)


@SETTINGS
@given(mutated_bvh())
def test_bvh_files(tmp_path_factory, text):
    tmp_path = tmp_path_factory.mktemp("bvh")
    path = tmp_path / "hostile.bvh"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    opened = check_reader(path, open_rig)
    if opened is not None:
        assert_round_trips(opened, tmp_path)


def embedded_gltf():
    """The test builder's skinned arm as one .gltf document, its buffer a data URI."""
    gltf, binary = gltf_builder.document()
    gltf["buffers"] = [{"byteLength": len(binary),
                        "uri": "data:application/octet-stream;base64," + base64.b64encode(binary).decode()}]
    return gltf


@SETTINGS
@given(mutated(embedded_gltf()))
def test_gltf_files(tmp_path_factory, gltf):
    tmp_path = tmp_path_factory.mktemp("gltf")
    opened = check_reader(write_json(tmp_path / "hostile.gltf", gltf), open_rig)
    if opened is not None:
        assert_round_trips(opened, tmp_path)
