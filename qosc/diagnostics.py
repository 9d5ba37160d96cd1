"""Diagnostics: what every stage reports instead of raising tracebacks.

A diagnostic points at the policy's own file, line and column so an engineer
can jump straight to the offending key.  Stages collect them in a list and the
CLI renders them as text, JSON or GitHub workflow annotations.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum


class Severity(str, Enum):
    """How bad a diagnostic is; only errors fail a run unless --strict (then warnings too).  A warning asks for
    action; info is a fact to know (a platform's limit the policy cannot change, what a verification found)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, order=True, slots=True)
class Location:
    """A 1-based line and column in a policy file (slotted: the loader makes one per node, millions of them)."""

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
    io: bool = field(default=False, compare=False)
    """An input the command was given cannot be read at all (exit status 2, not 1)."""

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


def info(code: str, message: str, location: Location | None = None, hint: str | None = None) -> Diagnostic:
    """A fact the user can do nothing about in the policy (what a platform does differently from it): said once,
    at the line it concerns, never failing a run (not even with --strict)."""
    return Diagnostic(code, Severity.INFO, message, location, hint)



# -- echoing what the user wrote ---------------------------------------------------------------
# A diagnostic quotes keys, values and paths from the policy.  Printed raw, a key holding a newline would forge a
# whole extra diagnostic line, an ESC sequence would reach the terminal and a bidi override would reorder what the
# reader sees; a 30 MB value would be echoed whole.  Every rendered field goes through `clean` (control characters
# escaped), and the places that quote a value use `shown` (escaped, quoted and capped with an ellipsis).

ECHO_LIMIT = 80
"""Characters of a quoted value kept in a message (then an ellipsis)."""
FIELD_LIMIT = 4000
"""Characters of a whole message, hint or file name kept when rendered (then an ellipsis)."""

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"
                     "\ufff9-\ufffb\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group(0)
    return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


def clean(text: str, limit: int | None = FIELD_LIMIT) -> str:
    """`text` with C0/C1 controls, DEL, line separators and bidi/invisible format characters escaped (\\n,
    \\x1b, \\u202e), cut to `limit` characters with an ellipsis."""
    if limit is not None and len(text) > limit:
        text = text[:limit] + "\u2026"
    return _UNSAFE.sub(_escape, text)


def shown(value: object, limit: int = ECHO_LIMIT, quote: bool = True) -> str:
    """A value from the policy as a message quotes it: 'text' escaped and capped, numbers and others via str."""
    text = value if isinstance(value, str) else repr(value) if isinstance(value, (bytes, float)) else str(value)
    if len(text) > limit:
        text = text[:limit] + "\u2026"
    text = clean(text, None)
    return f"'{text}'" if quote and isinstance(value, str) else text


def has_errors(diagnostics: Iterable[Diagnostic], strict: bool = False) -> bool:
    """True when the run must fail: any error, or any warning under --strict."""
    return any(d.is_error or (strict and d.severity is Severity.WARNING) for d in diagnostics)


def _where(loc: Location) -> str:
    return f"{clean(loc.file)}:{loc.line}:{loc.column}"


def format_text(d: Diagnostic) -> str:
    where = f"{_where(d.location)}: " if d.location else "qosc: "
    text = f"{where}{d.severity.value}[{d.code}]: {clean(d.message)}"
    if d.hint:
        text += f"\n  hint: {clean(d.hint)}"
    return text


def json_object(d: Diagnostic) -> dict[str, object]:
    """The JSON form; strings are escaped like the text form, so a consumer printing them prints one line each."""
    loc = d.location
    return {
        "code": d.code,
        "severity": d.severity.value,
        "message": clean(d.message),
        "file": clean(loc.file) if loc else None,
        "line": loc.line if loc else None,
        "column": loc.column if loc else None,
        "hint": clean(d.hint) if d.hint is not None else None,
    }


def format_json(d: Diagnostic) -> str:
    return json.dumps(json_object(d), sort_keys=True)


def _gh_escape(value: str, prop: bool = False) -> str:
    value = clean(value).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
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
