"""Write generated files all or nothing: never a half-written file, never half a compile.

Everything for one compile goes through a `Transaction`.  Each changed file is
first staged as a temporary file in its own directory (by this process or by
worker processes, see `stage`); when every file is staged, the data is flushed
to disk once and the temporary files are renamed over the old ones.  If
anything fails before the last rename (a full disk, a permission, an
interrupt, a worker that died), every staged file is removed and every file
already renamed is put back from a hard-linked backup, so the output
directory is exactly as it was: old files intact, no new file, no temporary
file, no directory created for nothing.  A file whose content is unchanged is
not rewritten, so a recompile touches only what moved.

Every directory made and every directory a process stages temporary files
in is written to a journal first (temporary files are named after their
process, so one entry per directory and process covers them all), so the
abort finds even those staged by a worker whose result never arrived, and the
next transaction on the same directory removes what a killed one (SIGKILL,
power loss before the renames) left behind.  Writing one journal entry per
file, and a chmod per file, cost more than rendering on a large network:
files are created with their final mode (0644, scripts 0755, less the umask).

Filesystem steps go through the module-level names below (`_mkdir`, `_open`,
...) so tests can make any one of them fail.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import itertools
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Self

from qosc.targets.base import Output

_mkdir = os.mkdir
_open = os.open
_write = os.write
_link = os.link
_replace = os.replace

FSYNC_EACH_UP_TO = 32
"""Up to this many staged files are fsync'ed one by one; beyond, one os.sync() is far cheaper."""

BACKUP_SUFFIX = ".qosc-old"
_counter = itertools.count()


@dataclass(frozen=True)
class Staged:
    """One output after staging: its temporary file (None when the file already held this text)."""

    relpath: str
    final: str
    tmp: str | None
    size: int
    mtime_ns: int


class Journal:
    """An append-only list of what a transaction created, shared by its worker processes (O_APPEND).

    Entries: D a directory made, T a temporary file, P a directory in which
    process <pid> stages temporary files (written as P<pid>:<directory>).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        self.ready: dict[str, int] = {}
        """Directories known to exist and noted for temporary files, by the pid that noted them (a forked
        worker inherits the parent's, and notes a directory again for its own pid)."""

    def note(self, kind: str, path: str) -> None:
        os.write(self.fd, f"{kind}{path}\0".encode("utf-8", "surrogateescape"))

    def staging_in(self, directory: str) -> None:
        """Make sure `directory` exists and is noted as holding this process's temporary files."""
        pid = os.getpid()
        if self.ready.get(directory) == pid:
            return
        _ensure_dir(directory, self)
        self.note("P", f"{pid}:{directory}")
        self.ready[directory] = pid

    @staticmethod
    def read(path: str) -> list[tuple[str, str]]:
        try:
            with open(path, "rb") as fh:
                data = fh.read().decode("utf-8", "surrogateescape")
        except OSError:
            return []
        return [(entry[0], entry[1:]) for entry in data.split("\0") if entry]

    def close(self) -> None:
        _quiet(os.close, self.fd)
        _quiet(os.unlink, self.path)


def _tmp_name(final: str, pid: int, serial: int) -> str:
    return os.path.join(os.path.dirname(final), f".{os.path.basename(final)}.qosc-{pid}-{serial}.tmp")


def _undo(entries: Iterable[tuple[str, str]]) -> None:
    """Remove the temporary files and the (then empty) directories a journal lists."""
    entries = list(entries)
    for kind, path in entries:
        if kind == "T":
            _quiet(os.unlink, path)
        elif kind == "P":
            pid, _, directory = path.partition(":")
            mine = re.compile(rf"\..*\.qosc-{re.escape(pid)}-\d+\.tmp", re.DOTALL)
            try:
                names = os.listdir(directory)
            except OSError:
                continue
            for name in names:
                if mine.fullmatch(name):
                    _quiet(os.unlink, os.path.join(directory, name))
    for path in sorted({p for k, p in entries if k == "D"}, key=lambda p: p.count(os.sep), reverse=True):
        _quiet(os.rmdir, path)


@lru_cache(maxsize=4096)
def _real_dir(directory: str) -> str:
    return os.path.realpath(directory)


def final_path(root: str, relpath: str) -> str:
    """The absolute path of an output, refusing any that would leave `root` (also through a symlink)."""
    final = os.path.normpath(os.path.join(root, relpath))
    real_root, real = _real_dir(root), _real_dir(os.path.dirname(final))
    if not final.startswith(root + os.sep) or (real != real_root and not real.startswith(real_root + os.sep)):
        raise ValueError(f"output path {relpath!r} escapes the output directory")
    return final


def stage(root: str, relpath: str, text: str, journal: Journal | None = None) -> Staged:
    """Write `text` to a temporary file next to its output (or nothing, when unchanged).

    Safe to call from several processes at once for different files; the
    caller publishes or discards the result through the Transaction that owns
    `journal`.
    """
    final = final_path(root, relpath)
    data = text.encode("utf-8")
    st = _same_content(final, data)
    if st is not None:
        return Staged(relpath, final, None, st.st_size, st.st_mtime_ns)
    directory = os.path.dirname(final)
    if journal is not None:
        journal.staging_in(directory)
    else:
        _ensure_dir(directory, None)
    mode = 0o755 if text.startswith("#!") else 0o644
    fd = -1
    try:
        for _ in range(100):  # a name left by an earlier process that had this pid: take the next one
            tmp = _tmp_name(final, os.getpid(), next(_counter))
            try:
                fd = _open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
                break
            except FileExistsError:
                continue
        else:
            raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)
        view = memoryview(data)
        while view:
            view = view[_write(fd, view):]
        st = os.fstat(fd)
    except BaseException:
        if fd >= 0:
            _quiet(os.unlink, tmp)
        raise
    finally:
        if fd >= 0:
            os.close(fd)
    return Staged(relpath, final, tmp, st.st_size, st.st_mtime_ns)


