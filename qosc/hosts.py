"""End hosts: the model, its builder, and the TCP buffer plan sized from the bandwidth-delay product.

A Diffserv service that promises a rate (Assured Rate, an LBE bulk class)
only delivers it if the hosts at both ends keep a window of rate x RTT in
flight; stock buffers of the 2000s capped long-distance transfers at 5-10% of a
gigabit path (domain brief 4.5).  The policy declares hosts under `hosts:` with
the paths they transfer over; this module turns that into frozen dataclasses
(like qosc.model) and computes, once, the sysctl values every later stage uses:
the checks (qosc.checks.hosts), the linux-host target and the SLS.

Formulas (all integers, bytes and bit/s):

    window(path)  = ceil(rate x RTT / 8)              the bandwidth-delay product
    buffer(path)  = HEADROOM x window(path)           HEADROOM = 2
    tcp_Xmem max  = max(largest buffer, stock kernel max, the host's current max)
    net.core.Xmem_max = tcp_Xmem max

HEADROOM = 2 because a socket buffer holds kernel bookkeeping as well as
payload: with net.ipv4.tcp_adv_win_scale = 1 (the default since Linux 3.4) the
receiver advertises only half its buffer as window, kernels since 6.6 replace
that fixed ratio by the measured payload/truesize ratio (at most about 1/2 to
3/4 of the buffer for 1500-byte frames), the send side is sized the same way
(tcp_sndbuf_expand reserves two segments of truesize per packet of cwnd), and
setsockopt(SO_RCVBUF/SO_SNDBUF) doubles the request for the same reason.
So a buffer of 2 x BDP lets the window itself reach the BDP.

Which buffer caps which socket:
  - autotuned sockets (most applications) grow up to tcp_rmem/tcp_wmem max, so
    their window is min(tcp_rmem max, tcp_wmem max) / HEADROOM;
  - applications that size their own buffers (GridFTP -tcp-bs, iperf -w, dCache
    movers) are clamped to net.core.rmem_max / wmem_max, which the kernel then
    doubles, so their window is min(rmem_max, wmem_max).
Throughput cap = window / RTT.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from qosc.diagnostics import Location, error
from qosc.model import NOWHERE, Policy, Where, free_text

if TYPE_CHECKING:  # pragma: no cover - typing only; build.py imports this module
    from qosc.build import Builder

HEADROOM = 2
"""Socket buffer = HEADROOM x window (kernel bookkeeping overhead; see the module docstring)."""

INT_MAX = 2**31 - 1
"""Largest value the kernel accepts for every buffer sysctl (proc_dointvec_minmax on an int)."""

SOCK_MIN_RCVBUF = 2304
SOCK_MIN_SNDBUF = 4608
"""Smallest net.core.rmem_max / wmem_max the kernel accepts on x86-64 (2048 + aligned sizeof(sk_buff), doubled
for send); they vary slightly with the architecture and kernel configuration."""

STOCK_RMEM = (4096, 131072, 33554432)
STOCK_WMEM = (4096, 16384, 4194304)
"""Stock tcp_rmem / tcp_wmem of current Linux (net/ipv4/tcp.c tcp_init: 128 KiB initial receive buffer since 4.20,
receive max min(32 MiB, memory share), send max min(4 MiB, memory share)).  qosc never generates less than these,
so a drop-in sized for a short path cannot shrink the buffers of other, undeclared paths."""

TXQUEUELEN_PER_GBIT = 2000
TXQUEUELEN_MIN = 1000
TXQUEUELEN_MAX = 10000
"""txqueuelen (packets) = 2000 per Gbit/s, the source's value at 1 Gbit/s (it avoided send stalls), scaled linearly
with speed so the queue keeps the same drain time (2000 x 1500 B at 1 Gbit/s = 24 ms), clamped between the kernel
default 1000 and 10000 (the usual recommendation for 10 Gbit/s hosts: a longer FIFO adds latency, not throughput)."""

SYSCTL_KEYS = ("rmem_max", "wmem_max", "tcp_rmem", "tcp_wmem", "tcp_congestion_control", "default_qdisc")
SYSCTL_NAMES: Mapping[str, str] = MappingProxyType({
    "rmem_max": "net.core.rmem_max", "wmem_max": "net.core.wmem_max",
    "tcp_rmem": "net.ipv4.tcp_rmem", "tcp_wmem": "net.ipv4.tcp_wmem",
    "tcp_congestion_control": "net.ipv4.tcp_congestion_control", "default_qdisc": "net.core.default_qdisc",
})


# -- model -------------------------------------------------------------------


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


# -- arithmetic --------------------------------------------------------------


def window_for(rate: int, rtt_us: int) -> int:
    """Bytes in flight to sustain `rate` bit/s over `rtt_us`: ceil(rate x RTT / 8), the bandwidth-delay product."""
    return -(-rate * rtt_us // 8_000_000)


def cap_for(window: int, rtt_us: int) -> int:
    """The highest rate (bit/s) a window of `window` bytes allows over `rtt_us`: window / RTT."""
    return window * 8_000_000 // rtt_us if rtt_us > 0 else 0


def mbit(bps: float) -> str:
    """A rate as '72.3 Mbit/s' (one decimal) for messages and comments."""
    text = f"{bps / 1e6:.1f}"
    return f"{text.removesuffix('.0')} Mbit/s"


def txqueuelen_for(speed: int) -> int:
    """Transmit queue length for a link speed (see TXQUEUELEN_PER_GBIT)."""
    scaled = round(TXQUEUELEN_PER_GBIT * speed / 1_000_000_000)
    return max(TXQUEUELEN_MIN, min(TXQUEUELEN_MAX, scaled))


def autotuned_window(settings: TcpSettings) -> int | None:
    """Window of sockets the kernel autotunes: min(tcp_rmem max, tcp_wmem max) / HEADROOM (None if unknown)."""
    known = [t.max for t in (settings.tcp_rmem, settings.tcp_wmem) if t is not None]
    return min(known) // HEADROOM if known else None


def explicit_window(settings: TcpSettings) -> int | None:
    """Window of sockets that set SO_RCVBUF/SO_SNDBUF themselves: min(rmem_max, wmem_max) (None if unknown)."""
    known = [v for v in (settings.rmem_max, settings.wmem_max) if v is not None]
    return min(known) if known else None


# -- the plan: what the linux-host target renders and the checks reason about --


@dataclass(frozen=True)
class PathNeed:
    """One path's requirement: the rate it must reach, the window and the buffer (HEADROOM x window)."""

    path: HostPath
    rate: int
    rate_source: str
    window: int
    buffer: int

    @property
    def formula(self) -> str:
        """'750 Mbit/s x 14.5 ms / 8 = 1359375 B window, x 2 headroom = 2718750 B'."""
        return (f"{mbit(self.rate)} x {self.path.rtt_us / 1000:g} ms / 8 = {self.window} B window, "
                f"x {HEADROOM} headroom = {self.buffer} B")


