"""What the viewport shows, as plain data: the camera and where every bone and handle is, in the
world and in window pixels (origin top left, as screenshots and xdotool count). For tests and bug
reports that need to aim the pointer at something."""
import numpy as np

from rig.pose import heads_tails

SCENE_FORMAT, SCENE_VERSION = "posekit.scene", 1


def _rows(array):
    """Nested lists of floats; NaN (a point behind the camera has no pixel) becomes null."""
    return [[float(v) if np.isfinite(v) else None for v in row] for row in np.asarray(array)]


def scene_dict(rig, world, camera, width, height):
    """The camera (view and projection matrices, rows first; viewport size) and, per bone, its
    world head/tail and their window pixels; per IK handle or pole, its head (the dragged point)."""
    skel = rig.skeleton
    heads, tails = heads_tails(skel, world)
    head_px = camera.world_to_window(heads, width, height)
    tail_px = camera.world_to_window(tails, width, height)
    bones = {name: {"head": _rows(heads[i:i + 1])[0], "tail": _rows(tails[i:i + 1])[0],
                    "head_px": _rows(head_px[i:i + 1])[0], "tail_px": _rows(tail_px[i:i + 1])[0]}
             for i, name in enumerate(skel.names)}
    targets, poles = rig.handle_bones()
    handles = {name: {"kind": "target" if name in targets else "pole", "position": bones[name]["head"],
                      "px": bones[name]["head_px"]} for name in sorted(targets | poles)}
    return {"format": SCENE_FORMAT, "version": SCENE_VERSION,
            "camera": {"view": _rows(camera.view_matrix()), "projection": _rows(camera.projection_matrix(width / height)),
                       "eye": [float(v) for v in camera.eye()], "viewport": [width, height]},
            "bones": bones, "handles": handles}
