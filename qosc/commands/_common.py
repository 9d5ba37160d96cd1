"""Shared CLI plumbing: diagnostics output and the --format/--strict options."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable

from qosc.diagnostics import Diagnostic, has_errors, render


def add_report_options(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--format", choices=("text", "json", "github"), default="text",
                     help="diagnostics format (default text)")
    cmd.add_argument("--strict", action="store_true", help="warnings fail the run too")


def report(diagnostics: Iterable[Diagnostic], fmt: str) -> None:
    text = render(diagnostics, fmt)
    if text:
        print(text, file=sys.stderr if fmt == "text" else sys.stdout)


def status(diagnostics: list[Diagnostic], strict: bool) -> int:
    """2 when an input could not be read at all (an I/O error), else 1 on errors (or warnings with --strict)."""
    if any(d.io for d in diagnostics):
        return 2
    return 1 if has_errors(diagnostics, strict) else 0