@dataclass(frozen=True)
class Value:
    """One generated sysctl value and the sentence that says where it came from."""

    key: str
    value: int | Triple | str
    why: str
    overridden: bool = False

    @property
    def sysctl(self) -> str:
        return SYSCTL_NAMES[self.key]


@dataclass(frozen=True)
class HostPlan:
    host: Host
    needs: tuple[PathNeed, ...]
    values: tuple[Value, ...]
    settings: TcpSettings
    """The effective values (overrides merged with the generated ones), for the checks."""
    txqueuelen: tuple[tuple[HostInterface, int, str], ...]

    @property
    def largest(self) -> PathNeed | None:
        return max(self.needs, key=lambda n: (n.window, n.path.peer), default=None)


def path_rate(policy: Policy, host: Host, path: HostPath) -> tuple[int, str]:
    """The rate a path must reach and where that number came from."""
    if path.rate is not None:
        return path.rate, "the path's rate"
    service = policy.service_map.get(path.service) if path.service else None
    if service is not None and service.sls is not None and service.sls.rate is not None:
        return service.sls.rate, f"service '{service.name}' sls.rate"
    return host.speed, "the host's fastest interface"


def _need(policy: Policy, host: Host, path: HostPath) -> PathNeed:
    rate, source = path_rate(policy, host, path)
    window = window_for(rate, path.rtt_us)
    return PathNeed(path, rate, source, window, HEADROOM * window)


def _label(host: Host, need: PathNeed) -> str:
    service = f", service {need.path.service}" if need.path.service else ""
    return f"path {host.name} -> {need.path.peer} ({mbit(need.rate)} from {need.rate_source}{service})"


