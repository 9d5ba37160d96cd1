"""The end-host model: frozen dataclasses for `hosts:` (like qosc.model), with no arithmetic.

Kept apart from the sizing (qosc.hosts.buffers, qosc.hosts.planning) and the
builder (qosc.hosts.builder) so every stage can import the types alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from qosc.where import NOWHERE, Where

SYSCTL_KEYS = ("rmem_max", "wmem_max", "tcp_rmem", "tcp_wmem", "tcp_congestion_control", "default_qdisc")
SYSCTL_NAMES: Mapping[str, str] = MappingProxyType({
    "rmem_max": "net.core.rmem_max", "wmem_max": "net.core.wmem_max",
    "tcp_rmem": "net.ipv4.tcp_rmem", "tcp_wmem": "net.ipv4.tcp_wmem",
    "tcp_congestion_control": "net.ipv4.tcp_congestion_control", "default_qdisc": "net.core.default_qdisc",
})


@dataclass(frozen=True)
class Triple:
    """A tcp_rmem / tcp_wmem triple in bytes: the minimum, the initial size and the autotuning maximum."""

    min: int
    default: int
    max: int

    def __str__(self) -> str:
        return f"{self.min} {self.default} {self.max}"

    @property
    def ordered(self) -> bool:
        return self.min <= self.default <= self.max


@dataclass(frozen=True)
class TcpSettings:
    """Buffer sysctls (bytes) and algorithm choices; None = not given."""

    rmem_max: int | None = None
    wmem_max: int | None = None
    tcp_rmem: Triple | None = None
    tcp_wmem: Triple | None = None
    tcp_congestion_control: str | None = None
    default_qdisc: str | None = None
    where: Where = field(default=NOWHERE, compare=False, repr=False)

    def given(self) -> tuple[str, ...]:
        return tuple(k for k in SYSCTL_KEYS if getattr(self, k) is not None)


@dataclass(frozen=True)
class HostInterface:
    name: str
    speed: int
    txqueuelen: int | None = None
    description: str | None = None
    where: Where = field(default=NOWHERE, compare=False, repr=False)


@dataclass(frozen=True)
class HostPath:
    """A path the host transfers over: the peer, the round-trip time, and the rate expected (None = derived)."""

    peer: str
    rtt_us: int
    rate: int | None = None
    service: str | None = None
    description: str | None = None
    where: Where = field(default=NOWHERE, compare=False, repr=False)


@dataclass(frozen=True)
class Host:
    name: str
    platform: str
    interfaces: tuple[HostInterface, ...]
    paths: tuple[HostPath, ...] = ()
    overrides: TcpSettings = TcpSettings()
    current: TcpSettings | None = None
    description: str | None = None
    where: Where = field(default=NOWHERE, compare=False, repr=False)

    @property
    def target_platform(self) -> str:
        """The platform label host targets serve: 'linux' hosts -> 'linux-host' (never a device platform)."""
        return f"{self.platform}-host"

    @property
    def speed(self) -> int:
        """The fastest interface: no single flow of the host goes faster."""
        return max((i.speed for i in self.interfaces), default=0)
