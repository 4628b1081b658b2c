"""The Jacobians of SO(3) the DLS solver's rows need, on plain floats (``solvers.dls``): how a
rotation vector's log changes with a small turn, and how exp turns as a rotation vector moves."""
import math

from solvers import scalar as sc


def log_jacobian_inverse(rotvec):
    """How log(exp(w) exp(v)) changes with a small turn w at rotation vector ``v`` (3 floats): the
    inverse left Jacobian of SO(3), I - K/2 + c K^2 with K = [v]x (exact rows even far from the
    goal, so large rotation errors still step straight). Rows of 3 floats."""
    x, y, z = rotvec
    angle = min(math.sqrt(x * x + y * y + z * z), math.pi - 1e-6)
    if angle < 1e-4:
        c = 1.0 / 12.0
    else:
        c = 1.0 / angle ** 2 - (1.0 + math.cos(angle)) / (2.0 * angle * math.sin(angle))
    # K^2 = v v^T - |v|^2 I
    xy, xz, yz = c * x * y, c * x * z, c * y * z
    return ((1.0 - c * (y * y + z * z), 0.5 * z + xy, xz - 0.5 * y),
            (xy - 0.5 * z, 1.0 - c * (x * x + z * z), 0.5 * x + yz),
            (0.5 * y + xz, yz - 0.5 * x, 1.0 - c * (x * x + y * y)))


def swing_turn(rotvec, axis):
    """How exp(rotvec) turns (an angular velocity, 3 floats) as rotvec moves along ``axis`` (0, 1
    or 2): the left Jacobian of SO(3), J e = e + a (v x e) + b (v x (v x e))."""
    angle = sc.length(rotvec)
    if angle < 1e-4:
        a, b = 0.5 - angle * angle / 24.0, 1.0 / 6.0 - angle * angle / 120.0
    else:
        a, b = (1.0 - math.cos(angle)) / angle ** 2, (angle - math.sin(angle)) / angle ** 3
    e = (float(axis == 0), float(axis == 1), float(axis == 2))
    across = sc.cross(rotvec, e)
    return sc.add(sc.add(e, sc.scale(across, a)), sc.scale(sc.cross(rotvec, across), b))
