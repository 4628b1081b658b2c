"""Automatic IK set-up from the app: what ``rig.autorig`` recognises in the open rig, and
applying its set-up (hand/foot IK handles, elbow/knee poles, constraints) as one undo step.

The recognition is cached on the state per skeleton (the skeleton object changes only when the
rig is replaced), so the panel can show it every frame for free.
"""
from dataclasses import dataclass

from rig.autorig import auto_rig, limb_ending_at
from rig.limb_roles import LIMBS, SIDES, AutoRigReport, recognise, summary
from rig.pose import world_matrices

LIMB_ROLES = tuple(f"{kind}.{side}" for kind, *_ in LIMBS for side in SIDES)


@dataclass
class AutoSetup:
    """``report`` describes ``skeleton``; ``applied``: it came from a set-up (lists created bones)."""
    skeleton: object
    report: AutoRigReport
    applied: bool = False
    edited: bool = False  # the user corrected the recognised limbs


def current_setup(state):
    """The AutoSetup for the state's rig, recognising it when the skeleton is new."""
    setup = state.auto_setup
    if setup is None or setup.skeleton is not state.rig.skeleton:
        setup = state.auto_setup = AutoSetup(state.rig.skeleton, recognise(state.rig.skeleton))
    return setup


def choose_limb_end(state, role, end):
    """Correct what was recognised: limb ``role`` ends at bone ``end`` (its parent and
    grandparent are the rest of it), or has no limb when ``end`` is None."""
    report = current_setup(state).report
    limb = None if end is None else limb_ending_at(state.rig.skeleton, end)
    if limb is None:
        report.roles.pop(role, None)
        report.found_by.pop(role, None)
    else:
        report.roles[role], report.found_by[role] = limb, "chosen"
    current_setup(state).edited = True


def limbs_to_set_up(state):
    """Roles of recognised limbs whose lower bone has no IK constraint yet."""
    constrained = {c.bone for c in state.rig.ik}
    report = current_setup(state).report
    return [role for role in report.roles if role.split(".")[0] in ("arm", "leg")
            and report.roles[role][1] not in constrained]


def should_offer(state):
    """Offer the set-up unprompted: the rig has no IK at all and limbs were recognised."""
    return not state.rig.ik and bool(limbs_to_set_up(state))


def show_auto_setup(state):
    """Whether the panel has something to say: limbs to set up, a set-up made on this rig, or
    limbs the user took out (to put back)."""
    setup = current_setup(state)
    return setup.applied or bool(limbs_to_set_up(state)) or setup.edited


def apply_auto_setup(state):
    """Replace the rig by ``auto_rig``'s (the pose kept, handles snapped onto it) and ask for a
    solve; the frame's end records it as an undo step. Returns whether anything was set up."""
    rig, report, pose = auto_rig(state.rig, state.pose, current_setup(state).report)
    if not report.created:
        state.message = "Automatic IK set-up: nothing to add. " + "; ".join(report.warnings)
        return False
    state.rig, state.pose = rig, pose
    state.world = world_matrices(rig.skeleton, pose)  # one matrix per new bone until the frame solves
    state.auto_setup = AutoSetup(rig.skeleton, report, applied=True)
    state.mark_dirty()
    state.message = "; ".join([f"IK set up for {', '.join(report.handles)}: {summary(report)}"] + report.warnings)
    return True
