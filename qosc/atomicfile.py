"""One file written atomically, and the file checks the tree publisher (qosc.emit) shares with it.

`write_atomic` writes a single file (a policy from `qosc import`): a
temporary file beside it, flushed, renamed over it; nothing when it already
holds the text.  A whole output tree goes through qosc.emit's Transaction.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
from pathlib import Path

_counter = itertools.count()


def fsync_path(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def same_content(path: str, data: bytes) -> bool:
    """Whether `path` is a regular file (not a link) holding exactly `data` (a fifo is not read: no blocking)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
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


def write_atomic(path: Path, text: str) -> bool:
    """Write one file (not a tree) atomically: a temporary file beside it, renamed over it; False if unchanged."""
    data = text.encode("utf-8")
    if same_content(str(path), data):
        return False
    tmp = path.with_name(f".{path.name}.qosc-{os.getpid()}-{next(_counter)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.rename(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return True
