"""One range per numeric setting (rig.constraints.RANGES): the loader takes its ends and refuses what
lies beyond, and what the panels clamp to is always a value the loader takes."""
import math

import pytest

from rig.constraints import RANGES, clamp_setting
from rig.formats.jsonfields import FileFormatError
from rig.formats.rigfile import load_rig, rig_from_dict, rig_to_dict

RIG = rig_to_dict(load_rig("assets/humanoid.json"))
CONSTRAINT_FIELDS = ("iterations", "chain_count", "pole_angle", "weight", "orient_weight", "influence")


def with_constraint_field(name, value):
    document = rig_to_dict(rig_from_dict(RIG))
    document["ik_constraints"][0][name] = value
    return document


@pytest.mark.parametrize("name", CONSTRAINT_FIELDS)
def test_the_loader_takes_the_ends_of_each_range_and_refuses_beyond(name):
    low, high = RANGES[name]
    for value in (low, high):
        rig_from_dict(with_constraint_field(name, value), "rig.json")
    step = 1 if isinstance(low, int) else 1e-6
    for value in (low - step, high + step):
        with pytest.raises(FileFormatError, match=name):
            rig_from_dict(with_constraint_field(name, value), "rig.json")


@pytest.mark.parametrize("name", CONSTRAINT_FIELDS)
@pytest.mark.parametrize("typed", [-5, 9999, 1e300, -1e300, math.nan])
def test_what_a_panel_clamps_to_the_loader_takes(name, typed):
    rig_from_dict(with_constraint_field(name, clamp_setting(name, typed)), "rig.json")
