"""The private work directory beside an output directory, and what dead transactions left in it.

`.qosc-work-<euid>` holds the temporary state of qosc.emit's transactions on
the directories beside it: per transaction a journal `<tag>-<pid>.journal`
(tag: a hash of the output directory's name; it names the output directory,
the staging tree and, when the switch is of a directory inside the output,
that directory) and a staging tree
`<tag>-<pid>.stage` (and, during the two-rename fallback, `<tag>-<pid>.old`; an old tree being
removed in the background, `<tag>-<pid of the remover>.trash`).
Separate from emit because it is the part that decides what to trust: the
work directory must be a directory (not a symbolic link) owned by the
effective user with no group or other bits, and it is used through an
O_NOFOLLOW descriptor; a journal must be a regular file of that user, mode
0600, naming exactly its output directory and its own staging tree; a
staging tree must be a directory of that user.  State of a dead transaction
(its pid no longer alive) that passes every check is removed (a switch killed
between the two fallback renames gets the old tree put back first); state
that fails any check raises UntrustedState, before anything is touched.
Anything but such a directory under the work directory's name (a link, a
file, a fifo) is UntrustedState too, naming it.

Beside them, `<tag>.lock` is the lock of one output directory (`enter`,
`leave`): held with flock from before a transaction looks at its output until
its switch is done, removed by its holder before it lets go (with the work
directory, when nothing else uses it); a killed holder's lock is released by
the kernel and its file reused.  `make_parents` creates an output
directory's missing parents.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import os
import re
import shutil
import stat
from collections.abc import Callable

WORK_PREFIX = ".qosc-work-"
JOURNAL_HEADER = "qosc-journal 1"
RENAME_EXCHANGE = 2
_AT_FDCWD = -100


class UntrustedState(OSError):
    """Temporary state this user's qosc did not leave as it leaves it (foreign owner, mode, link, content)."""


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


def exchange(src_dir_fd: int, src: str, dst: str) -> bool:
    """Swap `src` (in the directory `src_dir_fd`) and the path `dst` in one step; False if the system cannot.

    QOSC_PUBLISH_TWO_RENAMES=1 makes it answer False (to exercise the fallback).
    """
    if _RENAMEAT2 is None or os.environ.get("QOSC_PUBLISH_TWO_RENAMES"):
        return False
    rc = _RENAMEAT2(src_dir_fd, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), RENAME_EXCHANGE)  # type: ignore[operator]
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), dst)


def check_private(st: os.stat_result, path: str, kind: str, mode_bits: bool = True) -> None:
    """Raise UntrustedState unless `st` is a `kind` (a '... directory' or a file) of this user, private."""
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


