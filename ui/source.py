"""The rig file a session was opened from, as it was when opened: its path, the import options it
was read with, and a fingerprint (size, modification time, SHA-256 of its bytes).

Crash recovery re-reads from this file what the autosave does not hold (the skinned mesh, the
animation clips), but only when the fingerprint says the file is still the one the session had.
"""
import hashlib
import os
from dataclasses import dataclass

from rig.formats.document import ImportOptions
from rig.formats.reader import open_rig

HASH_CHUNK = 1 << 20


@dataclass(frozen=True)
class SourceFile:
    """``path`` is absolute. ``sha256`` None: not known (an autosave written before fingerprints)."""
    path: str
    options: ImportOptions = ImportOptions()
    size: int | None = None
    mtime_ns: int | None = None
    sha256: str | None = None

    @classmethod
    def of(cls, path, options):
        """The file at ``path`` as it is now; None when it cannot be read (opening it fails too)."""
        path = os.path.abspath(path)
        try:
            stat = os.stat(path)
            return cls(path, options, stat.st_size, stat.st_mtime_ns, file_sha256(path))
        except OSError:
            return None

    def is_unchanged(self, saved_at):
        """Whether the file still holds what the session read. Same size and time: yes, without
        reading it; otherwise the bytes decide (a copy or a touch changes the time only). With no
        fingerprint, a file not modified since ``saved_at`` (seconds since 1970) counts as unchanged."""
        try:
            stat = os.stat(self.path)
            if self.sha256 is None:
                return stat.st_mtime <= saved_at
            if stat.st_size != self.size:
                return False
            return stat.st_mtime_ns == self.mtime_ns or file_sha256(self.path) == self.sha256
        except OSError:
            return False


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(HASH_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass
class OpenedFile:
    """A rig file read (``rig.formats.document.RigDocument``) and its ``SourceFile`` (None: the
    file could not be fingerprinted, e.g. it vanished just after it was read)."""
    document: object
    source: SourceFile | None


def open_source(path, options):
    """Read the rig file at ``path`` with ``options``, fingerprinted first: should the file
    change while it is read, a later recovery sees a changed file rather than trust the new
    bytes. Raises what ``open_rig`` raises."""
    source = SourceFile.of(path, options)
    return OpenedFile(open_rig(path, options), source)
