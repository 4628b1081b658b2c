"""Test-wide set-up: headless GL (EGL on Mesa, no display) before anything imports pyglet.window,
and the --update-goldens flag for screenshot tests."""
import os

import pyglet
import pytest

os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
pyglet.options["headless"] = True


def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite golden PNGs in tests/golden/ from the current rendering")


GL_WINDOW_SIZE = (960, 600)


@pytest.fixture(autouse=True)
def private_state_dir(tmp_path, monkeypatch):
    """Every test keeps its recent files and autosave in its own folder, never the user's."""
    monkeypatch.setenv("POSEKIT_STATE_DIR", str(tmp_path / "state"))  # ui.autosave.STATE_DIR_ENV


@pytest.fixture(scope="session")
def gl_session():
    """The session's one headless window and GL context (glcontext attaches moderngl to an
    existing context only once per process, so every GL test shares this one)."""
    from render.context import create_headless_context
    headless = create_headless_context(*GL_WINDOW_SIZE)
    yield headless
    headless.release()


def pytest_configure(config):
    """tests/golden.py reads the flag from the environment, so helpers need no pytest objects."""
    if config.getoption("--update-goldens"):
        os.environ["POSEKIT_UPDATE_GOLDENS"] = "1"
