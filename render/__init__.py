"""Viewport drawing for Posekit: camera, bone shapes, offscreen capture. GL lives here, UI does not.

Conventions (those of ``rig``, restated where they meet the screen):
- World: metres, right-handed, +Y up, characters face +Z.
- Matrices are 4x4 numpy float64 arrays acting on column vectors (``p_clip = P @ V @ p_world``);
  they are transposed to column-major float32 only when written to GL.
- Window pixels have their origin at the TOP-LEFT corner, x right, y down (as screenshots and
  xdotool count); pixel ``(i, j)`` covers ``[i, i+1) x [j, j+1)``, so its centre is ``(i+.5, j+.5)``.
- Images are numpy ``uint8`` arrays of shape ``(height, width, 3)``, first row at the top.
- Every object holding GPU resources has ``release()``; callers free them explicitly.

May import numpy, moderngl, pyglet, Pillow, ``rig`` and ``solvers``; never ``ui`` or imgui.
"""
