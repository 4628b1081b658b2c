"""Posekit: interactive 3D posing for character rigs.

    python app.py [--save-pose POSE.json] [--dump-scene SCENE.json] [--pose POSE.json | --clip NAME --frame N]
                  [RIG]
                                  open a window (default rig if none); write the outputs on exit
    python app.py --headless [--replay EVENTS.json] [--screenshot OUT.png] [--save-pose POSE.json]
                  [--dump-scene SCENE.json] [--size 1280x720] [--pose POSE.json | --clip NAME --frame N] [RIG]
                                  replay input events offscreen, write the outputs and exit
                                  (--clip / --frame: start from a frame of the file's animation)
    python app.py solve RIG GOALS.json -o OUT.json
                                  solve every case of a goals file from the rig's rest pose
                                  and write the results
    python app.py plant RIG [--pose POSE.json] --ground SCENE -o OUT.json
                                  plant the pose's feet (default: the file's pose) on the ground
                                  of a scene file (.glb, .gltf, .obj) and write the pose
    python app.py export RIG [--pose POSE.json ... | --clip NAME] [--fps N] -o OUT.glb|OUT.bvh|OUT.json
                                  convert a rig (any format we read) to the format the output's
                                  extension names; .glb and .bvh carry the pose, several poses
                                  (or the file's clip NAME) as an animation clip (.glb) or frames
                                  (.bvh) at N frames a second (default: the clip's rate, else 30)
    python app.py track RIG TRACKS.json [--calibrate FRAME] -o OUT.glb|OUT.bvh|OUT.json
                                  a full body from 3-6 trackers (posekit.tracks), a frame out per
                                  frame in (.json: every bone's head and tail per frame)
    python app.py tracks-from RIG_WITH_MOTION [--roles head,hands,pelvis,feet] [--clip NAME] -o TRACKS.json
                                  the tracker stream the clip's own joints give

Every command reading a rig takes the import options --bvh-scale M (metres per BVH unit) and
--bvh-up y|z (the BVH file's up axis).

Exit status 0 on success; 2 with a one-line message for a bad argument or file.
"""
import argparse
import os
import sys

from ui import DEFAULT_RIG


# ImGui lays out new windows on their first frame, draws them from the second and settles
# auto-sized ones on the third.
HEADLESS_FRAMES = 3


class UsageError(Exception):
    """A bad argument or input file: reported on one line, exit status 2."""


def parse_size(text):
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1280x720, got '{text}'") from None
    if not (16 <= width <= 8192 and 16 <= height <= 8192):
        raise argparse.ArgumentTypeError(f"size must be between 16 and 8192 pixels a side, got '{text}'")
    return width, height


def bvh_scale(text):
    from rig.ranges import MAX_BVH_SCALE
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_BVH_SCALE:
        raise argparse.ArgumentTypeError(f"expected metres per file unit above 0 and at most {MAX_BVH_SCALE:g}, "
                                         f"got '{text}'")
    return value


