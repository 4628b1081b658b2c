"""The posekit.tracks v1 stream: reading, writing, and one-line errors naming the frame and role."""
import json

import numpy as np
import pytest

from rig.formats.jsonfields import FileFormatError
from rig.formats.tracks import Sample, TrackStream, read_tracks, roles_from_groups, write_tracks

UNIT = [0.0, 0.0, 0.0, 1.0]


def frame(*roles, position=(0.0, 1.5, 0.0), rotation=UNIT):
    return {role: {"position": list(position), "rotation": list(rotation)} for role in roles}


def stream_file(tmp_path, frames, **top):
    data = {"format": "posekit.tracks", "version": 1, "fps": 90, "frames": frames, **top}
    path = tmp_path / "tracks.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_a_stream_reads_with_lost_trackers_and_writes_back(tmp_path):
    path = stream_file(tmp_path, [frame("head", "hand.L", "hand.R", "pelvis"), frame("head", "hand.R"),
                                  frame("head", "hand.L", "hand.R", "foot.L", rotation=[0.0, 0.0, 0.0, 2.0])])
    stream = read_tracks(path)
    assert stream.fps == 90 and len(stream.frames) == 3
    assert set(stream.frames[1]) == {"head", "hand.R"}  # hand.L and pelvis lost
    assert np.allclose(stream.frames[2]["foot.L"].rotation, UNIT)  # made unit
    assert stream.roles() == ["head", "hand.L", "hand.R", "pelvis", "foot.L"]
    out = tmp_path / "again.json"
    write_tracks(out, stream)
    again = read_tracks(out)
    for a, b in zip(stream.frames, again.frames):
        assert set(a) == set(b)
        assert all(np.array_equal(a[r].position, b[r].position) and np.array_equal(a[r].rotation, b[r].rotation)
                   for r in a)


@pytest.mark.parametrize("frames, top, field", [
    ([frame("head", "hand.L")], {}, "frames[0].hand.R"),  # a required role missing in the first frame
    ([frame("head", "hand.L", "hand.R", "tail")], {}, "frames[0].tail"),  # not a role
    ([frame("head", "hand.L", "hand.R"), frame("head", position=(float("nan"), 0, 0))], {},
     "frames[1].head.position"),
    ([frame("head", "hand.L", "hand.R"), frame("hand.L", position=(1e300, 0, 0))], {}, "frames[1].hand.L.position"),
    ([frame("head", "hand.L", "hand.R", rotation=[0, 0, 0, 0])], {}, "frames[0].head.rotation"),
    ([frame("head", "hand.L", "hand.R")], {"fps": -1}, "fps"),
    ([], {}, "frames"),
    ([frame("head", "hand.L", "hand.R")], {"colour": "red"}, "colour"),  # unknown key
])
def test_bad_streams_fail_on_one_line_naming_the_field(tmp_path, frames, top, field):
    path = stream_file(tmp_path, frames, **top)
    with pytest.raises(FileFormatError) as error:
        read_tracks(path)
    message = str(error.value)
    assert "\n" not in message and path in message and field in message, message


def test_an_unknown_key_inside_a_tracker_is_refused(tmp_path):
    bad = frame("head", "hand.L", "hand.R")
    bad["hand.L"]["velocity"] = [0, 0, 0]
    with pytest.raises(FileFormatError, match=r"frames\[0\]\.hand\.L\.velocity"):
        read_tracks(stream_file(tmp_path, [bad]))


def test_a_non_finite_sample_is_not_written(tmp_path):
    stream = TrackStream(30.0, [{"head": Sample(np.array([np.nan, 0.0, 0.0]), np.array(UNIT))}])
    with pytest.raises(FileFormatError):
        write_tracks(tmp_path / "x.json", stream)


def test_tracker_groups():
    assert roles_from_groups("head,hands,feet") == ["head", "hand.L", "hand.R", "foot.L", "foot.R"]
    with pytest.raises(ValueError, match="unknown tracker group 'elbows'"):
        roles_from_groups("head,hands,elbows")
    with pytest.raises(ValueError, match="head and hands"):
        roles_from_groups("head,pelvis")
