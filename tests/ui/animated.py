"""A skinned humanoid .glb with a three-frame animation clip, written for tests."""
import numpy as np

from rig.evaluate import evaluation
from rig.formats.reader import open_rig
from rig.formats.gltf import write_glb
from rig.pose import Pose, location_for_head, world_matrices

GLB = "assets/humanoid_skinned.glb"
CLIP = "wave"
# Frame k moves each IK handle by k times this (metres), then solves: a pose the rig's own IK holds,
# stored as it is shown (constraints baked in, as an export writes it).
HANDLE_STEPS = {"hand_ik.L": (0.08, 0.22, 0.1), "foot_ik.R": (0.0, 0.12, 0.08)}
FRAMES = 3


def clip_poses(rig):
    """FRAMES solved poses of ``rig``: rest, then handles moved further each frame."""
    skeleton = rig.skeleton
    poses = []
    for k in range(FRAMES):
        pose = Pose.rest(len(skeleton))
        world = world_matrices(skeleton, pose)
        for name, step in HANDLE_STEPS.items():
            bone = skeleton.index[name]
            point = world[bone, :3, 3] + k * np.array(step)
            pose.locations[bone] = location_for_head(skeleton, pose, world, bone, point)
        poses.append(evaluation(rig, pose).shown)
    return poses


def write_animated_glb(path):
    """The skinned humanoid with clip CLIP of FRAMES frames at 30 fps, written to ``path``."""
    document = open_rig(GLB)
    write_glb(path, document.rig, None, document.mesh, clip_poses(document.rig), clip_name=CLIP)
    return str(path)