def skin_index(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a skin index from 0, got '{text}'")
    return value


def add_import_options(parser):
    """The ``rig.formats.document.ImportOptions`` flags, the same for every command that reads a rig."""
    group = parser.add_argument_group("import options")
    group.add_argument("--bvh-scale", type=bvh_scale, metavar="M", help="metres per BVH file unit "
                       "(default: guessed among m, cm, mm, inches and CMU units from the figure's size)")
    group.add_argument("--bvh-up", choices=("y", "z"), default="y",
                       help="the BVH file's up axis (default y; z for Z-up exporters such as Blender's)")
    group.add_argument("--skin", type=skin_index, default=0, metavar="N",
                       help="which skin of a glTF file with several to read, from 0 (default 0)")


def import_options(args):
    from rig.formats.document import ImportOptions
    return ImportOptions(bvh_scale=args.bvh_scale, bvh_up=args.bvh_up, gltf_skin=args.skin)


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="posekit", description="Interactive 3D posing for character rigs.")
    parser.add_argument("rig", nargs="?", default=DEFAULT_RIG,
                        help="rig file (posekit JSON, BVH, glTF .gltf/.glb); default: the humanoid")
    parser.add_argument("--headless", action="store_true", help="no window: render offscreen (EGL), then exit")
    parser.add_argument("--screenshot", metavar="OUT.png", help="write one rendered frame to this PNG")
    parser.add_argument("--size", type=parse_size, default=(1280, 720), metavar="WxH", help="window size")
    parser.add_argument("--pose", metavar="POSE.json", help="pose file to apply to the rig")
    parser.add_argument("--clip", metavar="NAME", help="start from a frame of this animation clip of the file "
                        "(default: its first clip; a BVH file's motion is the clip 'motion')")
    parser.add_argument("--frame", type=int, metavar="N", help="start from frame N (from 0) of the clip")
    parser.add_argument("--replay", metavar="EVENTS.json", help="input events to replay (with --headless)")
    parser.add_argument("--save-pose", metavar="POSE.json", help="write the pose when done (on exit for a window)")
    parser.add_argument("--no-recover", action="store_true",
                        help="do not offer to restore an autosaved session after a crash (and keep its file)")
    parser.add_argument("--dump-scene", metavar="SCENE.json",
                        help="write the camera and every bone's world and window-pixel position when done")
    add_import_options(parser)
    args = parser.parse_args(argv)
    if args.screenshot and not args.headless:
        parser.error("--screenshot needs --headless")
    if args.replay and not args.headless:
        parser.error("--replay needs --headless")
    if args.pose and (args.clip is not None or args.frame is not None):
        parser.error("--pose cannot be combined with --clip or --frame: both choose the starting pose")
    if args.headless and not (args.screenshot or args.save_pose or args.dump_scene):
        parser.error("--headless needs something to write: --screenshot, --save-pose or --dump-scene")
    return args


def load_events(args):
    """The --replay events, validated before any window opens; bad files raise UsageError."""
    from rig.formats.jsonfields import FileFormatError
    from ui.replay import load_events as read_events
    try:
        return read_events(args.replay) if args.replay else []
    except FileFormatError as error:
        raise UsageError(str(error)) from None


def load_state(args):
    """Rig and pose from the command line, as the app's state; bad files raise UsageError."""
    from rig.formats.jsonfields import FileFormatError
    from rig.formats.rigfile import load_pose_data
    from ui.animation import Animation
    from ui.source import open_source
    from ui.state import AppState
    try:
        opened = open_source(args.rig, import_options(args))
        document = opened.document
        warnings = list(document.warnings)
        pose, pins = None, None
        if args.pose:
            read = load_pose_data(args.pose, document.rig.skeleton)
            pose, pins = read.pose, read.pins
            warnings += read.warnings
    except FileFormatError as error:
        raise UsageError(str(error)) from None
    for warning in warnings:
        print(f"posekit: warning: {warning}", file=sys.stderr)
    animation = Animation.of(document)
    if args.clip is not None or args.frame is not None:
        pose = start_frame(args, animation)
    state = AppState.for_document(document, pose, size=args.size, animation=animation, source=opened.source,
                                  pins=pins)
    # In the status bar too (a window's user never sees stderr), naming the file without its folders.
    state.message = "; ".join(warning.replace(str(args.rig), os.path.basename(str(args.rig)), 1) for warning in warnings)
    return state


def start_frame(args, animation):
    """The pose of ``--clip`` / ``--frame`` (defaults: the first clip, frame 0), chosen in
    ``animation``; UsageError if the file has no such clip or frame."""
    if animation is None:
        raise UsageError(f"{args.rig} has no animation to take --clip / --frame from")
    try:
        return animation.select(args.clip or animation.clip, 0 if args.frame is None else args.frame)
    except ValueError as error:
        raise UsageError(f"{args.rig}: {error}") from None


