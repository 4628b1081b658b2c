"""A two-bone limb's end rotation, in the freedom its tip leaves: the roll of the whole limb about
the target line, and the end bone's twist about its own axis. The free solve (``solvers.two_bone``,
compiled) and the solve within limits (``solvers.two_bone_limits``, which holds each to the bones'
limits) share these bodies. Rotations are xyzw tuples; ``rest1`` is the end bone's rest rotation
in the first bone's frame, ``r0``, ``r1`` the bones' pose rotations, ``goal`` the end bone's wanted
rotation in the first bone's rest frame."""
import math

from numba.extending import register_jitable

from solvers import scalar as sc

Y = (0.0, 1.0, 0.0)


@register_jitable
def end_rolled(rest1, r0, r1, line, goal, weight):
    """``r0`` rolled about ``line`` (the target line: the tip stays) to point the end bone's Y
    toward ``goal``'s (first bone's rest frame), by ``weight``; as it is where either lies along
    the line."""
    end_y = sc.qrotate(sc.qmul(r0, sc.qmul(rest1, r1)), Y)
    goal_y = sc.qrotate(goal, Y)
    end_dir = sc.sub(end_y, sc.scale(line, sc.dot(end_y, line)))
    goal_dir = sc.sub(goal_y, sc.scale(line, sc.dot(goal_y, line)))
    if sc.length(end_dir) <= 1e-9 or sc.length(goal_dir) <= 1e-9:
        return r0
    return sc.qmul(sc.qaxis_angle(line, sc.signed_angle(end_dir, goal_dir, line) * weight), r0)


@register_jitable
def end_twist(rest1, r0, r1, goal):
    """The angle about the end bone's own Y that turns it to ``goal``, the shorter way."""
    local = sc.qnormalize(sc.qmul(sc.qconj(sc.qmul(r0, sc.qmul(rest1, r1))), goal))  # w >= 0: the shorter twist
    return 2.0 * math.atan2(local[1], local[3])
