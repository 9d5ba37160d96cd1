"""What the IOS tests share: loading a policy that must validate, and ciscoconfparse2 (a test dependency)."""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType

import pytest

from qosc import api
from qosc.diagnostics import Diagnostic
from qosc.model import Policy

ROOT = Path(__file__).resolve().parents[4]


def confparse() -> ModuleType:
    """ciscoconfparse2: missing in CI is a failure, on a developer machine a skip."""
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