def solve_command(argv):
    """``solve RIG GOALS.json -o OUT.json``: scripted posing, no GL."""
    from rig.formats.reader import open_rig
    from rig.formats.jsonfields import FileFormatError, save_json_atomic
    from rig.scripted_solve import read_goals, run_job
    parser = argparse.ArgumentParser(prog="posekit solve", description="Solve every case of a goals file.")
    parser.add_argument("rig", help="rig file")
    parser.add_argument("goals", metavar="GOALS.json", help="goals file")
    parser.add_argument("-o", "--output", metavar="OUT.json", required=True, help="where to write the results")
    add_import_options(parser)
    args = parser.parse_args(argv)
    try:
        rig = open_rig(args.rig, import_options(args)).rig
        job = read_goals(args.goals, rig)
        result = run_job(rig, job)
    except FileFormatError as error:
        raise UsageError(str(error)) from None
    for warning in job.warnings:
        print(f"posekit: warning: {warning}", file=sys.stderr)
    try:
        save_json_atomic(args.output, result)
    except FileFormatError as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"cannot write {args.output}: {error}") from None


def frame_rate(text):
    from rig.keys import MAX_FPS
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_FPS:
        raise argparse.ArgumentTypeError(f"expected frames a second above 0 and at most {MAX_FPS:g}, got '{text}'")
    return value


def export_command(argv):
    """``export RIG [--pose POSE.json ... | --clip NAME] [--fps N] -o OUT``: convert a rig, no GL."""
    from rig.formats.export import Timing, clip_frames, export_rig
    from rig.formats.reader import open_rig
    from rig.formats.rigfile import load_pose_data
    parser = argparse.ArgumentParser(prog="posekit export", description="Convert a rig to .glb, .bvh or .json.")
    parser.add_argument("rig", help="rig file (posekit JSON, BVH, glTF .gltf/.glb)")
    parser.add_argument("--pose", metavar="POSE.json", action="append",
                        help="pose to export (.glb and .bvh only); repeat it to export the poses as frames "
                             "(BVH) or an animation clip (.glb)")
    parser.add_argument("--clip", metavar="NAME", help="export the file's animation clip NAME (a BVH file's "
                        "motion is 'motion') with its timing, as a .glb clip or BVH frames")
    parser.add_argument("--fps", type=frame_rate, metavar="N", help="frames a second of the exported frames "
                        "(default: the clip's own rate; 30 for --pose frames)")
    parser.add_argument("-o", "--output", metavar="OUT", required=True, help="output file: .glb, .bvh or .json")
    add_import_options(parser)
    args = parser.parse_args(argv)
    if args.pose and args.clip is not None:
        parser.error("--pose cannot be combined with --clip: both choose the frames to export")
    if args.fps is not None and not args.pose and args.clip is None:
        parser.error("--fps needs frames to time: --pose (repeated) or --clip")
    try:
        document = open_rig(args.rig, import_options(args))
        warnings = list(document.warnings)
        poses, pins, timing = [], [], Timing(args.fps or Timing.fps)
        for path in args.pose or []:
            read = load_pose_data(path, document.rig.skeleton)  # its pins held, as the window opens it
            poses.append(read.pose)
            pins.append(read.pins)
            warnings += read.warnings
        if args.clip is not None:
            poses, timing = clip_frames(document, args.clip, args.fps)
        warnings += export_rig(document, args.output, poses or None, timing, pins if args.pose else None)
    except ValueError as error:  # FileFormatError included
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"cannot write {args.output}: {error}") from None
    for warning in warnings:
        print(f"posekit: warning: {warning}", file=sys.stderr)


def plant_command(argv):
    """``plant RIG [--pose P.json] --ground SCENE -o OUT.json``: foot planting, no GL."""
    from rig.formats.ground_file import read_ground
    from rig.formats.jsonfields import FileFormatError
    from rig.formats.reader import open_rig
    from rig.formats.rigfile import load_pose, save_pose
    from rig.planting import plant_any_rig
    from rig.pose import Pose
    parser = argparse.ArgumentParser(prog="posekit plant", description="Plant a pose's feet on a ground.")
    parser.add_argument("rig", help="rig file (posekit JSON, BVH, glTF .gltf/.glb)")
    parser.add_argument("--pose", metavar="POSE.json", help="pose to plant (default: the rig file's pose)")
    parser.add_argument("--ground", metavar="SCENE", required=True, help="ground scene file (.glb, .gltf, .obj)")
    parser.add_argument("-o", "--output", metavar="OUT.json", required=True, help="where to write the planted pose")
    add_import_options(parser)
    args = parser.parse_args(argv)
    try:
        document = open_rig(args.rig, import_options(args))
        warnings = list(document.warnings)
        pose = document.pose if document.pose is not None else Pose.rest(len(document.rig.skeleton))
        if args.pose:
            pose, pose_warnings = load_pose(args.pose, document.rig.skeleton)
            warnings += pose_warnings
        ground = read_ground(args.ground)
        planted, result = plant_any_rig(document.rig, pose, ground.ground)
    except FileFormatError as error:
        raise UsageError(str(error)) from None
    if not result.feet:
        raise UsageError(f"{args.rig}: no foot planted: {'; '.join(result.warnings)}")
    try:
        save_pose(document.rig.skeleton, planted, args.output, document.rig.name)
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot write {args.output}: {error}") from None
    for warning in warnings + ground.warnings + result.warnings:
        print(f"posekit: warning: {warning}", file=sys.stderr)


