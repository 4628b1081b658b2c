"""The fixtures of the tests that drive the real window: a fresh Xvfb display and the app on it."""
import os
import random
import shutil
import subprocess

import pytest

from tests.xvfb.helpers import RealApp, wait_for


@pytest.fixture
def display(tmp_path):
    """A fresh Xvfb display, (":N", its framebuffer file)."""
    if not (shutil.which("Xvfb") and shutil.which("xdotool")):
        pytest.skip("Xvfb or xdotool is not installed (bash .ci/setup installs both)")
    number = random.SystemRandom().randrange(200, 900)
    framebuffer = tmp_path / "fb"
    framebuffer.mkdir()
    server = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1024x768x24", "-nolisten", "tcp",
                               "-fbdir", str(framebuffer)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    socket = f"/tmp/.X11-unix/X{number}"
    try:
        wait_for(lambda: os.path.exists(socket) or server.poll() is not None, 5, "Xvfb")
        if server.poll() is not None:
            pytest.skip(f"Xvfb could not start: {server.stderr.read().decode(errors='replace').strip()[-200:]}")
        yield f":{number}", framebuffer / "Xvfb_screen0"
    finally:
        server.terminate()
        server.wait(5)


@pytest.fixture
def real_app(display, tmp_path):
    """Starts the app (``real_app(*args)``) and kills it if a test leaves it running."""
    started = []

    def start(*args):
        started.append(RealApp(display, tmp_path, *args))
        return started[-1]
    yield start
    for app in started:
        app.kill()
