"""Semantic checks: small rules with stable codes, all run, every finding collected.

Rules come in five kinds, by what they read, so that a change to one device
checks that device again and nothing else (qosc.cache keeps the rest):

- a policy rule, `policy -> diagnostics`, reads the shared sections (services,
  policers, classifiers, profiles...), never a device;
- a device rule, `(scratch, device) -> diagnostics`, reads one device, the
  shared sections (`scratch.policy`) and the network's context
  (`scratch.context`, see qosc.checks.network);
- a claim, `(scratch, device) -> (key, diagnostic)...`: a device rule whose
  finding the network reports once, at the first device that claims the key;
- a network rule, `(policy, network) -> diagnostics`, reads the sum of every
  device's part (qosc.checks.network: speeds, MTUs, services carried per
  marking domain, names), never a device;
- a whole rule, `policy -> diagnostics`, may read any device: the SLS paths and
  the hosts' paths.  A policy that declares either is checked whole
  (`needs_whole`), never one device at a time.

Adding a rule means adding a function to its module's tuple of that kind;
nothing else changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from qosc.checks import (
    capacity,
    dropprofiles,
    dscp_rules,
    ethernet,
    hosts,
    lbe,
    marking,
    platform,
    policers,
    references,
    roles,
    sls,
    unmatched,
)
from qosc.checks.network import Claim, Cores, Network, Part, Scratch, cores_of, part_of
from qosc.diagnostics import Diagnostic, Location
from qosc.model import Device, Policy

Check = Callable[[Policy], Iterable[Diagnostic]]
DeviceCheck = Callable[[Scratch, Device], Iterable[Diagnostic]]
Claimer = Callable[[Scratch, Device], Iterable[Claim]]
NetworkCheck = Callable[[Policy, Network], Iterable[Diagnostic]]

RULES: tuple[Check, ...] = (
    *references.RULES,
    *dscp_rules.RULES,
    *ethernet.RULES,
    *unmatched.RULES,
    *policers.RULES,
    *dropprofiles.RULES,
)
DEVICE_RULES: tuple[DeviceCheck, ...] = (
    *references.DEVICE_RULES,
    *marking.DEVICE_RULES,
    *capacity.DEVICE_RULES,
    *roles.DEVICE_RULES,
    *ethernet.DEVICE_RULES,
    *unmatched.DEVICE_RULES,
    *platform.DEVICE_RULES,
)
CLAIMS: tuple[Claimer, ...] = (*marking.CLAIMS,)
NETWORK_RULES: tuple[NetworkCheck, ...] = (
    *references.NETWORK_RULES,
    *marking.NETWORK_RULES,
    *capacity.NETWORK_RULES,
    *lbe.NETWORK_RULES,
    *policers.NETWORK_RULES,
)
WHOLE_RULES: tuple[Check, ...] = (*sls.RULES, *hosts.RULES)

def needs_whole(policy: Policy) -> bool:
    """Whether a whole rule reads devices for this policy (hosts, or a service with SLS targets)."""
    return bool(policy.hosts) or any(s.sls is not None for s in policy.services)


@dataclass
class Checked:
    """Every finding, and what each device contributed (what an incremental compile keeps of it)."""

    diagnostics: list[Diagnostic]
    """Deduplicated and in file order."""
    network: Network
    parts: dict[str, Part]
    """Of the devices checked now (see `check`)."""
    findings: dict[str, list[Diagnostic]]
    """The device rules' findings, of the devices checked now."""


def run_checks(policy: Policy) -> list[Diagnostic]:
    """Every diagnostic of every rule, deduplicated and in file order."""
    return check(policy).diagnostics


def check(policy: Policy, names: Sequence[tuple[str, Location | None]] | None = None,
          parts: Mapping[str, Part] | None = None,
          findings: Mapping[str, list[Diagnostic]] | None = None) -> Checked:
    """Run every rule on `policy`.

    `names` (default: the policy's devices, where their keys are) are every
    device of the network in policy order; those the policy does not hold are
    known by their `parts` and device-rule `findings` only (an incremental
    compile's: valid as long as the network's context is what it was when they
    were found; the caller compares).
    """
    if names is None:
        names = list(references.named(policy, "devices", policy.devices))
    known = parts or {}
    held = {d.name: cores_of(d) for d in policy.devices}
    context = tuple(c for n, _ in names for c in (held[n] if n in held else known[n].cores))
    done = _devices(Scratch(policy, context), policy.devices, held)
    fresh = {d.name: p for d, (p, _) in zip(policy.devices, done, strict=True)}
    own = {d.name: diags for d, (_, diags) in zip(policy.devices, done, strict=True)}
    network = Network.of((fresh[n] if n in fresh else known[n] for n, _ in names), names)
    found: list[Diagnostic] = []
    for rule in RULES:
        found.extend(rule(policy))
    for net_rule in NETWORK_RULES:
        found.extend(net_rule(policy, network))
    for rule in WHOLE_RULES:
        found.extend(rule(policy))
    found.extend(network.claims)
    for diags in own.values():
        found.extend(diags)
    for name, diags in (findings or {}).items():
        if name not in own:
            found.extend(diags)
    return Checked(sorted(set(found), key=Diagnostic.sort_key), network, fresh, own)


def _devices(scratch: Scratch, devices: Sequence[Device],
             cores: Mapping[str, Cores]) -> list[tuple[Part, list[Diagnostic]]]:
    """(part, device-rule findings) of each device.  (One process: 10,000 devices take half a second, less
    than a second process costs to send its half back.)"""
    out = []
    for device in devices:
        diags: list[Diagnostic] = []
        for rule in DEVICE_RULES:
            diags.extend(rule(scratch, device))
        out.append((part_of(scratch, device, CLAIMS, cores[device.name]), diags))
    return out


__all__ = ["CLAIMS", "DEVICE_RULES", "NETWORK_RULES", "RULES", "WHOLE_RULES", "Checked", "Part", "Scratch", "check",
           "needs_whole", "run_checks"]

