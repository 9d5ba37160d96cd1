"""The store on disk, and the code fingerprint that every key and every store starts with.

Separate because it is the only part that touches the cache directory and the
only part that looks at qosc itself (sources, templates, platform data,
library versions, environment) rather than at a policy.
"""

from __future__ import annotations

import bisect
import contextlib
import errno
import hashlib
import importlib.metadata
import json
import os
import re
import stat
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import qosc
from qosc.cache.segments import _h
from qosc.cachedir import Untrusted, _private_dir

FORMAT = 5  # 2: entries carry the render notes of their files; 3: JSON with a sha256; 4: files by identity;
# 5: devices by their findings and parts, not their model
KEEP_STORES = 32
"""Stores kept in the cache directory; the least recently used beyond that are deleted (only stores)."""
MAGIC = b"qosc-cache"
SUFFIX = ".qosc-cache.json"
STORE_NAME = re.compile(r"[0-9a-f]{32}" + re.escape(SUFFIX))


def code_fingerprint(roots: tuple[Path, ...] | None = None) -> str:
    """Everything besides the policy that output can depend on: qosc, its data, libraries, environment."""
    files = _files_fingerprint(roots or _code_roots())
    env = sorted((k, v) for k, v in os.environ.items()
                 if (k.startswith("QOSC_") and k != "QOSC_CACHE_DIR") or k == "CI")
    return _h(FORMAT, files, env, os.geteuid(), os.uname().release)


def _code_roots() -> tuple[Path, ...]:
    from qosc.render import templates_dir

    return (Path(qosc.__file__).resolve().parent, templates_dir())


@lru_cache(maxsize=4)
def _files_fingerprint(roots: tuple[Path, ...]) -> str:
    """Every source, template and data file below `roots` (subpackages such as qosc/cache included)."""
    h = hashlib.sha256(f"{qosc.__version__}|{sys.version}".encode())
    for dist in ("Jinja2", "PyYAML", "jsonschema"):
        try:
            h.update(f"|{dist}={importlib.metadata.version(dist)}".encode())
        except importlib.metadata.PackageNotFoundError:
            h.update(f"|{dist}=?".encode())
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".json", ".j2", ".sh"):
                h.update(f"|{path.relative_to(root)}|".encode() + path.read_bytes())
    return h.hexdigest()[:32]


Records = tuple[dict[str, Any], dict[str, str], dict[str, str], dict[str, str]]
"""(meta, devices, entries, files): see `Store`."""

_KEPT: dict[str, tuple[tuple[int, int, int, int] | None, Records]] = {}
"""Store path -> (the identity of the file this process last wrote there, or None while it is still to be
written, and its records): a process that compiles again and again (the compile server, qosc.server) keeps what
it wrote instead of reading it back."""
_PENDING: dict[str, Any] = {}
"""Store path -> the write of it this process has still to do (`flush`)."""
keep_written = False
"""Set by the compile server: remember every store this process writes (`_KEPT`), and write it when idle."""


def flush() -> None:
    """Write the stores this process kept for later (the compile server does when no compile waits, and
    before it exits; one it never writes, killed, leaves the previous store, out of date where files changed:
    the next compile renders those again)."""
    while _PENDING:
        _PENDING.pop(next(iter(_PENDING)))()


