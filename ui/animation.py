"""The opened file's animation clips, which become the timeline's keys (``ui.timeline``).

``Animation`` holds the clips a reader sampled (``RigDocument.clips``: one Pose a frame, frames
0-based) and which clip and frame were chosen (the command line's --clip / --frame, the
Playback popover's File clip).
"""
from dataclasses import dataclass


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
