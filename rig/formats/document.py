"""What opening a rig file gives (``RigDocument``) and the choices a file may not make for itself
(``ImportOptions``). Kept apart from the readers so each reader can build documents without
importing the others."""
from dataclasses import dataclass, field

from rig.ranges import MAX_BVH_SCALE
from rig.rig import Rig


@dataclass
class RigDocument:
    """A rig as opened from a file. ``clips`` maps clip name -> list of Poses (one per frame),
    ``frame_times`` clip name -> seconds per frame; ``pose`` is the Pose the file itself holds, to
    show first (None: rest); ``mesh`` is the format's skinned-mesh data when the file had one, else
    None; ``source`` is format-specific data a reader keeps (for glTF: the map between poses and
    node transforms); ``skins`` names every rig the file holds when it holds several (glTF
    skins), ``skin`` is the index of the one read."""
    rig: Rig
    path: str
    warnings: list = field(default_factory=list)
    clips: dict = field(default_factory=dict)
    mesh: object = None
    pose: object = None
    frame_times: dict = field(default_factory=dict)
    source: object = None
    skins: tuple = ()
    skin: int = 0


BVH_UP_AXES = ("y", "z")


@dataclass(frozen=True)
class ImportOptions:
    """What a file may not say about itself, chosen by the user: ``bvh_scale`` metres per BVH file
    unit (None: guessed from the figure's size), ``bvh_up`` the BVH file's up axis, "y" or "z"
    (see ``rig.formats.bvh``); ``gltf_skin`` which of a glTF file's skins to read (from 0). Other formats
    say their units and axes (glTF: metres, +Y up)."""
    bvh_scale: float | None = None
    bvh_up: str = "y"
    gltf_skin: int = 0

    def __post_init__(self):
        if self.bvh_scale is not None and not 0 < self.bvh_scale <= MAX_BVH_SCALE:
            raise ValueError(f"the BVH scale must be metres per file unit above 0 and at most {MAX_BVH_SCALE:g}, "
                             f"got {self.bvh_scale}")
        if self.bvh_up not in BVH_UP_AXES:
            raise ValueError(f"the BVH up axis must be one of {', '.join(BVH_UP_AXES)}, got {self.bvh_up!r}")
        if not isinstance(self.gltf_skin, int) or self.gltf_skin < 0:
            raise ValueError(f"the glTF skin must be an index from 0, got {self.gltf_skin!r}")
