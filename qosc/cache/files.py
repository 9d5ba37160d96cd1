"""The identity of an output file as the last compile left it, and which files are no longer as written.

Separate because it is the one part that looks at the output directory: one
lstat per file, and a hash only of a file whose ctime alone moved.  A file's
record in the store (qosc.cache.store) is `ino<tab>size<tab>mtime<tab>ctime
<tab>sha256<tab>owner` (the owner, the unit that wrote it, in JSON).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterable
from typing import Any


def identity(path: str) -> str | None:
    """What says a file is the one qosc wrote: inode, size, mtime and ctime (an edit, even one that restores
    size and mtime, changes the ctime), tab-separated; None when it is not a regular file.  The store keeps
    the sha256 of the content beside it: a file whose ctime alone moved (a link to it was made or removed:
    the publish links unchanged files into the switched folder and removes the old one) is intact if its
    content is."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return f"{st.st_ino}\t{st.st_size}\t{st.st_mtime_ns}\t{st.st_ctime_ns}" if stat.S_ISREG(st.st_mode) else None


def record(path: str, digest: str, owner: str) -> str | None:
    """A file's record as it is now (None when it is not a regular file)."""
    found = identity(path)
    return None if found is None else f"{found}\t{digest}\t{json.dumps(owner, ensure_ascii=False)}"


def digest_of(payload: str) -> str:
    return payload.split("\t", 5)[4]


def owner_of(payload: str) -> str:
    return str(json.loads(payload.split("\t", 5)[5]))


def stale(outdir: str, files: dict[str, str], names: Iterable[str] | None = None) -> tuple[set[str], set[str]]:
    """(the recorded files missing or not as written, those whose ctime alone moved with their content intact);
    `names`: only these of the recorded files."""
    join = os.path.join
    gone, moved = set(), set()
    for rel in files if names is None else names:
        payload = files[rel]
        now = identity(join(outdir, rel))
        if now is not None and payload.startswith(now) and payload[len(now)] == "\t":
            continue
        ino, size, mtime, _, sha, _ = payload.split("\t", 5)
        if now is not None and now.rsplit("\t", 1)[0] == f"{ino}\t{size}\t{mtime}" and \
                file_digest(join(outdir, rel)) == sha:
            moved.add(rel)
        else:
            gone.add(rel)
    return gone, moved


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


def check(outdir: str, files: dict[str, str], background: bool) -> Any:
    """`stale(outdir, files)` started now, its `result()` waited for when needed: in forked children when
    `background` and the files are many (two, each with half of the files, so that the check takes one CPU's
    time on either side of the compile), else in this process when asked."""
    from qosc.parallel import Background

    if not background or len(files) <= 4096:
        return Background(lambda: stale(outdir, files), False)
    names = list(files)
    return _Joined([Background(lambda part=part: stale(outdir, files, part))  # type: ignore[misc]
                    for part in (names[:len(names) // 2], names[len(names) // 2:])])


class _Joined:
    """The file checks of several Background children as one: (files not intact, files whose ctime alone moved)."""

    def __init__(self, parts: list[Any]) -> None:
        self.parts = parts
        self.value: tuple[set[str], set[str]] | None = None

    def result(self) -> tuple[set[str], set[str]]:
        if self.value is None:
            found = [p.result() for p in self.parts]
            self.value = (set().union(*(f[0] for f in found)), set().union(*(f[1] for f in found)))
        return self.value