def open_work(work: str) -> int:
    """An O_NOFOLLOW descriptor of the work directory (created 0700 if missing), after its checks.

    Anything else found under its name (a symbolic link, a regular file, a fifo, a socket, a device) is
    UntrustedState naming it, like a work directory of another user or with a loose mode.
    """
    with contextlib.suppress(FileExistsError):
        os.mkdir(work, 0o700)
    try:  # (O_DIRECTORY: a fifo is refused without blocking)
        fd = os.open(work, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno in (errno.ENOTDIR, errno.ELOOP):
            check_private(os.lstat(work), work, "work directory")  # raises, naming what is there
        raise
    try:
        check_private(os.fstat(fd), work, "work directory")
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_parents(directory: str) -> list[str]:
    """Create `directory` and its missing parents, as `mkdir -p` does; returns those created, outermost first.

    Existing directories are taken as they are (through symbolic links, as mkdir -p does).  Each one
    created is made mode 0775 less the umask, never writable by others, and checked as it is made through
    a descriptor of its parent: a directory, not a link, owned by this user and not writable by others;
    otherwise (another user's directory or link planted between two mkdirs) OSError naming it, and the
    ones made are removed again.
    """
    missing = []
    top = directory
    while not os.path.lexists(top):
        missing.append(os.path.basename(top))
        top = os.path.dirname(top)
    if not missing:
        return []
    made: list[str] = []
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # ENOTDIR when `top` is not a directory
    try:
        for name in reversed(missing):
            path = os.path.join(top, name)
            try:
                os.mkdir(name, 0o775, dir_fd=fd)
                made.append(path)
            except FileExistsError:
                pass  # made meanwhile (by another compile): checked as if ours
            try:
                sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK,
                              dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    what = "a symbolic link" if stat.S_ISLNK(os.lstat(name, dir_fd=fd).st_mode) else "not a directory"
                    raise OSError(errno.EPERM, f"{path}, which qosc was making, is {what}", path) from None
                raise
            os.close(fd)
            fd = sub
            st = os.fstat(fd)
            if st.st_uid != os.geteuid() or st.st_mode & stat.S_IWOTH:
                raise OSError(errno.EPERM, f"{path}, which qosc was making, is owned by uid {st.st_uid} with mode "
                              f"{stat.S_IMODE(st.st_mode):04o}: qosc writes no output under a directory another "
                              "user can change", path)
            top = path
    except BaseException:
        remove_made(made)
        raise
    finally:
        os.close(fd)
    return made


def remove_made(made: list[str]) -> None:
    """Remove again the directories `make_parents` created, innermost first, where they are still empty."""
    for path in reversed(made):
        with contextlib.suppress(OSError):
            os.rmdir(path)


LOCK_SUFFIX = ".lock"


def enter(parent: str, work: str, tag: str, waiting: Callable[[], None] | None = None) -> tuple[int, int, list[str]]:
    """Make `parent` (mkdir -p), open the work directory in it and take the lock of one output directory.

    Returns (work directory descriptor, lock descriptor, the parents created).  The lock is `<tag>.lock` in
    the work directory, a private file held with flock(LOCK_EX) until its descriptor is closed (a killed
    process releases it): one transaction at a time per output directory and user, from before it judges
    what the output holds until its switch is done.  `waiting` is called once if another process holds it.
    Its holder removes the lock file (and the work directory, and the parents it made, when unused) before
    it lets go, so a waiter that wakes up to a lock file no longer in place starts again.
    """
    made: list[str] = []
    for _ in range(1000):
        work_fd = lock_fd = -1
        try:
            made += make_parents(parent)
            try:
                work_fd = open_work(work)
                lock_fd = os.open(f"{tag}{LOCK_SUFFIX}", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
                                  | os.O_NONBLOCK, 0o600, dir_fd=work_fd)
            except FileNotFoundError:  # the work directory, or a parent, was removed by its last user meanwhile
                continue
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.EISDIR):
                    check_private(os.lstat(f"{tag}{LOCK_SUFFIX}", dir_fd=work_fd),
                                  os.path.join(work, f"{tag}{LOCK_SUFFIX}"), "lock file")
                raise
            check_private(os.fstat(lock_fd), os.path.join(work, f"{tag}{LOCK_SUFFIX}"), "lock file")
            try:
                fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if waiting is not None:
                    waiting()
                    waiting = None
                fcntl.flock(lock_fd, fcntl.LOCK_EX)
            if _still_there(lock_fd, work_fd, f"{tag}{LOCK_SUFFIX}"):
                held, work_fd, lock_fd = (work_fd, lock_fd), -1, -1
                return held[0], held[1], made
        except BaseException:
            remove_made(made)
            raise
        finally:
            for fd in (lock_fd, work_fd):
                if fd >= 0:
                    os.close(fd)
    raise OSError(errno.EAGAIN, "the work directory keeps disappearing", work)


