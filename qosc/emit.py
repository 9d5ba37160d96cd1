"""Publish generated files all or nothing, for the whole output directory at once.

Everything for one compile goes through a `Transaction` on the output
directory OUT.  Its temporary state lives in a private work directory beside
OUT, `.qosc-work-<euid>` (same filesystem, so renames work; see qosc.workdir
for its checks and for what a dead transaction's state becomes): a journal
and a staging tree.

One transaction at a time per output directory (and user): the transaction
takes OUT's lock (qosc.workdir.enter, a flock on `<tag>.lock` in the work
directory) when it starts and holds it until its switch is done, so what it
judges unchanged is what OUT still holds when it switches; a compile takes
it before it looks at OUT at all.  It also keeps OUT open, and refuses to
switch (nothing published) when OUT is no longer that directory: a writer
that does not take the lock replaced or removed it meanwhile.  Missing
parents of OUT are created (mkdir -p, checked; see qosc.workdir.make_parents)
and removed again when nothing is published.

Changed files are written into the staging tree (by this process or by worker
processes, see `Transaction.write`); a file whose content is unchanged is not
written, and a file whose bytes this process staged already (a batch of one
profile on many devices) is one more hard link of that file.  `commit` then
finds the one directory whose switch publishes every change
(qosc.outpaths.switch_point: the deepest directory holding every changed file,
OUT itself when the changes are spread over it), completes its staged version
with hard links to every other entry it has (so unchanged files keep their
inode and mtime), flushes the data, and switches the two in one step:
renameat2(RENAME_EXCHANGE).  The directory stays a real directory at the same
path; a reader sees the old tree or the new one, never a mix, because every
change is inside what is switched.  A directory that is new altogether is
renamed into place in one step instead, and so is one changed file:
rename(2) puts it over its old version.  A publish costs what is switched,
not OUT: one changed device costs its file, its own directory (a Linux
device) or the folder of its target.  The old version is removed, then the
journal, then the work directory if nothing else uses it.  Nothing temporary
is ever inside OUT, and nothing is published when nothing changed.

Where renameat2 is missing (not Linux, or a filesystem without
RENAME_EXCHANGE), a directory switch is two renames, the switched directory to
`<tag>-<pid>.old` then its staged version into place: between them it does not exist (a reader sees no
directory, never a mixed one), and a run killed in that window is repaired by
the next (the old tree is put back, then published over).

Output paths never leave OUT: a relative path with `..`, or one through a
directory of OUT that is a symbolic link, is refused (OSError, ELOOP).

Filesystem steps go through the module-level names below (`_mkdir`, ...) so tests can make any one
fail; `_step` kills the process (SIGKILL) at the N-th step when QOSC_FAULT_KILL_AT=N.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import itertools
import os
import shutil
import signal
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Self

from qosc import outpaths, workdir
from qosc.atomicfile import fsync_path, same_content
from qosc.outpaths import Staged, digest
from qosc.targets.base import Output
from qosc.workdir import JOURNAL_HEADER, WORK_PREFIX, UntrustedState

__all__ = ["JOURNAL_HEADER", "WORK_PREFIX", "Staged", "Transaction", "UntrustedState", "emit"]

_mkdir = os.mkdir
_open = os.open
_write = os.write
_link = os.link
_rename = os.rename
_exchange = workdir.exchange

FSYNC_EACH_UP_TO = 32
"""Up to this many staged files are fsync'ed one by one; beyond, one os.sync() is far cheaper."""
REMOVE_LATER_FROM = 64
"""An old tree with this many directories or more is removed by a detached process (rmdir is slow)."""
REMOVE_LATER_FILES = 2048
"""... or with this many files."""

TWIN_MAX = 1 << 20
"""Files up to this size whose bytes were staged already (in this process) are hard links of that file."""

_counter = itertools.count()
_TWINS: dict[tuple[str, str], str] = {}
"""(transaction, sha256) -> the file staged with those bytes, in this process."""
_TWIN_AT: dict[str, tuple[str, str]] = {}
"""The other way round: staged file -> its key in _TWINS."""
_steps = itertools.count(1)


