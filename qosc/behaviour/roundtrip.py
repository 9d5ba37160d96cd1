"""Round trips for read-back tests and tools: compile a reference policy with today's targets, in memory,
compare what a configuration read back does with what the policy asks, and import(compile(P)) per device."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from qosc import pipeline
from qosc.behaviour import intent, readback
from qosc.behaviour.compare import Finding, compare
from qosc.behaviour.lift import Lifted, lift
from qosc.behaviour.model import Device
from qosc.behaviour.readback import Read
from qosc.diagnostics import Diagnostic, has_errors
from qosc.model import Policy
from qosc.targets.base import Output
from qosc.targets.registry import for_platform

ROOT = Path(__file__).resolve().parents[2]


def load(policy: str) -> Policy:
    """A reference policy: a file of policies/, or a path under the repository (examples/mpls-backbone.yaml)."""
    result = pipeline.validate(str(ROOT / policy if "/" in policy else ROOT / "policies" / policy))
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


@dataclass
class RoundTrip:
    """import(compile(P)) for one output of one device: the configuration read back (first), the policy it lifts
    to (as `qosc import` writes it) and that policy's diagnostics, its own compile read back (second), and every
    difference between the two behaviours.  `stage` says how far it got: 'read', 'validate', 'compile' or 'equiv'."""

    first: Read
    lifted: Lifted | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    second: Read | None = None
    findings: list[Finding] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    stage: str = "read"

    @property
    def ok(self) -> bool:
        return self.stage == "equiv" and not self.findings and not self.problems


def relift(found: Device, name: str, path: Path) -> tuple[Lifted, pipeline.Result]:
    """What `qosc import` makes of one device read back: the lifted policy, written to `path` as import writes
    it, and that file validated (its policy compiles like any other)."""
    lifted = lift([found], name)
    path.write_text(yaml.safe_dump(lifted.policy, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return lifted, pipeline.validate(str(path))


Dump = Callable[[Output], tuple[str, str]]
"""What a device shows for a compiled output: (text, source).  The default is the output itself; Linux tc
loads the batch into a kernel and dumps it (the linux-tc target's read.kernel)."""


def _as_shown(output: Output) -> tuple[str, str]:
    return output.text, output.path


def round_trip(policy: Policy, device: str, suffix: str, workdir: Path, dump: Dump = _as_shown) -> RoundTrip:
    """Compile `device` of `policy`, read the output ending in `suffix` back, lift it to a policy file in
    `workdir`, validate and compile that for the same device, read it back and compare (readback.equiv)."""
    dev = policy.device_map[device]
    output = next(o for o in outputs(policy, device) if o.path.endswith(suffix))
    text, source = dump(output)
    first = readback.read(text, source, dev.platform, device)
    out = RoundTrip(first)
    if first.behaviour is None:
        return out
    path = workdir / f"{device.replace('/', '_')}{suffix.replace('/', '_')}.yaml"
    out.lifted, checked = relift(first.behaviour, f"{policy.name}-imported", path)
    out.diagnostics, out.stage = list(checked.diagnostics), "validate"
    if checked.policy is None or has_errors(checked.diagnostics):
        return out
    out.stage = "compile"
    again = next((o for o in outputs(checked.policy, device) if o.path.endswith(suffix)), None)
    if again is None:
        return out
    text2, source2 = dump(again)
    out.second = readback.read(text2, source2, dev.platform, device)
    out.findings, out.problems = readback.equiv(first, out.second)
    out.stage = "equiv"
    return out
