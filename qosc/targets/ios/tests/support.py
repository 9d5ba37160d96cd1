"""What the IOS tests share: loading a policy that must validate, and ciscoconfparse2 (a test dependency)."""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType

import pytest
import yaml

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


CISCO_BACKBONE = ("p-gsr", "pe-asr", "sw-cat")
"""The Cisco devices of the reference MPLS backbone (examples/mpls-backbone.yaml, issue 21)."""


def cisco_backbone(folder: Path, edit: dict[str, object] | None = None) -> Path:
    """The reference MPLS backbone with its Cisco devices only (the other targets are checked by their own tests),
    written to `folder`; `edit` replaces top-level keys or, as "devices.NAME", a device."""
    data = yaml.safe_load((ROOT / "examples" / "mpls-backbone.yaml").read_text(encoding="utf-8"))
    data["devices"] = {name: dev for name, dev in data["devices"].items() if name in CISCO_BACKBONE}
    for key, value in (edit or {}).items():
        if key.startswith("devices."):
            data["devices"][key.split(".", 1)[1]] = value
        else:
            data[key] = value
    path = folder / "mpls-backbone-cisco.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path