def _step(label: str) -> None:
    """One publication step; QOSC_FAULT_KILL_AT=N kills this process (SIGKILL) at the N-th (fault tests)."""
    at = os.environ.get("QOSC_FAULT_KILL_AT")
    if at and next(_steps) == int(at):
        os.kill(os.getpid(), signal.SIGKILL)


class Transaction:
    """Stage files for one output directory, then publish the whole new tree in one step (or nothing)."""

    def __init__(self, directory: Path | str, durable: bool = True, waiting: Callable[[], None] | None = None) -> None:
        """Take OUT's lock (`waiting` is called if another transaction on it holds it), creating its missing
        parents (removed again unless something is published), and clear what dead transactions left."""
        self.shown = os.path.abspath(directory)
        self.root = os.path.realpath(directory)
        parent = os.path.dirname(self.root)
        if parent == self.root:
            raise OSError(errno.EINVAL, "the output directory cannot be the root directory", self.root)
        self.durable = durable
        self.staged: list[Staged] = []
        self._closed = False
        self._published = False
        self._background = False
        self._dirs_ok: set[str] = set()
        self.touched: list[str] = []
        """After a commit: the files (relative to OUT) whose inode changed: staged, or linked into the switched
        directory (a link changes its inode's ctime)."""
        self._sub = ""
        self._root_fd = -1
        self.work = os.path.join(parent, f"{WORK_PREFIX}{os.geteuid()}")
        self.tag = hashlib.blake2b(os.path.basename(self.root).encode("utf-8", "surrogateescape"),
                                   digest_size=8).hexdigest()
        self.name = f"{self.tag}-{os.getpid()}"
        self.work_fd, self._lock_fd, self._made = workdir.enter(parent, self.work, self.tag, waiting)
        try:
            workdir.recover(self.work_fd, self.work, self.tag, self.root)  # (it may put OUT back)
            self._root_fd = outpaths.hold(self.root, self.shown)
            self._journal_fd = _open(f"{self.name}.journal",
                                     os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                                     dir_fd=self.work_fd)
            self._note(f"{JOURNAL_HEADER}\nroot {self.root}\nstage {self.name}.stage\n")
            _step("journal")
            _mkdir(f"{self.name}.stage", 0o700, dir_fd=self.work_fd)
            self.stage_root = os.path.join(self.work, f"{self.name}.stage")
        except BaseException:
            self._cleanup()
            raise

    # --- the work directory and what dead transactions left in it ---------------------------------------

    def _note(self, text: str) -> None:
        os.write(self._journal_fd, text.encode("utf-8", "surrogateescape"))

    # --- staging ---------------------------------------------------------------------------------------

    def write(self, relpath: str, text: str) -> Staged:
        """Stage one output (or nothing, when OUT holds it already); safe in forked workers (see `adopt`)."""
        rel = outpaths.relative(relpath)
        outpaths.check_dirs(self.root, self.shown, rel, self._dirs_ok)
        final = os.path.join(self.shown, rel)
        data = text.encode("utf-8")
        sha = digest(data)
        if self._root_fd >= 0 and same_content(os.path.join(self.root, rel), data):
            return Staged(rel, final, None, sha)
        staged = os.path.join(self.stage_root, rel)
        directory = os.path.dirname(staged)
        _ensure_dir(directory)
        twin = _TWINS.get((self.name, sha))
        gone = _TWIN_AT.pop(staged, None)  # a second policy's file of this name replaces the bytes staged there
        if gone is not None:
            _TWINS.pop(gone, None)
            twin = None if gone == (self.name, sha) else twin
        mode = 0o755 if text.startswith("#!") else 0o644
        fd = -1
        tmp = staged  # first the final name (the staging tree is private); if taken, a temporary one renamed over it
        try:
            for attempt in range(101):  # a name left by an earlier process that had this pid: take the next one
                if attempt:
                    tmp = os.path.join(directory,
                                       f".{os.path.basename(staged)}.qosc-{os.getpid()}-{next(_counter)}.tmp")
                try:
                    if twin is not None:  # the same bytes staged already: one more name for that file
                        _link(twin, tmp)
                    else:
                        fd = _open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
                    break
                except FileExistsError:
                    continue
            else:
                raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)
            if fd >= 0:
                view = memoryview(data)
                while view:
                    view = view[_write(fd, view):]
                os.close(fd)
                fd = -1
            _step("staged")
            if tmp != staged:
                _rename(tmp, staged)  # a second policy's file of this name replaces it
        except BaseException:
            if fd >= 0:
                os.close(fd)
            _quiet(os.unlink, tmp)
            raise
        if twin is None and len(data) <= TWIN_MAX:
            _TWINS[(self.name, sha)] = staged
            _TWIN_AT[staged] = (self.name, sha)
        return Staged(rel, final, staged, sha)

    def add(self, relpath: str, text: str) -> Staged:
        return self.adopt(self.write(relpath, text))

    def adopt(self, staged: Staged) -> Staged:
        """Take over a file staged elsewhere (e.g. by a worker process, with `write`)."""
        if self._closed:
            raise RuntimeError("transaction already finished")
        self.staged.append(staged)
        return staged

    # --- publishing ------------------------------------------------------------------------------------

    def commit(self) -> list[str]:
        """Publish the new tree; returns the paths of the files that changed, in staging order."""
        if self._closed:
            raise RuntimeError("transaction already finished")
        pending = [s for s in self.staged if s.tmp is not None]
        if not pending:  # nothing changed: OUT is not touched at all
            self.abort()
            return []
        stage_name = f"{self.name}.stage"
        try:
            self._same_root()
            sub, exists = outpaths.switch_point(self.root, self.shown, [s.relpath for s in pending]) \
                if self._root_fd >= 0 else ("", False)
            self._sub = sub
            src, dst = os.path.join(stage_name, sub) if sub else stage_name, os.path.join(self.root, sub)
            staged_dir = os.path.join(self.stage_root, sub)
            self.touched = [s.relpath for s in pending]
            single = len(pending) == 1 and sub == pending[0].relpath  # one file: renamed over the old one
            if exists and not single:
                dirs, files = _complete(dst, staged_dir, self.touched, sub)
                self._background = dirs >= REMOVE_LATER_FROM or files >= REMOVE_LATER_FILES
                st = os.stat(dst)
                os.chmod(staged_dir, stat.S_IMODE(st.st_mode))
                if os.geteuid() == 0 and (st.st_uid, st.st_gid) != (0, 0):
                    _quiet(os.chown, staged_dir, st.st_uid, st.st_gid)
            elif not single:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(staged_dir, 0o777 & ~umask)
            if self.durable and len(pending) > FSYNC_EACH_UP_TO:
                os.sync()  # one flush for all the staged data, before the switch makes it visible
            elif self.durable:
                for s in pending:
                    fsync_path(s.tmp)  # type: ignore[arg-type]
            self._same_root()  # (again: completing a large tree takes time)
            self._note(f"sub {sub}\nswitch\n" if sub else "switch\n")
            _step("switch")
            if single or not exists:
                _rename(src, dst, src_dir_fd=self.work_fd)
            elif not _exchange(self.work_fd, src, dst):
                _rename(dst, f"{self.name}.old", dst_dir_fd=self.work_fd)  # (abort puts it back)
                _step("switch-window")
                _rename(src, dst, src_dir_fd=self.work_fd)
            self._note("switched\n")
            _step("switched")
        except OSError as exc:
            self.abort()
            if exc.errno in (errno.EXDEV, errno.EBUSY):
                raise OSError(exc.errno, f"{exc.strerror}: qosc switches the whole output directory, so it cannot "
                              "be a mount point (compile into a directory inside it)", self.shown) from exc
            raise
        except BaseException:
            self.abort()
            raise
        if self.durable:
            _quiet(fsync_path, os.path.dirname(os.path.join(self.root, sub)))
        self._closed = self._published = True
        self._cleanup()
        return [s.final for s in pending]

    def abort(self) -> None:
        """Forget every staged file: the staging tree, the journal (and the work directory if unused) go."""
        self.staged.clear()
        self._closed = True
        self._cleanup()

    def _same_root(self) -> None:
        """Refuse to switch when OUT is no longer the directory held since the lock was taken: a writer that
        does not take this lock (another user's qosc, a hand) replaced or removed it, and what this
        transaction judged unchanged may not be what OUT holds now."""
        try:
            st = os.lstat(self.root)
            now: tuple[int, int] | None = (st.st_dev, st.st_ino)
        except FileNotFoundError:
            now = None
        held = os.fstat(self._root_fd) if self._root_fd >= 0 else None
        if now != (None if held is None else (held.st_dev, held.st_ino)):
            raise OSError(errno.ESTALE, f"{self.shown} was replaced or removed by another process during this "
                          "compile; nothing was published (compile again)", self.shown)

    def _cleanup(self) -> None:
        fd = getattr(self, "work_fd", -1)
        if fd < 0:
            return
        _step("cleanup")
        switched = os.path.join(self.root, self._sub) if self._sub else self.root
        if not os.path.lexists(switched):  # a two-rename switch stopped between its renames: the old tree back
            _quiet(_rename, f"{self.name}.old", switched, src_dir_fd=fd)
        for key in [k for k in _TWINS if k[0] == self.name]:
            _TWIN_AT.pop(_TWINS.pop(key), None)
        _MADE.clear()
        for kind in ("stage", "old"):
            if kind == "stage" and self._background:  # a large tree (old, or new and unused): slow to remove
                workdir.remove_later(fd, f"{self.name}.stage", self.tag)
                continue
            with contextlib.suppress(FileNotFoundError):
                shutil.rmtree(f"{self.name}.{kind}", dir_fd=fd)
        if getattr(self, "_journal_fd", -1) >= 0:
            os.close(self._journal_fd)
            self._journal_fd = -1
            _step("cleaned")
            _quiet(os.unlink, f"{self.name}.journal", dir_fd=fd)
        if self._root_fd >= 0:
            os.close(self._root_fd)
            self._root_fd = -1
        workdir.leave(fd, self._lock_fd, self.work, self.tag)
        self.work_fd = -1
        if not self._published:
            workdir.remove_made(self._made)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        if not self._closed:
            self.abort()


