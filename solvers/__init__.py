"""IK solvers on numpy arrays. Imports numpy and numba, and nothing of ours.

Conventions shared by every module here:
- Quaternions are arrays ``(..., 4)`` in ``(x, y, z, w)`` order (glTF order), unit length.
- Matrices are ``(..., 4, 4)`` (or ``(..., 3, 3)``) numpy arrays acting on column vectors:
  ``p_world = M @ p_local``; the translation sits in ``M[:3, 3]``.
- A bone's local frame has its head at the origin and +Y pointing along the bone to its tail
  (as in Blender); units are metres.

The compiled kernels are cached beside their source; importing the package drops those whose
code, or the code of a module they compile in, changed since (``solvers.kernel_cache``). The next
use compiles afresh, unless ``solvers.methods.warm_all`` (``.ci/setup``, the app's start) did.
"""
from pathlib import Path

from solvers.kernel_cache import drop_stale_kernels

drop_stale_kernels(Path(__file__).parent)
