"""Array description of a serial chain, its forward kinematics, and the solve result.

A chain of n bones hangs from a fixed ``base`` frame (4x4, world). Bone i's frame is
``frame[i-1] @ T(offsets[i]) @ R(rest_rotations[i]) @ R(rotations[i]) @ S(1, stretch[i], 1)``
with ``frame[-1] = base``: ``offsets`` (n, 3) is the bone's head in the previous bone's frame,
``rest_rotations`` (n, 4) its rest orientation there, ``rotations`` (n, 4) the pose rotation the
solvers produce. Bones point along their local +Y; ``lengths`` (n,) are rest lengths.
"""
from dataclasses import dataclass, field

import numpy as np

from solvers.transforms import quat_mul, quat_to_matrix3


@dataclass
class Chain:
    base: np.ndarray
    offsets: np.ndarray
    rest_rotations: np.ndarray
    lengths: np.ndarray

    def __post_init__(self):
        self.base = np.asarray(self.base, dtype=float)
        self.offsets = np.asarray(self.offsets, dtype=float)
        self.rest_rotations = np.asarray(self.rest_rotations, dtype=float)
        self.lengths = np.asarray(self.lengths, dtype=float)
        n = len(self.lengths)
        if self.base.shape != (4, 4) or self.offsets.shape != (n, 3) or self.rest_rotations.shape != (n, 4):
            raise ValueError("chain arrays must be base (4, 4), offsets (n, 3), rest_rotations (n, 4), lengths (n,)")
        if n == 0:
            raise ValueError("a chain needs at least one bone")
        if not (np.isfinite(self.base).all() and np.isfinite(self.offsets).all()
                and np.isfinite(self.rest_rotations).all() and np.isfinite(self.lengths).all()):
            raise ValueError("chain arrays must be finite")
        if np.any(self.lengths < 0):
            raise ValueError("bone lengths must not be negative")

    def __len__(self):
        return len(self.lengths)


def chain_frames(chain, rotations, stretch=None):
    """World frames (n, 4, 4) of every bone for pose ``rotations`` (n, 4); tails are
    ``frames[:, :3, 3] + frames[:, :3, 1] * lengths``. ``stretch`` (n,) scales bones along Y."""
    n = len(chain)
    basis = quat_to_matrix3(quat_mul(chain.rest_rotations, rotations))
    if stretch is not None:
        basis = basis * np.stack([np.ones(n), np.asarray(stretch, float), np.ones(n)], -1)[:, None, :]
    frames = np.empty((n, 4, 4))
    current = chain.base
    for i in range(n):
        local = np.eye(4)
        local[:3, :3] = basis[i]
        local[:3, 3] = chain.offsets[i]
        current = current @ local
        frames[i] = current
    return frames


def chain_points(chain, rotations, stretch=None):
    """Heads of every bone plus the last tail, (n + 1, 3)."""
    frames = chain_frames(chain, rotations, stretch)
    lengths = chain.lengths if stretch is None else chain.lengths * np.asarray(stretch, float)
    tail = frames[-1, :3, 3] + frames[-1, :3, 1] * lengths[-1]
    return np.vstack([frames[:, :3, 3], tail])


@dataclass
class SolveResult:
    """What every solve returns. ``rotations`` (n, 4) are the chain's new pose rotations,
    ``stretch`` (n,) the Y scale per bone (ones without stretch), ``errors`` the residual per goal
    (metres for positions), ``at_limit`` (n, 3) booleans per bone and local axis."""
    rotations: np.ndarray
    iterations: int
    errors: np.ndarray
    converged: bool
    stretch: np.ndarray = None
    at_limit: np.ndarray = field(default=None)

    def __post_init__(self):
        n = len(self.rotations)
        if self.stretch is None:
            self.stretch = np.ones(n)
        if self.at_limit is None:
            self.at_limit = np.zeros((n, 3), dtype=bool)
