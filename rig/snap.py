"""IK/FK snapping, as Rigify's snap buttons do it: switch a limb between its IK constraint and its
FK channels without moving it.

A limb is an IK constraint's chain and everything below its first bone (hand, fingers). Its mode
is the constraint's influence (``IK`` 1, ``FK`` 0), so a switch is a value the keys can carry
(``rig.keys``) and every part of the pipeline already honours it; a disabled constraint is FK.

- ``ik_to_fk``: the chain's channels become what is shown (the solved rotations and IK stretch,
  an influence blend included), then the influence goes to 0; the limb stays and turns by hand.
- ``fk_to_ik``: the handle's head goes to the chain's end (its rotation to the last bone's when
  the constraint or the solver uses target rotations, else to the bone that copies the handle's
  rotation, so a hand keeps its turn), the pole target where the solver's pole rule gives back
  this very pose (``solvers.two_bone.pole_facing``): at the angle from the knee's (elbow's) bend
  plane that the rig's pole angle sets (the rest pose's; 0 for a rig whose rest poles lie in the
  plane), as far from the limb's line as it was but at least ``MIN_POLE_DISTANCE`` reaches; then
  IK goes on at full influence.

Each returns a ``Snap``: the new channels, the constraint's new switch, and ``drift``, the most
any head or tail of the limb moves once the rig is evaluated again (measured, not assumed), with
notes saying why when it exceeds ``SNAP_TOLERANCE`` (a chain of more than two bones with a pole
is re-shaped by the iterative solvers' pole step; a distance constraint has no point to snap to).
"""
from dataclasses import dataclass, replace

import numpy as np

from rig.autorig import pole_point
from rig.constraints import clamp_setting
from rig.copy_rotation import rigid
from rig.evaluate import active_copy_rotation, evaluation
from rig.pose import heads_tails, location_for_head, rotation_for_world, update_world
from rig.solver_views import chain_arrays
from solvers.two_bone import pole_facing

SNAP_TOLERANCE = 1e-5  # metres: the most a snap may move any joint of the limb (issue 22)
IK, FK = 1.0, 0.0  # the constraint's influence in each mode
MIN_POLE_DISTANCE = 0.25  # of the chain's reach: a pole nearer the limb's line turns it wildly


@dataclass(frozen=True)
class Snap:
    """A switch's outcome: ``pose`` the channels to keep, ``influence`` and ``enabled`` the
    constraint's new switch, ``drift`` metres the limb moves when evaluated, ``notes`` why a
    drift beyond SNAP_TOLERANCE could not be avoided."""
    pose: object
    influence: float
    enabled: bool
    drift: float
    notes: tuple = ()


def is_ik(constraint):
    """Whether the limb follows its IK (enabled, with a target, at some influence)."""
    return constraint.enabled and constraint.target is not None and constraint.influence > 0.0


def mode(constraint):
    """"IK", "FK", or "blend" for an influence between (the Influence slider's business)."""
    if not is_ik(constraint):
        return "FK"
    return "IK" if constraint.influence >= IK else "blend"


def limb_constraint(rig, names):
    """The IK constraint (with a target) whose chain, target or pole holds one of ``names``, or None."""
    index = rig.skeleton.index
    wanted = {index[n] for n in names if n in index}
    for constraint in rig.ik:
        if constraint.target is None:
            continue
        controls = {index.get(constraint.target), index.get(constraint.pole_target)}
        if wanted & (set(rig.ik_chain(constraint)) | controls):
            return constraint
    return None


def limb_bones(rig, constraint):
    """The bones a switch must not move: the chain and all below its first bone, not its handles."""
    chain = rig.ik_chain(constraint)
    skel = rig.skeleton
    handles = {skel.index.get(constraint.target), skel.index.get(constraint.pole_target)}
    return np.array([b for b in skel.subtree(chain[0]) if b not in handles], dtype=int)


def _switched(rig, constraint, influence):
    """A rig sharing everything with ``rig`` but ``constraint``'s switch."""
    turned = replace(constraint, influence=influence, enabled=constraint.enabled or influence > 0.0)
    return replace(rig, ik=[turned if c is constraint else c for c in rig.ik])


def _shown_channels(rig, result, constraint):
    """``result.pose`` with the chain's channels as shown (IK at any influence included); bones a
    Copy Rotation turns keep theirs, as that constraint acts whatever the switch."""
    pose = result.pose.copy()
    copied = {rig.skeleton.index[c.bone] for c in active_copy_rotation(rig)}
    chain = [b for b in rig.ik_chain(constraint) if b not in copied]
    pose.rotations[chain], pose.scales[chain] = result.shown.rotations[chain], result.shown.scales[chain]
    return pose


def _drift(rig, pose, bones, world_before):
    """The most any head or tail of ``bones`` moves from ``world_before`` when ``rig`` is evaluated on ``pose``."""
    after = evaluation(rig, pose).world
    moved = [np.abs(np.subtract(a, b)[bones]).max(initial=0.0)
             for a, b in zip(heads_tails(rig.skeleton, after), heads_tails(rig.skeleton, world_before))]
    return float(max(moved))


def ik_to_fk(rig, pose, constraint):
    """``Snap`` to FK: the shown chain into the channels, influence 0 (module doc)."""
    before = evaluation(rig, pose)
    channels = _shown_channels(rig, before, constraint)
    after = _switched(rig, constraint, FK)
    return Snap(channels, FK, constraint.enabled, _drift(after, channels, limb_bones(rig, constraint), before.world))


