"""The policy model: frozen dataclasses, numbers only, no vendor words.

Everything a target needs is here in canonical units (bit/s, bytes, microseconds, DSCP integers,
Percent), so targets never parse text again.  Each entity keeps a `where` that maps its fields to their
place in the policy, so any later stage can point a diagnostic at the user's own line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import Enum, IntEnum
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from qosc.classifier import Classifier, Rule
from qosc.marking import DOMAINS, NO_MARKING, Domain, Marking, dscp_mark, ethernet_only
from qosc.units import Percent
from qosc.where import NOWHERE, Where

if TYPE_CHECKING:  # pragma: no cover
    from qosc.hosts.model import Host

# re-exported: model users import them from here
__all__ = ["DOMAINS", "NOWHERE", "Classifier", "Domain", "Marking", "Rule", "Where"]

Rate = int | Percent
"""A rate in bit/s, or a percentage of the interface speed."""
UNCAPPED = "none"  # the policy's `rate-cap: none` (Queue.uncapped)


class Kind(str, Enum):
    """What a service is for; drives built-in defaults and the protection checks."""

    BEST_EFFORT = "best-effort"
    PREMIUM = "premium"
    ASSURED = "assured"
    LBE = "lbe"
    NETWORK_CONTROL = "network-control"
    OTHER = "other"


class Priority(IntEnum):
    """Relative scheduling priority among queues (for excess bandwidth)."""

    LOW = 0
    MEDIUM_LOW = 1
    MEDIUM_HIGH = 2
    HIGH = 3

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", "-")


class Role(str, Enum):
    EDGE = "edge"
    CORE = "core"
    TRANSPARENT = "transparent"


def free_text(value: Any) -> str | None:
    """Free text in canonical form: surrounding white space carries no meaning (and would end a config line)."""
    if not isinstance(value, str):
        return None
    return value.strip() or None


def resolve_rate(rate: Rate | None, speed: int | None) -> int | None:
    """A rate in bit/s on a link of `speed`; None when a percentage meets an unknown speed."""
    if rate is None:
        return None
    if isinstance(rate, Percent):
        return rate.of(speed) if speed is not None else None
    return rate


def rate_percent(rate: Rate | None, speed: int | None) -> float | None:
    """A rate as a percentage of `speed`; None when it cannot be known."""
    if rate is None:
        return None
    if isinstance(rate, Percent):
        return rate.value
    return 100.0 * rate / speed if speed else None


@dataclass(frozen=True)
class Buffer:
    """Queue buffer: a share of the port buffer, or a time at the link rate."""

    percent: Percent | None = None
    time_us: int | None = None


@dataclass(frozen=True)
class Queue:
    share: Rate | None = None
    buffer: Buffer | None = None
    priority: Priority = Priority.LOW
    strict: bool = False
    rate_cap: Rate | None = None
    uncapped: bool = False  # `rate-cap: none`: a strict queue left uncapped on purpose (rate_cap None; QOS046)
    ceiling: Rate | None = None
    shared_with: str | None = None
    aqm: str = "none"
    ecn: bool = False


@dataclass(frozen=True)
class Sls:
    """Declared SLS parameters (targets the operator promises), not derived bounds."""

    ingress: tuple[str, ...] = ()
    egress: tuple[str, ...] = ()
    path: tuple[str, ...] = ()
    rate: int | None = None
    delay_us: int | None = None
    ipdv_us: int | None = None
    loss: Percent | None = None
    quantile: Percent | None = None
    measurement: str | None = None
    schedule: str | None = None
    availability: Percent | None = None
    repair_time_us: int | None = None
    customer: str | None = None


@dataclass(frozen=True)
class Service:
    name: str
    kind: Kind
    dscp: tuple[int, ...]
    queue: Queue
    default: bool = False
    description: str | None = None
    drop_profiles: tuple[tuple[int, str], ...] = ()
    """(drop precedence 1..3, drop profile name) pairs."""
    policer: str | None = None
    transport: str = "mixed"
    rtt_us: int | None = None
    sls: Sls | None = None
    exp: Marking = NO_MARKING
    """MPLS traffic-class values (RFC 3270 EXP / RFC 5462 TC) with their drop precedences."""
    pcp: Marking = NO_MARKING
    """802.1p priority code points with their drop precedences."""
    where: Where = field(default=NOWHERE, compare=False, repr=False)

    @property
    def mark(self) -> int:
        """The code point used when traffic is classified into the service."""
        return self.dscp[0]

    def codes(self, domain: Domain) -> tuple[int, ...]:
        """The service's code points in a marking domain (empty: it is not carried in that domain)."""
        return self.dscp if domain is Domain.DSCP else self.marking(domain).codes

    def marking(self, domain: Domain) -> Marking:
        """The service's values in a 3-bit domain (EXP or PCP) with their drop precedences."""
        return self.exp if domain is Domain.EXP else self.pcp

    def mark_in(self, domain: Domain, precedence: int = 1) -> int | None:
        """What traffic of the service at a drop precedence is marked with in a domain (None: nothing)."""
        return dscp_mark(self.dscp, precedence) if domain is Domain.DSCP else self.marking(domain).mark(precedence)

    @property
    def carries_tcp(self) -> bool:
        return self.transport in ("tcp", "mixed")

    def drop_profile_for(self, precedence: int) -> str | None:
        for level, profile in self.drop_profiles:  # at most three pairs: a scan beats building a dict
            if level == precedence:
                return profile
        return None