def _still_there(fd: int, dir_fd: int, name: str) -> bool:
    """Whether `name` in `dir_fd` is still the file open as `fd` (its holder may have removed it meanwhile)."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino)


def leave(work_fd: int, lock_fd: int, work: str, tag: str) -> None:
    """Let go of what `enter` took: the lock file goes (while still held), then the work directory if unused."""
    with contextlib.suppress(OSError):
        os.unlink(f"{tag}{LOCK_SUFFIX}", dir_fd=work_fd)
    with contextlib.suppress(OSError):
        os.rmdir(work)  # other transactions may still use it
    os.close(lock_fd)
    os.close(work_fd)


def recover(work_fd: int, work: str, tag: str, root: str) -> None:
    """Remove what dead transactions on `root` left; refuse (UntrustedState) whatever fails a check."""
    mine = re.compile(rf"{re.escape(tag)}-(\d+)\.(journal|stage|old|trash)")
    dead: dict[int, set[str]] = {}
    for name in os.listdir(work_fd):
        m = mine.fullmatch(name)
        if m and not _alive(int(m.group(1))):
            dead.setdefault(int(m.group(1)), set()).add(m.group(2))
    for pid, kinds in sorted(dead.items()):
        name = f"{tag}-{pid}"
        for kind in sorted(kinds):
            st = os.lstat(f"{name}.{kind}", dir_fd=work_fd)
            check_private(st, os.path.join(work, f"{name}.{kind}"),
                          "journal" if kind == "journal" else "staging directory", mode_bits=kind == "journal")
        switched = root
        if "journal" in kinds:
            sub = _check_journal(work_fd, work, name, root)
            switched = os.path.join(root, sub) if sub else root
        if "old" in kinds and not os.path.lexists(switched):
            if "journal" not in kinds:
                raise UntrustedState(errno.EPERM, f"{work}/{name}.old without its journal", work)
            os.rename(f"{name}.old", switched, src_dir_fd=work_fd)  # a switch killed halfway: the old tree back
            kinds.discard("old")
        for kind in ("stage", "old", "trash"):
            if kind in kinds:
                shutil.rmtree(f"{name}.{kind}", dir_fd=work_fd)
        if "journal" in kinds:
            os.unlink(f"{name}.journal", dir_fd=work_fd)


def _check_journal(work_fd: int, work: str, name: str, root: str) -> str:
    """Raise UntrustedState unless the journal is this user's, names `root` and its own staging tree, and at most
    a directory inside `root` (`sub`, relative, no '..'); returns that directory ('' for `root` itself)."""
    path = os.path.join(work, f"{name}.journal")
    fd = os.open(f"{name}.journal", os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=work_fd)
    try:
        check_private(os.fstat(fd), path, "journal")
        data = os.read(fd, 1 << 16)
    finally:
        os.close(fd)
    lines = data.decode("utf-8", "surrogateescape").splitlines()
    want = [JOURNAL_HEADER, f"root {root}", f"stage {name}.stage"]
    rest = lines[3:]
    sub = rest.pop(0)[4:] if rest and rest[0].startswith("sub ") else ""
    inside = not sub or (not os.path.isabs(sub) and os.path.normpath(sub) == sub and ".." not in sub.split(os.sep))
    if lines[:3] != want or not inside or any(line not in ("switch", "switched") for line in rest):
        raise UntrustedState(errno.EPERM, f"journal {path} names something other than {root} and its own staging "
                             "tree", path)
    return sub


def remove_later(work_fd: int, name: str, tag: str) -> None:
    """Remove the entry `name` of the work directory in a detached process (an old tree: it only costs time).

    The remover (a grandchild, so nobody has to reap it, with stdin, stdout and stderr on /dev/null so no
    caller waits for its output) first renames the entry `<tag>-<its pid>.trash`: while it lives, no other
    transaction takes it for a dead one's, and if it dies, the next transaction removes the rest.
    """
    child = os.fork()
    if child:
        os.waitpid(child, 0)
        return
    try:  # (whatever fails here, the next transaction removes what is left)
        if os.fork() == 0:
            os.setsid()
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.closerange(3, work_fd)
            os.closerange(work_fd + 1, 1 << 16)
            trash = f"{tag}-{os.getpid()}.trash"
            os.rename(name, trash, src_dir_fd=work_fd, dst_dir_fd=work_fd)
            shutil.rmtree(trash, dir_fd=work_fd)
            with contextlib.suppress(OSError):
                os.rmdir(os.readlink(f"/proc/self/fd/{work_fd}"))  # as the transaction would have
    finally:
        os._exit(0)
