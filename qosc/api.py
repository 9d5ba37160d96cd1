"""The library API: validate and compile policies.  The CLI only wraps these.

Each call returns its diagnostics instead of printing or exiting, so CI
scripts, editors and tests get the same answers as the command line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from qosc import load, schema
from qosc.build import build
from qosc.checks import run_checks
from qosc.diagnostics import Diagnostic, QoscError, error, has_errors
from qosc.model import Device, Policy
from qosc.render import UnsafeValue
from qosc.targets.base import Output, SelfCheckError, Target
from qosc.targets.registry import for_platform, targets


@dataclass
class Result:
    """What a validation produced: the model (when it could be built) and every diagnostic."""

    path: str
    policy: Policy | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.policy is not None and not has_errors(self.diagnostics)


def load_tree(path: str | Path) -> tuple[object | None, list[Diagnostic]]:
    try:
        return load.load_policy(path), []
    except QoscError as exc:
        return None, exc.diagnostics


def validate(path: str | Path, with_targets: bool = True) -> Result:
    """Load, schema-check, build and check one policy; never raises on bad input."""
    result = Result(str(path))
    tree, diags = load_tree(path)
    result.diagnostics.extend(diags)
    if tree is None:
        return result
    schema_diags = schema.validate(tree, lambda p, key=False: load.locate(tree, p, key=key))
    result.diagnostics.extend(schema_diags)
    if schema_diags:
        return result
    policy, build_diags = build(tree, source=str(path))  # type: ignore[arg-type]
    result.policy = policy
    result.diagnostics.extend(build_diags)
    result.diagnostics.extend(run_checks(policy))
    if with_targets and not has_errors(build_diags):
        # a value that did not parse is already reported; target checks on it would only echo it
        result.diagnostics.extend(target_checks(policy))
    result.diagnostics = sorted(set(result.diagnostics), key=Diagnostic.sort_key)
    return result


def target_checks(policy: Policy) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for device, platform in _units(policy):
        for target in for_platform(platform):
            found.extend(target.check(policy, device))
    return found


def _units(policy: Policy) -> list[tuple[Any, str]]:
    """What targets compile: devices by platform, and hosts by their host-target label (linux -> linux-host)."""
    return [(d, d.platform) for d in policy.devices] + [(h, h.target_platform) for h in policy.hosts]


def select(policy: Policy, target_names: Sequence[str] = (), devices: Sequence[str] = ()) -> list[tuple[Target, Device]]:
    """The (target, device) pairs to compile: every device's targets, filtered."""
    pairs = []
    for device, platform in _units(policy):
        if devices and device.name not in devices:
            continue
        for target in for_platform(platform):
            if target_names and target.name not in target_names:
                continue
            pairs.append((target, device))
    return pairs


def render_outputs(policy: Policy, pairs: Iterable[tuple[Target, Device]]) -> tuple[list[Output], list[Diagnostic]]:
    """Render every (target, device); unsafe values and self-check failures become diagnostics."""
    outputs: list[Output] = []
    diags: list[Diagnostic] = []
    for target, device in pairs:
        try:
            for out in target.outputs(policy, device):
                outputs.append(Output(f"{target.name}/{out.path}", out.text))
        except UnsafeValue as exc:
            diags.append(error("QOS100", f"{device.name} ({target.name}): {exc}", device.where.loc,
                               "remove control and line-break characters from names and descriptions"))
        except SelfCheckError as exc:
            diags.append(error("QOS199", f"internal error: {target.name} output for {device.name} failed its "
                               f"self-check: {exc}", device.where.loc, "this is a qosc bug; please report it"))
    return outputs, diags


def compile_policy(result: Result, target_names: Sequence[str] = (), devices: Sequence[str] = ()) -> list[Output]:
    """Outputs for a validated policy; adds diagnostics to `result` (nothing to write on error)."""
    if not result.ok or result.policy is None:
        return []
    known = targets()
    unknown = [t for t in target_names if t not in known]
    if unknown:
        result.diagnostics.append(error("QOS101", f"unknown target {', '.join(unknown)}",
                                        None, f"targets: {', '.join(known) or 'none registered'}"))
        return []
    hosts = {h.name for h in result.policy.hosts}
    missing = [d for d in devices if d not in result.policy.device_map and d not in hosts]
    if missing:
        result.diagnostics.append(error("QOS102", f"no device {', '.join(missing)} in {result.path}", None,
                                        f"devices: {', '.join(result.policy.device_map)}"))
        return []
    outputs, diags = render_outputs(result.policy, select(result.policy, target_names, devices))
    result.diagnostics.extend(diags)
    return [] if diags else outputs


def known_targets() -> list[str]:
    return list(targets())
