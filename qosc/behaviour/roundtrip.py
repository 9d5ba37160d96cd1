"""Round trips for read-back tests and tools: compile a reference policy with today's targets, in memory,
and compare what a configuration read back does with what the policy asks."""

from __future__ import annotations

from pathlib import Path

from qosc import pipeline
from qosc.behaviour import intent
from qosc.behaviour.compare import Finding, compare
from qosc.behaviour.model import Device
from qosc.model import Policy
from qosc.targets.base import Output
from qosc.targets.registry import for_platform

ROOT = Path(__file__).resolve().parents[2]


def load(policy: str) -> Policy:
    result = pipeline.validate(str(ROOT / "policies" / policy))
    assert result.policy is not None, result.diagnostics
    return result.policy


def outputs(policy: Policy, device: str) -> list[Output]:
    """Every file today's targets compile one device of a policy to."""
    dev = policy.device_map[device]
    out: list[Output] = []
    for target in for_platform(dev.platform):
        _, lowered = pipeline.lower(target, policy, dev)
        assert lowered is not None
        out.extend(target.render(lowered))
    return out


def drift(policy: Policy, device: str, found: Device) -> list[Finding]:
    return compare(intent.device(policy, policy.device_map[device]), found)
