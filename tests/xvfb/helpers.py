"""What the tests that drive the real app in an X window share (tests/xvfb; the fixtures that
start Xvfb and the app are in its conftest): ``RealApp``, which sends xdotool input and reads what
the app drew from its POSEKIT_WIDGETS dump, the camera's geometry to aim the pointer, and the
steps several flows take (drag a handle, save as, quit and answer)."""
import json
import os
import subprocess
import sys
import time

import numpy as np
from PIL import Image

from rig.formats.rigfile import load_pose
from rig.pose import heads_tails, world_matrices
from ui.solver_warmup import COMPILING

SIZE = (960, 600)  # wide enough that the docked panels leave the hands in the open
START_S = 60  # for the window to show, and again for the solvers' warm-up (seconds)
IDLE_S = 0.7  # no new frame for this long: the app has drawn every input (ui.pacing.SETTLE_S is 0.5 s)


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)
    return result


def read_xwd(path):
    """Xvfb's framebuffer file (XWD, 24 bits in 32-bit pixels) as an (H, W, 3) uint8 array."""
    data = path.read_bytes()
    header = np.frombuffer(data[:100], ">u4")
    header_size, width, height, byte_order, bits, line = (int(header[k]) for k in (0, 4, 5, 7, 11, 12))
    assert bits == 32, f"expected 32-bit pixels, the file has {bits}"
    start = header_size + int(header[19]) * 12  # the colour map follows the header
    pixels = np.frombuffer(data, "<u4" if byte_order == 0 else ">u4", height * line // 4, start)
    pixels = pixels.reshape(height, line // 4)[:, :width]
    masks = header[14:17]
    shifts = [int(m).bit_length() - 8 for m in masks]
    return np.stack([(pixels & int(m)) >> s for m, s in zip(masks, shifts)], axis=-1).astype(np.uint8)


class RealApp:
    """``app.py`` in a window on ``display``, with the POSEKIT_WIDGETS hook on; inputs through
    xdotool, what was drawn from the hook's file."""

    def __init__(self, display, tmp_path, *args):
        self.display, self.framebuffer = display
        self.dump = tmp_path / "widgets.json"
        env = {k: v for k, v in os.environ.items() if k != "PYOPENGL_PLATFORM"}  # GLX here, not EGL
        self.env = env | {"DISPLAY": self.display, "POSEKIT_STATE_DIR": str(tmp_path / "state"),
                          "POSEKIT_WIDGETS": str(self.dump)}
        self.process = subprocess.Popen([sys.executable, "app.py", "--size", "x".join(map(str, SIZE)), *args],
                                        env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # A start under load (other work on the machine, a first import) took over 10 s to show a window.
        self.window = self.xdotool("search", "--sync", "--onlyvisible", "--name", "^Posekit$",
                                   timeout=START_S).split()[0]
        # The flows start once the solvers' warm-up has said it is done: a shortcut pressed during
        # it was sometimes not seen (see ui.solver_warmup), which these flows are not about.
        self.wait(lambda f: f["message"] != COMPILING, "the solvers' warm-up", timeout=START_S)

    def xdotool(self, *args, timeout=10):
        result = subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    def frame(self):
        try:
            return json.loads(self.dump.read_text())
        except FileNotFoundError:
            return None

    def wait(self, condition, what, timeout=10):
        """The first frame that has seen the input sent before this call and for which
        ``condition(frame)`` holds: two frames later than the one on screen (the first may have
        started before the input came), or the last frame once the app has gone idle (it draws
        for ``ui.pacing.SETTLE_S`` after an input, so a longer pause means it drew them all)."""
        seen = self.frame()
        after = seen["frame"] + 2 if seen else 1
        last = {"frame": None, "since": time.monotonic()}

        def ready():
            if self.process.poll() is not None:
                raise AssertionError(f"the app exited ({self.process.returncode}) while a test waited for {what}: "
                                     f"{self.process.communicate()[1][-500:]}")
            frame = self.frame()
            if frame is None:
                return None
            if frame["frame"] != last["frame"]:
                last.update(frame=frame["frame"], since=time.monotonic())
            idle = time.monotonic() - last["since"] > IDLE_S
            return frame if (frame["frame"] >= after or idle) and condition(frame) else None
        return wait_for(ready, timeout, what)

    def settle(self):
        return self.wait(lambda f: True, "a frame")

    def until_idle(self, timeout=10):
        """The last frame once the app has stopped drawing (none new for ``IDLE_S``): it draws
        every frame while it plays, or while a drag or a message's time runs."""
        last = {"frame": None, "since": time.monotonic()}

        def idle():
            frame = self.frame()
            if frame["frame"] != last["frame"]:
                last.update(frame=frame["frame"], since=time.monotonic())
                return None
            return frame if time.monotonic() - last["since"] > IDLE_S else None
        return wait_for(idle, timeout, "the app to stop drawing")

    @staticmethod
    def widget(frame, label):
        """The visible widget with this ImGui label, or this visible part of one; None if none."""
        rows = [w for w in frame["widgets"] if w["label"] == label] or \
               [w for w in frame["widgets"] if w["label"].split("##")[0] == label]
        return next((w for w in rows if w["visible"]), None)

    def click(self, label):
        row = self.wait(lambda f: self.widget(f, label), f"a widget labelled {label!r}")
        left, top, right, bottom = self.widget(row, label)["rect"]
        self.move((left + right) / 2, (top + bottom) / 2)
        self.settle()  # ImGui hovers it first, as under a real pointer
        self.xdotool("click", "1")

    def choose(self, menu, item):
        """``item`` of the menu bar's ``menu``, as a user picks it."""
        self.click(menu)
        self.click(item)

    def click_bone(self, name, shift=False, along=0.5):
        """Click bone ``name`` at ``along`` its length from its head (with Shift held: add it to the
        selection); returns the frame once it is the active bone."""
        bone = self.settle()["scene"]["bones"][name]
        head = np.array(bone["head_px"])
        self.move(*head + (np.array(bone["tail_px"]) - head) * along)
        self.settle()
        self.xdotool(*(["keydown", "shift"] if shift else []), "click", "1", *(["keyup", "shift"] if shift else []))
        return self.wait(lambda f: f["active"] == name, f"{name} to be selected")

    def move(self, x, y):
        self.xdotool("mousemove", "--window", self.window, str(int(x)), str(int(y)))

    def drag(self, start, end, steps=5):
        self.move(*start)
        self.settle()
        self.xdotool("mousedown", "1")
        for k in range(1, steps + 1):
            self.move(*(start + (end - start) * k // steps))
            time.sleep(0.03)
        self.xdotool("mouseup", "1")

    def key(self, *keys):
        self.xdotool("key", "--window", self.window, *keys)

    def answer_path(self, path):
        """Type ``path`` into the in-app file browser's name field (it has the keyboard; a whole path
        is taken as it is) and press Enter."""
        self.wait(lambda f: self.widget(f, "##name"), "the file question")
        self.key("ctrl+a")
        self.xdotool("type", "--window", self.window, "--delay", "2", str(path))
        self.key("Return")
        # ImGui says it wants the keyboard until a frame after the field has gone: a shortcut
        # sent sooner goes to ImGui, not the app (Ctrl+Z right after a save was lost so).
        self.wait(lambda f: not self.widget(f, "##name"), "the file question to close")
        self.settle()

    def screenshot(self, path):
        """The window as the X server shows it, to a PNG at ``path``; returns the (H, W, 3) array."""
        geometry = dict(line.split("=") for line in self.xdotool("getwindowgeometry", "--shell", self.window).split())
        x, y, width, height = (int(geometry[k]) for k in ("X", "Y", "WIDTH", "HEIGHT"))
        image = read_xwd(self.framebuffer)[y:y + height, x:x + width]
        Image.fromarray(image).save(path)
        return image

    def finish(self, timeout=10):
        """Wait for the app to exit; its (stdout, stderr), after checking it exited cleanly."""
        try:
            self.process.wait(timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
        out, err = self.process.communicate()
        assert self.process.returncode == 0, err
        return out, err

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


def pointer_plane_point(scene, x, y, through):
    """Where the ray under window pixel (x, y) meets the camera-facing plane through ``through``,
    from the camera the app drew with (its dumped matrices)."""
    camera = scene["camera"]
    width, height = camera["viewport"]
    inverse = np.linalg.inv(np.array(camera["projection"]) @ np.array(camera["view"]))
    ndc = (2.0 * x / width - 1.0, 1.0 - 2.0 * y / height)
    near, far = (inverse @ (*ndc, z, 1.0) for z in (-1.0, 1.0))
    near, far = near[:3] / near[3], far[:3] / far[3]
    normal = np.array(camera["view"])[2, :3]  # the camera's back axis
    return near + (far - near) * np.dot(through - near, normal) / np.dot(far - near, normal)


def where_the_pointer_took(scene, point, start, end):
    """Where a drag from pixel ``start`` to ``end`` moves ``point`` (grabbed at ``start``)."""
    grab = point - pointer_plane_point(scene, *start, point)
    return pointer_plane_point(scene, *end, point) + grab


def handle(frame, name):
    entry = frame["scene"]["handles"][name]
    return np.array(entry["position"]), np.array(entry["px"])


def bone_points(frame):
    return np.array([bone["head"] + bone["tail"] for bone in frame["scene"]["bones"].values()])


def drag_handle(app, name, offset):
    """Drag handle ``name`` by ``offset`` pixels; returns (the pointer's world point for it, the
    frame after)."""
    before = app.settle()
    position, px = handle(before, name)
    start = np.round(px).astype(int)
    end = start + offset
    left, top, right, bottom = before["free"]
    assert left < end[0] < right and top < end[1] < bottom, "the drag must stay in the viewport"
    app.drag(start, end)
    wanted = where_the_pointer_took(before["scene"], position, start, end)
    after = app.wait(lambda f: np.allclose(handle(f, name)[0], wanted, atol=1e-6), f"{name} to follow the pointer")
    return wanted, after


def looks_like_the_app(image, frame):
    """The screenshot is the whole window, drawn: a viewport with more in it than its background,
    the grey properties column on its right."""
    assert image.shape == (SIZE[1], SIZE[0], 3)
    left, top, right, bottom = (int(v) for v in frame["free"])
    viewport = image[top:bottom, left:right].reshape(-1, 3)
    assert len(np.unique(viewport, axis=0)) > 50, "the viewport is (nearly) one colour: nothing drawn"
    panel = image[top + 40:bottom, right + 10:].reshape(-1, 3)
    assert np.median(panel.astype(int).std(axis=1)) < 8, "the properties column is not ImGui's grey"


def saved_world(path, rig):
    """Heads and tails of ``rig`` in the pose file at ``path``."""
    pose, _ = load_pose(path, rig.skeleton)
    return heads_tails(rig.skeleton, world_matrices(rig.skeleton, pose))


def tip(frame, bone):
    return np.array(frame["scene"]["bones"][bone]["tail"])


def save_as(app, path):
    """Ctrl+S on a pose with no file yet: the app asks where; answer ``path``."""
    app.key("ctrl+s")
    app.answer_path(path)
    app.wait(lambda f: f["message"] == f"Saved {path}", "the pose to save")


def quit_and_answer(app, answer):
    """Ctrl+Q with unsaved changes: the question comes; press ``answer``'s key."""
    app.key("ctrl+q")
    app.wait(lambda f: RealApp.widget(f, "Save##unsaved_save"), "the unsaved-changes question")
    app.key(answer)
