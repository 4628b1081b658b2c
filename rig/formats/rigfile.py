"""Posekit's versioned JSON formats for rigs ("posekit.rig") and poses ("posekit.pose").

Rig files describe bones Blender's way (armature-space head, tail, roll; parent by name;
connected flag) plus IK / copy-rotation constraints, per-bone IK settings and solver settings.
Every load validates and raises FileFormatError naming the file, the field and what was expected.
Saves are atomic.
"""
import math
from dataclasses import asdict, dataclass

import numpy as np

from rig.constraints import ITASC_MODES, RANGES, REITERATIONS, BoneIKSettings, CopyRotationConstraint, IKConstraint, \
    IK_TYPES, LIMIT_MODES, REFERENCE_AXES, SOLVE_MODES, SOLVER_TYPES, SolverSettings
from rig.formats.jsonfields import FileFormatError, Reader, check_header, load_json, save_json_atomic
from rig.pins import pins_to_json, read_pins
from rig.pose import Pose
from rig.ranges import MAX_COORDINATE, MAX_QUATERNION, MAX_SCALE, unit_quaternion
from rig.rig import Rig
from rig.skeleton import MIN_BONE_LENGTH, Skeleton

RIG_FORMAT, RIG_VERSION = "posekit.rig", 1
POSE_FORMAT, POSE_VERSION = "posekit.pose", 1
UNITS, UP = "metres", "+Y"  # a rig file's conventions, written out for people and other tools


def _topological_order(path, bones):
    """Order bone readers parents-first; unknown parents and cycles are errors."""
    by_name = {}
    for b in bones:
        name = b.string("name")
        if name in by_name:
            b.fail("name", "a bone name not used before", name)
        by_name[name] = b
    parents = {}
    for name, b in by_name.items():
        parent = b.string("parent", optional=True)
        if parent is not None and parent not in by_name:
            b.fail("parent", "the name of another bone in the file", parent)
        parents[name] = parent
    order, state = [], {}
    for start in by_name:
        stack = []
        node = start
        while node is not None and state.get(node) != "done":
            if state.get(node) == "visiting":
                raise FileFormatError(path, "bones", f"a hierarchy without cycles (bone '{node}' is its own ancestor)")
            state[node] = "visiting"
            stack.append(node)
            node = parents[node]
        for name in reversed(stack):
            state[name] = "done"
            order.append(name)
    return [by_name[name] for name in order], parents


def _read_bone_ik(b):
    return None if "ik" not in b.obj else _read_bone_ik_settings(b.child("ik"))


def _read_bone_ik_settings(ik):
    d = BoneIKSettings()
    stiffness = ik.vector("stiffness", 3, d.stiffness)
    low, high = RANGES["stiffness"]
    if not all(low <= v <= high for v in stiffness):
        ik.fail("stiffness", f"three numbers in [{low}, {high}]", list(stiffness))
    limit_min = ik.vector("limit_min", 3, d.limit_min, bound=RANGES["limit"][1])
    limit_max = ik.vector("limit_max", 3, d.limit_max, bound=RANGES["limit"][1])
    for axis, (low, high) in enumerate(zip(limit_min, limit_max)):
        if low > high:  # the solvers cannot keep a joint inside an empty range
            ik.fail("limit_min", f"{'XYZ'[axis]} at most limit_max's ({high:g})", list(limit_min))
    return BoneIKSettings(
        lock=ik.vector("lock", 3, d.lock, kind="bool"),
        stiffness=stiffness,
        use_limit=ik.vector("use_limit", 3, d.use_limit, kind="bool"),
        limit_min=limit_min,
        limit_max=limit_max,
        stretch=ik.number("stretch", d.stretch, *RANGES["stretch"]),
        use_rotation_control=ik.boolean("use_rotation_control", d.use_rotation_control),
        rotation_weight=ik.number("rotation_weight", d.rotation_weight, *RANGES["rotation_weight"]),
    )


def _bone_ref(reader, key, names, optional=False):
    value = reader.string(key, optional=optional)
    if value is not None and value not in names:
        reader.fail(key, "the name of a bone in this rig", value)
    return value


