"""The ground in the app (the Ground panel is ``ui.ground_panel``'s): which ground the figure
stands on (the grid's plane, or a scene file's triangles from File > Open Ground), ground contact
on or off (read by the solve), and foot planting: once as an undo step (Edit > Plant feet, or
the Ground panel's button) or live, after every solve of a drag.

The state keeps ``ground`` (anything with ``surface_under``), ``ground_path`` (the scene file,
"" for the grid's plane), ``ground_contact`` and ``plant_feet`` (the live option); the legs
planting works on are found once per rig and constraint set (``legs_cache``).
"""
import os
from dataclasses import dataclass

from rig.feet import find_legs
from rig.formats.ground_file import read_ground
from rig.formats.jsonfields import FileFormatError
from rig.ground import PlaneGround
from rig.planting import plant


def open_ground(state, path):
    """Stand on the scene file at ``path``; a file that does not read leaves the ground as it
    was and says why. Returns whether it opened."""
    try:
        opened = read_ground(path)
    except (FileFormatError, OSError) as error:
        state.report_error(str(error))
        return False
    state.ground, state.ground_path = opened.ground, os.path.abspath(path)
    state.mark_dirty()
    state.message = "; ".join([f"Ground: {path} ({len(opened.ground)} triangles)"] + opened.warnings)
    return True


def use_grid_plane(state):
    state.ground, state.ground_path = PlaneGround(), ""
    state.mark_dirty()
    state.message = "Ground: the grid's plane"


def legs_of(state):
    """The rig's ``rig.feet.Legs``, found again only when the rig or its constraints change."""
    rig = state.rig
    key = (id(rig), id(rig.skeleton), tuple((c.bone, c.target, c.enabled) for c in rig.ik),
           tuple((c.bone, c.target, c.enabled) for c in rig.copy_rotation))
    if state.legs_cache is None or state.legs_cache[0] != key:
        state.legs_cache = (key, find_legs(rig))
    return state.legs_cache[1]


def plant_feet(state):
    """Plant the feet on the ground now (the history records it as one undo step)."""
    legs = legs_of(state)
    if not legs.legs:
        state.report_error("Plant feet: " + "; ".join(legs.problems))
        return False
    result = plant(state.rig, state.pose, state.ground, legs)
    if not result.feet:
        state.report_error("Plant feet: " + "; ".join(result.warnings))
        return False
    state.pose = result.pose
    state.mark_dirty()
    state.message = "; ".join([f"Feet planted ({', '.join(f.role for f in result.feet)})"] + result.warnings)
    return True


def planted_after_solve(state, evaluated):
    """``evaluated`` (pose, world, reports of a solve) with the feet planted when the live option
    is on and the rig has legs to plant; as it was otherwise."""
    legs = legs_of(state) if state.plant_feet else None
    if not legs or not legs.legs:
        return evaluated
    result = plant(state.rig, evaluated[0], state.ground, legs, world=evaluated[1])
    if not result.feet:
        return evaluated
    return result.pose, result.evaluation.world, evaluated[2] + result.evaluation.reports


@dataclass(frozen=True)
class GroundChoice:
    """What a session keeps of its ground (the autosave's "ground" object): the scene file's
    ``path`` ("" for the grid's plane), ``contact`` and ``plant_feet``. The file is read again on
    restoring, as the rig's mesh is."""
    path: str = ""
    contact: bool = False
    plant_feet: bool = False

    @classmethod
    def of(cls, state):
        return cls(state.ground_path, state.ground_contact, state.plant_feet)

    def to_dict(self):
        return {"path": self.path, "contact": self.contact, "plant_feet": self.plant_feet}

    @classmethod
    def read(cls, root):
        """From a ``rig.formats.jsonfields.Reader`` of the session (defaults when it has none)."""
        if root.get("ground", None) is None:
            return cls()
        ground = root.child("ground")
        return cls(ground.string("path", ""), ground.boolean("contact", False), ground.boolean("plant_feet", False))

    def apply(self, state):
        """Put the choice on ``state``; returns a note ("" when all of it was restored)."""
        state.ground_contact, state.plant_feet = self.contact, self.plant_feet
        if not self.path:
            return ""
        try:
            opened = read_ground(self.path)
        except (FileFormatError, OSError) as error:
            return f"the ground did not read, the grid's plane is used ({error})"
        state.ground, state.ground_path = opened.ground, self.path
        return ""
