"""The rotation that best turns several weighted vectors onto directions, compiled (numba), for
FABRIK's step (``solvers.fabrik_step``): Horn's quaternion, the top eigenvector of his 4x4
matrix, found by Jacobi rotations (numba's ``svd`` would need SciPy). Where the optimum is not
unique (vectors or directions all on one line) the heaviest vector turns by the shortest arc.
"""
import math

import numpy as np
from numba import njit

from solvers import scalar as sc

# Jacobi sweeps at most for the 4x4 eigenproblem (each squares the error; five usually suffice).
SWEEPS = 12


@njit(cache=True)
def vector_row(rows, i):
    """Row ``i`` of ``rows`` (m, 3) as a 3-tuple."""
    return (rows[i, 0], rows[i, 1], rows[i, 2])


@njit(cache=True)
def arc(a, b):
    """The shortest-arc rotation matrix taking direction ``a`` onto ``b``."""
    return sc.qmatrix(sc.qbetween(sc.normalize(a), sc.normalize(b)))


@njit(cache=True)
def _top_eigen(n):
    """The largest two eigenvalues of symmetric ``n`` (4, 4; destroyed) and the unit eigenvector
    of the largest, by cyclic Jacobi rotations."""
    v = np.eye(4)
    for _ in range(SWEEPS):
        off = 0.0
        for p in range(3):
            for q in range(p + 1, 4):
                off += n[p, q] * n[p, q]
        if off <= 1e-30 * (n[0, 0] ** 2 + n[1, 1] ** 2 + n[2, 2] ** 2 + n[3, 3] ** 2) or off == 0.0:
            break
        for p in range(3):
            for q in range(p + 1, 4):
                if n[p, q] == 0.0:
                    continue
                theta = (n[q, q] - n[p, p]) / (2.0 * n[p, q])
                t = (1.0 if theta >= 0.0 else -1.0) / (abs(theta) + math.sqrt(theta * theta + 1.0))
                c = 1.0 / math.sqrt(t * t + 1.0)
                s = t * c
                for k in range(4):
                    a, b = n[k, p], n[k, q]
                    n[k, p], n[k, q] = c * a - s * b, s * a + c * b
                for k in range(4):
                    a, b = n[p, k], n[q, k]
                    n[p, k], n[q, k] = c * a - s * b, s * a + c * b
                for k in range(4):
                    a, b = v[k, p], v[k, q]
                    v[k, p], v[k, q] = c * a - s * b, s * a + c * b
    top, second = -1, -1
    for i in range(4):
        if top < 0 or n[i, i] > n[top, top]:
            top, second = i, top
        elif second < 0 or n[i, i] > n[second, second]:
            second = i
    return n[top, top], n[second, second], (v[1, top], v[2, top], v[3, top], v[0, top])


@njit(cache=True)
def best_rotation(world, vectors, directions, weights):
    """The world rotation of a bone now at ``world`` that best turns its links' local
    ``vectors`` (m, 3) onto unit world ``directions`` (m, 3), weighted: Horn's quaternion
    (the top eigenvector of his 4x4 matrix). When that optimum is not unique (links or
    directions all on one line) the heaviest link turns by the shortest arc."""
    s = np.zeros((3, 3))
    heaviest = 0
    for i in range(len(weights)):
        v = sc.normalize(vector_row(vectors, i))
        for a in range(3):
            for b in range(3):
                s[a, b] += weights[i] * v[a] * directions[i, b]
        if weights[i] > weights[heaviest]:
            heaviest = i
    if len(weights) > 1:
        trace = s[0, 0] + s[1, 1] + s[2, 2]
        horn = np.empty((4, 4))
        horn[0, 0], horn[1, 1] = trace, s[0, 0] - s[1, 1] - s[2, 2]
        horn[2, 2], horn[3, 3] = s[1, 1] - s[0, 0] - s[2, 2], s[2, 2] - s[0, 0] - s[1, 1]
        horn[0, 1] = horn[1, 0] = s[1, 2] - s[2, 1]
        horn[0, 2] = horn[2, 0] = s[2, 0] - s[0, 2]
        horn[0, 3] = horn[3, 0] = s[0, 1] - s[1, 0]
        horn[1, 2] = horn[2, 1] = s[0, 1] + s[1, 0]
        horn[1, 3] = horn[3, 1] = s[2, 0] + s[0, 2]
        horn[2, 3] = horn[3, 2] = s[1, 2] + s[2, 1]
        scale = np.abs(horn).max()
        top, second, q = _top_eigen(horn)
        if top - second > 2e-9 * scale:
            return sc.qmatrix(q)
    local = sc.normalize(vector_row(vectors, heaviest))
    return sc.mmul(arc(sc.mvec(world, local), vector_row(directions, heaviest)), world)