def _sized(host: Host, need: PathNeed | None, stock: int, current: int | None, what: str) -> tuple[int, str]:
    """max(largest buffer, stock kernel value, current value) and the sentence explaining it."""
    base = need.buffer if need else 0
    value = max(base, stock, current or 0)
    why = f"{_label(host, need)}: {need.formula}" if need else "no paths declared"
    if value == base and need:
        return value, why
    if value == (current or 0) and value > stock:
        return value, f"{why}; kept at the host's current {what} {value} B (qosc never lowers a buffer)"
    return value, f"{why}; raised to the stock Linux {what} {stock} B (qosc never lowers a buffer)"


def plan(policy: Policy, host: Host) -> HostPlan:
    """Size every sysctl of one host from its paths; overrides win, and every value says why."""
    needs = tuple(_need(policy, host, p) for p in host.paths if p.rtt_us > 0)
    largest = max(needs, key=lambda n: (n.window, n.path.peer), default=None)
    over, cur = host.overrides, host.current or TcpSettings()
    values: dict[str, Value] = {}

    def override(key: str) -> bool:
        v = getattr(over, key)
        if v is None:
            return False
        values[key] = Value(key, v, f"override from the policy (overrides.{key})", True)
        return True

    if not override("tcp_wmem"):
        top, why = _sized(host, largest, STOCK_WMEM[2], cur.tcp_wmem.max if cur.tcp_wmem else None, "send max")
        lo = max(STOCK_WMEM[0], cur.tcp_wmem.min if cur.tcp_wmem else 0)
        mid = max(STOCK_WMEM[1], cur.tcp_wmem.default if cur.tcp_wmem else 0)
        values["tcp_wmem"] = Value("tcp_wmem", Triple(min(lo, top), min(mid, top), top), why)
    send_max = _max_of(values["tcp_wmem"].value)
    if not override("tcp_rmem"):
        top, why = _sized(host, largest, STOCK_RMEM[2], cur.tcp_rmem.max if cur.tcp_rmem else None, "receive max")
        if top < send_max:
            top, why = send_max, f"{why}; raised to the send max {send_max} B (receive buffers never below send)"
        lo = max(STOCK_RMEM[0], cur.tcp_rmem.min if cur.tcp_rmem else 0)
        mid = max(STOCK_RMEM[1], cur.tcp_rmem.default if cur.tcp_rmem else 0)
        values["tcp_rmem"] = Value("tcp_rmem", Triple(min(lo, top), min(mid, top), top), why)
    recv_max = _max_of(values["tcp_rmem"].value)
    send_core = _core(values, over, cur, "wmem_max", send_max, "tcp_wmem")
    _core(values, over, cur, "rmem_max", max(recv_max, send_core), "tcp_rmem")
    override("tcp_congestion_control")
    override("default_qdisc")
    ordered = tuple(values[k] for k in SYSCTL_KEYS if k in values)
    settings = TcpSettings(**{v.key: v.value for v in ordered}, where=over.where)  # type: ignore[arg-type]
    queues = tuple(_txqueuelen(i) for i in host.interfaces)
    return HostPlan(host, needs, ordered, settings, queues)


def _core(values: dict[str, Value], over: TcpSettings, cur: TcpSettings, key: str, floor: int, tcp_key: str) -> int:
    """net.core.rmem_max / wmem_max: the override, else the tcp max (never below the current value)."""
    given = getattr(over, key)
    if given is not None:
        values[key] = Value(key, given, f"override from the policy (overrides.{key})", True)
        return int(given)
    current = getattr(cur, key) or 0
    value = max(floor, current)
    if value == current and value > floor:
        why = f"kept at the host's current value {value} B (qosc never lowers a buffer)"
    elif floor > _max_of(values[tcp_key].value):
        why = f"raised to net.core.wmem_max {floor} B (receive buffers never below send)"
    else:
        why = (f"= the {tcp_key} max, so an application that sets its own socket buffer may ask for as much as "
               "autotuning gives")
    values[key] = Value(key, value, why)
    return value


def _max_of(value: int | Triple | str) -> int:
    return value.max if isinstance(value, Triple) else int(value)


