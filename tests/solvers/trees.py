"""Shared test trees."""
import numpy as np

from solvers.transforms import quat_from_axis_angle
from solvers.tree import Tree


def y_tree():
    """Spine of two bones, then two arms of two bones branching at the spine's tail."""
    parents = [-1, 0, 1, 2, 1, 4]
    offsets = np.array([[0, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0.5, 0], [0, 1, 0], [0, 0.5, 0.0]])
    rests = np.stack([[0, 0, 0, 1.0], [0, 0, 0, 1.0], quat_from_axis_angle([0, 0, 1.0], -1.2),
                      [0, 0, 0, 1.0], quat_from_axis_angle([0, 0, 1.0], 1.2), [0, 0, 0, 1.0]])
    return Tree(np.eye(4), parents, offsets, rests, [1.0, 1.0, 0.5, 0.5, 0.5, 0.5])
