#!/usr/bin/env python3
"""Time publishing an output tree of N files (default 600); print one summary line.

The tree looks like a compile's: four target directories, files of ~10 KB.
Two cases, each the median of --runs runs: every file changed (a new policy
everywhere), and one file changed (the incremental compile's usual case).
Measured in the same run:

- qosc.emit as it is (stage the whole tree in the private work directory,
  hard links for unchanged files, one renameat2(RENAME_EXCHANGE), old tree
  removed);
- the per-file publish qosc.emit had before (a temporary file per changed
  file in the output directory, renamed over the old file one by one), loaded
  from git revision --baseline-rev when git has it (else left out);
- plain writes (open, write, close per changed file: no atomicity at all), the
  floor.

durable=False for both qosc variants (no fsync/sync: the flush costs the same
for both and depends on the disk, not on the publishing scheme).
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from qosc import emit  # noqa: E402
from qosc.targets.base import Output  # noqa: E402

BASELINE_REV = "a87dadb"
"""The last commit with the per-file publish (before issue 18)."""


def tree(n: int, version: int, changed: int) -> list[Output]:
    """n outputs; the first `changed` of them differ between versions."""
    targets = ("junos", "ios-mqc", "catalyst6500", "linux-tc")
    out = []
    for i in range(n):
        body = f"# device r{i:05d}\n" + ("set class-of-service interfaces ge-0/0/0 unit 0\n" * 200)
        tag = version if i < changed else 0
        out.append(Output(f"{targets[i % 4]}/r{i:05d}.example.net.conf", f"# version {tag}\n{body}"))
    return out


def load_baseline(rev: str) -> Any | None:
    """qosc/emit.py as it was at `rev`, as a module of its own (None when git cannot show it)."""
    try:
        src = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:qosc/emit.py"], capture_output=True,
                             check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    path = Path(tempfile.mkdtemp(prefix="qosc-bench-")) / "emit_before.py"
    path.write_bytes(src)
    spec = importlib.util.spec_from_file_location("emit_before", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["emit_before"] = module  # (dataclasses look their module up)
    try:
        spec.loader.exec_module(module)
    finally:
        shutil.rmtree(path.parent)
    return module


def publish_now(outputs: list[Output], root: Path) -> None:
    with emit.Transaction(root, durable=False) as tx:
        for o in outputs:
            tx.add(o.path, o.text)
        tx.commit()


def publish_with(module: Any) -> Callable[[list[Output], Path], None]:
    def publish(outputs: list[Output], root: Path) -> None:
        with module.Transaction(root, durable=False) as tx:
            for o in outputs:
                tx.add(o.path, o.text)
            tx.commit()
    return publish


def plain(outputs: list[Output], root: Path) -> None:
    for o in outputs:
        path = root / o.path
        if path.exists() and path.read_text() == o.text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(o.text)


def measure(publish: Callable[[list[Output], Path], None], n: int, changed: int, runs: int, tmp: Path) -> float:
    times = []
    for r in range(runs):
        root = tmp / f"out-{r}"
        if root.exists():
            shutil.rmtree(root)
        publish_now(tree(n, 1, changed), root)  # the files past `changed` are the same in both versions
        new = tree(n, 2, changed)
        start = time.perf_counter()
        publish(new, root)
        times.append(time.perf_counter() - start)
        assert (root / new[0].path).read_text() == new[0].text
        shutil.rmtree(root)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=600, help="files in the tree (default 600)")
    parser.add_argument("--runs", type=int, default=5, help="runs per case (median; default 5)")
    parser.add_argument("--baseline-rev", default=BASELINE_REV, help="git revision of the per-file publish")
    args = parser.parse_args()
    variants: list[tuple[str, Callable[[list[Output], Path], None]]] = [("exchange (now)", publish_now)]
    before = load_baseline(args.baseline_rev)
    if before is not None:
        variants.append(("per-file (before)", publish_with(before)))
    variants.append(("plain writes", plain))
    parts = []
    with tempfile.TemporaryDirectory(prefix="qosc-bench-publish-") as tmp:
        for name, func in variants:
            all_ms = measure(func, args.n, args.n, args.runs, Path(tmp))
            one_ms = measure(func, args.n, 1, args.runs, Path(tmp))
            parts.append(f"{name} {all_ms:.1f} ms all changed / {one_ms:.1f} ms one changed")
    print(f"publish: {args.n} files, median of {args.runs}: " + "; ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
