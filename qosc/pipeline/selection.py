"""The compile-selection errors, in one place: QOS101 unknown target, QOS102 device not compiled, QOS103 one
device or file from two policies, and QOS104 notes of an explicit verification."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from qosc.diagnostics import Diagnostic, Severity, error
from qosc.targets.registry import targets


def unknown_targets(names: Sequence[str]) -> list[Diagnostic]:
    """QOS101 for target names no target has."""
    known = list(targets())
    unknown = [t for t in names if t not in known]
    if not unknown:
        return []
    return [error("QOS101", f"unknown target {', '.join(unknown)}", None,
                  f"targets: {', '.join(known) or 'none registered'}")]


def missing_devices(wanted: Sequence[str], compiled: Iterable[str]) -> list[Diagnostic]:
    """QOS102 for every selected device that nothing compiled."""
    done = set(compiled)
    return [error("QOS102", f"device {name} was not compiled: it is in none of the policies, or no selected target "
                  "serves its platform", None, "check the device name and --target")
            for name in wanted if name not in done]


def duplicate(what: str, first: str, second: str) -> Diagnostic:
    """QOS103: one device (or output file) produced by two policies."""
    return error("QOS103", f"{what} is produced by both {first} and {second}", None,
                 "device names must be unique across the policies compiled together")


def note_diagnostics(notes: Iterable[tuple[str, str]]) -> list[Diagnostic]:
    """One QOS104 info per distinct (target, note) of rendered files, with how many files it was given for."""
    counts = Counter(notes)
    return [Diagnostic("QOS104", Severity.INFO, f"{target}: {note} ({n} file{'s' if n != 1 else ''})", None)
            for (target, note), n in sorted(counts.items())]
