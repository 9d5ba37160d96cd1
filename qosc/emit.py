"""Publish generated files all or nothing, for the whole output directory at once.

Everything for one compile goes through a `Transaction` on the output
directory OUT.  Its temporary state lives in a private work directory beside
OUT, `.qosc-work-<euid>` (same filesystem, so renames work): created with mode
0700 and, before every use, checked with lstat (a directory, not a symlink,
owned by the effective user, no group or other bits).  In it a transaction
keeps a journal `<tag>-<pid>.journal` (tag: a hash of OUT's name; created
O_EXCL|O_NOFOLLOW, mode 0600) and its staging tree `<tag>-<pid>.stage`.

Changed files are written into the staging tree (by this process or by worker
processes, see `Transaction.write`); a file whose content is unchanged is not
written.  `commit` then completes the staging tree with hard links to every
other entry of OUT (so unchanged files keep their inode and mtime), flushes
the data, and switches the trees in one step: renameat2(RENAME_EXCHANGE) of
OUT and the staging tree.  OUT stays a real directory at the same path; a
reader sees the old tree or the new one, never a mix.  The old tree, now in
the work directory, is removed, then the journal, then the work directory if
nothing else uses it.  Nothing temporary is ever inside OUT.

Where renameat2 is missing (not Linux, or a filesystem without
RENAME_EXCHANGE), the switch is two renames, OUT to `<tag>-<pid>.old` then the
staging tree to OUT: between them OUT does not exist (a reader sees no
directory, never a mixed one), and a run killed in that window is repaired by
the next (the old tree is put back, then published over).

A compile killed at any step leaves OUT entirely old or entirely new; the next
transaction on OUT removes what a dead one (its pid no longer alive) left in
the work directory.  It refuses, with `UntrustedState` (QOS105), a work
directory, journal or staging tree that fails the checks above, or a journal
that names anything but OUT and its own staging entries: such state is never
replayed, and nothing is touched.

Output paths never leave OUT: a relative path with `..`, or one through a
directory of OUT that is a symbolic link, is refused (OSError, ELOOP).

Filesystem steps go through the module-level names below (`_mkdir`, `_open`,
...) so tests can make any one of them fail, and `_step` lets a test kill the
process (SIGKILL) at the N-th step: QOSC_FAULT_KILL_AT=N.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import hashlib
import itertools
import os
import re
import shutil
import signal
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from qosc.targets.base import Output

_mkdir = os.mkdir
_open = os.open
_write = os.write
_link = os.link
_rename = os.rename

FSYNC_EACH_UP_TO = 32
"""Up to this many staged files are fsync'ed one by one; beyond, one os.sync() is far cheaper."""

WORK_PREFIX = ".qosc-work-"
JOURNAL_HEADER = "qosc-journal 1"
RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_counter = itertools.count()
_steps = itertools.count(1)


class UntrustedState(OSError):
    """Temporary state this user's qosc did not leave as it leaves it (foreign owner, mode, link, content)."""


@dataclass(frozen=True)
class Staged:
    """One output after staging: its file in the staging tree (None when OUT already holds this text)."""

    relpath: str
    final: str
    tmp: str | None
    digest: str
    """sha256 of the content, hex."""


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _step(label: str) -> None:
    """One publication step; QOSC_FAULT_KILL_AT=N kills this process (SIGKILL) at the N-th (fault tests)."""
    at = os.environ.get("QOSC_FAULT_KILL_AT")
    if at and next(_steps) == int(at):
        os.kill(os.getpid(), signal.SIGKILL)


def _load_renameat2() -> object | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        func = libc.renameat2
    except (OSError, AttributeError):
        return None
    func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    func.restype = ctypes.c_int
    return func


_RENAMEAT2 = _load_renameat2()


def _exchange(src_dir_fd: int, src: str, dst: str) -> bool:
    """Swap `src` (in the directory `src_dir_fd`) and the path `dst` in one step; False if the system cannot."""
    if _RENAMEAT2 is None or os.environ.get("QOSC_PUBLISH_TWO_RENAMES"):
        return False
    rc = _RENAMEAT2(src_dir_fd, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), RENAME_EXCHANGE)  # type: ignore[operator]
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), dst)


