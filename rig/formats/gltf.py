"""glTF 2.0 rigs: read a skin (bones, skinned mesh, animation clips) and write a posed rig as .glb.

Reading: ``read_gltf(path)`` opens .gltf (with .bin files or data URIs) and .glb files and returns
a ``RigDocument``: the skin's joints as bones (see ``rig.formats.gltf_skin``), the pose the file's nodes
hold, the skinned mesh and every animation sampled at ``fps`` frames a second. Its ``source``
(a ``GltfSource``) keeps the exact map between our poses and the glTF nodes and the clips
themselves, so a clip can be sampled at any time. Every failure is a ``FileFormatError``.

Writing: ``write_glb(path, rig, pose, mesh, clip)`` (see ``rig.formats.gltf_export``).
"""
import math
from dataclasses import dataclass, field

import numpy as np


from rig.formats.document import RigDocument
from rig.formats.gltf_anim import read_clips
from rig.formats.gltf_buffers import GltfFile, is_int
from rig.formats.gltf_export import glb_bytes, node_trs, write_glb
from rig.formats.gltf_mesh import read_skinned_mesh
from rig.formats.gltf_nodes import read_nodes
from rig.formats.gltf_skin import EXTRAS_KEY, RIG_EXTRAS, NodeMap, node_map, read_skin_bones
from rig.formats.jsonfields import FileFormatError, Reader
from rig.formats.rigfile import RIG_FORMAT, RIG_VERSION, rig_from_dict

__all__ = ["GltfSource", "read_gltf", "write_glb", "glb_bytes", "node_trs"]
DEFAULT_FPS = 30.0


@dataclass
class GltfSource:
    """What a glTF reader keeps besides the rig: ``node_map`` (poses <-> joint node transforms),
    ``base_trs`` (the joint nodes' translations, rotations and scales as stored in the file, which
    animation channels override) and ``clips`` (name -> ``rig.formats.gltf_anim.Clip``)."""
    node_map: NodeMap
    base_trs: tuple
    clips: dict = field(default_factory=dict)

    def sample(self, clip_name, time):
        """The Pose of clip ``clip_name`` at ``time`` seconds."""
        return self.node_map.pose_from_locals(self.clips[clip_name].node_locals(self.base_trs, time))


def read_gltf(path, skin=0, fps=DEFAULT_FPS):
    """Read skin number ``skin`` of a .gltf/.glb file (see the module doc); warns when the file has
    other skins. Raises FileFormatError."""
    file = GltfFile(path)
    skins = file.gltf.skins
    if not skins:
        file.fail("skins", "at least one skin (a rig)")
    if not is_int(skin, 0, len(skins) - 1):
        raise FileFormatError(path, "skins", f"skin index {skin} to exist (the file has {len(skins)})")
    names = tuple(s.name or f"skin {i}" for i, s in enumerate(skins))
    if len(skins) > 1:
        file.warnings.append(f"{file.path}: the file has {len(skins)} skins; read skin {skin} ('{names[skin]}'); "
                             "File > Skin reads another")
    nodes = read_nodes(file)
    bones = read_skin_bones(file, nodes, skin)
    rig = rig_from_dict(_rig_dict(file, bones), file.path)
    mapping = node_map(bones, rig.skeleton)
    joints = bones.joints
    base = (nodes.translations[joints], nodes.rotations[joints], nodes.scales[joints])
    source = GltfSource(mapping, base, read_clips(file, {int(n): i for i, n in enumerate(joints)}))
    mesh = read_skinned_mesh(file, skin, bones, rig.skeleton)
    pose = mapping.pose_from_locals(nodes.local[joints])
    rates = {name: clip_rate(clip, fps) for name, clip in source.clips.items()}
    clips = {name: [source.sample(name, k / rates[name]) for k in range(_frame_count(clip.duration, rates[name]))]
             for name, clip in source.clips.items()}
    return RigDocument(rig, file.path, file.warnings, clips, mesh, pose=pose, source=source,
                       frame_times={name: 1.0 / rates[name] for name in clips},
                       skins=names if len(skins) > 1 else (), skin=skin)


GRID_TOLERANCE = 1e-3  # of a frame: key times this close to a whole frame lie on the clip's grid, or end it
MIN_GRID_FPS, MAX_GRID_FPS = 10.0, 1000.0  # sparser keys (two a second) are sampled at ``fps``


def clip_rate(clip, fps):
    """The rate a clip was keyed at, when every key time is a whole number of one interval (ours:
    one key a frame, at any rate), so it reads back with its own timing; else ``fps``. The
    interval is measured across the whole clip, which averages out float32 key times."""
    times = np.unique(np.concatenate([c.times for c in clip.channels]).astype(float))
    if len(times) < 2:
        return fps
    steps = round((times[-1] - times[0]) / float(np.min(np.diff(times))))
    interval = (times[-1] - times[0]) / steps
    frames = (times - times[0]) / interval
    if not 1.0 / MAX_GRID_FPS <= interval <= 1.0 / MIN_GRID_FPS or np.abs(frames - np.round(frames)).max() > GRID_TOLERANCE:
        return fps
    return 1.0 / interval


def _frame_count(duration, fps):
    return int(math.floor(duration * fps + GRID_TOLERANCE)) + 1


def _rig_dict(file, bones):
    """A posekit.rig dictionary: the skin's bones plus, for files we wrote, the constraints and
    solver settings kept in the root's extras (whose other keys are refused; ``rig_from_dict``
    checks what they hold)."""
    data = {"format": RIG_FORMAT, "version": RIG_VERSION, "name": "gltf", "bones": bones.bones}
    extras = file.gltf.extras if isinstance(file.gltf.extras, dict) else {}
    if EXTRAS_KEY in extras:
        ours = Reader(file.path, extras[EXTRAS_KEY], f"extras.{EXTRAS_KEY}.")
        data.update({k: v for k, v in ((k, ours.get(k, None)) for k in RIG_EXTRAS) if v is not None})
        bone_ik = ours.child("bone_ik", {})
        for bone in bones.bones:
            if bone["name"] in bone_ik.obj:
                bone["ik"] = bone_ik.get(bone["name"], None)
        ours.check_fields(within=False)
        bone_ik.check_fields(within=False)  # settings of a bone the skin lacks are refused too
    return data
