"""Both sides of a diff compiled in memory, and their files compared (with the source map in hunk headers)."""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from qosc import pipeline
from qosc.diagnostics import Diagnostic, Location, has_errors
from qosc.tree import locate


@dataclass(frozen=True)
class Generated:
    path: str
    """target/<file> as `qosc compile` writes it."""
    target: str
    device: str
    text: str
    origins: tuple[Location | None, ...] = field(default=(), compare=False, repr=False)
    """The source map: the policy location of each line (see qosc.tree.Rendered)."""


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
    result = pipeline.validate(os.fspath(path))
    side.diagnostics = list(result.diagnostics)
    if not result.ok or result.policy is None:
        return side
    policy = result.policy
    if source is not None and source != policy.source:
        policy = dataclasses.replace(policy, source=source)
    done = pipeline.run(target_names=target_names, devices=devices,
                        validated=[dataclasses.replace(result, policy=policy)])
    side.diagnostics.extend(d for d in done.diagnostics[len(result.diagnostics):] if d.code not in ("QOS101", "QOS102"))
    for unit in done.units:
        side.devices.add(unit.unit.name)
        for out in unit.outputs:
            origins = tuple(locate(o) for o in out.origins)
            side.files[out.path] = Generated(out.path, unit.target.name, unit.unit.name, out.text, origins)
    return side


def relabel(diags: list[Diagnostic], root: str, prefix: str) -> list[Diagnostic]:
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


def unified(old: str | None, new: str | None, path: str, old_origins: tuple[Location | None, ...] = (),
            new_origins: tuple[Location | None, ...] = ()) -> tuple[str, int, int]:
    """A unified diff of one file ('' when equal), and its added and removed line counts.

    With source maps, every hunk header names the policy lines its changed
    lines came from (after the second '@@', where a unified diff allows a
    section heading), so a reviewer sees which part of the policy moved.
    """
    a = old.splitlines() if old is not None else []
    b = new.splitlines() if new is not None else []
    lines = list(difflib.unified_diff(a, b, f"a/{path}" if old is not None else "/dev/null",
                                      f"b/{path}" if new is not None else "/dev/null", lineterm="", n=3))
    added = sum(1 for x in lines[2:] if x.startswith("+"))
    removed = sum(1 for x in lines[2:] if x.startswith("-"))
    if old_origins or new_origins:
        lines = _with_origins(lines, old_origins, new_origins)
    text = "\n".join(lines)
    if not lines and old is not None and new is not None and old != new:
        text = f"--- a/{path}\n+++ b/{path}\n(the files differ only in line endings or the final newline)"
    return (text + "\n" if text else ""), added, removed


_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def _with_origins(lines: list[str], old_origins: tuple[Location | None, ...],
                  new_origins: tuple[Location | None, ...]) -> list[str]:
    """Hunk headers followed by the policy locations of the hunk's changed lines."""
    out = list(lines[:2])
    i = 2
    while i < len(lines):
        m = _HUNK.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not _HUNK.match(lines[j]):
            j += 1
        old_no, new_no = int(m.group(1)), int(m.group(2))
        seen: dict[str, None] = {}
        for line in lines[i + 1:j]:
            if line.startswith("-"):
                loc = old_origins[old_no - 1] if 0 < old_no <= len(old_origins) else None
                old_no += 1
            elif line.startswith("+"):
                loc = new_origins[new_no - 1] if 0 < new_no <= len(new_origins) else None
                new_no += 1
            else:
                old_no, new_no, loc = old_no + 1, new_no + 1, None
            if loc is not None:
                seen.setdefault(f"{loc.file}:{loc.line}", None)
        head = lines[i]
        if seen:
            shown = list(seen)
            head += " from " + ", ".join(shown[:6]) + (f" (+{len(shown) - 6} more)" if len(shown) > 6 else "")
        out.append(head)
        out.extend(lines[i + 1:j])
        i = j
    return out


def compare(old: Side, new: Side) -> DiffResult:
    result = DiffResult(old, new)
    if not (old.ok and new.ok):
        return result
    for path in sorted(set(old.files) | set(new.files)):
        a, b = old.files.get(path), new.files.get(path)
        if a is not None and b is not None and a.text == b.text:
            result.unchanged += 1
            continue
        text, added, removed = unified(a.text if a else None, b.text if b else None, path,
                                       a.origins if a else (), b.origins if b else ())
        some = b or a
        assert some is not None
        status = "changed" if a and b else "added" if b else "removed"
        device_status = ("added" if some.device not in old.devices else
                         "removed" if some.device not in new.devices else "changed")
        result.files.append(FileDiff(path, some.target, some.device, status, text, added, removed, device_status))
    return result


def check_filters(result: DiffResult, target_names: Sequence[str], devices: Sequence[str]) -> None:
    result.errors.extend(pipeline.unknown_targets(target_names))
    if devices and result.old.ok and result.new.ok:
        result.errors.extend(pipeline.missing_devices(devices, result.old.devices | result.new.devices))


def diff_files(old: str, new: str, target_names: Sequence[str] = (), devices: Sequence[str] = ()) -> DiffResult:
    """Compare the outputs of two policy files."""
    result = compare(compile_side(old, old, target_names, devices), compile_side(new, new, target_names, devices))
    check_filters(result, target_names, devices)
    return result