def _handle_rotation(rig, constraint, world, tip):
    """The world rotation (3, 3) the handle must take so nothing that reads it turns, or None."""
    if constraint.use_rotation or rig.solver.use_target_rotations:
        return rigid(world[tip, :3, :3])
    for copier in active_copy_rotation(rig):
        if copier.target == constraint.target:
            return rigid(world[rig.skeleton.index[copier.bone], :3, :3])
    return None


def _pole_at(rig, constraint, pose, world, chain, tip_point):
    """Where the pole target goes: on the limb's bend plane, on the side the solver's pole rule
    needs (a two-bone chain is then its own solution), as far out as it was."""
    skel = rig.skeleton
    root = world[chain[0], :3, 3]
    joint = world[chain[len(chain) // 2], :3, 3]  # the knee or elbow (a long chain's middle)
    if len(chain) == 2:
        toward = pole_facing(chain_arrays(skel, pose, world, chain), pose.rotations[chain], constraint.pole_angle)
    else:  # the bend: the middle joint away from the root-to-tip line
        toward = joint - root
    reach = float(skel.lengths[chain].sum())
    axis = tip_point - root
    pole = world[skel.index[constraint.pole_target], :3, 3]
    off_line = pole - root - axis * np.dot(pole - root, axis) / max(np.dot(axis, axis), 1e-300)
    distance = max(float(np.linalg.norm(off_line)), MIN_POLE_DISTANCE * reach)
    return pole_point(root, joint, tip_point, toward, toward, distance)


def fk_to_ik(rig, pose, constraint):
    """``Snap`` to IK: handle and pole onto the shown limb, influence 1 (module doc)."""
    skel = rig.skeleton
    before = evaluation(rig, pose)
    channels = _shown_channels(rig, before, constraint)
    world = before.world.copy()
    chain = rig.ik_chain(constraint)
    tip_point = heads_tails(skel, world)[1][chain[-1]]
    handle = skel.index[constraint.target]
    rotation = _handle_rotation(rig, constraint, world, chain[-1])
    if rotation is not None:
        channels.rotations[handle] = rotation_for_world(skel, world, handle, rotation)
    channels.locations[handle] = location_for_head(skel, channels, world, handle, tip_point)
    update_world(skel, channels, world, [handle])  # a pole may hang from the handle
    if constraint.pole_target is not None:
        pole = skel.index[constraint.pole_target]
        point = _pole_at(rig, constraint, channels, world, chain, tip_point)
        channels.locations[pole] = location_for_head(skel, channels, world, pole, point)
    after = _switched(rig, constraint, IK)
    drift = _drift(after, channels, limb_bones(rig, constraint), before.world)
    return Snap(channels, IK, True, drift, _causes(rig, constraint, channels, chain) if drift > SNAP_TOLERANCE else ())


def _causes(rig, constraint, pose, chain):
    """Why IK cannot give back this FK limb: what the limb holds that the solve changes."""
    causes = []
    if constraint.ik_type == "distance":
        causes.append("a distance constraint keeps the tip at a distance from the handle, not on it")
    if constraint.pole_target is not None and len(chain) > 2:
        causes.append(f"the pole step of a {len(chain)}-bone chain re-shapes it")
    if np.any(np.abs(pose.scales[chain] - 1.0) > SNAP_TOLERANCE):
        causes.append("IK stretch lengthens only a straight limb, and this one has stretched bones")
    uses_rotation = constraint.use_rotation or rig.solver.use_target_rotations
    if uses_rotation and any(c.target == constraint.target for c in active_copy_rotation(rig)):
        causes.append("the handle's rotation turns both the chain's last bone and a bone copying it")
    settings = [rig.ik_settings(rig.skeleton.names[b]) for b in chain]
    if any(any(s.lock) or any(s.use_limit) for s in settings):
        causes.append("the chain's IK locks or limits hold it from the FK pose")
    return tuple(causes) or ("the solve re-shapes this limb",)


def under_own_switches(rig, pose, switches):
    """``pose`` made to show, under ``rig``'s own switches, what the keyed ``switches`` ({bone:
    influence}) show: each limb keyed otherwise is snapped over to the rig's switch, so formats
    that bake one rig into every frame (export) keep a keyed switch. Exact for rigs whose
    switches are fully IK or FK (a blend is taken as IK)."""
    if not switches:
        return pose
    keyed = replace(rig, ik=[replace(c, influence=clamp_setting("influence", switches[c.bone]))
                             if c.bone in switches else c for c in rig.ik])
    for own, was in zip(rig.ik, list(keyed.ik)):
        if was.influence != own.influence and own.target is not None:
            pose = (fk_to_ik if is_ik(own) else ik_to_fk)(keyed, pose, was).pose
            keyed = replace(keyed, ik=[own if c is was else c for c in keyed.ik])
    return pose


def set_switches(rig, switches):
    """Give each IK constraint on a bone of ``switches`` ({bone: influence}, as keys give them) that
    influence: a keyed switch, evaluated the same however its frame was reached."""
    for constraint in rig.ik:
        if constraint.bone in switches:
            constraint.influence = clamp_setting("influence", switches[constraint.bone])
