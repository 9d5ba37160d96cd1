"""Helpers of the linux-tc tests: the repository root, netns availability, compiling one device."""

from __future__ import annotations

import os
import re
import shutil
import textwrap
from pathlib import Path

import pytest

from qosc import api
from qosc.model import Policy

ROOT = Path(__file__).resolve().parents[4]


def _ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def need_netns() -> None:
    """Fail loudly in CI, skip with a reason on a developer machine without root/netns."""
    problem = None
    if os.geteuid() != 0:
        problem = "needs root for network namespaces"
    elif not (shutil.which("ip") and shutil.which("tc") and shutil.which("unshare")):
        problem = "needs ip, tc and unshare (iproute2, util-linux)"
    if problem:
        if _ci():
            pytest.fail(f"CI must run the netns tests: {problem}")
        pytest.skip(problem)


def compile_device(path: Path | str, device: str) -> dict[str, str]:
    result = api.validate(path)
    assert result.ok, [str(d) for d in result.diagnostics]
    outputs = api.compile_policy(result, ["linux-tc"], [device])
    assert not [d for d in result.diagnostics if d.is_error], [str(d) for d in result.diagnostics]
    return {o.path.removeprefix("linux-tc/"): o.text for o in outputs}


def write_policy(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def valid(path: Path | str) -> Policy:
    """The model of a policy that must validate."""
    result = api.validate(path)
    assert result.ok and result.policy is not None, [str(d) for d in result.diagnostics]
    return result.policy


def number(pattern: str, text: str) -> int:
    """The integer the first group of `pattern` finds in `text` (which must have one)."""
    found = re.search(pattern, text)
    assert found is not None, (pattern, text)
    return int(found[1])


def marking_services(exp_high: int = 3) -> str:
    """The `services:` block of the marking tests: the five services of the MPLS backbone with EXP and PCP
    values (assured's AF21-23 as EXP 2 / 3 / exp_high and PCP 2 / 3 / 3; network control on 6 and 7)."""
    return f"""\
services:
  best-effort: {{kind: best-effort, default: true, exp: [0], pcp: [0], queue: {{share: 40%, priority: high}}}}
  premium: {{kind: premium, dscp: [ef], exp: [5], pcp: [5], queue: {{share: 10%, priority: high}}}}
  assured:
    kind: assured
    dscp: [af21, af22, af23]
    exp: {{low: [2], medium: [3], high: [{exp_high}]}}
    pcp: {{low: [2], medium: [3], high: [3]}}
    queue: {{share: 40%, priority: high}}
  lbe: {{kind: lbe, dscp: [cs1], exp: [1], pcp: [1], queue: {{share: 1%, priority: low}}}}
  network-control: {{kind: network-control, exp: [6, 7], pcp: [6, 7], queue: {{share: 5%, priority: high}}}}
"""
