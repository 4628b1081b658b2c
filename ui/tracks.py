"""File > Open Tracks: a tracker stream (``rig.formats.tracks``) rebuilt on the open rig
(``rig.tracking``) and played on the timeline as keys, a key a frame at the stream's rate, with the
trackers drawn (``render.tracker_markers``). The keys are the timeline's like any others: edited,
keyed over and exported as a file's clip is. Opening is one undo step."""
import os
from dataclasses import dataclass

from render.tracker_markers import TrackerMark
from rig.formats.jsonfields import FileFormatError
from rig.formats.tracks import read_tracks
from rig.keys import action_from_poses
from rig.tracking.files import snapped
from rig.tracking.reconstruct import reconstruct
from ui.timeline import go_to_frame

ACTION_NAME = "tracks"


@dataclass(frozen=True)
class OpenedTracks:
    """The stream opened (a ``rig.formats.tracks.TrackStream``) and the file it came from; frame k
    of the stream is timeline frame k."""
    stream: object
    path: str


def open_tracks(state, path):
    """Rebuild the open rig from the stream at ``path`` and make it the keys; a stream that does
    not read, or a rig with no humanoid body, leaves everything as it was and says why. Returns
    whether it opened."""
    try:
        stream = read_tracks(path)
        tracked = reconstruct(state.rig, stream)
    except (FileFormatError, ValueError, OSError) as error:
        state.report_error(str(error))
        return False
    poses = snapped(state.rig, tracked.body, tracked.poses)
    state.history.commit(state)  # an edit not yet a step stays reachable by undo
    state.timeline.action = action_from_poses(ACTION_NAME, poses, stream.fps, state.rig.skeleton)
    state.timeline.selected, state.timeline.view = frozenset(), None
    state.tracks = OpenedTracks(stream, str(path))
    go_to_frame(state, 0)
    state.message = (f"Tracks: {os.path.basename(str(path))}, {len(poses)} frames at {stream.fps:g} fps from "
                     f"{', '.join(stream.roles())}")
    return True


def tracker_marks(state):
    """The TrackerMarks of the opened stream at the timeline's frame (none outside the stream)."""
    tracks = state.tracks
    if tracks is None or not 0 <= state.timeline.frame < len(tracks.stream.frames):
        return ()
    frame = tracks.stream.frames[state.timeline.frame]
    return tuple(TrackerMark(role, tuple(sample.position)) for role, sample in frame.items())
