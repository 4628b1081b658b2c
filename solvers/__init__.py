"""IK solvers on numpy arrays. Imports numpy and numba, and nothing of ours.

Conventions shared by every module here:
- Quaternions are arrays ``(..., 4)`` in ``(x, y, z, w)`` order (glTF order), unit length.
- Matrices are ``(..., 4, 4)`` (or ``(..., 3, 3)``) numpy arrays acting on column vectors:
  ``p_world = M @ p_local``; the translation sits in ``M[:3, 3]``.
- A bone's local frame has its head at the origin and +Y pointing along the bone to its tail
  (as in Blender); units are metres.

numba caches each compiled kernel beside its source (``cache=True``) and checks only that file
for changes, while the kernels compile in helpers from other modules here (``scalar``,
``limits``). So importing the package drops every cached kernel when any module here changed
since the kernels were cached; the next use compiles afresh (``.ci/setup`` warms them).
"""
import hashlib
from pathlib import Path


def _drop_stale_kernels():
    here = Path(__file__).parent
    cache = here / "__pycache__"
    # Each module's modification time and size, as numba stamps a kernel's own file.
    sources = [(path.name, path.stat().st_mtime_ns, path.stat().st_size) for path in sorted(here.glob("*.py"))]
    digest = hashlib.sha256(repr(sources).encode()).hexdigest()
    stamp = cache / "kernels.stamp"
    try:
        if stamp.read_text() == digest:
            return
    except OSError:  # no stamp yet: the kernels' age is unknown
        pass
    try:
        for cached in cache.glob("*.nb[ic]"):
            cached.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:  # a read-only install: numba then caches elsewhere, or not at all
        pass


_drop_stale_kernels()
