"""Forward kinematics of a bone hierarchy, compiled: the one body every pose-to-world update runs.

A bone's world matrix is ``unscaled(world[parent]) @ rest_local @ T(location) @ R(rotation) @
S(scale)``: its parent's scale moves its head but does not compound into its frame (Blender's
Inherit Scale "None", as IK stretch behaves). Quaternions are xyzw; one of zero length (or not
finite) counts as no rotation, and a zero parent scale leaves the child's axes as they are, so
no input gives NaN that was not in it.

Compiled with numba because the update runs for a few bones many times per solve and per frame:
numpy's per-call cost (about 1 us a call, some twenty calls) made a two-bone update 18 us where
the compiled loop takes under 1 us (bench/bench_solvers.py). ``cache=True`` keeps the machine code
beside this file, so only the first run after set-up compiles.
"""
import numpy as np
from numba import njit

TINY_SCALE = 1e-12  # a parent scale below this collapses nothing: its children keep their axes


@njit(cache=True)
def _rotation(q):
    """The rotation matrix of quaternion ``q`` (xyzw, any length; zero or NaN: identity)."""
    x, y, z, w = q[0], q[1], q[2], q[3]
    norm2 = x * x + y * y + z * z + w * w
    if not 1e-24 < norm2 < np.inf:  # zero, NaN or infinite: no rotation
        x, y, z, w, norm2 = 0.0, 0.0, 0.0, 1.0, 1.0
    s = 2.0 / norm2
    r = np.empty((3, 3))
    r[0, 0], r[0, 1], r[0, 2] = 1.0 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y)
    r[1, 0], r[1, 1], r[1, 2] = s * (x * y + w * z), 1.0 - s * (x * x + z * z), s * (y * z - w * x)
    r[2, 0], r[2, 1], r[2, 2] = s * (x * z - w * y), s * (y * z + w * x), 1.0 - s * (x * x + y * y)
    return r


@njit(cache=True)
def update_world(rest_local, parents, bones, locations, rotations, scales, world):
    """Set ``world[b]`` (4, 4) for each of ``bones`` (int64, parents before children) from its
    parent's ``world`` and its pose: ``rest_local`` (N, 4, 4) the bone's rest matrix in its
    parent's frame, ``parents`` (N,) with -1 for roots, ``locations`` (N, 3) in the rest frame,
    ``rotations`` (N, 4) xyzw, ``scales`` (N, 3)."""
    local = np.empty((3, 4))
    for b in bones:
        r = _rotation(rotations[b])
        for i in range(3):
            a = rest_local[b, i]
            for j in range(3):
                local[i, j] = (a[0] * r[0, j] + a[1] * r[1, j] + a[2] * r[2, j]) * scales[b, j]
            local[i, 3] = a[0] * locations[b, 0] + a[1] * locations[b, 1] + a[2] * locations[b, 2] + a[3]
        p = parents[b]
        if p < 0:
            world[b, :3] = local
        else:
            for k in range(3):  # the parent's scale cancels on the axes and stays on the head
                s = scales[p, k]
                if abs(s) >= TINY_SCALE:
                    local[k, :3] /= s
            for i in range(3):
                for j in range(4):
                    world[b, i, j] = world[p, i, 0] * local[0, j] + world[p, i, 1] * local[1, j] + \
                        world[p, i, 2] * local[2, j]
                world[b, i, 3] += world[p, i, 3]
        world[b, 3, 0], world[b, 3, 1], world[b, 3, 2], world[b, 3, 3] = 0.0, 0.0, 0.0, 1.0


def warm():
    """Compile (or load from the cache) every kernel here for the argument types the rig passes."""
    world = np.empty((1, 4, 4))
    update_world(np.eye(4)[None], np.array([-1]), np.array([0]), np.zeros((1, 3)), np.array([[0.0, 0.0, 0.0, 1.0]]),
                 np.ones((1, 3)), world)
