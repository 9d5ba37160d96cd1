"""Small helpers for tests: write a policy to a temp file and validate it."""

from __future__ import annotations

import textwrap
from pathlib import Path

from qosc import api
from qosc.diagnostics import Diagnostic, format_text

BASE = """\
qosc: 1
name: t
services:
  best-effort:
    kind: best-effort
    default: true
    queue: {share: 40%, priority: high}
  ip-premium:
    kind: premium
    queue: {share: 10%, priority: high, strict: true, rate-cap: 10%}
  lbe:
    kind: lbe
    queue: {share: 1%, priority: low}
devices:
  r1:
    platform: linux
    interfaces:
      eth0: {role: core, speed: 1G}
"""


def validate_text(tmp_path: Path, text: str, name: str = "p.yaml") -> list[Diagnostic]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return api.validate(path).diagnostics


def codes(diags: list[Diagnostic]) -> list[str]:
    return [d.code for d in diags]


def texts(diags: list[Diagnostic], tmp_path: Path) -> list[str]:
    """Diagnostics as the CLI prints them, with the temp dir replaced by 'T'."""
    return [format_text(d).replace(str(tmp_path), "T") for d in diags]
