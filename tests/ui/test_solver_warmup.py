"""The solvers compile in the background as the window opens: the status bar says so while they
do and says when they are ready, and an idle window still draws that once."""
import sys
import threading

import pytest

from ui.pacing import FramePacer
from ui.solver_warmup import COMPILING, READY, SWITCH_INTERVAL_S, SolverWarmup
from ui.status import MESSAGE_SECONDS, expire_message

from .conftest import humanoid_state


def held_warmup():
    """A warm-up whose work waits until the returned event is set."""
    release = threading.Event()
    return SolverWarmup(warm=lambda: release.wait(10)), release


def test_the_window_says_the_solvers_compile_then_that_they_are_ready(posekit_window):
    app = posekit_window
    warmup, release = held_warmup()
    app.warmup = warmup
    warmup.start(app.state)
    app.frame()
    assert app.state.message == COMPILING and not warmup.news
    pacer = FramePacer(app, clock=lambda: 1e9)  # long idle: only being busy draws
    assert not pacer.busy()
    release.set()
    warmup.thread.join(10)
    assert pacer.busy()  # finished: the idle window draws once to say so
    app.frame()
    assert app.state.message == READY and not app.state.error
    assert not warmup.news  # said once; "Solvers ready" then clears as any message does
    pacer.release()


def test_the_compiling_line_outlasts_the_status_timeout_until_done():
    state = humanoid_state()
    warmup, release = held_warmup()
    warmup.start(state)
    for now in (0.0, MESSAGE_SECONDS + 1.0, 10 * MESSAGE_SECONDS):  # a compile takes longer than a message shows
        warmup.show(state)
        expire_message(state, now)
        assert state.message == COMPILING
    release.set()
    warmup.thread.join(10)
    warmup.show(state)
    assert state.message == READY
    expire_message(state, 20 * MESSAGE_SECONDS)
    expire_message(state, 21 * MESSAGE_SECONDS)
    assert state.message == ""


def test_a_message_already_shown_stays():
    state = humanoid_state()
    state.message = "humanoid.json: a warning the user must see"
    warmup, release = held_warmup()
    warmup.start(state)
    release.set()
    warmup.thread.join(10)
    warmup.show(state)
    assert state.message == "humanoid.json: a warning the user must see"


def test_a_failed_warmup_is_reported_not_raised():
    state = humanoid_state()

    def broken():
        raise RuntimeError("no compiler")

    warmup = SolverWarmup(warm=broken)
    warmup.start(state)
    warmup.thread.join(10)
    warmup.show(state)
    assert "no compiler" in state.error and state.message == state.error


def test_the_warmup_shares_the_interpreter_finely_and_gives_it_back():
    """A compile in the background must not starve the window's thread (a key pressed meanwhile was
    lost: tests/xvfb's File > Open shortcut); the interpreter's setting comes back afterwards."""
    before = sys.getswitchinterval()
    seen = []
    warmup = SolverWarmup(warm=lambda: seen.append(sys.getswitchinterval()))
    warmup.start(humanoid_state())
    warmup.thread.join(10)
    assert seen == [pytest.approx(SWITCH_INTERVAL_S)] and SWITCH_INTERVAL_S < before
    assert sys.getswitchinterval() == before
