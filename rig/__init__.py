"""Rig model: skeleton, pose, forward kinematics, constraints and file formats. No GL, no UI.

Conventions, stated once for the whole package (solvers/ uses the same ones):
- Units are metres; the world is right-handed with +Y up (as glTF); characters face +Z, so a
  character's left side (``.L``) is at +X.
- Quaternions are ``(x, y, z, w)`` (glTF order), stored in arrays of shape ``(N, 4)``.
- Matrices are 4x4 numpy arrays acting on column vectors (``p_world = M @ p_local``); the
  translation is ``M[:3, 3]``. Stacks of them have shape ``(N, 4, 4)``.
- A bone's frame has its head at the origin and +Y along the bone, tail at ``(0, length, 0)``;
  its X and Z axes come from Blender's head/tail/roll rule (``bone_frame``).
- Angles in files and settings are radians, as in Blender's Python API.
"""
