"""BVH import options: Z-up files (turned to stand +Y up, every frame exact), scale channels
(read, ignored with a warning when they scale), and the one ImportOptions object open_rig takes."""
import re

import numpy as np
import pytest

from rig.formats.bvh import bvh_document, load_bvh
from rig.formats.bvh_parse import parse
from rig.formats.document import ImportOptions
from rig.formats.reader import open_rig
from rig.formats.jsonfields import FileFormatError
from rig.pose import heads_tails, world_matrices
from tests.shared_data import CMU_EXCERPT, NEEDS_SHARED

CMU = CMU_EXCERPT
# Our Y-up axis -> the Z-up file's channel axis and sign (file = turned +90 degrees about X).
TO_Z_UP = {"X": ("X", 1.0), "Y": ("Z", 1.0), "Z": ("Y", -1.0)}


def z_up_text(text):
    """A Y-up BVH file written as a Z-up exporter would: our (x, y, z) is the file's (x, -z, y)
    turned, i.e. the file holds (x, -z, y); channels renamed, columns negated to match."""
    lines, signs, motion = [], [], False
    for line in text.splitlines():
        words = line.split()
        if motion and words and re.fullmatch(r"[-+0-9.eE]+", words[0]):
            line = " ".join(repr(float(v) * s) for v, s in zip(words, signs))
        elif words[:1] == ["OFFSET"]:
            x, y, z = (float(v) for v in words[1:4])
            line = f"OFFSET {x!r} {-z!r} {y!r}"
        elif words[:1] == ["CHANNELS"]:
            names = []
            for name in words[2:]:
                axis, sign = TO_Z_UP[name[0]]
                names.append(axis + name[1:])
                signs.append(sign if not name.endswith("scale") else 1.0)
            line = " ".join(words[:2] + names)
        elif words[:1] == ["MOTION"]:
            motion = True
        lines.append(line)
    return "\n".join(lines) + "\n"


def all_joints(document, frame):
    skeleton = document.rig.skeleton
    return np.vstack(heads_tails(skeleton, world_matrices(skeleton, document.clips["motion"][frame])))


@NEEDS_SHARED
def test_a_z_up_file_read_with_up_z_is_the_y_up_figure_in_every_frame(tmp_path):
    text = open(CMU).read()
    path = tmp_path / "zup.bvh"
    path.write_text(z_up_text(text))
    y_up = load_bvh(CMU)
    z_up = load_bvh(path, up="z")
    lying = load_bvh(path)
    for frame in range(4):
        np.testing.assert_allclose(all_joints(z_up, frame), all_joints(y_up, frame), atol=1e-9)
    # Standing: the head is far above the feet along +Y (read as Y-up the figure lies along Z).
    def height(document):
        index = document.rig.skeleton.index
        joints = document.rig.skeleton.rest_heads
        return joints[index["Head"]] - joints[index["LeftFoot"]]
    assert height(z_up)[1] > 1.2 and abs(height(lying)[1]) < 0.3 and abs(height(lying)[2]) > 1.2


@NEEDS_SHARED
def test_z_up_through_open_rig_options(tmp_path):
    path = tmp_path / "zup.bvh"
    path.write_text(z_up_text(open(CMU).read()))
    document = open_rig(path, ImportOptions(bvh_up="z", bvh_scale=0.05))
    assert not any("units guessed" in w for w in document.warnings)
    index = document.rig.skeleton.index
    heads = document.rig.skeleton.rest_heads
    assert heads[index["Head"], 1] - heads[index["LeftFoot"], 1] > 1.0


SCALED = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 9 Xposition Yposition Zposition Xscale Yscale Zscale Zrotation Xrotation Yrotation
  JOINT Chest
  {
    OFFSET 0 20 0
    CHANNELS 4 Zrotation Xscale Xrotation Yrotation
    End Site
    {
      OFFSET 0 20 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.04
0 100 0 1 1 1 0 0 0 0 1 0 0
0 100 0 1 1 1 0 0 0 90 SCALE 0 0
"""


@pytest.mark.parametrize("chest_scale, warned", [("1", False), ("2.5", True)])
def test_scale_channels_are_read_and_ignored(chest_scale, warned):
    document = bvh_document(parse(SCALED.replace("SCALE", chest_scale), "s.bvh"), "s.bvh", 0.01, 1)
    skeleton = document.rig.skeleton
    heads, tails = heads_tails(skeleton, world_matrices(skeleton, document.pose))
    # Frame 2: the chest turned 90 degrees about Z (the columns after the scales were read as such).
    np.testing.assert_allclose(tails[skeleton.index["Chest"]], [-0.2, 1.2, 0.0], atol=1e-12)
    np.testing.assert_allclose(document.pose.scales, 1.0)
    scale_warnings = [w for w in document.warnings if "scale channels" in w]
    assert bool(scale_warnings) == warned
    if warned:
        assert "Chest" in scale_warnings[0] and "Hips" not in scale_warnings[0] and "ignored" in scale_warnings[0]


def test_a_bad_channel_name_still_says_what_is_allowed():
    with pytest.raises(FileFormatError, match="position, rotation or scale"):
        parse(SCALED.replace("Xscale Xrotation", "Wscale Xrotation"), "s.bvh")


@pytest.mark.parametrize("kwargs, message", [
    ({"bvh_up": "x"}, "up axis must be one of y, z"),
    ({"bvh_scale": 0.0}, "above 0 and at most 1000"),
    ({"bvh_scale": float("nan")}, "above 0 and at most 1000"),
])
def test_bad_options_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ImportOptions(**kwargs)
