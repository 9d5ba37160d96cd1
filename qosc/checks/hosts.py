"""QOS150-QOS159: end hosts whose TCP buffers cannot carry the rate their paths expect.

A TCP flow's throughput is capped by window / RTT (domain brief 4.5): the
2009 grid deployment found transfers 10-20x slower than the link until four
sysctl lines raised the buffers, and a 6 MB receive / 8 MB send pair degraded
throughput, so receive buffers must be at least as large as send buffers.
Sizes and formulas live in qosc.hosts; these rules only compare.
"""

from __future__ import annotations

from collections.abc import Iterator

from qosc.checks.references import undefined
from qosc.diagnostics import Diagnostic, error, warning
from qosc.hosts import (
    HEADROOM,
    INT_MAX,
    SOCK_MIN_RCVBUF,
    SOCK_MIN_SNDBUF,
    Host,
    HostPlan,
    PathNeed,
    TcpSettings,
    Triple,
    autotuned_window,
    cap_for,
    explicit_window,
    mbit,
    plan,
)
from qosc.model import Policy


def _label(host: Host, need: PathNeed) -> str:
    return f"{host.name} -> {need.path.peer} (RTT {need.path.rtt_us / 1000:g} ms)"


def _plans(policy: Policy) -> list[HostPlan]:
    return [plan(policy, h) for h in policy.hosts]


def check_references(policy: Policy) -> Iterator[Diagnostic]:
    """QOS158: a path names a service that does not exist."""
    for host in policy.hosts:
        for path in host.paths:
            if path.service and path.service not in policy.service_map:
                yield undefined("QOS158", "service", path.service, policy.service_map,
                                f"path {host.name} -> {path.peer}", path.where.at("service"))


def check_kernel_ranges(policy: Policy) -> Iterator[Diagnostic]:
    """QOS153 values the kernel refuses; QOS154 triples out of order (the kernel accepts those silently)."""
    for host in policy.hosts:
        for section, settings in (("overrides", host.overrides), ("current", host.current)):
            if settings is None:
                continue
            for key, low in (("rmem_max", SOCK_MIN_RCVBUF), ("wmem_max", SOCK_MIN_SNDBUF)):
                value = getattr(settings, key)
                if value is not None and not low <= value <= INT_MAX:
                    yield error("QOS153", f"host '{host.name}' {section}.{key} {value} is outside what the kernel "
                                f"accepts ({low}..{INT_MAX})", settings.where.at(key),
                                f"net.core.{key} is an int with a floor of one socket buffer; write {low}..{INT_MAX}")
            for key in ("tcp_rmem", "tcp_wmem"):
                triple: Triple | None = getattr(settings, key)
                if triple is None:
                    continue
                bad = [v for v in (triple.min, triple.default, triple.max) if not 1 <= v <= INT_MAX]
                if bad:
                    yield error("QOS153", f"host '{host.name}' {section}.{key} '{triple}' has {bad[0]}, outside "
                                f"what the kernel accepts (1..{INT_MAX})", settings.where.at(key),
                                "sysctl -p fails on the whole line: every value must be 1..2147483647 bytes")
                if not triple.ordered:
                    yield error("QOS154", f"host '{host.name}' {section}.{key} '{triple}' is not ordered "
                                "min <= default <= max", settings.where.at(key),
                                "the kernel accepts any order, but autotuning then clamps sockets to the wrong bound; "
                                "write min, initial size, max")


