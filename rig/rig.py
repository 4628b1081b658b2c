"""A Rig: skeleton plus the constraints and settings that make it posable."""
from dataclasses import dataclass, field

from rig.constraints import BoneIKSettings, SolverSettings
from rig.skeleton import Skeleton


DEFAULT_IK_SETTINGS = BoneIKSettings()  # frozen: one shared instance for every bone without settings


@dataclass
class Rig:
    """Everything loaded from a rig file. ``bone_ik`` maps bone name -> BoneIKSettings (missing
    bones use the defaults); ``ik`` and ``copy_rotation`` are lists of constraints. ``solve_plans``
    holds what the IK evaluation derives from the settings once per constraint group
    (``rig.ik_plan.group_plan``), keyed by the settings themselves, so edits need no call."""
    name: str
    skeleton: Skeleton
    ik: list = field(default_factory=list)
    copy_rotation: list = field(default_factory=list)
    bone_ik: dict = field(default_factory=dict)
    solver: SolverSettings = field(default_factory=SolverSettings)
    solve_plans: dict = field(default_factory=dict, repr=False, compare=False)
    time_step: object = field(default=None, repr=False, compare=False)  # rig.simulation.TimeStep of the next solve
    # The feet's points of the file's skinned mesh (a rig.skin_contacts.SkinContacts) that ground contact
    # holds up, set where the file is opened; None without a skin.
    skin_contacts: object = field(default=None, repr=False, compare=False)

    def ik_settings(self, bone_name):
        return self.bone_ik.get(bone_name, DEFAULT_IK_SETTINGS)

    def ik_chain(self, constraint):
        """Bone indices an IK constraint rotates, root first (chain_count 0 = up to the root).

        As in Blender, with ``use_tail`` off the constraint's own bone is left out and the count
        starts at its parent, whose tail (the bone's head) then reaches for the target.
        """
        skel = self.skeleton
        tip = skel.index[constraint.bone]
        if not constraint.use_tail and skel.parents[tip] >= 0:
            tip = int(skel.parents[tip])
        return skel.chain(tip, constraint.chain_count)

    def handle_bones(self):
        """Names of bones that IK constraints use as targets, and as pole targets."""
        targets = {c.target for c in self.ik if c.target}
        poles = {c.pole_target for c in self.ik if c.pole_target}
        return targets, poles
