"""A diff as text (optionally coloured), a summary, JSON and GitHub annotations."""

from __future__ import annotations

import json
import secrets

from qosc.diff.compare import DiffResult, FileDiff

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
