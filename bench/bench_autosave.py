"""Autosave benchmark (not a test): what an autosave costs the frame it runs in, with a full undo
history (256 steps made by real edits: IK handle moves solved, IK settings changed, bones hidden)
on the humanoid and the skinned humanoid.

Each round makes one more edit (a new step; the oldest leaves the history) and moves the camera,
then times one due autosave by the baseline (``ui/session_file.py`` and ``ui/autosave.py`` as they
were at ``--baseline``: the whole session encoded and written in the frame) and one by the
current code, in alternating order. The current ``Autosaver.tick`` leaves the write to a thread,
which holds the GIL for part of it: the candidate's cost is its tick plus what the thread takes
of the Python work that follows in the frame (``FRAME_SOLVES`` solves, timed with the write in
flight and after the baseline, with none). The first autosave after a restore is timed too (the
history read back from the file). Prints a table and a JSON line.

    .venv/bin/python bench/bench_autosave.py [--rounds 21] [--baseline REV]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

from rig.formats.document import ImportOptions  # noqa: E402
from ui.autosave import Autosaver  # noqa: E402
from ui.history import HISTORY_LIMIT  # noqa: E402
from ui.selection import set_hidden  # noqa: E402
from ui.session_file import read_recovery, restore_session  # noqa: E402
from ui.source import open_source  # noqa: E402
from ui.state import AppState  # noqa: E402

RIGS = ("assets/humanoid.json", "assets/humanoid_skinned.glb")
FRAME_SOLVES = 20
BASELINE_REV = "658dadd"  # main before autosaves joined cached step text and wrote on a thread


class Clock:
    """Always an hour later: every tick finds its autosave due."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 3600.0
        return self.now


def module_at(rev, path, name, **replaced):
    """The module at ``path`` as it was at git revision ``rev``, with ``replaced`` names swapped in."""
    source = subprocess.run(["git", "-C", ROOT, "show", f"{rev}:{path}"], check=True, capture_output=True,
                            text=True).stdout
    module = types.ModuleType(name)
    exec(compile(source, f"{rev}:{path}", "exec"), module.__dict__)
    module.__dict__.update(replaced)
    return module


def baseline_autosaver_class(rev):
    session_file = module_at(rev, "ui/session_file.py", "baseline_session_file")
    return module_at(rev, "ui/autosave.py", "baseline_autosave", session_dict=session_file.session_dict).Autosaver


class Editor:
    """Edits as a user makes them, each one undo step."""

    def __init__(self, state, seed=1):
        self.state, self.rng, self.count = state, np.random.default_rng(seed), 0
        self.handle = state.rig.skeleton.index["hand_ik.L"]

    def edit(self):
        state, k = self.state, self.count
        state.pose.locations[self.handle] = self.rng.uniform(-0.2, 0.2, 3)  # a handle dragged
        if k % 8 == 0:
            state.rig.ik[0].pole_angle = float(self.rng.uniform(-1.0, 1.0))  # a panel setting
        if k % 32 == 16:
            set_hidden(state.view, set() if state.view.hidden else {"neck"})  # H / Alt+H
        state.resolve()
        assert state.history.commit(state)
        state.camera.orbit(3.0, 0.0)
        self.count += 1


def timed_ms(action):
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1e3


def note_change(saver, state):
    """A frame's tick that notes the change (the autosave is due from the next one on)."""
    assert not saver.tick(state), "the autosave was due before the change was noted"


def due_tick(saver, state):
    began = saver.tick(state)
    assert began, "the autosave was not due"


def frame_work(state):
    """Python work standing for the rest of a frame (solves), to see what the write's thread takes of it."""
    for _ in range(FRAME_SOLVES):
        state.resolve()


def measure_rig(path, rounds, baseline_class, folder):
    opened = open_source(path, ImportOptions())
    state = AppState.for_document(opened.document, size=(1280, 720), source=opened.source)
    editor = Editor(state)
    for _ in range(HISTORY_LIMIT):
        editor.edit()
    baseline = baseline_class(os.path.join(folder, "baseline.json"), clock=Clock())
    candidate = Autosaver(os.path.join(folder, "candidate.json"), clock=Clock())
    times = {name: [] for name in ("baseline", "candidate", "work alone", "work while writing", "write after")}
    for round_ in range(rounds + 1):
        editor.edit()
        timed = {}
        for name in ("baseline", "candidate") if round_ % 2 else ("candidate", "baseline"):
            saver = baseline if name == "baseline" else candidate
            note_change(saver, state)
            timed[name] = timed_ms(lambda: due_tick(saver, state))
            if name == "candidate":
                timed["work while writing"] = timed_ms(lambda: frame_work(state))
                timed["write after"] = timed_ms(candidate.wait)
            else:
                timed["work alone"] = timed_ms(lambda: frame_work(state))
        if round_:  # the first round encodes every step once: timed below, after a restore
            for name, elapsed in timed.items():
                times[name].append(elapsed)
    medians = {name: statistics.median(values) for name, values in times.items()}
    stolen = max(medians["work while writing"] - medians["work alone"], 0.0)
    return {"rig": os.path.basename(path), "steps": len(state.history.undo_stack),
            "file_bytes": os.path.getsize(candidate.path), "baseline": medians["baseline"],
            "candidate tick": medians["candidate"], "taken by the thread": stolen,
            "candidate": medians["candidate"] + stolen, "write after the frame work": medians["write after"],
            "first autosave after a restore": first_autosave_after_restore(candidate.path, folder)}


def first_autosave_after_restore(recovery, folder):
    """Restore the session autosaved at ``recovery``: the milliseconds of its first autosave's frame."""
    state = restore_session(read_recovery(recovery), recovery).state
    saver = Autosaver(os.path.join(folder, "restored.json"), clock=Clock())
    state.camera.orbit(3.0, 0.0)
    note_change(saver, state)
    elapsed = timed_ms(lambda: due_tick(saver, state))
    saver.wait()
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21, help="autosaves timed per rig and implementation")
    parser.add_argument("--baseline", default=BASELINE_REV, help="git revision of the baseline autosave")
    args = parser.parse_args()
    baseline_class = baseline_autosaver_class(args.baseline)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for path in RIGS:
            rows.append(measure_rig(os.path.join(ROOT, path), args.rounds, baseline_class, folder))
    print(f"{'rig':<22}{'steps':>6}{'MB':>6}{'baseline ms':>13}{'tick ms':>9}{'+ thread ms':>13}"
          f"{'= candidate ms':>16}{'ratio':>7}{'write left ms':>15}{'after restore ms':>18}")
    for row in rows:
        print(f"{row['rig']:<22}{row['steps']:>6}{row['file_bytes'] / 1e6:>6.2f}{row['baseline']:>13.2f}"
              f"{row['candidate tick']:>9.2f}{row['taken by the thread']:>13.2f}{row['candidate']:>16.2f}"
              f"{row['baseline'] / row['candidate']:>7.1f}{row['write after the frame work']:>15.2f}"
              f"{row['first autosave after a restore']:>18.2f}")
    print(json.dumps({"bench": "autosave", "rounds": args.rounds, "baseline": args.baseline,
                      "rigs": [{k.replace(" ", "_"): (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()}
                               for row in rows]}))


if __name__ == "__main__":
    main()
