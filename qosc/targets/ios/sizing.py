"""ios-mqc sizing (qosc.sizing): the `police` burst of a priority class, and the class sizing the SLS bound of an
IOS hop is computed from.

A strict service is `priority` + `police` at its cap (a hard cap: `priority <kbps>` alone limits only under
congestion).  The policer's burst (`bc`; `be` too on classic IOS, whose positional police takes both) is
qosc.sizing.burst_allowance: max(10 MTU, 1 ms at the cap, the CBS of the service's own policer), and on an
interface that is not an edge at least 10 ms at the cap (a core hop receives the bursts of several edge
policers at once: a bucket of one edge's CBS would drop in-profile traffic there), within the range of the
dialect's `police` form in its command table (Cisco's YANG for IOS XE, the command reference for
12.0S).  The policer drops what exceeds it, it queues nothing, and the priority queue is served at the link
rate, so at most the bucket waits there: the SLS bound is min(P / C, sigma / C) + F / C with P that bucket
(qosc.sizing.delay_bound with `policed`).

The priority class has no queue-limit (IOS takes none there), so no queue term.  A class without `priority` is
a CBWFQ bandwidth class served by weight, whose delay IOS does not bound: sizing.Unsized, and the SLS keeps the
generic formula and says so.
"""

from __future__ import annotations

from qosc import sizing
from qosc.model import Interface, Policy, Role, Service, resolve_rate
from qosc.targets.ios.platform import MqcPlatform
from qosc.targets.ios.table import arg_range
from qosc.targets.platform import Range

CORE_BURST_US = 10_000
"""On an interface that is not an edge, the police bucket of a priority class is at least this long at its cap."""


def police_burst_range(platform: MqcPlatform) -> Range:
    """The bytes range of the burst in the dialect's own `police` form (its command table)."""
    form = "police cir" if platform.police == "keywords" else "police bps"
    found = arg_range(platform.name, "policy-map-class", form, "size")
    return Range(*found) if found is not None else platform.policer_burst


def strict_cap(policy: Policy, s: Service, iface: Interface) -> int | None:
    """The rate a strict service is policed at on an interface: queue.rate-cap, else its policer's CIR."""
    cap = resolve_rate(s.queue.rate_cap, iface.rate)
    if cap is None and s.queue.rate_cap is None and s.policer in policy.policer_map:
        cap = policy.policer_map[s.policer or ""].cir
    return cap


def police_burst(policy: Policy, s: Service, cap: int, iface: Interface, platform: MqcPlatform) -> sizing.Burst:
    """The burst of the `police` of a priority class capped at `cap` (module docstring)."""
    policer = policy.policer_map.get(s.policer or "")
    burst = sizing.burst_allowance(cap, iface.mtu, policer.cbs if policer is not None else None)
    aggregate = sizing.at_rate(cap, CORE_BURST_US)
    if iface.role is not Role.EDGE and aggregate > burst.bytes:
        burst = sizing.Burst(aggregate, f"{burst.formula}; at least {sizing.fmt_time(CORE_BURST_US)} x "
                                        f"{sizing.fmt_rate(cap)} / 8 = {aggregate} B off an edge (edge bursts meet)")
    limits = police_burst_range(platform)
    if burst.bytes > limits.high:
        return sizing.Burst(limits.high, f"{burst.formula}, at most {limits.high} B (police burst range)")
    if burst.bytes < limits.low:
        return sizing.Burst(limits.low, f"{burst.formula}, at least {limits.low} B (police burst range)")
    return burst


def class_sizing(policy: Policy, iface: Interface, service: Service,
                 platform: MqcPlatform) -> sizing.ClassSizing | sizing.Unsized | None:
    """Drain rate and police bucket of the class carrying `service` on `iface` (module docstring)."""
    link = iface.rate
    if not link:
        return None
    owner = policy.queue_owner(service)
    if not owner.queue.strict:
        return sizing.Unsized("a class without priority is a CBWFQ bandwidth class served by weight, whose delay "
                              "IOS does not bound")
    if platform.priority != "police":
        return sizing.Unsized("priority <kbit/s> limits the class only under congestion, so no bucket bounds it")
    cap = strict_cap(policy, owner, iface)
    if cap is None or cap not in platform.policer_rate:
        return None  # the lowering refuses it (QOS121, QOS131)
    bucket = police_burst(policy, owner, cap, iface, platform)
    drain = sizing.Drain(link, f"priority policed at its cap {sizing.fmt_rate(cap)}: what the policer admits "
                               f"leaves at the link rate {sizing.fmt_rate(link)}")
    return sizing.ClassSizing(link, iface.mtu, drain, None, None, bucket)
