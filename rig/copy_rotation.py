"""Blender's Copy Rotation mix, World Space to World Space, Euler XYZ order, mix mode Replace.

The owner's and the target's world rotations become XYZ Euler angles (``R = Rz @ Ry @ Rx``), the
enabled axes' angles are taken from the target and the result turns back into a rotation, as
Blender's ``rotlike_evaluate`` does. Like Blender, the target's angles are the solution nearest the
owner's (``mat3_normalized_to_compatible_eulO``), so a disabled axis keeps the owner's angle rather
than jumping to the other of the two Euler solutions. Plain floats: one bone at a time.
"""
import math

import numpy as np

# Below this cos(Y), X and Z are taken as lined up (gimbal lock; Blender: 16 * FLT_EPSILON in floats).
# sqrt(double epsilon) balances the two errors: atan2 of entries this small, and ignoring cos(Y).
GIMBAL_COS = 1e-8
# Blender's compatible_eul thresholds: a difference beyond PI_THRESHOLD is taken as a whole turn
# too many; one axis more than HALF_TURN off while the others are within QUARTER_TURN turns once.
PI_THRESHOLD, HALF_TURN, QUARTER_TURN = 5.1, 3.2, 1.6
TURN = 2.0 * math.pi


def rigid(matrix):
    """The rotation (3, 3) nearest ``matrix`` (scale and shear dropped; polar decomposition), so
    scaled or flattened bones still give a rotation; a zero matrix gives the identity. A stack
    (..., 3, 3) gives each one's, in one call (a small SVD costs mostly numpy's overhead)."""
    u, _, vt = np.linalg.svd(np.asarray(matrix, dtype=float))
    mirrored = np.linalg.det(u @ vt) < 0.0  # a mirrored frame: keep the rotation, not the reflection
    u[..., -1] = np.where(mirrored[..., None], -u[..., -1], u[..., -1])
    return u @ vt


def euler_solutions(m):
    """Both XYZ Euler solutions of rotation ``m`` (3, 3), Blender's ``mat3_normalized_to_eulo2``:
    at gimbal lock they agree and Z is 0. ``atan2`` throughout: exact near the lock, never NaN."""
    cos_y = math.hypot(m[0, 0], m[1, 0])
    if cos_y <= GIMBAL_COS:
        angles = (math.atan2(-m[1, 2], m[1, 1]), math.atan2(-m[2, 0], cos_y), 0.0)
        return angles, angles
    first = (math.atan2(m[2, 1], m[2, 2]), math.atan2(-m[2, 0], cos_y), math.atan2(m[1, 0], m[0, 0]))
    second = (math.atan2(-m[2, 1], -m[2, 2]), math.atan2(-m[2, 0], -cos_y), math.atan2(-m[1, 0], -m[0, 0]))
    return first, second


def euler_xyz(m):
    """Blender's ``mat3_normalized_to_eulO``: the solution with the smaller angles."""
    first, second = euler_solutions(m)
    return second if _size(first) > _size(second) else first


def compatible_euler(m, old):
    """Blender's ``mat3_normalized_to_compatible_eulO``: the XYZ angles of ``m`` nearest ``old``."""
    first, second = (_compatible(angles, old) for angles in euler_solutions(m))
    return second if _distance(first, old) > _distance(second, old) else first


def matrix_from_euler_xyz(angles):
    """Rotation (3, 3) ``Rz @ Ry @ Rx`` of XYZ Euler ``angles``."""
    (cx, cy, cz), (sx, sy, sz) = map(math.cos, angles), map(math.sin, angles)
    return np.array([[cy * cz, sx * sy * cz - cx * sz, cx * sy * cz + sx * sz],
                     [cy * sz, sx * sy * sz + cx * cz, cx * sy * sz - sx * cz],
                     [-sy, sx * cy, cx * cy]])


def copied_rotation(owner, target, use_axes):
    """The owner's world rotation (3, 3) after Copy Rotation from ``target`` (3, 3) on the axes
    ``use_axes`` (X, Y, Z booleans). Every axis on is the target's rotation itself: the Euler round
    trip would add nothing but rounding."""
    if all(use_axes):
        return np.array(target, dtype=float)
    owner_angles = euler_xyz(owner)
    target_angles = compatible_euler(target, owner_angles)
    return matrix_from_euler_xyz([t if use else o for o, t, use in zip(owner_angles, target_angles, use_axes)])


def _size(angles):
    return sum(abs(a) for a in angles)


def _distance(angles, old):
    return sum(abs(a - b) for a, b in zip(angles, old))


def _compatible(angles, old):
    """Blender's ``compatible_eul``: ``angles`` moved by whole turns toward ``old``."""
    out = list(angles)
    for k in range(3):
        difference = out[k] - old[k]
        if abs(difference) > PI_THRESHOLD:
            out[k] -= math.floor(difference / TURN + 0.5) * TURN
    differences = [a - b for a, b in zip(out, old)]
    for k in range(3):
        others = [abs(differences[j]) for j in range(3) if j != k]
        if abs(differences[k]) > HALF_TURN and max(others) < QUARTER_TURN:
            out[k] -= math.copysign(TURN, differences[k])
    return tuple(out)


def active_copy_rotation(rig):
    """The enabled copy-rotation constraints with some influence, parents' before children's (a
    bone's own constraints in their list order, as Blender's stack)."""
    active = (c for c in rig.copy_rotation if c.enabled and c.influence > 0.0)
    return sorted(active, key=lambda c: rig.skeleton.index[c.bone])
