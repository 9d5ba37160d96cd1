"""The cache directory: where it is, and that it is this user's private directory.

Apart from qosc.cache (the store) because the compile server's client
(qosc.server) finds its socket there before it imports anything heavy.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

__all__ = ["Untrusted", "_private_dir", "default_dir"]


def default_dir() -> Path:
    """$QOSC_CACHE_DIR, else $XDG_CACHE_HOME/qosc, else ~/.cache/qosc."""
    if os.environ.get("QOSC_CACHE_DIR"):
        return Path(os.environ["QOSC_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "qosc"


class Untrusted(Exception):
    """The cache directory or a cache file is not this user's private data (QOS106)."""


def _private_dir(path: Path) -> int:
    """An fd of the cache directory, created 0700 if missing; raises Untrusted unless it is this user's own.

    A directory of this user that nobody else could write (no group or other write bit, e.g. 0755 from an
    older qosc) is tightened to 0700; one that others can write, or that another user owns, is refused.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if os.path.islink(path):
            raise Untrusted(f"{path} is a symbolic link") from None
        raise Untrusted(f"{path}: {exc.strerror or exc}") from None
    st = os.fstat(fd)
    why = None
    if st.st_uid != os.geteuid():
        why = f"{path} is owned by uid {st.st_uid}, not {os.geteuid()}"
    elif st.st_mode & 0o022:
        why = f"{path} is writable by other users (mode {stat.S_IMODE(st.st_mode):04o})"
    elif st.st_mode & 0o077:
        os.fchmod(fd, 0o700)
    if why is not None:
        os.close(fd)
        raise Untrusted(why)
    return fd