def _complete(old: str, new: str, linked: list[str] | None = None, rel: str = "") -> tuple[int, int]:
    """Hard-link into the staging tree `new` every entry of `old` it does not have (copy where links fail).

    Returns how many directories (itself included) and files `old` has; appends to `linked` the path of
    every file linked (relative to OUT: `rel` is `old`'s)."""
    dirs, files = 1, 0
    with os.scandir(old) as entries:
        for entry in entries:
            target = f"{new}/{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                try:
                    _mkdir(target)
                except FileExistsError:
                    if not os.path.isdir(target) or os.path.islink(target):
                        continue  # the new tree has a file there
                more = _complete(entry.path, target, linked, f"{rel}/{entry.name}" if rel else entry.name)
                dirs, files = dirs + more[0], files + more[1]
                os.chmod(target, stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode))
                continue
            files += 1
            try:
                _link(entry.path, target, follow_symlinks=False)
            except FileExistsError:
                continue  # staged: the new version
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.EXDEV, errno.EMLINK):
                    raise
                shutil.copy2(entry.path, target, follow_symlinks=False)
            if linked is not None:
                linked.append(f"{rel}/{entry.name}" if rel else entry.name)
            _step("link")
    return dirs, files


_MADE: set[str] = set()
"""Staging directories this process knows exist."""


def _ensure_dir(directory: str) -> None:
    """Create `directory` and its missing parents (another worker may be creating them too)."""
    if directory in _MADE:
        return
    missing = []
    top = directory
    while not os.path.isdir(top):
        missing.append(top)
        top = os.path.dirname(top)
    for d in reversed(missing):
        with contextlib.suppress(FileExistsError):
            _mkdir(d)
    _MADE.add(directory)


def _quiet(func: object, *args: object, **kwargs: object) -> None:
    with contextlib.suppress(OSError):
        func(*args, **kwargs)  # type: ignore[operator]


def emit(outputs: Iterable[Output], directory: Path) -> list[Path]:
    """Write every output under `directory`, all or nothing; returns the files that changed."""
    with Transaction(directory) as tx:
        for out in sorted(outputs, key=lambda o: o.path):
            tx.add(out.path, out.text)
        return [Path(p) for p in tx.commit()]
