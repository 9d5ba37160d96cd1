"""The per-host plan: every sysctl sized from the host's paths, each value with the sentence saying why.

What the linux-host target renders, the checks (qosc.checks.hosts) reason about and the SLS quotes
(service_requirements); apart from the model and the arithmetic so the policy-dependent part stays in one place.
"""

from __future__ import annotations

from dataclasses import dataclass

from qosc.hosts.buffers import HEADROOM, STOCK_RMEM, STOCK_WMEM, mbit, txqueuelen_plan, window_for
from qosc.hosts.model import SYSCTL_KEYS, SYSCTL_NAMES, Host, HostInterface, HostPath, TcpSettings, Triple
from qosc.model import Policy


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
    queues = tuple(txqueuelen_plan(i) for i in host.interfaces)
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


def service_requirements(policy: Policy, service: str) -> list[tuple[Host, PathNeed]]:
    """For the SLS: every declared host path that uses `service`, with the window each end needs."""
    return [(host, need) for host in policy.hosts for need in plan(policy, host).needs if need.path.service == service]
