import numpy as np
import pytest

from rig.formats.jsonfields import FileFormatError, Reader
from rig.formats.rigfile import load_rig
from rig.pins import Pin, pin_where_it_is, pins_to_json, read_pins
from rig.pose import Pose, world_matrices

HUMANOID = "assets/humanoid.json"


@pytest.fixture(scope="module")
def rig():
    return load_rig(HUMANOID)


def test_pin_holds_the_head_and_the_rotation_of_the_bone(rig):
    pose = Pose.rest(len(rig.skeleton))
    pose.rotations[rig.skeleton.index["thigh.L"]] = [0.0, 0.0, np.sin(0.3), np.cos(0.3)]
    world = world_matrices(rig.skeleton, pose)
    foot = rig.skeleton.index["foot.L"]
    pin = pin_where_it_is(world, foot)
    assert np.allclose(pin.position, world[foot, :3, 3])
    x, y, z, w = pin.rotation
    rotation = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                         [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                         [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    assert np.allclose(rotation, world[foot, :3, :3], atol=1e-12)
    assert not pin_where_it_is(world, foot, rotation=False).holds_rotation


def test_pins_round_trip_through_json(rig):
    pins = {"foot.L": Pin((0.1, 0.0, 0.2), (0.0, 0.0, 0.0, 1.0)), "hand.R": Pin((0.5, 1.2, 0.0))}
    reader = Reader("pose.json", {"pins": pins_to_json(pins)})
    assert read_pins(reader, rig.skeleton) == pins
    reader.check_fields()


@pytest.mark.parametrize("pins, field", [
    ({"no_such_bone": {"position": [0, 0, 0]}}, "pins.no_such_bone"),
    ({"foot.L": {"position": [0, float("nan"), 0]}}, "pins.foot.L.position"),
    ({"foot.L": {"position": [0, 0, 0], "rotation": [0, 0, 0, 0]}}, "pins.foot.L.rotation"),
])
def test_bad_pins_name_the_field(rig, pins, field):
    with pytest.raises(FileFormatError, match=field.replace(".", r"\.")):
        read_pins(Reader("pose.json", {"pins": pins}), rig.skeleton)


def test_an_unknown_key_in_a_pin_is_refused(rig):
    reader = Reader("pose.json", {"pins": {"foot.L": {"position": [0, 0, 0], "rotaton": [0, 0, 0, 1]}}})
    read_pins(reader, rig.skeleton)
    with pytest.raises(FileFormatError, match="rotaton"):
        reader.check_fields()
