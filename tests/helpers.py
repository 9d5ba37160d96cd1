"""Small helpers for tests: write a policy to a temp file and validate it."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from hypothesis import settings

from qosc import api
from qosc.diagnostics import Diagnostic, format_text
from qosc.model import Policy

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


def confparse():
    """ciscoconfparse2 (a test dependency): missing in CI is a failure, on a developer machine a skip."""
    try:
        import ciscoconfparse2
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("ciscoconfparse2 is not installed; pip install ciscoconfparse2")
        pytest.skip("ciscoconfparse2 is not installed (pip install ciscoconfparse2)")
    return ciscoconfparse2


def load(path: Path | str) -> tuple[Policy, list[Diagnostic]]:
    """A policy that must validate cleanly, and its (warning) diagnostics."""
    result = api.validate(path)
    assert result.policy is not None and result.ok, [d.message for d in result.diagnostics if d.is_error]
    return result.policy, result.diagnostics


def tree_digests(root: Path) -> dict[str, str] | None:
    """Every entry under root, hidden ones included: files by sha256 and mode, directories as such (None: absent)."""
    import hashlib

    if not root.exists():
        return None
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            found[os.path.relpath(os.path.join(dirpath, d), root) + "/"] = "dir"
        for f in filenames:
            path = os.path.join(dirpath, f)
            found[os.path.relpath(path, root)] = \
                f"{hashlib.sha256(Path(path).read_bytes()).hexdigest()} {os.stat(path).st_mode:o}"
    return found


def fuzz_examples(budget: int) -> int:
    """The examples a property test draws whose budget in the derandomized ci profile is `budget`: times the loaded
    Hypothesis profile's size (deep: 10x, conftest.py) and QOSC_FUZZ_SCALE (0.1 for a quick local run)."""
    scale = float(os.environ.get("QOSC_FUZZ_SCALE", "1")) * settings.default.max_examples / 100
    return max(1, int(budget * scale))