def _check_private(st: os.stat_result, path: str, kind: str, mode_bits: bool = True) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise UntrustedState(errno.EPERM, f"{kind} {path} is a symbolic link", path)
    want = stat.S_ISDIR if kind.endswith("directory") else stat.S_ISREG
    if not want(st.st_mode):
        raise UntrustedState(errno.EPERM, f"{kind} {path} is not a {'directory' if want is stat.S_ISDIR else 'file'}",
                             path)
    if st.st_uid != os.geteuid():
        raise UntrustedState(errno.EPERM, f"{kind} {path} is owned by uid {st.st_uid}, not {os.geteuid()}", path)
    if mode_bits and st.st_mode & 0o077:
        raise UntrustedState(errno.EPERM, f"{kind} {path} has mode {stat.S_IMODE(st.st_mode):04o}, not private",
                             path)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # an earlier process with this pid: nothing of this one exists yet
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


class Transaction:
    """Stage files for one output directory, then publish the whole new tree in one step (or nothing)."""

    def __init__(self, directory: Path | str, durable: bool = True) -> None:
        self.shown = os.path.abspath(directory)
        self.root = os.path.realpath(directory)
        parent = os.path.dirname(self.root)
        if parent == self.root:
            raise OSError(errno.EINVAL, "the output directory cannot be the root directory", self.root)
        self.durable = durable
        self.staged: list[Staged] = []
        self._closed = False
        self._dirs_ok: set[str] = set()
        self.work = os.path.join(parent, f"{WORK_PREFIX}{os.geteuid()}")
        self.tag = hashlib.blake2b(os.path.basename(self.root).encode("utf-8", "surrogateescape"),
                                   digest_size=8).hexdigest()
        self.name = f"{self.tag}-{os.getpid()}"
        self.work_fd = self._open_work()
        try:
            self._recover()
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

    def _open_work(self) -> int:
        with contextlib.suppress(FileExistsError):
            _mkdir(self.work, 0o700)
        fd = os.open(self.work, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC) \
            if not os.path.islink(self.work) else -1
        try:
            _check_private(os.lstat(self.work) if fd < 0 else os.fstat(fd), self.work, "work directory")
        except BaseException:
            if fd >= 0:
                os.close(fd)
            raise
        return fd

    def _recover(self) -> None:
        """Remove what dead transactions on this output left; refuse (UntrustedState) whatever fails a check."""
        mine = re.compile(rf"{re.escape(self.tag)}-(\d+)\.(journal|stage|old)")
        dead: dict[int, set[str]] = {}
        for name in os.listdir(self.work_fd):
            m = mine.fullmatch(name)
            if m and not _alive(int(m.group(1))):
                dead.setdefault(int(m.group(1)), set()).add(m.group(2))
        for pid, kinds in sorted(dead.items()):
            name = f"{self.tag}-{pid}"
            for kind in sorted(kinds):
                path = os.path.join(self.work, f"{name}.{kind}")
                st = os.lstat(f"{name}.{kind}", dir_fd=self.work_fd)
                _check_private(st, path, "journal" if kind == "journal" else "staging directory",
                               mode_bits=kind == "journal")
            if "journal" in kinds:
                self._check_journal(name)
            if "old" in kinds and not os.path.lexists(self.root):
                if "journal" not in kinds:
                    raise UntrustedState(errno.EPERM, f"{self.work}/{name}.old without its journal", self.work)
                _rename(f"{name}.old", self.root, src_dir_fd=self.work_fd)  # a switch killed halfway: old back
                kinds.discard("old")
            for kind in ("stage", "old"):
                if kind in kinds:
                    shutil.rmtree(f"{name}.{kind}", dir_fd=self.work_fd)
            if "journal" in kinds:
                os.unlink(f"{name}.journal", dir_fd=self.work_fd)

    def _check_journal(self, name: str) -> None:
        path = os.path.join(self.work, f"{name}.journal")
        fd = os.open(f"{name}.journal", os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.work_fd)
        try:
            _check_private(os.fstat(fd), path, "journal")
            data = os.read(fd, 1 << 16)
        finally:
            os.close(fd)
        lines = data.decode("utf-8", "surrogateescape").splitlines()
        want = [JOURNAL_HEADER, f"root {self.root}", f"stage {name}.stage"]
        if lines[:3] != want or any(line not in ("switch", "switched") for line in lines[3:]):
            raise UntrustedState(errno.EPERM, f"journal {path} names something other than {self.root} and its "
                                 "own staging tree", path)

    def _note(self, text: str) -> None:
        os.write(self._journal_fd, text.encode("utf-8", "surrogateescape"))

    # --- staging ---------------------------------------------------------------------------------------

    def _relpath(self, relpath: str) -> str:
        rel = os.path.normpath(relpath)
        if os.path.isabs(rel) or rel in (".", "..") or rel.startswith(".." + os.sep):
            raise ValueError(f"output path {relpath!r} escapes the output directory")
        return rel

    def _check_dirs(self, rel: str) -> None:
        """Refuse a path through a directory of OUT that is a symbolic link (or not a directory)."""
        parts = rel.split(os.sep)[:-1]
        for i in range(1, len(parts) + 1):
            sub = os.sep.join(parts[:i])
            if sub in self._dirs_ok:
                continue
            try:
                st = os.lstat(os.path.join(self.root, sub))
            except FileNotFoundError:
                break
            if stat.S_ISLNK(st.st_mode):
                raise OSError(errno.ELOOP, f"{os.path.join(self.shown, sub)} is a symbolic link; qosc writes no "
                              "output through links (replace it with a directory, or compile into the directory "
                              "it points to)", os.path.join(self.shown, sub))
            if not stat.S_ISDIR(st.st_mode):
                raise OSError(errno.ENOTDIR, f"{os.path.join(self.shown, sub)} is not a directory",
                              os.path.join(self.shown, sub))
            self._dirs_ok.add(sub)

    def write(self, relpath: str, text: str) -> Staged:
        """Stage one output (or nothing, when OUT holds it already); safe in forked worker processes.

        The caller publishes or discards the result through `adopt` and `commit`.
        """
        rel = self._relpath(relpath)
        self._check_dirs(rel)
        final = os.path.join(self.shown, rel)
        data = text.encode("utf-8")
        sha = digest(data)
        if _same_content(os.path.join(self.root, rel), data):
            return Staged(rel, final, None, sha)
        staged = os.path.join(self.stage_root, rel)
        directory = os.path.dirname(staged)
        _ensure_dir(directory)
        mode = 0o755 if text.startswith("#!") else 0o644
        fd = -1
        tmp = ""
        try:
            for _ in range(100):  # a name left by an earlier process that had this pid: take the next one
                tmp = os.path.join(directory, f".{os.path.basename(staged)}.qosc-{os.getpid()}-{next(_counter)}.tmp")
                try:
                    fd = _open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
                    break
                except FileExistsError:
                    continue
            else:
                raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)
            view = memoryview(data)
            while view:
                view = view[_write(fd, view):]
            os.close(fd)
            fd = -1
            _step("staged")
            _rename(tmp, staged)  # within the staging tree: a second policy's file of this name replaces it
        except BaseException:
            if fd >= 0:
                os.close(fd)
            _quiet(os.unlink, tmp)
            raise
        return Staged(rel, final, staged, sha)

    def add(self, relpath: str, text: str) -> Staged:
        """Stage one file (see `write`) as part of this transaction."""
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
            exists = os.path.isdir(self.root)
            if exists:
                _complete(self.root, self.stage_root)
                st = os.stat(self.root)
                os.chmod(self.stage_root, stat.S_IMODE(st.st_mode))
                if os.geteuid() == 0 and (st.st_uid, st.st_gid) != (0, 0):
                    _quiet(os.chown, self.stage_root, st.st_uid, st.st_gid)
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(self.stage_root, 0o777 & ~umask)
            if self.durable and len(pending) > FSYNC_EACH_UP_TO:
                os.sync()  # one flush for all the staged data, before the switch makes it visible
            elif self.durable:
                for s in pending:
                    _fsync_path(s.tmp)  # type: ignore[arg-type]
            self._note("switch\n")
            _step("switch")
            if not exists:
                _rename(stage_name, self.root, src_dir_fd=self.work_fd)
            elif not _exchange(self.work_fd, stage_name, self.root):
                old = f"{self.name}.old"
                _rename(self.root, old, dst_dir_fd=self.work_fd)
                _step("switch-window")
                try:
                    _rename(stage_name, self.root, src_dir_fd=self.work_fd)
                except BaseException:
                    _rename(old, self.root, src_dir_fd=self.work_fd)
                    raise
                _rename(old, stage_name, src_dir_fd=self.work_fd, dst_dir_fd=self.work_fd)
            self._note("switched\n")
            _step("switched")
        except BaseException:
            self.abort()
            raise
        if self.durable:
            _quiet(_fsync_path, os.path.dirname(self.root))
        self._closed = True
        self._cleanup()
        return [s.final for s in pending]

    def abort(self) -> None:
        """Forget every staged file: the staging tree, the journal (and the work directory if unused) go."""
        self.staged.clear()
        self._closed = True
        self._cleanup()

    def _cleanup(self) -> None:
        fd = getattr(self, "work_fd", -1)
        if fd < 0:
            return
        _step("cleanup")
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(f"{self.name}.stage", dir_fd=fd)
        if getattr(self, "_journal_fd", -1) >= 0:
            os.close(self._journal_fd)
            self._journal_fd = -1
            _step("cleaned")
            _quiet(os.unlink, f"{self.name}.journal", dir_fd=fd)
        os.close(fd)
        self.work_fd = -1
        _quiet(os.rmdir, self.work)  # other transactions may still use it

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        if not self._closed:
            self.abort()


