"""Posekit: interactive 3D posing for character rigs.

    python app.py [RIG]                                   open a window (default rig if none)
    python app.py --headless --screenshot OUT.png [--size 1280x720] [--pose POSE.json] [RIG]
                                                          render one frame offscreen and exit

Exit status 0 on success; 2 with a one-line message for a bad argument or file.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_RIG = os.path.join(HERE, "assets", "humanoid.json")


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


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="posekit", description="Interactive 3D posing for character rigs.")
    parser.add_argument("rig", nargs="?", default=DEFAULT_RIG,
                        help="rig file (posekit JSON, glTF .gltf/.glb); default: the humanoid")
    parser.add_argument("--headless", action="store_true", help="no window: render offscreen (EGL), then exit")
    parser.add_argument("--screenshot", metavar="OUT.png", help="write one rendered frame to this PNG")
    parser.add_argument("--size", type=parse_size, default=(1280, 720), metavar="WxH", help="window size")
    parser.add_argument("--pose", metavar="POSE.json", help="pose file to apply to the rig")
    args = parser.parse_args(argv)
    if args.screenshot and not args.headless:
        parser.error("--screenshot needs --headless")
    if args.headless and not args.screenshot:
        parser.error("--headless needs something to write, such as --screenshot OUT.png")
    return args


def load_state(args):
    """Rig and pose from the command line, as the app's state; bad files raise UsageError."""
    from rig.jsonfields import FileFormatError
    from rig.formats import open_rig
    from rig.rigfile import load_pose
    from ui.state import AppState
    try:
        document = open_rig(args.rig)
        for warning in document.warnings:
            print(f"posekit: warning: {warning}", file=sys.stderr)
        rig = document.rig
        pose = document.pose
        if args.pose:
            pose, warnings = load_pose(args.pose, rig.skeleton)
            for warning in warnings:
                print(f"posekit: warning: {warning}", file=sys.stderr)
    except FileFormatError as error:
        raise UsageError(str(error)) from None
    width, height = args.size
    return AppState.for_rig(rig, args.rig, pose, aspect=width / height, mesh=document.mesh)


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
                                config=config)


def run_headless(args, state):
    from render.capture import save_png
    from ui.window import PosekitWindow
    window = open_window(*args.size, headless=True)
    state.deterministic = True
    app = PosekitWindow(window, state)
    try:
        for _ in range(HEADLESS_FRAMES):
            app.frame()
        try:
            save_png(app.read_rgb(), args.screenshot)
        except (OSError, ValueError) as error:
            raise UsageError(f"cannot write {args.screenshot}: {error}") from None
    finally:
        app.release()
        window.close()


def run_window(args, state):
    import pyglet
    from ui.window import PosekitWindow
    window = open_window(*args.size, headless=False)
    app = PosekitWindow(window, state)
    pyglet.clock.schedule_interval(lambda dt: None, 1.0 / 60.0)
    try:
        pyglet.app.run()
    finally:
        app.release()


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.headless:
        use_headless_gl()
    try:
        state = load_state(args)
        (run_headless if args.headless else run_window)(args, state)
    except UsageError as error:
        print(f"posekit: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
