"""The timeline's state and commands, without ImGui: the current frame, playback, keying.

``TimelineState.action`` is the rig's keys (``rig.keys.Action``, a value: edits replace it, and
undo steps keep it, ``ui.history``). Keying a bone keys its pin too (on with its target, or off;
``rig.pin_keys``). Changing the frame (scrubbing, stepping, playing) is a view, as Blender's
current frame is: when there are keys it poses the rig and sets the keyed pins as the keys say at
that frame (the rig's IK then solves on top, pins and priorities first, in the frame's one solve)
and the frame's end takes that pose as the current undo step without recording one (``settle``).
Edits made before a frame change are recorded first, so Ctrl+Z still reaches them.

Playback runs at the action's rate against the app's clock: the frame shown is the one the clock
has reached since Play, so a frame that costs too much drops frames and never slows the clip.
"""
import math
from dataclasses import dataclass, field, replace

import numpy as np

from rig.autorig import snap_handles
from rig.keys import MAX_FPS, MAX_FRAME, Action, moved_keys, with_interpolation, with_keys, without_keys
from rig.formats.export import Timing
from rig.keys import action_from_poses, frame_range
from rig.pin_keys import keyed_pins, with_pin_keys
from rig.snap import set_switches, under_own_switches


@dataclass
class TimelineState:
    """``frame`` the current frame; ``playing`` since ``play_from`` (clock seconds, frame; None
    until the first frame that plays);
    ``selected`` the key frames whose markers are selected; ``view`` the (first, last) frames the
    strip shows (None: start to end); ``moved`` says the frame changed this frame (``settle``); ``grab`` the strip's press;
    ``root_at`` the root bone's head when the camera last followed it."""
    action: Action
    frame: int = 0
    playing: bool = False
    play_from: tuple | None = None
    auto_key: bool = False
    follow_root: bool = False
    interpolation: str = "linear"  # what I gives new keys
    selected: frozenset = frozenset()
    view: tuple | None = None
    moved: bool = False
    grab: tuple | None = None  # a press on the strip: ("scrub", 0) or ("marker", pointer x at the press)
    root_at: np.ndarray | None = field(default=None, repr=False)

    def shown_range(self):
        """The (first, last) frames the strip shows."""
        if self.view is not None:
            return self.view
        start, end = self.action.start, self.action.end
        return (start, end) if end > start else (start, start + 1)

    def summary(self):
        """The readout: where the current frame is, in frames and seconds, and how long the clip plays."""
        action = self.action
        length = action.end - action.start + 1
        return (f"frame {self.frame} at {action.seconds(self.frame):.3f} s; {length} frames "
                f"({length / action.fps:.3f} s) at {action.fps:g} fps")


def timeline_for(animation, skeleton, pose):
    """A TimelineState for an opened file: the clip ``animation`` (a ``ui.animation.Animation`` or
    None) chose as keys (every moving channel keyed at every frame, at the clip's rate), at its
    chosen frame; else an empty action over ``pose``."""
    if animation is None:
        return TimelineState(Action.empty(pose))
    name = animation.clip
    action = action_from_poses(name, animation.clips[name], 1.0 / animation.frame_times[name], skeleton)
    return TimelineState(action, frame=animation.frame)


# Frames -----------------------------------------------------------------------------------------
def keyed_pose(state, frame):
    """The pose the keys give at ``frame`` for the state's rig. IK handles that an automatic set-up
    added and no key moves sit on their hands and feet, so the solve keeps the keyed limbs."""
    rig, action = state.rig, state.timeline.action
    pose = action.pose_at(frame, rig.skeleton)
    setup = state.auto_setup
    if setup is not None and setup.applied and setup.skeleton is rig.skeleton:
        keyed = {bone for bone, _ in action.channels}
        free = [rig.skeleton.index[h] for pair in setup.report.handles.values() for h in pair if h not in keyed]
        if free:
            snapped = snap_handles(rig, setup.report, pose)
            pose.rotations[free], pose.locations[free] = snapped.rotations[free], snapped.locations[free]
    return pose


