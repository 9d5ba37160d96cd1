"""The store on disk, and the code fingerprint that every key and every store starts with.

Separate because it is the only part that touches the cache directory and the
only part that looks at qosc itself (sources, templates, platform data,
library versions, environment) rather than at a policy.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import pickle
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import qosc
from qosc.cache.segments import _h

FORMAT = 2  # 2: entries carry the render notes of their files
KEEP_STORES = 32
"""Stores kept in the cache directory; the least recently used beyond that are deleted."""


def default_dir() -> Path:
    """$QOSC_CACHE_DIR, else $XDG_CACHE_HOME/qosc, else ~/.cache/qosc."""
    if os.environ.get("QOSC_CACHE_DIR"):
        return Path(os.environ["QOSC_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "qosc"


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


class Store:
    """What one compile of one policy into one output directory left for the next."""

    def __init__(self, cache_dir: Path | None, policy: str, outdir: str) -> None:
        ident = _h(os.path.abspath(policy), os.path.abspath(outdir))
        self.path = cache_dir / f"{ident}.pickle" if cache_dir else None
        self.data: dict[str, Any] = {}
        if self.path is None:
            self.code = ""
            return
        self.code = code_fingerprint()
        try:
            with open(self.path, "rb") as fh:
                data = pickle.load(fh)
            if isinstance(data, dict) and (data.get("format"), data.get("code"), data.get("policy")) == (
                    FORMAT, self.code, policy) and isinstance(data.get("entries"), dict):
                self.data = data
        except Exception:  # noqa: BLE001 - a missing, old or damaged cache is an empty one
            self.data = {}

    def save(self, data: dict[str, Any]) -> None:
        if self.path is None:
            return
        data = {**data, "code": self.code}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            with open(tmp, "wb") as fh:
                pickle.dump(data, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.path)
            stores = sorted(self.path.parent.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
            for old in stores[KEEP_STORES:]:
                old.unlink()
        except OSError:  # a cache that cannot be written only costs time next run
            pass
