"""What the checks that look across devices need of each device, and the summary of a whole network.

A device contributes a `Part`: the link speeds and MTUs of its interfaces,
the (service, speed) pairs they carry, the (marking domain, service) pairs
they carry in a 3-bit domain, its MPLS core interfaces (those that classify
on EXP) and its claims (a diagnostic that the network reports once, at the
first device that makes it).  A `Part` depends on the device and the shared
sections of the policy only, so an incremental compile (qosc.cache) keeps the
parts of the devices that did not change and computes the others; the
`Network` is their sum, in device order.

Device rules (qosc.checks) may read one thing of the network: its `context`,
the MPLS cores (an edge that imposes EXP is told whether some core schedules
each service).  When the context changes, every device is checked again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from qosc.diagnostics import Diagnostic, Location
from qosc.model import Device, Domain, Interface, Policy

THREE_BIT = (Domain.EXP, Domain.PCP)


def carries(iface: Interface, domain: Domain) -> bool:
    """Whether the interface reads or writes `domain` (trusts it, rewrites it, or imposes EXP)."""
    return domain in iface.trust or domain in iface.rewrite or (domain is Domain.EXP and iface.impose)


Claim = tuple[tuple[Any, ...], Diagnostic]
"""A diagnostic the network reports once, at the first device (in policy order) that claims its key."""
Cores = tuple[tuple[str, tuple[str, ...]], ...]
"""('device:interface', services) of every interface that classifies on EXP, in policy order."""


@dataclass(frozen=True)
class Part:
    """What one device contributes to the network rules (see the module docstring)."""

    rates: frozenset[int] = frozenset()
    mtu: int = 0
    carried: frozenset[tuple[str, int]] = frozenset()
    uses: frozenset[tuple[str, str]] = frozenset()
    """(marking domain value, service) of the services carried over an interface that carries the domain."""
    cores: Cores = ()
    claims: tuple[Claim, ...] = ()


@dataclass(frozen=True)
class Network:
    """The sum of every device's part, and the name of every device with where its key is."""

    names: tuple[tuple[str, Location | None], ...] = ()
    rates: frozenset[int] = frozenset()
    mtu: int = 0
    carried: frozenset[tuple[str, int]] = frozenset()
    uses: frozenset[tuple[str, str]] = frozenset()
    cores: Cores = ()
    claims: tuple[Diagnostic, ...] = ()
    """The first claim of each key."""

    @classmethod
    def of(cls, parts: Iterable[Part], names: Sequence[tuple[str, Location | None]]) -> Network:
        rates: set[int] = set()
        carried: set[tuple[str, int]] = set()
        uses: set[tuple[str, str]] = set()
        cores: list[tuple[str, tuple[str, ...]]] = []
        claims: dict[tuple[Any, ...], Diagnostic] = {}
        mtu = 0
        for p in parts:
            rates |= p.rates
            carried |= p.carried
            uses |= p.uses
            cores.extend(p.cores)
            mtu = max(mtu, p.mtu)
            for key, diag in p.claims:
                claims.setdefault(key, diag)
        return cls(tuple(names), frozenset(rates), mtu, frozenset(carried), frozenset(uses), tuple(cores),
                   tuple(claims.values()))

    @property
    def context(self) -> Cores:
        """What device rules may read of the network (see the module docstring)."""
        return self.cores


@dataclass
class Scratch:
    """What the rules of one run share between devices: the network's context and their memos."""

    policy: Policy
    context: Cores = ()
    memo: dict[str, dict[Any, Any]] = field(default_factory=dict)

    def table(self, name: str) -> dict[Any, Any]:
        return self.memo.setdefault(name, {})


def cores_of(device: Device) -> Cores:
    return tuple((f"{device.name}:{i.name}", i.services) for i in device.interfaces if Domain.EXP in i.trust)



def part_of(scratch: Scratch, device: Device, claimers: Sequence[Any], cores: Cores | None = None) -> Part:
    """The device's part: its interfaces' plain facts (memoised per interface shape), its cores (`cores` when
    known already), and the claims of `claimers` (functions (scratch, device) -> claims)."""
    shapes = scratch.table("part")
    rates: set[int] = set()
    carried: set[tuple[str, int]] = set()
    uses: set[tuple[str, str]] = set()
    mtu = 0
    for iface in device.interfaces:
        rate = iface.rate
        shape = (rate, iface.services, iface.trust, iface.rewrite, iface.impose)
        facts = shapes.get(shape)
        if facts is None:
            facts = shapes[shape] = (
                frozenset((s, rate) for s in iface.services) if rate else frozenset(),
                frozenset((d.value, s) for d in THREE_BIT if carries(iface, d) for s in iface.services))
        if rate:
            rates.add(rate)
            carried |= facts[0]
        if facts[1]:
            uses |= facts[1]
        if iface.mtu > mtu:
            mtu = iface.mtu
    claims = tuple(c for claim in claimers for c in claim(scratch, device))
    return Part(frozenset(rates), mtu, frozenset(carried), frozenset(uses),
                cores_of(device) if cores is None else cores, claims)