def track_command(argv):
    """``track RIG TRACKS.json [--calibrate FRAME] -o OUT``: tracker reconstruction, no GL."""
    from rig.formats.reader import open_rig
    from rig.tracking.files import track_file
    parser = argparse.ArgumentParser(prog="posekit track", description="A full body from 3-6 trackers.")
    parser.add_argument("rig", help="rig file (posekit JSON, BVH, glTF .gltf/.glb)")
    parser.add_argument("tracks", metavar="TRACKS.json", help="tracker stream (posekit.tracks)")
    parser.add_argument("--calibrate", type=int, metavar="FRAME", help="take each tracker's offset from its "
                        "bone at FRAME, the user standing in the rig's rest pose (default: trackers on their bones)")
    parser.add_argument("-o", "--output", metavar="OUT", required=True, help="output file: .glb, .bvh or .json")
    add_import_options(parser)
    args = parser.parse_args(argv)
    try:
        document = open_rig(args.rig, import_options(args))
        tracked, warnings = track_file(document, args.tracks, args.output, args.calibrate)
    except ValueError as error:  # FileFormatError included
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"cannot write {args.output}: {error}") from None
    for warning in document.warnings + warnings:
        print(f"posekit: warning: {warning}", file=sys.stderr)
    print(f"tracked {len(tracked.poses)} frames in {tracked.solve_seconds:.2f} s")


def tracks_from_command(argv):
    """``tracks-from RIG [--roles ...] [--clip NAME] -o TRACKS.json``: a clip's own trackers, no GL."""
    from rig.formats.reader import open_rig
    from rig.formats.tracks import roles_from_groups
    from rig.tracking.files import tracks_from_file
    parser = argparse.ArgumentParser(prog="posekit tracks-from", description="The trackers a clip's joints give.")
    parser.add_argument("rig", help="rig file with motion (BVH, glTF with a clip)")
    parser.add_argument("--roles", default="head,hands", help="trackers: head,hands[,pelvis][,feet] (default head,hands)")
    parser.add_argument("--clip", metavar="NAME", help="the clip to read (default: the file's first)")
    parser.add_argument("-o", "--output", metavar="TRACKS.json", required=True, help="where to write the stream")
    add_import_options(parser)
    args = parser.parse_args(argv)
    try:
        roles = roles_from_groups(args.roles)
    except ValueError as error:
        parser.error(f"--roles: {error}")
    try:
        tracks_from_file(open_rig(args.rig, import_options(args)), args.output, roles, args.clip)
    except ValueError as error:  # FileFormatError included
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"cannot write {args.output}: {error}") from None


COMMANDS = {"solve": solve_command, "export": export_command, "plant": plant_command, "track": track_command,
            "tracks-from": tracks_from_command}


def use_headless_gl():
    """EGL without a display, for pyglet and for PyOpenGL (ImGui's renderer); must run before
    anything imports pyglet.window or OpenGL."""
    import pyglet
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    pyglet.options["headless"] = True


def open_window(width, height, headless, title="Posekit"):
    """A pyglet window with a GL 3.3+ core context; hidden when headless (after use_headless_gl)."""
    import pyglet.window
    config = pyglet.gl.Config(major_version=3, minor_version=3, forward_compatible=True, double_buffer=True,
                              depth_size=24)
    return pyglet.window.Window(width, height, caption=title, resizable=not headless, visible=not headless,
                                config=config, file_drops=not headless)


