"""The base side from git: a revision's tree materialised with `git archive`, so includes resolve as they did."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from qosc.diagnostics import error
from qosc.diff.compare import DiffResult, Side, check_filters, compare, compile_side, relabel
from qosc.load import ROOT_MARKER, Limits


class GitError(Exception):
    pass


def _git(cwd: str, *args: str, binary: bool = False) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    try:
        return subprocess.run(["git", "-C", cwd, *args], capture_output=True, text=not binary, timeout=300,
                              env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {' '.join(args)} timed out") from None


def _stderr(proc: subprocess.CompletedProcess) -> str:  # type: ignore[type-arg]
    err = proc.stderr
    if isinstance(err, bytes):
        err = err.decode("utf-8", "replace")
    return (err or "").strip().splitlines()[-1] if (err or "").strip() else f"exit status {proc.returncode}"


def _repository(path: Path) -> tuple[str, str]:
    """(repository top level, path of the policy relative to it, with '/')."""
    start = path.parent if path.parent.is_dir() else Path.cwd()
    proc = _git(str(start), "rev-parse", "--show-toplevel")
    if proc.returncode != 0:
        raise GitError(f"{path.parent} is not inside a git repository ({_stderr(proc)})")
    top = os.path.realpath(proc.stdout.strip())
    full = os.path.realpath(path)
    rel = os.path.relpath(full, top)
    if rel.startswith(".."):
        raise GitError(f"{path} is outside the repository {top}")
    return top, rel.replace(os.sep, "/")


def materialise(top: str, rev: str, dest: str) -> int:
    """Write the files of `rev` under `dest`, exactly as committed; returns how many were written.

    Read with `git ls-tree` and `git cat-file --batch` rather than `git archive`, which would honour
    export-ignore and export-subst attributes and so could differ from the commit.  Only regular files
    are written (no symlinks, no submodules, nothing larger than the loader accepts), never outside `dest`.
    """
    limit = Limits().max_bytes  # a larger file cannot be a policy or an include: the loader refuses it
    listing = _git(top, "ls-tree", "-r", "-z", "-l", "--full-tree", rev, binary=True)
    if listing.returncode != 0:
        raise GitError(f"cannot read revision {rev!r}: {_stderr(listing)}")
    entries: list[tuple[str, str]] = []
    for record in listing.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, sha, size = meta.decode("ascii").split()
        if kind == "blob" and mode in ("100644", "100755") and int(size) <= limit:
            entries.append((sha, os.fsdecode(name)))
    if not entries:
        return 0
    try:
        proc = subprocess.run(["git", "-C", top, "cat-file", "--batch"], input="".join(f"{sha}\n" for sha, _ in
                              entries).encode("ascii"), capture_output=True, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"git cat-file failed: {exc}") from None
    if proc.returncode != 0:
        raise GitError(f"cannot read revision {rev!r}: {_stderr(proc)}")
    data, pos = proc.stdout, 0
    root = os.path.realpath(dest)
    for sha, name in entries:
        header_end = data.index(b"\n", pos)
        got_sha, kind, size = data[pos:header_end].decode("ascii").split()
        if got_sha != sha or kind != "blob":
            raise GitError(f"unexpected answer from git cat-file for {name}")
        start = header_end + 1
        blob = data[start:start + int(size)]
        pos = start + int(size) + 1
        target = os.path.realpath(os.path.join(root, *name.split("/")))
        if not target.startswith(root + os.sep):
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(blob)
    return len(entries)


def diff_base(policy: str, rev: str, target_names: Sequence[str] = (), devices: Sequence[str] = ()) -> DiffResult:
    """Compare the policy at `rev` (old) with the working tree (new)."""
    path = Path(policy)
    try:
        top, rel = _repository(path)
        proc = _git(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        if proc.returncode != 0:
            raise GitError(f"unknown revision {rev!r}")
        exists = _git(top, "cat-file", "-e", f"{rev}:{rel}").returncode == 0
    except GitError as exc:
        side = Side(f"{rev}:{policy}")
        result = DiffResult(side, Side(policy))
        result.errors.append(error("QOS008", f"qosc diff --base: {exc}", None,
                                   "run it on a policy inside a git work tree, with a revision it knows "
                                   "(e.g. fetch the base branch first)"))
        return result
    label = f"{rev}:{rel}"
    with tempfile.TemporaryDirectory(prefix="qosc-diff-") as tmp:
        root = os.path.realpath(tmp)
        if exists:
            try:
                materialise(top, rev, root)
                with open(os.path.join(root, ROOT_MARKER), "w", encoding="utf-8"):
                    pass  # the work tree's root is the project root of the revision's includes too
            except (GitError, OSError) as exc:
                result = DiffResult(Side(label), Side(policy))
                result.errors.append(error("QOS008", f"qosc diff --base: {exc}", None))
                return result
            old = compile_side(os.path.join(root, *rel.split("/")), label, target_names, devices, source=policy)
            old.diagnostics = relabel(old.diagnostics, root, f"{rev}:")
        else:
            old = Side(label, absent=True)
    if path.exists():
        new = compile_side(policy, policy, target_names, devices)
    elif exists:
        new = Side(policy, absent=True)
    else:
        result = DiffResult(Side(label, absent=True), Side(policy, absent=True))
        result.errors.append(error("QOS008", f"{policy} exists neither in the working tree nor at {rev}", None))
        return result
    result = compare(old, new)
    if old.absent:
        result.notes.append(f"{rel} does not exist at {rev}: every output is new")
    if new.absent:
        result.notes.append(f"{policy} was deleted: every output is removed")
    check_filters(result, target_names, devices)
    return result