def check_path_fits_kernel(policy: Policy) -> Iterator[Diagnostic]:
    """QOS145: a path whose buffer (HEADROOM x rate x RTT) is larger than any socket buffer the kernel accepts."""
    for p in _plans(policy):
        host = p.host
        if all(getattr(host.overrides, key) is not None for key in _BUFFER_KEYS):
            continue  # every buffer is the user's own: QOS151/QOS152 compare them with the paths
        for need in p.needs:
            if need.buffer <= INT_MAX:
                continue
            cap = cap_for(INT_MAX // HEADROOM, need.path.rtt_us)
            yield error("QOS145", f"path {_label(host, need)} needs a buffer of {need.buffer} B ({need.formula}), "
                        f"more than the largest socket buffer Linux accepts ({INT_MAX} B): one TCP flow on this "
                        f"path is capped at {mbit(cap)}", need.path.where.at("rtt", "rate", "service", "peer"),
                        "lower the path's rate or RTT to what one flow can carry, or split the transfer over "
                        "parallel streams (GridFTP -p) and declare the per-stream rate")


_BUFFER_KEYS = ("rmem_max", "wmem_max", "tcp_rmem", "tcp_wmem")


def check_receive_vs_send(policy: Policy) -> Iterator[Diagnostic]:
    """QOS150: receive buffers smaller than send buffers (a 6 MB receive / 8 MB send pair degraded throughput)."""
    for p in _plans(policy):
        host = p.host
        for section, settings, origin in (("overrides", p.settings, host.overrides), ("current", host.current, None)):
            if settings is None:
                continue
            for recv_key, send_key in (("rmem_max", "wmem_max"), ("tcp_rmem", "tcp_wmem")):
                recv, send = getattr(settings, recv_key), getattr(settings, send_key)
                if recv is None or send is None:
                    continue
                r = recv.max if isinstance(recv, Triple) else recv
                s = send.max if isinstance(send, Triple) else send
                if r >= s:
                    continue
                if origin is not None and getattr(origin, recv_key) is None and getattr(origin, send_key) is None:
                    continue  # both generated: never happens, but never blame the user for qosc's numbers
                loc_settings = origin if origin is not None else settings
                what = f"{recv_key} max" if recv_key.startswith("tcp") else recv_key
                yield warning("QOS150", f"host '{host.name}' {section}: receive buffer {what} {r} B is smaller than "
                              f"the send buffer {send_key}{' max' if send_key.startswith('tcp') else ''} {s} B",
                              loc_settings.where.at(recv_key, send_key),
                              "keep receive buffers at least as large as send buffers: in the source measurements "
                              "a 6 MB receive / 8 MB send pair degraded throughput")


def check_overrides_cover_paths(policy: Policy) -> Iterator[Diagnostic]:
    """QOS151 autotuning max and QOS152 *_max overrides too small for the largest path's BDP."""
    for p in _plans(policy):
        host, need = p.host, p.largest
        if need is None:
            continue
        over = host.overrides
        for key in ("tcp_rmem", "tcp_wmem"):
            triple: Triple | None = getattr(over, key)
            if triple is None:
                continue
            window = triple.max // HEADROOM
            if window < need.window:
                yield error("QOS151", f"host '{host.name}' overrides.{key} max {triple.max} B gives autotuned "
                            f"sockets a window of {window} B (max / {HEADROOM}), below the {need.window} B "
                            f"bandwidth-delay product of path {_label(host, need)}: TCP is capped at "
                            f"{mbit(cap_for(window, need.path.rtt_us))} instead of {mbit(need.rate)}",
                            over.where.at(key), f"raise the {key} max to at least {need.buffer} "
                            f"({need.formula}), or drop the override and let qosc size it")
        for key in ("rmem_max", "wmem_max"):
            value: int | None = getattr(over, key)
            if value is not None and value < need.window:
                yield warning("QOS152", f"host '{host.name}' overrides.{key} {value} B is below the {need.window} B "
                              f"bandwidth-delay product of path {_label(host, need)}: applications that set "
                              f"their own socket buffer (GridFTP -tcp-bs, iperf -w) are capped at "
                              f"{mbit(cap_for(value, need.path.rtt_us))} instead of {mbit(need.rate)}",
                              over.where.at(key), f"raise {key} to at least {need.window} (the kernel doubles "
                              "a SO_RCVBUF/SO_SNDBUF request, so the window of such a socket is the value itself)")


def _best_window(settings: TcpSettings) -> int:
    return max(autotuned_window(settings) or 0, explicit_window(settings) or 0)


def _reach(policy: Policy, plans: dict[str, HostPlan], p: HostPlan, need: PathNeed) -> tuple[int, str]:
    """The best rate (bit/s) a path can carry once the compiled settings are applied, and what limits it."""
    limits = [(p.host.speed, f"{p.host.name}'s fastest interface")]
    limits.append((cap_for(_best_window(p.settings), need.path.rtt_us), f"{p.host.name}'s buffers"))
    peer = plans.get(need.path.peer)
    if peer is not None:
        limits.append((peer.host.speed, f"{peer.host.name}'s fastest interface"))
        limits.append((cap_for(_best_window(peer.settings), need.path.rtt_us), f"{peer.host.name}'s buffers"))
    return min(limits)


def check_reachable(policy: Policy) -> Iterator[Diagnostic]:
    """QOS156 a path faster than its host's interfaces; QOS155 a service rate no declared host reaches."""
    plans = {p.host.name: p for p in _plans(policy)}
    best: dict[str, tuple[int, str, str]] = {}
    for p in plans.values():
        host = p.host
        for need in p.needs:
            if host.speed and need.rate > host.speed:
                yield error("QOS156", f"path {_label(host, need)} expects {mbit(need.rate)} (from "
                            f"{need.rate_source}), faster than the host's fastest interface "
                            f"({mbit(host.speed)})", need.path.where.at("rate", "service", "peer"),
                            "lower the path's rate or declare the faster interface")
            if not need.path.service:
                continue
            rate, limit = _reach(policy, plans, p, need)
            if need.path.service not in best or rate > best[need.path.service][0]:
                best[need.path.service] = (rate, _label(host, need), limit)
    for service in policy.services:
        target = service.sls.rate if service.sls else None
        if target is None or service.name not in best:
            continue
        rate, label, limit = best[service.name]
        if rate < target:
            yield warning("QOS155", f"service '{service.name}' promises {mbit(target)}, but no declared host can "
                          f"reach it at its RTT: the best is {mbit(rate)} on path {label}, limited by {limit}",
                          service.where.at("sls.rate"), "raise the hosts' buffers or interface speed, or lower the "
                          "service's rate; a host cannot use a rate it cannot keep in flight (window = rate x RTT)")


def check_current_caps(policy: Policy) -> Iterator[Diagnostic]:
    """QOS157: the buffers a host has today cap a path below its expected rate; state the cap in Mbit/s."""
    for p in _plans(policy):
        host, cur = p.host, p.host.current
        if cur is None:
            continue
        auto, explicit = autotuned_window(cur), explicit_window(cur)
        auto_key = min((t.max, k) for k, t in (("tcp_rmem", cur.tcp_rmem), ("tcp_wmem", cur.tcp_wmem)) if t)[1] \
            if auto is not None else None
        explicit_key = min((v, k) for k, v in (("rmem_max", cur.rmem_max), ("wmem_max", cur.wmem_max)) if v)[1] \
            if explicit is not None else None
        for need in p.needs:
            rtt = need.path.rtt_us
            ms = f"{rtt / 1000:g} ms"
            cases = []
            if auto is not None and auto_key is not None:
                cases.append((cap_for(auto, rtt), auto, auto_key, "autotuned sockets: window = min(tcp_rmem max, "
                              f"tcp_wmem max) / {HEADROOM}"))
            if explicit is not None and explicit_key is not None:
                cases.append((cap_for(explicit, rtt), explicit, explicit_key, "applications that set SO_RCVBUF/"
                              "SO_SNDBUF (GridFTP, iperf -w): window = min(rmem_max, wmem_max)"))
            cases.sort()
            if not cases or cases[0][0] >= need.rate:
                continue
            cap, window, key, how = cases[0]
            others = "".join(f"; {c[3]} = {c[1]} B, cap {mbit(c[0])}" for c in cases[1:])
            yield warning("QOS157", f"host '{host.name}' current buffers cap TCP on path {_label(host, need)} at "
                          f"{mbit(cap)}, {100 * cap / need.rate:.1f}% of the expected {mbit(need.rate)}: "
                          f"cap = window / RTT = {window} B / {ms} ({how}){others}", cur.where.at(key),
                          f"compile the linux-host target and install its sysctl drop-in: the path needs a window "
                          f"of {need.window} B ({need.formula})")


def check_sizing_basis(policy: Policy) -> Iterator[Diagnostic]:
    """QOS159: nothing to size from (no paths, no overrides) or a path with a zero RTT or rate."""
    for p in _plans(policy):
        host = p.host
        if not host.paths and not host.overrides.given():
            yield warning("QOS159", f"host '{host.name}' declares no paths and no overrides: qosc can only write "
                          "stock kernel buffers for it", host.where.at("platform"),
                          "add paths: [{peer: ..., rtt: 14.5ms, rate: 750M}] so buffers are sized from rate x RTT")
        for path in host.paths:
            if path.rtt_us <= 0:
                yield warning("QOS159", f"path {host.name} -> {path.peer} has a zero RTT: no window can be sized "
                              "from it", path.where.at("rtt"), "write the measured round-trip time, e.g. 14.5ms")
        for need in p.needs:
            if need.rate <= 0:
                yield warning("QOS159", f"path {host.name} -> {need.path.peer} expects no rate ({need.rate_source} "
                              "is zero): no window can be sized from it", need.path.where.at("rate", "peer"),
                              "give the path a rate, e.g. rate: 750M")


RULES = (check_references, check_kernel_ranges, check_path_fits_kernel, check_receive_vs_send,
         check_overrides_cover_paths, check_reachable,
         check_current_caps, check_sizing_basis)