def keeping() -> bool:
    """Whether this process compiles again and again (the compile server): what it decodes is worth keeping."""
    return keep_written


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    """What says a file is still the one written (any write changes its ctime, which no one can set back)."""
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _read_store(dir_fd: int, name: str, shown: Path) -> Records | None:
    """The records of a store file this user's qosc wrote (None: missing or damaged); Untrusted if foreign."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Untrusted(f"{shown / name} is a symbolic link") from None
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Untrusted(f"{shown / name} is not a regular file")
        if st.st_uid != os.geteuid() or st.st_mode & 0o077:
            raise Untrusted(f"{shown / name} is owned by uid {st.st_uid} with mode {stat.S_IMODE(st.st_mode):04o}, "
                            f"not uid {os.geteuid()} with 0600")
        kept = _KEPT.get(str(shown / name))
        if kept is not None and kept[0] == _identity(st):
            return kept[1]
        with os.fdopen(fd, "rb", closefd=False) as fh:
            blob = fh.read()
    finally:
        os.close(fd)
    header, _, body = blob.partition(b"\n")
    parts = header.split(b" ")
    if len(parts) != 3 or parts[0] != MAGIC or parts[1] != str(FORMAT).encode() or \
            parts[2] != b"sha256=" + hashlib.sha256(body).hexdigest().encode():
        return None
    try:
        return _parse(body)
    except (ValueError, IndexError, KeyError):
        return None


def _parse(body: bytes) -> Records | None:
    text = body.decode("utf-8", "surrogatepass")
    first, _, rest = text.partition("\n")
    meta = json.loads(first)
    if not isinstance(meta, dict):
        return None
    lines = rest.split("\n") if rest else []
    # save() writes the records of each kind as one block, D then E then F (sorted by their first character)
    at = [bisect.bisect_left(lines, kind, key=lambda line: line[:1]) for kind in "DEF"] + [len(lines)]
    tables: dict[str, dict[str, str]] = {}
    for i, kind in enumerate("DEF"):
        block = lines[at[i]:at[i + 1]]
        pairs = [line[2:].partition("\t") for line in block]
        if not all(line[:2] == f"{kind}\t" for line in block):
            raise ValueError("not a store")
        tables[kind] = {unquote(k): v for k, _, v in pairs} if kind == "F" else {k: v for k, _, v in pairs}
    return meta, tables["D"], tables["E"], tables["F"]


def quote(name: str) -> str:
    """A name as one field of a record line: itself, or JSON when it has a tab, a line break or starts with '"'."""
    return json.dumps(name, ensure_ascii=False) if "\t" in name or "\n" in name or name.startswith('"') else name


def unquote(field: str) -> str:
    return json.loads(field) if field.startswith('"') else field


def _is_store(dir_fd: int, name: str) -> bool:
    """A file of this user whose name and first bytes are those of a store (the only files pruning deletes)."""
    if not STORE_NAME.fullmatch(name):
        return False
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        return stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid() and os.read(fd, len(MAGIC) + 1) == MAGIC + b" "
    finally:
        os.close(fd)


class Store:
    """What one compile of one policy into one output directory left for the next.

    On disk: `<32 hex>.qosc-cache.json` in a private directory (see `_private_dir`), mode 0600, a header line
    `qosc-cache <FORMAT> sha256=<hex of the rest>`, then a JSON object (`meta`: the format, the code
    fingerprint, the policy, the model's shared part), then one line per record: `D<tab>device<tab>...`,
    `E<tab>key<tab>...`, `F<tab>file<tab>...` (`devices`, `entries`, `files`: each record's payload, its
    fields separated by tabs, text in JSON; qosc.cache.policy reads them).  Data only, verified before use; a
    payload is parsed when it is used, and written back as it was read when it did not change, so a store
    of ten thousand devices costs little to read and to write.
    """

    def __init__(self, cache_dir: Path | None, policy: str, outdir: str) -> None:
        ident = _h(os.path.abspath(policy), os.path.abspath(outdir))
        self.dir = cache_dir
        self.name = f"{ident}{SUFFIX}"
        self.path = cache_dir / self.name if cache_dir else None
        self.meta: dict[str, Any] = {}
        self.devices: dict[str, str] = {}
        self.entries: dict[str, str] = {}
        self.files: dict[str, str] = {}
        self.untrusted: str | None = None
        """Why the cache was ignored (QOS106), if it was."""
        if self.path is None or cache_dir is None:
            self.code = ""
            return
        self.code = code_fingerprint()
        try:
            fd = _private_dir(cache_dir)
            try:
                kept = _KEPT.get(str(self.path))
                data = kept[1] if kept is not None and kept[0] is None else _read_store(fd, self.name, cache_dir)
            finally:
                os.close(fd)
        except Untrusted as exc:
            self.untrusted = str(exc)
            self.path = None  # compile without the cache, and leave nothing in that directory
            return
        if data is not None and (data[0].get("format"), data[0].get("code"), data[0].get("policy")) == (
                FORMAT, self.code, policy):
            self.meta, self.devices, self.entries, self.files = data

    def save(self, meta: dict[str, Any], devices: dict[str, str], entries: dict[str, str],
             files: dict[str, str]) -> None:
        if self.path is None or self.dir is None:
            return
        head = json.dumps({**meta, "format": FORMAT, "code": self.code}, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
        if keep_written:  # the next compile of this process takes these; the file is written when idle
            _KEPT[str(self.path)] = (None, (json.loads(head), devices, entries, files))
            _PENDING[str(self.path)] = lambda: self._write(head, devices, entries, files)
            return
        self._write(head, devices, entries, files)

    def _write(self, head: str, devices: dict[str, str], entries: dict[str, str], files: dict[str, str]) -> None:
        assert self.path is not None and self.dir is not None
        lines = [head, *(f"D\t{k}\t{v}" for k, v in devices.items()), *(f"E\t{k}\t{v}" for k, v in entries.items()),
                 *(f"F\t{quote(k)}\t{v}" for k, v in files.items())]
        body = "\n".join(lines).encode("utf-8", "surrogatepass")
        blob = MAGIC + f" {FORMAT} sha256={hashlib.sha256(body).hexdigest()}\n".encode() + body
        tmp = f".{self.name}.{os.getpid()}.tmp"
        fd = -1
        try:
            dir_fd = _private_dir(self.dir)
        except Untrusted:
            return
        try:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=dir_fd)  # left by a killed run of this pid
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                         dir_fd=dir_fd)
            view = memoryview(blob)
            while view:
                view = view[os.write(fd, view):]
            os.close(fd)
            fd = -1
            os.replace(tmp, self.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            if keep_written:
                st = os.stat(self.name, dir_fd=dir_fd, follow_symlinks=False)
                _KEPT[str(self.path)] = (_identity(st), (json.loads(head), devices, entries, files))
            stores = [n for n in os.listdir(dir_fd) if _is_store(dir_fd, n)]
            stores.sort(key=lambda n: os.stat(n, dir_fd=dir_fd, follow_symlinks=False).st_mtime_ns, reverse=True)
            for old in stores[KEEP_STORES:]:
                os.unlink(old, dir_fd=dir_fd)
        except (OSError, ValueError):  # a cache that cannot be written only costs time next run
            if fd >= 0:
                os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dir_fd)
        finally:
            os.close(dir_fd)