@dataclass(frozen=True)
class DropProfile:
    """A RED curve as (fill %, drop %) points; `red` keeps min/max/p when written that way."""

    name: str
    points: tuple[tuple[float, float], ...]
    interpolate: bool = False
    red: tuple[float, float, float] | None = None
    description: str | None = None
    where: Where = field(default=NOWHERE, compare=False, repr=False)

    def thresholds(self) -> tuple[float, float, float]:
        """(min fill %, max fill %, drop % at max) for targets that only know linear RED."""
        if self.red is not None:
            return self.red
        first, last = self.points[0], self.points[-1]
        below = [p for p in self.points if p[1] < 100.0]
        top = below[-1] if below else last
        if top[0] <= first[0]:
            return (first[0], last[0], last[1])
        return (first[0], top[0], top[1])


@dataclass(frozen=True)
class Action:
    """A policer action: transmit, drop, or remark to `dscp` and transmit."""

    kind: str
    dscp: int | None = None


@dataclass(frozen=True)
class Policer:
    name: str
    cir: int
    cbs: int
    pir: int | None = None
    pbs: int | None = None
    ebs: int | None = None
    conform: Action = Action("transmit")
    exceed: Action = Action("drop")
    violate: Action | None = None
    color_aware: bool = False
    description: str | None = None
    where: Where = field(default=NOWHERE, compare=False, repr=False)

    @property
    def algorithm(self) -> str:
        """'trtcm' (RFC 2698), 'srtcm' (RFC 2697) or 'single-rate' (two colours)."""
        if self.pir is not None:
            return "trtcm"
        if self.ebs is not None:
            return "srtcm"
        return "single-rate"

    @property
    def colours(self) -> int:
        return 2 if self.algorithm == "single-rate" else 3

    def actions(self) -> tuple[Action, ...]:
        return tuple(a for a in (self.conform, self.exceed, self.violate) if a is not None)


