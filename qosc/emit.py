"""Write generated files atomically: all or nothing, never a half-written file.

Everything is rendered in memory first; then each file goes to a temporary
file in its own directory and is renamed over the old one.  A file whose
content is unchanged is not rewritten, so a recompile touches only what moved.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterable

from qosc.targets.base import Output


def write_atomic(path: Path, text: str) -> bool:
    """Write `text` to `path` atomically; False when it already held exactly that."""
    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        mode = 0o755 if text.startswith("#!") else 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return True


def emit(outputs: Iterable[Output], directory: Path) -> list[Path]:
    """Write every output under `directory`; returns the files that changed."""
    changed = []
    root = directory.resolve()
    for out in sorted(outputs, key=lambda o: o.path):
        target = (root / out.path).resolve()
        if root not in target.parents:
            raise ValueError(f"output path {out.path!r} escapes the output directory")
        if write_atomic(target, out.text):
            changed.append(target)
    return changed