def _ensure_dir(directory: str, journal: Journal | None) -> None:
    """Create `directory` and its missing parents, each noted in the journal once made."""
    missing = []
    while not os.path.isdir(directory):
        missing.append(directory)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    for d in reversed(missing):
        try:
            _mkdir(d)
        except FileExistsError:  # another worker was first
            continue
        if journal is not None:
            journal.note("D", d)


class Transaction:
    """Stage files under one directory, then publish them all at once (or none)."""

    def __init__(self, directory: Path | str, durable: bool = True, journal_dir: str | None = None) -> None:
        self.root = os.path.abspath(directory)
        self.durable = durable
        self.staged: list[Staged] = []
        self._closed = False
        tag = hashlib.blake2b(self.root.encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()
        prefix = f"qosc-{os.getuid()}-{tag}-"
        for base in dict.fromkeys([journal_dir or tempfile.gettempdir(), tempfile.gettempdir()]):
            try:
                os.makedirs(base, exist_ok=True)
                for name in os.listdir(base):  # what a killed transaction on this directory left behind
                    if name.startswith(prefix) and name.endswith(".journal") and not _alive(name[len(prefix):-8]):
                        _undo(Journal.read(os.path.join(base, name)))
                        _quiet(os.unlink, os.path.join(base, name))
                self.journal = Journal(os.path.join(base, f"{prefix}{os.getpid()}.journal"))
                break
            except OSError:  # an unwritable cache directory: the system's temporary directory will do
                continue
        else:
            raise OSError(f"cannot write a journal in {journal_dir or tempfile.gettempdir()}")

    def add(self, relpath: str, text: str) -> Staged:
        """Stage one file (see `stage`) as part of this transaction."""
        return self.adopt(stage(self.root, relpath, text, self.journal))

    def adopt(self, staged: Staged) -> Staged:
        """Take over a file staged elsewhere (e.g. by a worker process, with this transaction's journal)."""
        if self._closed:
            raise RuntimeError("transaction already finished")
        self.staged.append(staged)
        return staged

    def commit(self) -> list[str]:
        """Make every staged file visible; returns the paths of the files that changed, in staging order."""
        if self._closed:
            raise RuntimeError("transaction already finished")
        pending = [s for s in self.staged if s.tmp is not None]
        done: list[tuple[str, str | None]] = []  # (final, backup of the old file or None)
        try:
            if self.durable and len(pending) > FSYNC_EACH_UP_TO:
                os.sync()  # one flush for all the staged data, before any rename makes it visible
            elif self.durable:
                for s in pending:
                    _fsync_path(s.tmp)  # type: ignore[arg-type]
            for s in pending:
                backup = None
                if os.path.lexists(s.final):
                    backup = os.path.join(os.path.dirname(s.final),
                                          f".{os.path.basename(s.final)}.{os.getpid()}{BACKUP_SUFFIX}")
                    _quiet(os.unlink, backup)  # left by a run that was killed
                    self.journal.note("T", backup)  # (a kill during the renames leaves the new files, not this)
                    _link(s.final, backup)
                try:
                    _replace(s.tmp, s.final)  # type: ignore[arg-type]
                except BaseException:
                    if backup is not None:
                        _quiet(os.unlink, backup)
                    raise
                done.append((s.final, backup))
        except BaseException:
            for final, backup in reversed(done):  # put the old files back
                if backup is not None:
                    _quiet(os.replace, backup, final)
                else:
                    _quiet(os.unlink, final)
            self.abort()
            raise
        for _, backup in done:
            if backup is not None:
                _quiet(os.unlink, backup)
        self._closed = True
        self.journal.close()
        return [s.final for s in pending]

    def abort(self) -> None:
        """Remove every staged file and every directory created for them (all the journal lists)."""
        _undo([("T", s.tmp) for s in self.staged if s.tmp is not None] + Journal.read(self.journal.path))
        self.staged.clear()
        self._closed = True
        self.journal.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        if not self._closed:
            self.abort()


def _alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def _fsync_path(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _same_content(path: str, data: bytes) -> os.stat_result | None:
    """The file's stat when it holds exactly `data`, else None."""
    try:
        st = os.stat(path)
        if st.st_size != len(data) or not stat.S_ISREG(st.st_mode):
            return None
        with open(path, "rb") as fh:
            return st if fh.read() == data else None
    except OSError:
        return None


def _quiet(func: object, *args: object) -> None:
    with contextlib.suppress(OSError):
        func(*args)  # type: ignore[operator]


def write_atomic(path: Path, text: str) -> bool:
    """Write `text` to `path` atomically; False when it already held exactly that."""
    with Transaction(path.parent) as tx:
        changed = tx.add(path.name, text).tmp is not None
        tx.commit()
    return changed


def emit(outputs: Iterable[Output], directory: Path) -> list[Path]:
    """Write every output under `directory`, all or nothing; returns the files that changed."""
    with Transaction(directory) as tx:
        for out in sorted(outputs, key=lambda o: o.path):
            tx.add(out.path, out.text)
        return [Path(p) for p in tx.commit()]
