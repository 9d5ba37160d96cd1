"""JUNOS queue and shaper sizing (qosc.sizing): the `burst-size` the scheduler writes, and the class sizing the
SLS bound of a JUNOS hop is computed from.

- A scheduler shaped at a cap (`shaping-rate`, MX Trio: a strict-high service's rate cap, or a cap above the
  share) gets `burst-size` = qosc.sizing.burst_allowance: max(10 MTU, 1 ms at the cap, the CBS of the
  service's own policer), at the cap of the interface (port or logical unit) it serves.  Where the cap is a
  percentage it differs per interface, and so does the burst: the interfaces that carry the class get one
  scheduler per distinct burst (plan.py; the one named after the class has the largest, the others
  `<class>-burst-<bytes>`), so a 10 Mbit/s unit never runs with the burst sized for a 100G one (issue 26).
  Within the platform's documented range (`shaping_burst_bytes`); none where the platform has no per-queue
  burst-size (M-series) or the interface has no speed (Juniper's default, 100 ms of the rate, applies).
- The class sizing of a strict-high class on an interface: drain rate R = its cap (shaping-rate) or, unshaped,
  the link rate; queue Q from `buffer-size`: temporal t = t x the queue's transmit rate, percent p = p of the
  port's delay buffer (platform `delay_buffer_us` at the interface rate, i.e. its shaper or speed), none =
  unknown to qosc (the bound then rests on the policed burst alone); B = the burst-size above; F = the
  interface MTU.  Every number with its documented source in platforms/junos-*.json.
- Classes qosc cannot size from Juniper's documentation answer sizing.Unsized with the reason, and the SLS
  keeps the generic (b + MTU) x 8 / C for them: a queue that is not strict-high (its service above the
  transmit rate is the excess round robin's), and on platforms with no documented delay buffer, a buffer
  given as a percentage.
"""

from __future__ import annotations

from fractions import Fraction

from qosc import sizing
from qosc.model import Device, Interface, Policy, Queue, Rate, Service, resolve_rate
from qosc.targets.junos.platform import JunosPlatform
from qosc.units import Percent


def shaping_cap(q: Queue) -> tuple[str, Rate] | None:
    """(policy key, cap) a scheduler's `shaping-rate` is written from, or None (no cap, or `exact`)."""
    caps = [(k, v) for k, v in (("rate-cap", q.rate_cap), ("ceiling", q.ceiling))
            if v is not None and v != Percent(100.0)]
    if not caps or (not q.strict and any(v == q.share for _, v in caps)):
        return None
    return caps[0]


def _cap_on(q: Queue, link: int | None) -> int | None:
    found = shaping_cap(q)
    if found is None:
        return None
    cap = resolve_rate(found[1], link)
    return None if cap is None else min(cap, link) if link else cap


def interface_burst(policy: Policy, iface: Interface, owner: Service, platform: JunosPlatform) -> sizing.Burst | None:
    """The `burst-size` of the scheduler that serves `owner`'s forwarding class on `iface` (module docstring)."""
    limits = platform.shaping_burst_bytes
    if limits is None or not platform.queue_shaping or shaping_cap(owner.queue) is None:
        return None
    cap = _cap_on(owner.queue, iface.rate)
    if cap is None:
        return None
    policer = policy.policer_map.get(owner.policer or "")
    burst = sizing.burst_allowance(cap, iface.mtu, policer.cbs if policer is not None else None)
    if burst.bytes > limits.high:
        return sizing.Burst(limits.high, f"{burst.formula}, at most {limits.high} B (burst-size range)")
    if burst.bytes < limits.low:
        return sizing.Burst(limits.low, f"{burst.formula}, at least {limits.low} B (burst-size range)")
    return burst


def class_sizing(policy: Policy, device: Device, iface: Interface, service: Service,
                 platform: JunosPlatform) -> sizing.ClassSizing | sizing.Unsized | None:
    """Drain rate, queue and shaper burst of the class carrying `service` on `iface` (module docstring)."""
    link = iface.rate
    if not link:
        return None
    owner = policy.queue_owner(service)
    q = owner.queue
    if not q.strict or not platform.strict_priorities:
        return sizing.Unsized("a queue that is not strict-high is served above its transmit-rate in the excess "
                              "round robin, whose share of the link Juniper's documentation does not bound")
    frame = iface.mtu
    cap = _cap_on(q, link) if platform.queue_shaping else None
    if cap is not None:
        drain = sizing.Drain(cap, f"strict-high shaped at its cap {sizing.fmt_rate(cap)}: drains at the cap")
    else:
        drain = sizing.Drain(link, f"strict-high, not shaped: drains at the link rate {sizing.fmt_rate(link)}")
    buf = q.buffer
    queue = None
    if buf is not None and buf.time_us is not None:
        transmit = resolve_rate(q.share, link)
        if transmit:
            queue = sizing.queue_size(min(transmit, link), link, frame, time_us=buf.time_us)
    elif buf is not None and buf.percent is not None:
        port_us = platform.delay_buffer_at(link)
        if port_us is None:
            return sizing.Unsized(f"{platform.name} has no documented port delay buffer for buffer-size percent")
        queue = sizing.queue_size(drain.rate, link, frame, percent=Fraction(str(buf.percent.value)),
                                  port_buffer_us=port_us)
    burst = interface_burst(policy, iface, owner, platform) if cap is not None else None
    return sizing.ClassSizing(link, frame, drain, queue, burst)