def go_to_frame(state, frame):
    """Make ``frame`` current; with keys, pose the rig as they say there (see the module doc)."""
    timeline = state.timeline
    frame = int(min(max(frame, -MAX_FRAME), MAX_FRAME))
    if frame == timeline.frame and not timeline.action.has_keys():
        return
    timeline.frame = frame
    if timeline.action.has_keys():
        if state.drag is None:
            state.history.commit(state)  # an edit not yet a step stays reachable by undo
        state.pose = keyed_pose(state, frame)
        state.pins = keyed_pins(timeline.action, frame, state.pins)
        set_switches(state.rig, timeline.action.switches_at(frame))
        state.mark_dirty()
    timeline.moved = True


def step(state, count):
    go_to_frame(state, state.timeline.frame + count)


def jump_to_end(state, last):
    """Blender's Shift+Left / Shift+Right: the first or last frame."""
    action = state.timeline.action
    go_to_frame(state, action.end if last else action.start)


def jump_to_key(state, direction):
    """Blender's Up / Down: the next (1) or previous (-1) key; says so when there is none."""
    frame = state.timeline.action.neighbour_key(state.timeline.frame, direction)
    if frame is None:
        state.message = f"No key {'after' if direction > 0 else 'before'} frame {state.timeline.frame}"
        return
    go_to_frame(state, round(frame))


def toggle_play(state):
    """Space: play from the current frame (the next ``advance`` starts the clock), or pause where it is."""
    timeline = state.timeline
    timeline.playing = not timeline.playing
    timeline.play_from = None


def advance(state, now):
    """While playing, show the frame the clock has reached at the action's rate, looping from end
    back to start as Blender does (frames are dropped, never slowed)."""
    timeline = state.timeline
    if not timeline.playing:
        return
    action = timeline.action
    if timeline.play_from is None:
        timeline.play_from = (now, timeline.frame)
    started, first = timeline.play_from
    reached = first + math.floor((now - started) * action.fps + 1e-9)
    length = action.end - action.start + 1
    if reached > action.end or reached < action.start:
        reached = action.start + (reached - action.start) % length
    if reached != timeline.frame:
        go_to_frame(state, reached)


@dataclass(frozen=True)
class KeyedFrames:
    """What an export of the keys plays: ``poses`` and ``pins`` ({bone name: Pin}) a frame each,
    at ``timing``; ``root_free``: whether the body follows the pins, as the window solves."""
    poses: list
    pins: list
    timing: Timing
    root_free: bool


def keyed_export(state):
    """KeyedFrames for an export of the keys: every frame from start to end as they give it (keyed
    pins and IK/FK switches included, though the export bakes the rig's own switches), at the
    action's rate."""
    action = state.timeline.action
    frames = frame_range(action)
    poses = [under_own_switches(state.rig, keyed_pose(state, frame), action.switches_at(frame)) for frame in frames]
    pins = [keyed_pins(action, frame, state.pins) for frame in frames]
    # with the user's whole-body choice unmade, the body follows on a frame exactly when it has pins
    return KeyedFrames(poses, pins, Timing(action.fps, action.name), state.whole_body is not False)


# Keys -------------------------------------------------------------------------------------------
def _bones(state):
    """The selected bones, or every bone when none is (Blender keys the selection)."""
    index = state.rig.skeleton.index
    chosen = sorted(index[name] for name in state.view.selected if name in index)
    return chosen or list(range(len(index)))


def _set_action(state, action, message):
    state.timeline.action = action
    state.message = message


def insert_key(state, bones=None):
    """I: key every channel and the pin of the selected bones (all bones when none is) at the
    current frame. Channels the action does not key take the pose as it is now (the action's base)."""
    timeline, skeleton = state.timeline, state.rig.skeleton
    bones = _bones(state) if bones is None else bones
    action = with_keys(timeline.action, state.pose, skeleton, bones, timeline.frame, timeline.interpolation)
    action = with_pin_keys(action, state.pins, [skeleton.names[b] for b in bones], timeline.frame,
                           timeline.interpolation)
    action = replace(action, base=state.pose.copy(), end=max(action.end, timeline.frame),
                     start=min(action.start, timeline.frame))
    what = "every bone" if len(bones) == len(state.rig.skeleton) else f"{len(bones)} bone{'s' * (len(bones) != 1)}"
    _set_action(state, action, f"Keyed {what} at frame {timeline.frame}")