def _read_ik(c, names):
    d = IKConstraint(bone="")
    return IKConstraint(
        bone=_bone_ref(c, "bone", names),
        target=_bone_ref(c, "target", names, optional=True),
        pole_target=_bone_ref(c, "pole_target", names, optional=True),
        pole_angle=c.number("pole_angle", d.pole_angle, *RANGES["pole_angle"]),
        chain_count=c.integer("chain_count", d.chain_count, *RANGES["chain_count"]),
        use_tail=c.boolean("use_tail", d.use_tail),
        use_stretch=c.boolean("use_stretch", d.use_stretch),
        iterations=c.integer("iterations", d.iterations, *RANGES["iterations"]),
        use_location=c.boolean("use_location", d.use_location),
        weight=c.number("weight", d.weight, *RANGES["weight"]),
        use_rotation=c.boolean("use_rotation", d.use_rotation),
        orient_weight=c.number("orient_weight", d.orient_weight, *RANGES["orient_weight"]),
        influence=c.number("influence", d.influence, *RANGES["influence"]),
        solver=c.string("solver", d.solver, SOLVER_TYPES),
        enabled=c.boolean("enabled", d.enabled),
        ik_type=c.string("ik_type", d.ik_type, IK_TYPES),
        lock_location=c.vector("lock_location", 3, d.lock_location, kind="bool"),
        lock_rotation=c.vector("lock_rotation", 3, d.lock_rotation, kind="bool"),
        reference_axis=c.string("reference_axis", d.reference_axis, REFERENCE_AXES),
        limit_mode=c.string("limit_mode", d.limit_mode, LIMIT_MODES),
        distance=c.number("distance", d.distance, *RANGES["distance"]),
        soft_reach=c.number("soft_reach", d.soft_reach, *RANGES["soft_reach"]),
    )


def _read_copy_rotation(c, names):
    d = CopyRotationConstraint(bone="", target="")
    return CopyRotationConstraint(
        bone=_bone_ref(c, "bone", names),
        target=_bone_ref(c, "target", names),
        use_axes=c.vector("use_axes", 3, d.use_axes, kind="bool"),
        influence=c.number("influence", d.influence, *RANGES["influence"]),
        enabled=c.boolean("enabled", d.enabled),
    )


def _read_solver(r):
    if "solver" not in r.obj:
        return SolverSettings()
    s = r.child("solver")
    d = SolverSettings()
    return SolverSettings(
        type=s.string("type", d.type, SOLVER_TYPES),
        iterations=s.integer("iterations", d.iterations, *RANGES["iterations"]),
        tolerance=s.number("tolerance", d.tolerance, 0.0),
        mode=s.string("mode", d.mode, SOLVE_MODES),
        use_target_rotations=s.boolean("use_target_rotations", d.use_target_rotations),
        damping=s.number("damping", d.damping, *RANGES["damping"]),
        itasc_mode=s.string("itasc_mode", d.itasc_mode, ITASC_MODES),
        max_velocity=s.number("max_velocity", d.max_velocity, *RANGES["max_velocity"]),
        feedback=s.number("feedback", d.feedback, *RANGES["feedback"]),
        reiteration=s.string("reiteration", d.reiteration, REITERATIONS),
    )


def rig_from_dict(data, path="<rig>"):
    root = Reader(path, data)
    check_header(root, RIG_FORMAT, RIG_VERSION)
    root.string("units", UNITS, (UNITS,))  # what rig_to_dict writes: the conventions, fixed
    root.string("up", UP, (UP,))
    bones = root.items("bones")
    if not bones:
        root.fail("bones", "at least one bone", [])
    ordered, parents = _topological_order(path, bones)
    names = [b.string("name") for b in ordered]
    index = {n: i for i, n in enumerate(names)}
    heads, tails, rolls, connected, bone_ik = [], [], [], [], {}
    for b in ordered:
        head, tail = b.vector("head", 3, bound=MAX_COORDINATE), b.vector("tail", 3, bound=MAX_COORDINATE)
        if math.dist(head, tail) < MIN_BONE_LENGTH:
            b.fail("tail", f"a point at least {MIN_BONE_LENGTH} m from the head (zero-length bone)", list(tail))
        heads.append(head)
        tails.append(tail)
        rolls.append(b.number("roll", 0.0))
        is_connected = b.boolean("connected", False)
        if is_connected and parents[names[len(connected)]] is None:
            b.fail("connected", "false for a bone without a parent", True)
        connected.append(is_connected)
        settings = _read_bone_ik(b)
        if settings is not None:
            bone_ik[names[len(connected) - 1]] = settings
    parent_idx = [index[parents[n]] if parents[n] is not None else -1 for n in names]
    skeleton = Skeleton.from_bones(names, parent_idx, heads, tails, rolls, connected)
    ik, copy_rot = _read_constraints(root, set(names))
    rig = Rig(root.string("name", "rig"), skeleton, ik, copy_rot, bone_ik, _read_solver(root))
    root.check_fields()
    return rig


