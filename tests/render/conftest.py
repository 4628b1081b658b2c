"""GL fixtures for render tests, on the session's one headless context (``gl_session`` in
tests/conftest.py). Every test using ``ctx`` must leave no GL error behind."""
import pytest

from render.rig_renderer import RigRenderer


@pytest.fixture
def ctx(gl_session):
    context = gl_session.ctx
    _ = context.error  # reading the flag clears any error left before this test
    yield context
    error = context.error
    assert error == "GL_NO_ERROR", f"test left a GL error behind: {error}"


@pytest.fixture(scope="session")
def renderer(gl_session):
    rig_renderer = RigRenderer(gl_session.ctx)
    yield rig_renderer
    rig_renderer.release()
