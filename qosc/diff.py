"""Config diffs for review: compile two versions of a policy in memory and diff every output file.

`diff_files(old, new)` compares two policy files; `diff_base(policy, rev)`
compares a policy with the same path at another git revision, whose tree is
materialised in a temporary directory with `git archive`, so its includes
resolve exactly as they did at that revision.  Nothing is written anywhere
else.  Both sides are compiled by this qosc, for every device and target,
so the diff shows what a policy change does to the generated configuration.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import secrets
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from qosc import api
from qosc.diagnostics import Diagnostic, Location, error, has_errors
from qosc.load import Limits
from qosc.targets.registry import targets


@dataclass(frozen=True)
class Generated:
    path: str
    """target/<file> as `qosc compile` writes it."""
    target: str
    device: str
    text: str


@dataclass
class Side:
    label: str
    files: dict[str, Generated] = field(default_factory=dict)
    devices: set[str] = field(default_factory=set)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    absent: bool = False
    """The policy does not exist on this side (added or deleted by the change)."""

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


@dataclass(frozen=True)
class FileDiff:
    path: str
    target: str
    device: str
    status: str
    """'changed', 'added' or 'removed'."""
    diff: str
    added_lines: int
    removed_lines: int
    device_status: str = "changed"
    """'added' or 'removed' when the whole device is new or gone, else 'changed'."""


@dataclass
class DiffResult:
    old: Side
    new: Side
    files: list[FileDiff] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unchanged: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors and self.old.ok and self.new.ok

    @property
    def changed(self) -> bool:
        return bool(self.files)

    @property
    def devices_added(self) -> list[str]:
        return sorted(self.new.devices - self.old.devices)

    @property
    def devices_removed(self) -> list[str]:
        return sorted(self.old.devices - self.new.devices)

    @property
    def devices_changed(self) -> list[str]:
        return sorted({f.device for f in self.files if f.device_status == "changed"})


# -- compiling one side ------------------------------------------------------------


def compile_side(path: str | os.PathLike[str], label: str, target_names: Sequence[str] = (),
                 devices: Sequence[str] = (), source: str | None = None) -> Side:
    """Validate and render every (target, device) of one policy in memory."""
    side = Side(label)
    result = api.validate(os.fspath(path))
    side.diagnostics = list(result.diagnostics)
    if not result.ok or result.policy is None:
        return side
    policy = result.policy
    if source is not None and source != policy.source:
        policy = dataclasses.replace(policy, source=source)
    for target, device in api.select(policy, target_names, devices):
        outputs, diags = api.render_outputs(policy, [(target, device)])
        side.diagnostics.extend(diags)
        side.devices.add(device.name)
        for out in outputs:
            side.files[out.path] = Generated(out.path, target.name, device.name, out.text)
    return side


def _relabel(diags: list[Diagnostic], root: str, prefix: str) -> list[Diagnostic]:
    """Point diagnostics from a materialised revision at 'REV:path' instead of the temporary directory."""
    out = []
    for d in diags:
        loc = d.location
        if loc is not None and (loc.file == root or loc.file.startswith(root + os.sep)):
            rel = os.path.relpath(loc.file, root).replace(os.sep, "/")
            loc = Location(f"{prefix}{rel}", loc.line, loc.column)
        message = d.message.replace(root + os.sep, prefix)
        out.append(dataclasses.replace(d, location=loc, message=message))
    return out


# -- comparing ------------------------------------------------------------------------


def unified(old: str | None, new: str | None, path: str) -> tuple[str, int, int]:
    """A unified diff of one file ('' when equal), and its added and removed line counts."""
    a = old.splitlines() if old is not None else []
    b = new.splitlines() if new is not None else []
    lines = list(difflib.unified_diff(a, b, f"a/{path}" if old is not None else "/dev/null",
                                      f"b/{path}" if new is not None else "/dev/null", lineterm="", n=3))
    added = sum(1 for x in lines[2:] if x.startswith("+"))
    removed = sum(1 for x in lines[2:] if x.startswith("-"))
    text = "\n".join(lines)
    if not lines and old is not None and new is not None and old != new:
        text = f"--- a/{path}\n+++ b/{path}\n(the files differ only in line endings or the final newline)"
    return (text + "\n" if text else ""), added, removed


def compare(old: Side, new: Side) -> DiffResult:
    result = DiffResult(old, new)
    if not (old.ok and new.ok):
        return result
    for path in sorted(set(old.files) | set(new.files)):
        a, b = old.files.get(path), new.files.get(path)
        if a is not None and b is not None and a.text == b.text:
            result.unchanged += 1
            continue
        text, added, removed = unified(a.text if a else None, b.text if b else None, path)
        some = b or a
        assert some is not None
        status = "changed" if a and b else "added" if b else "removed"
        device_status = ("added" if some.device not in old.devices else
                         "removed" if some.device not in new.devices else "changed")
        result.files.append(FileDiff(path, some.target, some.device, status, text, added, removed, device_status))
    return result


def _check_filters(result: DiffResult, target_names: Sequence[str], devices: Sequence[str]) -> None:
    known = targets()
    unknown = [t for t in target_names if t not in known]
    if unknown:
        result.errors.append(error("QOS101", f"unknown target {', '.join(unknown)}", None,
                                   f"targets: {', '.join(known) or 'none registered'}"))
    if devices and result.old.ok and result.new.ok:
        seen = result.old.devices | result.new.devices
        missing = [d for d in devices if d not in seen]
        if missing:
            result.errors.append(error("QOS102", f"no device {', '.join(missing)} compiled on either side", None,
                                       "check the name, or that a registered target serves its platform"))


def diff_files(old: str, new: str, target_names: Sequence[str] = (), devices: Sequence[str] = ()) -> DiffResult:
    """Compare the outputs of two policy files."""
    result = compare(compile_side(old, old, target_names, devices), compile_side(new, new, target_names, devices))
    _check_filters(result, target_names, devices)
    return result


# -- git --------------------------------------------------------------------------------


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
            except GitError as exc:
                result = DiffResult(Side(label), Side(policy))
                result.errors.append(error("QOS008", f"qosc diff --base: {exc}", None))
                return result
            old = compile_side(os.path.join(root, *rel.split("/")), label, target_names, devices, source=policy)
            old.diagnostics = _relabel(old.diagnostics, root, f"{rev}:")
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
    _check_filters(result, target_names, devices)
    return result


# -- presenting --------------------------------------------------------------------------

_COLOURS = {"header": "\033[1m", "hunk": "\033[36m", "add": "\033[32m", "del": "\033[31m", "note": "\033[33m",
            "reset": "\033[0m"}


def _file_header(f: FileDiff) -> str:
    if f.device_status in ("added", "removed"):
        what = f"new device {f.device}" if f.device_status == "added" else f"removed device {f.device}"
        return f"# {f.path}: {f.status} ({what}, target {f.target})"
    return f"# {f.path}: {f.status} (device {f.device}, target {f.target})"


def _colourise(line: str) -> str:
    c = _COLOURS
    if line.startswith(("# ", "--- ", "+++ ")):
        return f"{c['header']}{line}{c['reset']}"
    if line.startswith("@@"):
        return f"{c['hunk']}{line}{c['reset']}"
    if line.startswith("+"):
        return f"{c['add']}{line}{c['reset']}"
    if line.startswith("-"):
        return f"{c['del']}{line}{c['reset']}"
    return line


def format_text(result: DiffResult, colour: bool = False) -> str:
    lines: list[str] = []
    for f in result.files:
        lines.append(_file_header(f))
        lines.extend(f.diff.rstrip("\n").split("\n"))
    if colour:
        lines = [_colourise(x) for x in lines]
    return "\n".join(lines) + ("\n" if lines else "")


def summary(result: DiffResult) -> str:
    if not result.files:
        return f"qosc: no change in {result.unchanged} generated files ({result.old.label} -> {result.new.label})"
    count = {s: sum(1 for f in result.files if f.status == s) for s in ("changed", "added", "removed")}
    plus = sum(f.added_lines for f in result.files)
    minus = sum(f.removed_lines for f in result.files)
    parts = [f"{count['changed']} files changed", f"{count['added']} added", f"{count['removed']} removed"]
    devs = []
    if result.devices_added:
        devs.append(f"new devices: {', '.join(result.devices_added)}")
    if result.devices_removed:
        devs.append(f"removed devices: {', '.join(result.devices_removed)}")
    return (f"qosc: {', '.join(parts)} (+{plus} -{minus} lines), {result.unchanged} unchanged "
            f"({result.old.label} -> {result.new.label})" + (f"; {'; '.join(devs)}" if devs else ""))


def format_json(result: DiffResult) -> str:
    return json.dumps({
        "old": result.old.label,
        "new": result.new.label,
        "changed": result.changed,
        "unchanged_files": result.unchanged,
        "notes": result.notes,
        "devices": {"added": result.devices_added, "removed": result.devices_removed,
                    "changed": result.devices_changed},
        "files": [{"path": f.path, "target": f.target, "device": f.device, "status": f.status,
                   "device_status": f.device_status, "added_lines": f.added_lines,
                   "removed_lines": f.removed_lines, "diff": f.diff} for f in result.files],
    }, indent=2, sort_keys=True) + "\n"


def _gh(value: str, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def format_github(result: DiffResult, policy_file: str | None = None) -> str:
    """Workflow commands: a notice per changed file and the diff in a collapsed group.

    The diff text is printed between ::stop-commands:: markers with a random
    token, so a line of generated config can never be taken for a workflow
    command.
    """
    where = f"file={_gh(policy_file, prop=True)}," if policy_file else ""
    out = [f"::notice {where}title=qosc diff::{_gh(note)}" for note in result.notes]
    for f in result.files:
        what = _file_header(f)[2:]
        out.append(f"::notice {where}title={_gh('qosc diff ' + f.path, prop=True)}::"
                   f"{_gh(what)} (+{f.added_lines} -{f.removed_lines} lines)")
    if result.files:
        token = secrets.token_hex(16)
        for f in result.files:
            out.append(f"::group::{_gh(_file_header(f)[2:])}")
            out.append(f"::stop-commands::{token}")
            out.extend(f.diff.rstrip("\n").split("\n"))
            out.append(f"::{token}::")
            out.append("::endgroup::")
    return "\n".join(out) + ("\n" if out else "")
