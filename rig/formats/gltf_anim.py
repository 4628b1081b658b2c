"""glTF animations on a skin's joints: channels read and validated, sampled at any time.

LINEAR and STEP interpolate as the spec says (rotations by slerp); CUBICSPLINE keys are read for
their values and interpolated linearly (the tangents are ignored). Channels on nodes that are not
joints of the skin, and morph-weight channels, are skipped with a warning.
"""
from dataclasses import dataclass, field

import numpy as np
import pygltflib

from rig.formats.gltf_buffers import is_int
from solvers.transforms import compose, quat_normalize, quat_slerp

PATHS = {"translation": 3, "rotation": 4, "scale": 3}
INTERPOLATIONS = ("LINEAR", "STEP", "CUBICSPLINE")
MAX_CLIP_SECONDS = 3600.0


@dataclass
class Channel:
    """One animated property of one bone: key ``times`` (K,), ``values`` (K, 3 or 4)."""
    bone: int
    path: str
    times: np.ndarray
    values: np.ndarray
    interpolation: str

    def sample(self, t):
        times, values = self.times, self.values
        k = int(np.searchsorted(times, t, side="right")) - 1
        if k < 0:
            return values[0]
        if k >= len(times) - 1 or self.interpolation == "STEP":
            return values[min(k, len(times) - 1)]
        span = times[k + 1] - times[k]
        u = 0.0 if span <= 0 else (t - times[k]) / span
        if self.path == "rotation":
            return quat_slerp(values[k], values[k + 1], u)
        return values[k] + (values[k + 1] - values[k]) * u


@dataclass
class Clip:
    """An animation on a skin's bones; ``duration`` is the last key time in seconds."""
    name: str
    channels: list = field(default_factory=list)

    @property
    def duration(self):
        return max((float(c.times[-1]) for c in self.channels), default=0.0)

    def node_locals(self, base_trs, t):
        """(N, 4, 4) joint-node local matrices at time ``t``: ``base_trs`` (translations,
        rotations, scales of the joint nodes) with the animated channels replaced."""
        trs = {"translation": base_trs[0].copy(), "rotation": base_trs[1].copy(), "scale": base_trs[2].copy()}
        for channel in self.channels:
            trs[channel.path][channel.bone] = channel.sample(t)
        return compose(trs["translation"], quat_normalize(trs["rotation"]), trs["scale"])


def read_clips(file, bone_of_node):
    """Clips of every animation touching the skin, by unique name; ``bone_of_node`` maps a
    joint's node index to our bone index."""
    clips = {}
    for a, animation in enumerate(file.gltf.animations):
        clip = _read_animation(file, a, animation, bone_of_node)
        if clip.channels:
            name = clip.name
            k = 0
            while name in clips:
                k += 1
                name = f"{clip.name}.{k:03d}"
            clip.name = name
            clips[name] = clip
    return clips


def _read_animation(file, a, animation, bone_of_node):
    field_name = f"animations[{a}]"
    name = animation.name if isinstance(animation.name, str) and animation.name else f"animation_{a}"
    clip = Clip(name)
    channels = file.objects(animation.channels, pygltflib.AnimationChannel, f"{field_name}.channels")
    samplers = file.objects(animation.samplers, pygltflib.AnimationSampler, f"{field_name}.samplers")
    skipped = 0
    for c, channel in enumerate(channels):
        where = f"{field_name}.channels[{c}]"
        target = file.object(channel.target, pygltflib.AnimationChannelTarget, f"{where}.target")
        if target.path not in (*PATHS, "weights"):
            file.fail(f"{where}.target.path", "translation, rotation, scale or weights",
                      getattr(target, "path", None))
        if not is_int(channel.sampler, 0, len(samplers) - 1):
            file.fail(f"{where}.sampler", f"a sampler index (0..{len(samplers) - 1})", channel.sampler)
        if target.node is not None and not is_int(target.node, 0, len(file.gltf.nodes) - 1):
            file.fail(f"{where}.target.node", f"a node index (0..{len(file.gltf.nodes) - 1})", target.node)
        if target.path == "weights" or target.node not in bone_of_node:
            skipped += 1
            continue
        sampler = samplers[channel.sampler]
        times, values, interpolation = _read_sampler(file, f"{field_name}.samplers[{channel.sampler}]", sampler,
                                                     target.path)
        clip.channels.append(Channel(bone_of_node[target.node], target.path, times, values, interpolation))
    if skipped:
        file.warnings.append(f"{file.path}: {field_name} ('{name}'): {skipped} channels on morph weights or on "
                             f"nodes that are not joints of the skin; skipped")
    return clip


def _read_sampler(file, where, sampler, path):
    interpolation = sampler.interpolation or "LINEAR"
    if interpolation not in INTERPOLATIONS:
        file.fail(f"{where}.interpolation", "LINEAR, STEP or CUBICSPLINE", interpolation)
    times = file.accessor(sampler.input, f"{where}.input", ("SCALAR",), floats_only=True)[:, 0]
    if not np.isfinite(times).all() or np.any(np.diff(times) < 0) or times[0] < 0:
        file.fail(f"{where}.input", "finite, non-negative, increasing key times")
    if times[-1] > MAX_CLIP_SECONDS:
        file.fail(f"{where}.input", f"key times up to {MAX_CLIP_SECONDS:.0f} s", float(times[-1]))
    size = PATHS[path]
    values = file.accessor(sampler.output, f"{where}.output", (f"VEC{size}",), floats_only=path != "rotation")
    if values.dtype.kind != "f":
        file.fail(f"{where}.output", "float or normalised integer values")
    per_key = 3 if interpolation == "CUBICSPLINE" else 1
    if len(values) != per_key * len(times):
        file.fail(f"{where}.output", f"{per_key * len(times)} values for {len(times)} keys", len(values))
    if per_key == 3:
        values = values[1::3]
    if not np.isfinite(values).all():
        file.fail(f"{where}.output", "finite values")
    if path == "rotation" and np.any(np.linalg.norm(values, axis=1) < 1e-6):
        file.fail(f"{where}.output", "non-zero quaternions")
    return times, values, "STEP" if interpolation == "STEP" else "LINEAR"