def _complete(old: str, new: str) -> None:
    """Hard-link into the staging tree `new` every entry of `old` it does not have (copy where links fail)."""
    with os.scandir(old) as entries:
        for entry in entries:
            target = os.path.join(new, entry.name)
            if entry.is_dir(follow_symlinks=False):
                if not os.path.lexists(target):
                    _mkdir(target)
                elif not os.path.isdir(target) or os.path.islink(target):
                    continue  # the new tree has a file there
                _complete(entry.path, target)
                os.chmod(target, stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode))
            elif not os.path.lexists(target):
                try:
                    _link(entry.path, target, follow_symlinks=False)
                except OSError as exc:
                    if exc.errno not in (errno.EPERM, errno.EXDEV, errno.EMLINK):
                        raise
                    shutil.copy2(entry.path, target, follow_symlinks=False)
                _step("link")


def _ensure_dir(directory: str) -> None:
    """Create `directory` and its missing parents (another worker may be creating them too)."""
    missing = []
    while not os.path.isdir(directory):
        missing.append(directory)
        directory = os.path.dirname(directory)
    for d in reversed(missing):
        with contextlib.suppress(FileExistsError):
            _mkdir(d)


def _fsync_path(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _same_content(path: str, data: bytes) -> bool:
    """Whether `path` is a regular file (not a link) holding exactly `data`."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if st.st_size != len(data) or not stat.S_ISREG(st.st_mode):
            return False
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read() == data
    except OSError:
        return False
    finally:
        os.close(fd)


def file_digest(path: str) -> str | None:
    """sha256 of a regular file (not followed through a link), None when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)


def _quiet(func: object, *args: object, **kwargs: object) -> None:
    with contextlib.suppress(OSError):
        func(*args, **kwargs)  # type: ignore[operator]


def write_atomic(path: Path, text: str) -> bool:
    """Write one file atomically (a temporary file beside it, renamed over it); False when it held that already.

    For a single file, not an output tree: only `path` changes, with no staging tree.
    """
    data = text.encode("utf-8")
    if _same_content(str(path), data):
        return False
    tmp = path.with_name(f".{path.name}.qosc-{os.getpid()}-{next(_counter)}.tmp")
    fd = _open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[_write(fd, view):]
        os.fsync(fd)
        os.close(fd)
        fd = -1
        _rename(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        _quiet(os.unlink, tmp)
        raise
    return True


def emit(outputs: Iterable[Output], directory: Path) -> list[Path]:
    """Write every output under `directory`, all or nothing; returns the files that changed."""
    with Transaction(directory) as tx:
        for out in sorted(outputs, key=lambda o: o.path):
            tx.add(out.path, out.text)
        return [Path(p) for p in tx.commit()]