def write_outputs(args, app):
    """Write what the command line asked for: screenshot, pose, scene; UsageError if one fails."""
    from render.capture import save_png
    from render.scene_dump import scene_dict
    from rig.formats.jsonfields import save_json_atomic
    from rig.formats.rigfile import save_pose
    state = app.state
    writers = [
        (args.screenshot, lambda path: save_png(app.read_rgb(), path)),
        (args.save_pose, lambda path: save_pose(state.rig.skeleton, state.pose, path, state.rig.name)),
        (args.dump_scene, lambda path: save_json_atomic(
            path, scene_dict(state.rig, state.world, state.camera, app.window.width, app.window.height,
                             state.view.solver_overlay))),
    ]
    for path, write in writers:
        if path:
            try:
                write(path)
            except (OSError, ValueError) as error:
                raise UsageError(f"cannot write {path}: {error}") from None


def run_headless(args, state, events):
    from ui.replay import InputSender
    from ui.widgets import LocateError
    from ui.window import PosekitWindow
    window = open_window(*args.size, headless=True)
    state.deterministic = True
    app = PosekitWindow(window, state)
    app.editor.import_options = import_options(args)
    try:
        for _ in range(HEADLESS_FRAMES):
            app.frame()
        try:
            InputSender(app).play(events)
        except LocateError as error:  # a widget the file names is not on screen: a bad file, not a crash
            raise UsageError(f"{args.replay}: {error}") from None
        write_outputs(args, app)
    finally:
        app.release()
        window.close()


def start_autosave(app, args):
    """Autosave the session, first offering an earlier one that did not end cleanly; with
    --no-recover neither (the earlier file stays for a later start). Returns the Autosaver."""
    from ui.autosave import Autosaver, read_state_file, recovery_path
    from ui.recovery import RecoveryOffer
    from ui.session_file import read_recovery
    if args.no_recover:
        return None
    path = recovery_path()
    data, problem = read_state_file(path, read_recovery)
    if problem:
        print(f"posekit: warning: {problem}", file=sys.stderr)
        app.state.report_error(problem)
    autosaver = Autosaver(path)
    autosaver.start(app.state, app.editor.pose_file())
    app.editor.autosaver = autosaver
    if data is not None:
        app.editor.recovery = RecoveryOffer(path, data)
    return autosaver


def run_window(args, state):
    import signal

    import pyglet
    from ui.pacing import FRAME_S, FramePacer
    from ui.solver_warmup import SolverWarmup
    from ui.window import PosekitWindow
    window = open_window(*args.size, headless=False)
    app = PosekitWindow(window, state)
    app.warmup = SolverWarmup()  # so no drag waits for a compile
    app.editor.import_options = import_options(args)  # files opened later read as the first did

    def on_close():
        if app.editor.may_close():  # else the unsaved-changes question is on screen
            pyglet.app.exit()  # leave the loop with the window open, so outputs can still be written
        return True

    window.push_handlers(on_close=on_close)
    autosaver = start_autosave(app, args)
    signal.signal(signal.SIGTERM, lambda *_: pyglet.app.exit())
    pacer = FramePacer(app)
    pyglet.clock.schedule_interval(pacer.tick, FRAME_S)
    app.warmup.start(state)
    try:
        pyglet.app.run(None)  # frames come from the pacer, only when something can change
        write_outputs(args, app)
        if autosaver is not None:
            autosaver.clear()  # a clean exit: nothing to recover
    finally:
        pacer.release()
        app.release()
        window.close()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in COMMANDS:
        try:
            COMMANDS[argv[0]](argv[1:])
        except UsageError as error:
            print(f"posekit: error: {error}", file=sys.stderr)
            return 2
        return 0
    args = parse_args(argv)
    if args.headless:
        use_headless_gl()
    try:
        state = load_state(args)
        if args.headless:
            run_headless(args, state, load_events(args))
        else:
            run_window(args, state)
    except UsageError as error:
        print(f"posekit: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
