"""The one way Posekit writes a file: to a temporary file beside it, flushed to disk, then renamed
over it, so a crash, a kill or a full disk never leaves a half-written file or destroys the old one.
New files get the permissions the umask gives (0644 under the usual 022), as other desktop tools do;
a file written again keeps its own. Temporary files a killed save left behind are removed by the
next save to the same folder."""
import glob
import os
import stat
import tempfile
import time

TEMP_PREFIX = ".posekit-tmp-"
# A temporary file untouched this long belongs to no running save (a save writes, flushes and
# renames within a second or two): it was left by a killed one.
STALE_SECONDS = 60.0


def save_bytes_atomic(path, data, suffix=""):
    """Write ``data`` to ``path`` atomically (see the module doc)."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):  # say so, rather than name a temporary file the user never asked for
        raise OSError(f"the folder {directory} does not exist")
    _remove_stale_temporaries(directory)
    mode = _mode_for(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=suffix, dir=directory)
    except OSError as error:
        raise OSError(f"cannot write in the folder {directory}: {error.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def save_text_atomic(path, text, suffix=".tmp"):
    """UTF-8 text with the newlines as given, written atomically."""
    save_bytes_atomic(path, text.encode("utf-8"), suffix)


def _mode_for(path):
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)  # the only way to read it; put back at once
        os.umask(umask)
        return 0o666 & ~umask


def _remove_stale_temporaries(directory):
    now = time.time()
    for leftover in glob.glob(os.path.join(glob.escape(directory), TEMP_PREFIX + "*")):
        try:
            if now - os.stat(leftover).st_mtime > STALE_SECONDS:
                os.unlink(leftover)
        except OSError:  # gone already, or not ours to remove: the save goes on
            pass
