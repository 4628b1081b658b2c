"""What the viewport shows, as plain data: the camera, where every bone and handle is, and the
solver state drawn over them, in the world and in window pixels (origin top left, as screenshots
and xdotool count). For tests and bug reports that need to aim the pointer at something."""
import numpy as np

from rig.pose import heads_tails

SCENE_FORMAT, SCENE_VERSION = "posekit.scene", 1


def _rows(array):
    """Nested lists of floats; NaN (a point behind the camera has no pixel) becomes null."""
    return [[float(v) if np.isfinite(v) else None for v in row] for row in np.asarray(array)]


def _point(camera, point, width, height):
    """A world point and its window pixel, as the dump writes them."""
    return _rows(np.asarray(point)[None])[0], _rows(camera.world_to_window(point, width, height))[0]


def solver_dict(overlay, camera, width, height):
    """The solver state drawn (a ``SolverOverlay``, or None: nothing), world and window pixels."""
    if overlay is None:
        return {"residuals": [], "limits": [], "reach": []}
    residuals, limits, reach = [], [], []
    for line in overlay.residuals:
        (tip, tip_px), (target, target_px) = (_point(camera, p, width, height) for p in (line.tip, line.target))
        residuals.append({"bone": line.bone, "tip": tip, "target": target, "tip_px": tip_px,
                          "target_px": target_px, "error": line.error, "label": line.label})
    for mark in overlay.limits:
        position, px = _point(camera, mark.position, width, height)
        limits.append({"bone": mark.bone, "position": position, "px": px})
    for shell in overlay.reach:
        centre, px = _point(camera, shell.centre, width, height)
        reach.append({"bone": shell.bone, "centre": centre, "centre_px": px, "radius": shell.radius})
    return {"residuals": residuals, "limits": limits, "reach": reach}


def scene_dict(rig, world, camera, width, height, solver=None):
    """The camera (view and projection matrices, rows first; viewport size) and, per bone, its
    world head/tail and their window pixels; per IK handle or pole, its head (the dragged point);
    the solver state drawn (``solver``, a ``SolverOverlay``: residual lines, limit marks, reach
    shells)."""
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
            "bones": bones, "handles": handles, "solver": solver_dict(solver, camera, width, height)}