def _read_constraints(root, names):
    """The IK and Copy Rotation constraints of a rig (or of its settings) on bones ``names``."""
    return ([_read_ik(c, names) for c in root.items("ik_constraints", [])],
            [_read_copy_rotation(c, names) for c in root.items("copy_rotation_constraints", [])])


@dataclass
class RigSettings:
    """A rig's settings apart from its bones: everything a panel can change."""
    ik: list
    copy_rotation: list
    bone_ik: dict
    solver: SolverSettings


def settings_to_dict(settings):
    """``settings`` (a RigSettings, a Rig or anything with their four fields) as a JSON object: the
    constraints and solver as a rig file writes them, per-bone IK settings by bone name."""
    return {**_constraints_dict(settings),
            "bone_ik": {name: _plain(asdict(value)) for name, value in settings.bone_ik.items()}}


def settings_from_dict(data, names, path="<settings>", prefix=""):
    """The RigSettings ``settings_to_dict`` wrote, for a rig with bones ``names`` (a set); checked
    as a rig file's are (FileFormatError)."""
    root = Reader(path, data, prefix)
    bone_ik = root.child("bone_ik", {})
    for name in bone_ik.names():
        if name not in names:
            bone_ik.fail(name, "the name of a bone in this rig")
    ik, copy_rotation = _read_constraints(root, names)
    settings = RigSettings(ik, copy_rotation, {name: _read_bone_ik_settings(bone_ik.child(name))
                                               for name in bone_ik.obj}, _read_solver(root))
    root.check_fields()
    return settings


def load_rig(path):
    """Read and validate a rig file; raises FileFormatError with a one-line message."""
    return rig_from_dict(load_json(path), str(path))


def _vec(v, decimals=None):
    return [float(x) if decimals is None else round(float(x), decimals) for x in v]


def rig_to_dict(rig, exact=False):
    """The rig as a "posekit.rig" document. Rest points are rounded to a nanometre so save -> load
    -> save writes the same bytes; ``exact`` keeps every bit instead, so what reads it back (crash
    recovery) shows the very rig that was written."""
    skel = rig.skeleton
    heads, tails, rolls = skel.rest_heads, skel.rest_tails, skel.rest_rolls
    decimals, roll_decimals = (None, None) if exact else (9, 12)
    bones = []
    for i, name in enumerate(skel.names):
        p = skel.parents[i]
        roll = float(rolls[i]) if exact else round(float(rolls[i]), roll_decimals)
        bone = {"name": name, "parent": skel.names[p] if p >= 0 else None, "head": _vec(heads[i], decimals),
                "tail": _vec(tails[i], decimals), "roll": roll, "connected": bool(skel.connected[i])}
        if name in rig.bone_ik:
            bone["ik"] = _plain(asdict(rig.bone_ik[name]))
        bones.append(bone)
    settings = _constraints_dict(rig)
    return {"format": RIG_FORMAT, "version": RIG_VERSION, "name": rig.name, "units": UNITS, "up": UP,
            "solver": settings.pop("solver"), "bones": bones, **settings}


def _constraints_dict(settings):
    """The solver and the constraints of ``settings`` (a Rig or RigSettings) as a rig file has them."""
    return {"solver": _plain(asdict(settings.solver)), "ik_constraints": [_plain(asdict(c)) for c in settings.ik],
            "copy_rotation_constraints": [_plain(asdict(c)) for c in settings.copy_rotation]}