def delete_key(state):
    """Alt+I: delete the keys of the selected bones (all when none is) at the current frame."""
    timeline = state.timeline
    names = {state.rig.skeleton.names[i] for i in _bones(state)}
    action = without_keys(timeline.action, [timeline.frame], names)
    if action.channels == timeline.action.channels:
        state.message = f"No key at frame {timeline.frame} to delete"
        return
    _set_action(state, action, f"Deleted the keys at frame {timeline.frame}")


def delete_selected_keys(state):
    """Delete the keys at the selected markers."""
    timeline = state.timeline
    if not timeline.selected:
        return
    count = len(timeline.selected)
    _set_action(state, without_keys(timeline.action, timeline.selected), f"Deleted the keys at {count} frames")
    timeline.selected = frozenset()


def move_selected_keys(state, delta):
    """Move the selected markers' keys by ``delta`` frames (a marker drag, on release)."""
    timeline = state.timeline
    if not delta or not timeline.selected:
        return
    _set_action(state, moved_keys(timeline.action, timeline.selected, delta),
                f"Moved the keys at {len(timeline.selected)} frames by {delta:+d}")
    timeline.selected = frozenset(f + delta for f in timeline.selected)


def set_interpolation(state, interpolation):
    """The selected markers' keys (the current frame's when none is selected) interpolate as ``interpolation``."""
    timeline = state.timeline
    frames = timeline.selected or {timeline.frame}
    timeline.interpolation = interpolation
    _set_action(state, with_interpolation(timeline.action, frames, interpolation),
                f"Keys at {len(frames)} frames: {interpolation}")


def set_timing(state, fps=None, start=None, end=None):
    """The action's frame rate and frame range, held to sane values (end never before start)."""
    action = state.timeline.action
    fps = action.fps if fps is None else min(max(fps, 1.0), MAX_FPS)
    start = action.start if start is None else int(min(max(start, -MAX_FRAME), MAX_FRAME))
    end = action.end if end is None else int(min(max(end, -MAX_FRAME), MAX_FRAME))
    state.timeline.action = replace(action, fps=float(fps), start=start, end=max(end, start))


def load_clip(state, name):
    """Make the file's clip ``name`` the keys (an undo step), from its first frame."""
    animation = state.animation
    poses = animation.clips[name]
    state.timeline.action = action_from_poses(name, poses, 1.0 / animation.frame_times[name], state.rig.skeleton)
    animation.clip = name
    state.timeline.selected, state.timeline.view = frozenset(), None
    go_to_frame(state, 0)
    state.message = f"Clip '{name}': {len(poses)} frames as keys"


def auto_key(state):
    """With auto-keying on, key the bones an edit since the last step changed (their channels or
    their pins), at the current frame (the editor calls it before recording the step, so the keys
    and the edit are one step)."""
    timeline, current = state.timeline, state.history.current
    if not timeline.auto_key or timeline.moved or current.rig is not state.rig or \
            (current.pose == state.pose and current.pins == state.pins):
        return
    before, after = current.pose, state.pose
    changed = set(np.flatnonzero(np.any(before.rotations != after.rotations, axis=1)
                                 | np.any(before.locations != after.locations, axis=1)
                                 | np.any(before.scales != after.scales, axis=1)).tolist())
    index = state.rig.skeleton.index
    changed |= {index[name] for name in set(current.pins) | set(state.pins)
                if name in index and current.pins.get(name) != state.pins.get(name)}
    if changed:
        insert_key(state, sorted(changed))


def settle(state):
    """The frame's end: after a frame change the keyed pose is a view, not an undo step, and the
    camera follows the root bone's head when asked."""
    timeline = state.timeline
    root = state.world[0, :3, 3].copy()
    if timeline.moved and state.drag is None:
        if timeline.follow_root and timeline.root_at is not None and np.isfinite(root).all():
            state.camera.target = state.camera.target + (root - timeline.root_at)
        state.history.rebase(state)
        timeline.moved = False
    timeline.root_at = root
