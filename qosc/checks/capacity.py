"""QOS040-QOS047: what an interface guarantees must fit in the link, and every queue can drain."""

from __future__ import annotations

from collections.abc import Iterator

from qosc.checks.network import Network, Scratch
from qosc.diagnostics import Diagnostic, error, warning
from qosc.model import Device, Interface, Policy, Service, rate_percent, resolve_rate
from qosc.units import Percent, format_rate


def reserved(policy: Policy, service: Service) -> tuple[object, str]:
    """What a queue reserves: its cap when strict (else its policer's CIR), its share otherwise."""
    q = service.queue
    if q.strict:
        if q.rate_cap is not None:
            return q.rate_cap, "rate-cap"
        policer = policy.policer_map.get(service.policer or "")
        return (policer.cir, "policer CIR") if policer else (None, "rate-cap")
    return q.share, "share"


def _fmt(value: object) -> str:
    return f"{value.value:g}%" if isinstance(value, Percent) else format_rate(int(value))  # type: ignore[call-overload]


def check_interfaces(scratch: Scratch, device: Device) -> Iterator[Diagnostic]:
    clean = scratch.table("capacity")
    for iface in device.interfaces:
        if iface.default_queueing:  # the device's own queues: nothing of the policy's to add up
            continue
        key = (iface.services, iface.rate)
        if key in clean:
            continue
        found = list(_interface(scratch.policy, device.name, iface))
        if not found:
            clean[key] = True
        yield from found


def _interface(policy: Policy, device: str, iface: Interface) -> Iterator[Diagnostic]:
    total = 0.0
    parts = []
    rate = iface.rate
    for s in policy.services_on(iface):
        if s.queue.shared_with:
            continue
        value, what = reserved(policy, s)
        if value is None:
            continue
        pct = rate_percent(value, rate)  # type: ignore[arg-type]
        if pct is None:
            yield error("QOS041", f"interface {device}:{iface.name} has no speed, so service '{s.name}' {what} "
                        f"{_fmt(value)} cannot be checked against the link", iface.where.at("speed"),
                        "set speed: (e.g. speed: 1G) on the interface or its profile")
            continue
        total += pct
        parts.append(f"{s.name} {pct:.4g}%")
    if total > 100.0 + 1e-9:
        yield error("QOS040", f"interface {device}:{iface.name}: guaranteed shares and strict-priority caps add up "
                    f"to {total:.4g}% of the link ({', '.join(parts)})", iface.where.loc,
                    "reduce the shares so that they total at most 100%")


def check_queue_rates(policy: Policy, network: Network) -> Iterator[Diagnostic]:
    speeds = sorted(network.rates) or (None,)
    for s in policy.services:
        q = s.queue
        if q.uncapped and not q.strict:
            yield error("QOS047", f"service '{s.name}' has rate-cap: none, which only a strict-priority queue can "
                        "have (it says the strict queue is uncapped on purpose); a queue that is not strict is "
                        "bounded by its share and ceiling", s.where.at("queue.rate-cap"),
                        "remove rate-cap (or give it a rate), or set queue.strict: true")
        elif q.uncapped and not s.policer:
            yield warning("QOS046", f"strict-priority service '{s.name}' is uncapped on purpose (rate-cap: none): "
                          "nothing limits its queue, so its traffic can starve every other service on each "
                          "interface that carries it", s.where.at("queue.rate-cap"),
                          "cap it with queue.rate-cap (e.g. 10%) or an edge policer (policer:) once the traffic "
                          "it carries is known")
        elif q.strict and q.rate_cap is None and not s.policer:
            yield error("QOS042", f"strict-priority service '{s.name}' has neither a rate cap nor a policer, "
                        "so it can starve every other queue", s.where.at("queue.strict", "queue"),
                        "add queue.rate-cap (e.g. 10%) and/or an edge policer")
        for key, value in (("rate-cap", q.rate_cap), ("ceiling", q.ceiling)):
            if value is not None and (value.value if isinstance(value, Percent) else value) == 0:
                yield error("QOS045", f"service '{s.name}' has a {key} of 0: its queue would never drain (no "
                            "target can send at 0 bit/s, and every bound of its delay is infinite)",
                            s.where.at(f"queue.{key}"), f"remove queue.{key}, or give the class a rate above 0; "
                            "to carry no traffic, leave the service off the interface (services:)")
        for iface_speed in speeds:
            share = resolve_rate(q.share, iface_speed)
            ceiling = resolve_rate(q.ceiling, iface_speed)
            cap = resolve_rate(q.rate_cap, iface_speed)
            if share is not None and ceiling is not None and ceiling < share:
                yield error("QOS043", f"service '{s.name}' ceiling is below its share", s.where.at("queue.ceiling"),
                            "the ceiling bounds borrowing and must be at least the share")
                break
            if share is not None and cap is not None and cap < share:
                yield error("QOS044", f"service '{s.name}' rate cap is below its guaranteed share",
                            s.where.at("queue.rate-cap"), "raise rate-cap or lower share")
                break


DEVICE_RULES = (check_interfaces,)
NETWORK_RULES = (check_queue_rates,)