def _plain(d):
    return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


def save_rig(rig, path):
    save_json_atomic(path, rig_to_dict(rig))


def pose_to_dict(skeleton, pose, rig_name="", pins=None):
    """Only bones that differ from rest are written, so poses stay readable and diffable; ``pins``
    (``rig.pins``), when there are any, go under ``"pins"``."""
    bones = {}
    rest = Pose.rest(len(skeleton))
    for i, name in enumerate(skeleton.names):
        entry = {}
        if not np.array_equal(pose.rotations[i], rest.rotations[i]):
            entry["rotation"] = _vec(pose.rotations[i])
        if not np.array_equal(pose.locations[i], rest.locations[i]):
            entry["location"] = _vec(pose.locations[i])
        if not np.array_equal(pose.scales[i], rest.scales[i]):
            entry["scale"] = _vec(pose.scales[i])
        if entry:
            bones[name] = entry
    data = {"format": POSE_FORMAT, "version": POSE_VERSION, "rig": rig_name, "bones": bones}
    if pins:
        data["pins"] = pins_to_json(pins)
    return data


@dataclass
class PoseData:
    """What a pose file holds: the channels, the pins (``rig.pins``, by bone name) and warnings
    about bones the rig lacks, which were skipped."""
    pose: Pose
    pins: dict
    warnings: list


def read_pose_data(data, skeleton, path="<pose>", prefix=""):
    """A ``PoseData`` from a pose object. Bones the skeleton lacks (channels or pins) are skipped
    with a warning, so a pose saved from a similar rig still applies to the bones both share.
    ``prefix`` names where in the file the pose is, for messages ("history.undo[0].pose.")."""
    root = Reader(path, data, prefix)
    check_header(root, POSE_FORMAT, POSE_VERSION)
    root.string("rig", "")  # the name of the rig it was saved from, for people
    bones = root.child("bones")
    pose = Pose.rest(len(skeleton))
    warnings = []
    for name in bones.names():
        if name not in skeleton.index:
            warnings.append(f"{path}: bone '{name}' is not in the rig; skipped")
            continue
        b = bones.child(name)
        i = skeleton.index[name]
        rotation = np.array(b.vector("rotation", 4, tuple(pose.rotations[i]), bound=MAX_QUATERNION))
        norm = np.linalg.norm(rotation)
        if norm < 1e-6:
            b.fail("rotation", "a non-zero quaternion [x, y, z, w]", list(rotation))
        pose.rotations[i] = unit_quaternion(rotation, norm)
        pose.locations[i] = b.vector("location", 3, tuple(pose.locations[i]), bound=MAX_COORDINATE)
        pose.scales[i] = b.vector("scale", 3, tuple(pose.scales[i]), bound=MAX_SCALE)
    unknown_pins = []
    pins = read_pins(root, skeleton, skipped=unknown_pins)
    warnings += [f"{path}: the pin on bone '{name}' is not in the rig; skipped" for name in unknown_pins]
    root.check_fields()
    return PoseData(pose, pins, warnings)


def pose_from_dict(data, skeleton, path="<pose>", prefix=""):
    """Returns (pose, warnings): ``read_pose_data``'s channels, for callers that pose a rig and
    hold nothing (export, clips); the pins are read, checked and left to those
    that hold them."""
    read = read_pose_data(data, skeleton, path, prefix)
    return read.pose, read.warnings


def load_pose(path, skeleton):
    return pose_from_dict(load_json(path), skeleton, str(path))


def load_pose_data(path, skeleton):
    return read_pose_data(load_json(path), skeleton, str(path))


def save_pose(skeleton, pose, path, rig_name="", pins=None):
    if not pose.is_finite():
        raise ValueError("refusing to save a pose with non-finite values")
    save_json_atomic(path, pose_to_dict(skeleton, pose, rig_name, pins))


__all__ = ["FileFormatError", "load_rig", "save_rig", "load_pose", "save_pose", "rig_from_dict", "rig_to_dict",
           "pose_from_dict", "pose_to_dict", "PoseData", "read_pose_data", "load_pose_data"]
