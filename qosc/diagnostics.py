"""Diagnostics: what every stage reports instead of raising tracebacks.

A diagnostic points at the policy's own file, line and column so an engineer
can jump straight to the offending key.  Stages collect them in a list and the
CLI renders them as text, JSON or GitHub workflow annotations.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum


class Severity(str, Enum):
    """How bad a diagnostic is; only errors fail a run unless --strict."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, order=True)
class Location:
    """A 1-based line and column in a policy file."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Diagnostic:
    """One finding: a stable code, a severity, a message, where, and how to fix it."""

    code: str
    severity: Severity
    message: str
    location: Location | None = None
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def sort_key(self) -> tuple[str, int, int, str, str]:
        loc = self.location
        return (loc.file, loc.line, loc.column, self.code, self.message) if loc else ("", 0, 0, self.code, self.message)


def error(code: str, message: str, location: Location | None = None, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, location, hint)


def warning(code: str, message: str, location: Location | None = None, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.WARNING, message, location, hint)



def has_errors(diagnostics: Iterable[Diagnostic], strict: bool = False) -> bool:
    """True when the run must fail: any error, or any warning under --strict."""
    return any(d.is_error or (strict and d.severity is Severity.WARNING) for d in diagnostics)


def format_text(d: Diagnostic) -> str:
    where = f"{d.location}: " if d.location else "qosc: "
    text = f"{where}{d.severity.value}[{d.code}]: {d.message}"
    if d.hint:
        text += f"\n  hint: {d.hint}"
    return text


def json_object(d: Diagnostic) -> dict[str, object]:
    loc = d.location
    return {
        "code": d.code,
        "severity": d.severity.value,
        "message": d.message,
        "file": loc.file if loc else None,
        "line": loc.line if loc else None,
        "column": loc.column if loc else None,
        "hint": d.hint,
    }


def format_json(d: Diagnostic) -> str:
    return json.dumps(json_object(d), sort_keys=True)


def _gh_escape(value: str, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def format_github(d: Diagnostic) -> str:
    level = {"error": "error", "warning": "warning", "info": "notice"}[d.severity.value]
    props = [f"title={_gh_escape('qosc ' + d.code, prop=True)}"]
    if d.location:
        props = [
            f"file={_gh_escape(d.location.file, prop=True)}",
            f"line={d.location.line}",
            f"col={d.location.column}",
        ] + props
    message = d.message + (f" (hint: {d.hint})" if d.hint else "")
    return f"::{level} {','.join(props)}::{_gh_escape(message)}"


FORMATTERS = {"text": format_text, "json": format_json, "github": format_github}


def render(diagnostics: Iterable[Diagnostic], fmt: str = "text") -> str:
    """Render diagnostics sorted by place, one per line (text may span two)."""
    formatter = FORMATTERS[fmt]
    ordered = sorted(diagnostics, key=Diagnostic.sort_key)
    return "\n".join(formatter(d) for d in ordered)
