"""Paths of an output directory: which relative paths an output may have, and where one switch publishes them.

Separate from qosc.emit (the transaction, whose every filesystem step the
fault tests can fail) because this part only looks: it checks that an
output path stays inside OUT and reaches it through directories, not links;
it finds the directory whose switch publishes a set of changed files; and it
holds OUT open so the switch can tell whether OUT is still the same
directory.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass


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


def relative(relpath: str) -> str:
    """The normalised output path; ValueError when it would leave the output directory."""
    rel = os.path.normpath(relpath)
    if os.path.isabs(rel) or rel in (".", "..") or rel.startswith(".." + os.sep):
        raise ValueError(f"output path {relpath!r} escapes the output directory")
    return rel


def check_dirs(root: str, shown: str, rel: str, known: set[str]) -> None:
    """Refuse a path through a directory of OUT that is a symbolic link (or not a directory); `known`: the
    directories found fine already."""
    parent = os.path.dirname(rel)
    if not parent or parent in known:
        return
    parts = parent.split(os.sep)
    for i in range(1, len(parts) + 1):
        sub = os.sep.join(parts[:i])
        if sub in known:
            continue
        try:
            st = os.lstat(os.path.join(root, sub))
        except FileNotFoundError:
            break
        if stat.S_ISLNK(st.st_mode):
            raise OSError(errno.ELOOP, f"{os.path.join(shown, sub)} is a symbolic link; qosc writes no output through "
                          "links (replace it with a directory, or compile into the directory it points to)",
                          os.path.join(shown, sub))
        if not stat.S_ISDIR(st.st_mode):
            raise OSError(errno.ENOTDIR, f"{os.path.join(shown, sub)} is not a directory", os.path.join(shown, sub))
        known.add(sub)
    known.add(parent)  # (fine, or not there yet: OUT does not change while the compile holds its lock)


def switch_point(root: str, shown: str, changed: list[str]) -> tuple[str, bool]:
    """Where one switch publishes every changed file: (directory relative to OUT, '' for OUT; whether OUT has it).

    The deepest directory holding every changed file, to be exchanged with its new version; or, where that
    directory is new, its outermost new ancestor, to be renamed into place.  So a change to one device costs
    the directory its files are in, not the whole of OUT.  One changed file in a directory OUT has is its
    own switch point: renamed over the old one (or into place), in one step.
    """
    if len(changed) == 1 and _replaceable(root, changed[0]):
        return changed[0], True
    common: list[str] | None = None
    for rel in changed:
        parts = rel.split(os.sep)[:-1]
        if common is None:
            common = parts
            continue
        n = 0
        while n < min(len(common), len(parts)) and common[n] == parts[n]:
            n += 1
        common = common[:n]
    found: list[str] = []
    for part in common or ():
        found.append(part)
        try:
            st = os.lstat(os.path.join(root, *found))
        except FileNotFoundError:
            return os.sep.join(found), False
        if not stat.S_ISDIR(st.st_mode):  # (refused when it was staged, see check_dirs)
            raise OSError(errno.ENOTDIR, f"{os.path.join(shown, *found)} is not a directory")
    return os.sep.join(found), True


def _replaceable(root: str, rel: str) -> bool:
    """Whether OUT has the folder of `rel`, and at `rel` a regular file or nothing."""
    try:
        if not stat.S_ISDIR(os.lstat(os.path.join(root, os.path.dirname(rel))).st_mode):
            return False
        return stat.S_ISREG(os.lstat(os.path.join(root, rel)).st_mode)
    except FileNotFoundError:
        return os.path.isdir(os.path.join(root, os.path.dirname(rel))) and \
            not os.path.islink(os.path.join(root, os.path.dirname(rel)))
    except OSError:
        return False


def hold(root: str, shown: str) -> int:
    """A descriptor of OUT as it is now (-1 if it does not exist): while it is open, OUT's inode is not reused,
    so the switch can tell whether OUT is still this directory (see Transaction._same_root)."""
    try:
        return os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return -1
    except NotADirectoryError:
        raise OSError(errno.ENOTDIR, f"{shown} is not a directory", shown) from None
