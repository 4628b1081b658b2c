"""Every kind of file Posekit writes survives a save killed part-way: the old file stays whole, the
killed save's temporary file is removed by the next save to that folder, and new files get the
umask's permissions."""
import glob
import os
import signal
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from rig.formats.atomic import STALE_SECONDS, TEMP_PREFIX, save_bytes_atomic
from rig.formats.reader import open_rig
from tests.golden import load_png

RIG = "assets/humanoid.json"
# Each writer, called in a child process on ``path``; ``n`` varies what it writes.
WRITERS = {
    "rig.json": "from rig.formats.rigfile import load_rig, save_rig\n"
                "rig = load_rig(RIG); rig.name = f'rig{n}'; save_rig(rig, path)",
    "pose.json": "from rig.formats.rigfile import load_rig, save_pose\nfrom rig.pose import Pose\n"
                 "rig = load_rig(RIG); save_pose(rig.skeleton, Pose.rest(len(rig.skeleton)), path, f'rig{n}')",
    "scene.glb": "from rig.formats.rigfile import load_rig\nfrom rig.formats.gltf import write_glb\n"
                 "write_glb(path, load_rig(RIG))",
    "motion.bvh": "from rig.formats.rigfile import load_rig\nfrom rig.formats.bvh_write import save_bvh\n"
                  "from rig.pose import Pose\nrig = load_rig(RIG); save_bvh(path, rig.skeleton, Pose.rest(len(rig.skeleton)))",
    "scene.json": "from rig.formats.jsonfields import save_json_atomic\nsave_json_atomic(path, {'scene': n})",
    "shot.png": "import numpy as np\nfrom render.capture import save_png\n"
                "save_png(np.full((40, 60, 3), n % 256, np.uint8), path)",
}


def child(name, path, n, stop_before_rename):
    """Python source that writes ``name`` once; with ``stop_before_rename`` it says 'ready' once the
    temporary file is on disk and waits to be killed before renaming it."""
    stop = textwrap.dedent("""
        import os, sys, time
        def stop(*args):
            print("ready", flush=True)
            time.sleep(60)
        os.replace = stop
    """) if stop_before_rename else ""
    return f"{stop}\nRIG, path, n = {RIG!r}, {str(path)!r}, {n}\n{WRITERS[name]}\n"


def write(name, path, n, stop_before_rename=False):
    process = subprocess.Popen([sys.executable, "-c", child(name, path, n, stop_before_rename)],
                               stdout=subprocess.PIPE, text=True)
    if stop_before_rename:
        assert process.stdout.readline().strip() == "ready"
        process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=60) in ((-signal.SIGKILL,) if stop_before_rename else (0,))
    process.stdout.close()


def leftovers(folder):
    return glob.glob(os.path.join(folder, TEMP_PREFIX + "*"))


def read(name, path):
    """The file's content in a comparable form; fails if the file is not whole."""
    if name.endswith(".png"):
        return load_png(path).tobytes()
    if name in ("rig.json", "scene.glb", "motion.bvh"):
        rig = open_rig(path).rig
        return (rig.name if name == "rig.json" else "", rig.skeleton.names)
    return path.read_bytes()


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_a_killed_save_keeps_the_old_file_and_the_next_save_cleans_up(tmp_path, name):
    path = tmp_path / name
    write(name, path, 1)
    before = read(name, path)
    write(name, path, 2, stop_before_rename=True)
    assert read(name, path) == before  # the killed save did not touch the file
    [leftover] = leftovers(tmp_path)
    old = os.stat(leftover).st_mtime - 2 * STALE_SECONDS
    os.utime(leftover, (old, old))
    write(name, path, 3)
    assert leftovers(tmp_path) == []
    read(name, path)


def test_new_files_take_the_umask_and_rewritten_files_keep_their_mode(tmp_path):
    previous = os.umask(0o027)
    try:
        save_bytes_atomic(tmp_path / "new.bin", b"x")
        assert stat.S_IMODE(os.stat(tmp_path / "new.bin").st_mode) == 0o640
        os.chmod(tmp_path / "new.bin", 0o604)
        save_bytes_atomic(tmp_path / "new.bin", b"y")
        assert stat.S_IMODE(os.stat(tmp_path / "new.bin").st_mode) == 0o604
    finally:
        os.umask(previous)


def test_a_fresh_temporary_file_of_a_running_save_is_left_alone(tmp_path):
    running = tmp_path / f"{TEMP_PREFIX}busy.json"
    running.write_bytes(b"half")
    save_bytes_atomic(tmp_path / "other.json", b"{}")
    assert running.exists()


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "shot.png"
    save_bytes_atomic(path, b"old")

    def full_disk(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError):
        save_bytes_atomic(path, np.zeros(1000, np.uint8).tobytes())
    assert path.read_bytes() == b"old" and leftovers(tmp_path) == []


def test_saving_into_a_missing_folder_names_the_folder_not_a_temporary_file(tmp_path):
    missing = tmp_path / "no" / "such"
    with pytest.raises(OSError) as error:
        save_bytes_atomic(missing / "pose.json", b"{}")
    assert str(error.value) == f"the folder {missing} does not exist"

