"""A frame of the opened file's animation as the pose to start posing from (Blender: import the
animation, go to a frame, pose on top of it).

``Animation`` holds the clips a reader sampled (``RigDocument.clips``: one Pose a frame, frames
0-based) and which clip and frame were chosen last; ``choose_frame`` puts a frame's pose on the
rig. The choice is a view, as Blender's current frame is; the pose it sets is an edit, so the
frame's end records it as one undo step (a slider drag: one step when the slider is let go).
"""
from dataclasses import dataclass

from rig.autorig import extend_pose, snap_handles


@dataclass
class Animation:
    """``clips``: name -> list of Poses; ``frame_times``: name -> seconds a frame; ``clip`` and
    ``frame`` the last choice."""
    clips: dict
    frame_times: dict
    clip: str
    frame: int = 0

    @classmethod
    def of(cls, document):
        """The document's clips that have frames, or None when it has none."""
        clips = {name: poses for name, poses in document.clips.items() if poses}
        if not clips:
            return None
        return cls(clips, dict(document.frame_times), next(iter(clips)))

    def frame_count(self, clip=None):
        return len(self.clips[self.clip if clip is None else clip])

    def seconds(self, clip, frame):
        """When frame ``frame`` of ``clip`` starts, from frame 0."""
        return frame * self.frame_times[clip]

    def summary(self, clip, frame):
        """The clip's length and where frame ``frame`` is in it, as the timeline shows them: how
        long it plays (its frames times the seconds a frame, as a BVH header or Blender's frame
        range counts it), not the time of frame 0, which read as "0.000 s"."""
        count = self.frame_count(clip)
        return f"{count} frames, {self.seconds(clip, count):.3f} s; frame {frame} at {self.seconds(clip, frame):.3f} s"

    def pose(self, clip, frame):
        """A copy of frame ``frame`` of ``clip``; ValueError naming the choices when either is wrong."""
        if clip not in self.clips:
            raise ValueError(f"no animation clip '{clip}'; the file has {', '.join(repr(c) for c in self.clips)}")
        count = self.frame_count(clip)
        if not (isinstance(frame, int) and 0 <= frame < count):
            raise ValueError(f"frame {frame} is out of range: clip '{clip}' has frames 0 to {count - 1}")
        return self.clips[clip][frame].copy()

    def select(self, clip, frame):
        """Make ``clip`` and ``frame`` the choice and return that frame's pose (see ``pose``)."""
        pose = self.pose(clip, frame)
        self.clip, self.frame = clip, frame
        return pose


def fitted_pose(state, pose):
    """``pose`` (for the file's bones) fitted to the state's rig: bones an automatic IK set-up
    added get rest channels, with its handles snapped onto the frame's hands and feet so the
    solve keeps the frame's limbs where they are. None when the rig lost bones since."""
    count = len(state.rig.skeleton)
    if len(pose.rotations) == count:
        return pose
    if len(pose.rotations) > count:
        return None
    pose = extend_pose(pose, count)
    setup = state.auto_setup
    if setup is not None and setup.applied and setup.skeleton is state.rig.skeleton:
        pose = snap_handles(state.rig, setup.report, pose)
    return pose


def choose_frame(state, clip, frame):
    """Pose the rig as frame ``frame`` of ``clip`` and remember the choice; returns whether it did
    (a wrong choice leaves the pose alone and says why in the status message)."""
    animation = state.animation
    try:
        pose = fitted_pose(state, animation.pose(clip, frame))
    except ValueError as error:
        state.report_error(str(error))
        return False
    if pose is None:
        state.report_error(f"the rig has fewer bones than clip '{clip}'; reopen the file to use its animation")
        return False
    animation.select(clip, frame)
    state.pose = pose
    state.mark_dirty()
    state.message = f"Pose from clip '{clip}', frame {frame} ({animation.seconds(clip, frame):.3f} s)"
    return True