@dataclass(frozen=True)
class Interface:
    name: str
    role: Role = Role.CORE
    speed: int | None = None
    shape: int | None = None
    trust: tuple[Domain, ...] = (Domain.DSCP,)
    """The markings the interface classifies on, in the order dscp, exp, pcp; () trusts nothing (re-classify)."""
    classifier: str | None = None
    services: tuple[str, ...] = ()
    port_type: str | None = None
    unit: int = 0
    mtu: int = 1500
    local_senders: bool = False
    """Sockets of the device itself send through this interface (a host, a gateway originating transfers)."""
    profile: str | None = None
    description: str | None = None
    encapsulation: tuple[str, ...] = ("ip",)
    """What it carries, in the order ip, mpls, vlan."""
    rewrite: tuple[Domain, ...] = (Domain.DSCP,)
    """The markings written on egress from each packet's service and drop precedence."""
    impose: bool = False
    """Imposes the service's EXP on traffic entering an LSP here (an IP edge of an MPLS network)."""
    default_queueing: bool = False  # egress-queueing: device-default (classified, rewritten, queued by the device)
    where: Where = field(default=NOWHERE, compare=False, repr=False)

    @property
    def mpls(self) -> bool:
        return "mpls" in self.encapsulation

    @property
    def vlan(self) -> bool:
        return "vlan" in self.encapsulation

    @property
    def ethernet_only(self) -> bool:
        """Carries Ethernet frames only, no routed IP (encapsulation vlan alone, no DSCP trusted or rewritten:
        qosc.marking.ethernet_only)."""
        return ethernet_only(self.encapsulation, self.trust, self.rewrite)

    @property
    def rate(self) -> int | None:
        """The egress rate queues share: the shaper if any, else the link speed."""
        return self.shape if self.shape is not None else self.speed

    def settings(self) -> tuple[Any, ...]:
        """Every field but the interface's identity (name, description, source position): interfaces with equal
        settings get the same queues, so a target may lower the first and reuse the result for the others (most
        interfaces of a network share a handful of profiles)."""
        return tuple(map(self.__dict__.__getitem__, _SETTINGS))


_SETTINGS = tuple(f.name for f in fields(Interface) if f.compare and f.name not in ("name", "description"))


@dataclass(frozen=True)
class Device:
    name: str
    platform: str
    interfaces: tuple[Interface, ...]
    address: str | None = None
    description: str | None = None
    where: Where = field(default=NOWHERE, compare=False, repr=False)


@dataclass(frozen=True)
class Policy:
    name: str
    services: tuple[Service, ...]
    drop_profiles: tuple[DropProfile, ...] = ()
    policers: tuple[Policer, ...] = ()
    classifiers: tuple[Classifier, ...] = ()
    devices: tuple[Device, ...] = ()
    hosts: tuple[Host, ...] = ()
    """End hosts and their TCP tuning (qosc.hosts), compiled by host targets such as linux-host."""
    profiles: tuple[str, ...] = ()
    description: str | None = None
    mtu: int = 1500
    rtt_us: int | None = None
    source: str = ""
    tunnel_model: str = "short-pipe"
    """RFC 3270 section 2.6 tunnel model of the network's LSPs: uniform, pipe or short-pipe."""
    where: Where = field(default=NOWHERE, compare=False, repr=False)

    @property
    def has_mpls(self) -> bool:
        return any(i.mpls for d in self.devices for i in d.interfaces)

    @cached_property
    def service_map(self) -> Mapping[str, Service]:
        return MappingProxyType({s.name: s for s in self.services})

    @cached_property
    def drop_profile_map(self) -> Mapping[str, DropProfile]:
        return MappingProxyType({d.name: d for d in self.drop_profiles})

    @cached_property
    def policer_map(self) -> Mapping[str, Policer]:
        return MappingProxyType({p.name: p for p in self.policers})

    @cached_property
    def classifier_map(self) -> Mapping[str, Classifier]:
        return MappingProxyType({c.name: c for c in self.classifiers})

    @cached_property
    def device_map(self) -> Mapping[str, Device]:
        return MappingProxyType({d.name: d for d in self.devices})

    @property
    def default_service(self) -> Service | None:
        return found[0] if len(found := [s for s in self.services if s.default]) == 1 else None

    @cached_property
    def _services_on(self) -> dict[tuple[str, ...], tuple[Service, ...]]:
        return {}

    def services_on(self, interface: Interface) -> tuple[Service, ...]:
        """The services scheduled on an interface, in policy order (memoised per name set)."""
        key = interface.services
        found = self._services_on.get(key)
        if found is None:
            names = set(key)
            found = self._services_on[key] = tuple(s for s in self.services if s.name in names)
        return found

    def queue_owner(self, service: Service) -> Service:
        """The service whose queue carries `service` (itself unless shared-with)."""
        seen = {service.name}
        while service.queue.shared_with and service.queue.shared_with in self.service_map:
            service = self.service_map[service.queue.shared_with]
            if service.name in seen:
                break
            seen.add(service.name)
        return service
