"""Blender's Automatic IK: which bones follow a dragged bone, and the chain length setting.

The chain is the dragged bone and its parents while each is connected (``Skeleton.connected_chain``).
The setting starts at 0 (the whole connected chain); (Ctrl+)PageUp / Ctrl+wheel down adds one
(1 = the dragged bone alone), (Ctrl+)PageDown / Ctrl+wheel up takes one off down to 0. A length
beyond the connected chain acts as the whole chain, as in Blender, and the setting keeps counting.
"""
from rig.constraints import IKConstraint


def step_length(length, step):
    """The setting after one PageUp (``step`` +1) or PageDown (-1)."""
    return length + 1 if step > 0 else max(length - 1, 0)


def effective_length(skeleton, bone, length):
    """How many bones follow ``bone`` (index) with the setting at ``length``."""
    full = len(skeleton.connected_chain(bone))
    return full if length == 0 or length > full else length


def uses_auto_ik(skeleton, bone):
    """Blender adds the temporary IK to a bone with a parent that is connected or has a connected
    child; a solitary bone (or a root) is moved instead."""
    return skeleton.parents[bone] >= 0 and (skeleton.connected[bone] or skeleton.has_connected_child(bone))


def goal_constraint(rig, bone, length):
    """The temporary IK constraint on ``bone`` (index): its tail reaches, no stretch (Blender's
    auto IK flags), solved like the rig's own constraints."""
    skeleton = rig.skeleton
    return IKConstraint(skeleton.names[bone], chain_count=effective_length(skeleton, bone, length),
                        use_tail=True, use_stretch=False, iterations=rig.solver.iterations)


def owning_constraint(rig, name):
    """An enabled IK constraint with a target on bone ``name``: Blender adds no Auto IK there;
    Posekit drags that constraint's target instead."""
    for constraint in rig.ik:
        if constraint.bone == name and constraint.enabled and constraint.target and constraint.influence > 0.0:
            return constraint
    return None
