"""The solvers' kernels compiled (or loaded from their cache) in a background thread as the window
opens, so a compile never lands in a drag: after an edit to the solvers one takes 35-45 s. The
status bar says so while it runs, and says when it is done."""
import sys
import threading

from solvers.methods import warm_all

# While it runs the interpreter switches threads this often (seconds): at Python's default 5 ms the
# compile starved the window's event loop, and a shortcut pressed meanwhile was never seen.
SWITCH_INTERVAL_S = 0.0005
COMPILING = "Compiling solvers…"
READY = "Solvers ready"


class SolverWarmup:
    """Runs ``warm`` (every kernel the method registry lists) once in a daemon thread. The thread
    only records its outcome; the frame (``show``) puts it in the status bar, so the state is
    touched by one thread only."""

    def __init__(self, warm=warm_all):
        self.warm = warm
        self.finished = threading.Event()
        self.failure = None
        self.shown = False
        self.thread = threading.Thread(target=self._run, name="solver warm-up", daemon=True)

    def start(self, state):
        """Say so in ``state``'s status bar (unless a message is there already) and start."""
        if not state.message:
            state.report_progress(COMPILING)
        self.thread.start()

    def _run(self):
        interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        try:
            self.warm()
        except Exception as error:  # noqa: BLE001 - the first solve compiles then; say why
            self.failure = f"Compiling solvers failed ({error}); the first solve compiles them"
        finally:
            sys.setswitchinterval(interval)
            self.finished.set()

    @property
    def news(self):
        """Whether it finished and the status bar does not say so yet (a frame should draw)."""
        return self.finished.is_set() and not self.shown

    def show(self, state):
        """Once it has finished: "Solvers ready" in place of the compiling line, or the failure."""
        if not self.news:
            return
        self.shown = True
        if self.failure is not None:
            state.report_error(self.failure)
        elif state.message == COMPILING:
            state.message = READY