def _txqueuelen(iface: HostInterface) -> tuple[HostInterface, int, str]:
    if iface.txqueuelen is not None:
        return iface, iface.txqueuelen, "override from the policy"
    value = txqueuelen_for(iface.speed)
    why = (f"{TXQUEUELEN_PER_GBIT} packets per Gbit/s x {iface.speed / 1e9:g} Gbit/s "
           f"(source: {TXQUEUELEN_PER_GBIT} at 1 Gbit/s avoided send stalls)")
    if value != round(TXQUEUELEN_PER_GBIT * iface.speed / 1e9):
        why += f", clamped to {TXQUEUELEN_MIN}..{TXQUEUELEN_MAX}"
    return iface, value, why


def service_requirements(policy: Policy, service: str) -> list[tuple[Host, PathNeed]]:
    """For the SLS: every declared host path that uses `service`, with the window each end needs."""
    return [(host, need) for host in policy.hosts for need in plan(policy, host).needs if need.path.service == service]


# -- builder -----------------------------------------------------------------


def _triple(b: Builder, raw: Any, loc: Location | None) -> Triple | None:
    """[min, default, max] sizes, or the text sysctl prints ('4096 87380 174760')."""
    items = raw.split() if isinstance(raw, str) else list(raw)
    if len(items) != 3:
        b.diagnostics.append(error("QOS014", f"a buffer triple needs three sizes (min default max), got "
                                   f"{len(items)}", loc, "e.g. [4096, 131072, 16MB] or '4096 131072 16777216'"))
        return None
    sizes = [b.size(v, loc) for v in items]
    if any(s is None for s in sizes):
        return None
    return Triple(*sizes)  # type: ignore[arg-type]


def _settings(b: Builder, raw: Mapping[str, Any] | None, parent: Where, key: str) -> TcpSettings:
    raw = raw or {}
    where = b.where(raw) if raw else Where(parent.at(key))
    at = where.at
    return TcpSettings(
        rmem_max=b.size(raw.get("rmem_max"), at("rmem_max")),
        wmem_max=b.size(raw.get("wmem_max"), at("wmem_max")),
        tcp_rmem=_triple(b, raw["tcp_rmem"], at("tcp_rmem")) if "tcp_rmem" in raw else None,
        tcp_wmem=_triple(b, raw["tcp_wmem"], at("tcp_wmem")) if "tcp_wmem" in raw else None,
        tcp_congestion_control=raw.get("tcp_congestion_control"),
        default_qdisc=raw.get("default_qdisc"),
        where=where,
    )


def build_host(b: Builder, name: str, raw: Mapping[str, Any]) -> Host:
    where = b.where(raw)
    interfaces = []
    for iname, iraw in (raw.get("interfaces") or {}).items():
        iwhere = b.where(iraw)
        speed = b.rate(iraw.get("speed"), iwhere.at("speed"), allow_percent=False)
        interfaces.append(HostInterface(iname, speed if isinstance(speed, int) else 0, iraw.get("txqueuelen"),
                                        free_text(iraw.get("description")), iwhere))
    paths = []
    for praw in raw.get("paths") or []:
        pwhere = b.where(praw)
        rate = b.rate(praw.get("rate"), pwhere.at("rate"), allow_percent=False)
        paths.append(HostPath(
            peer=praw["peer"], rtt_us=b.time(praw.get("rtt"), pwhere.at("rtt")) or 0,
            rate=rate if isinstance(rate, int) else None, service=praw.get("service"),
            description=free_text(praw.get("description")), where=pwhere,
        ))
    return Host(
        name=name, platform=raw["platform"], interfaces=tuple(interfaces), paths=tuple(paths),
        overrides=_settings(b, raw.get("overrides"), where, "overrides"),
        current=_settings(b, raw["current"], where, "current") if "current" in raw else None,
        description=free_text(raw.get("description")), where=where,
    )


def build_hosts(b: Builder, tree: Mapping[str, Any]) -> tuple[Host, ...]:
    """Every host of a schema-valid tree; bad values become diagnostics in `b`."""
    section = tree.get("hosts") or {}
    return tuple(build_host(b, name, raw) for name, raw in section.items()) if isinstance(section, dict) else ()


__all__ = [
    "HEADROOM",
    "INT_MAX",
    "Host",
    "HostInterface",
    "HostPath",
    "HostPlan",
    "PathNeed",
    "TcpSettings",
    "Triple",
    "Value",
    "autotuned_window",
    "build_hosts",
    "cap_for",
    "explicit_window",
    "mbit",
    "plan",
    "service_requirements",
    "txqueuelen_for",
    "window_for",
]
