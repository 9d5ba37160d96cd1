"""How import caps and orders strict-priority classes (qosc.behaviour.lift): the policy language wants every strict
queue capped (QOS042) or said uncapped on purpose (`rate-cap: none`, QOS046), and serves an interface's strict
services in its own order (JUNOS on ACX: the first low-latency, the second strict-high)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypeVar

from qosc.behaviour.model import Class, Envelope
from qosc.diagnostics import Diagnostic, Location, warning
from qosc.model import UNCAPPED
from qosc.units import format_rate

K = TypeVar("K")


def queue_order(keys: list[K], queued: Mapping[K, Class]) -> list[K]:
    """The services as met, in the order of the device's queue numbers where the configuration says them (JUNOS
    forwarding-classes queue-num): a target numbers the queues of the policy's other services in policy order
    (JUNOS: the default service queue 0, network control queue 3, the rest in order), and an interface queued
    by the device's default map shares by queue number (queue 0 95%, queue 3 5%: Junos CoS guide, "Default
    Schedulers"), so the compiled configuration keeps each class where the original had it (JVD LLQ ag3-1's
    FC-CONTROL in queue 3 on ae9, default-queued)."""
    return sorted(keys, key=lambda k: q if k in queued and (q := queued[k].queue) is not None else 99)


def strict_order(keys: list[K], queued: Mapping[K, Class]) -> list[K]:
    """The services in policy order: as met, but the strict ones (each by the class its queue was lifted from) in
    the order the device serves them, the first served first (strict_rank: JUNOS low-latency before strict-high),
    each in the place of one of them, so compile gives every class its priority back."""
    strict = [k for k in keys if k in queued and queued[k].strict]
    served = sorted(strict, key=lambda k: -(queued[k].strict_rank or 0))
    order = iter(served)
    return [next(order) if k in strict else k for k in keys]


class Capping(Protocol):
    """What of the lifter capping uses: the policers lifted so far and those of each service's edge rules."""

    rule_policers: dict[str, list[str]]
    diagnostics: list[Diagnostic]

    def policer(self, env: Envelope, hint: str, origin: Location | None = None) -> str: ...


def strict_cap(lifter: Capping, name: str, body: dict[str, Any], cls: Class, trusted_edge: bool) -> None:
    """A strict-priority class must be capped (QOS042): by its own rate where the device shows one (a rate of
    an interface whose speed the configuration does not say is the service's policer: IOS `priority` with
    `police` on a POS port), else by the policer the edge rules that mark into it share (Catalyst priority
    queues have no rate); with neither, the device runs it uncapped, and so does the policy: `rate-cap: none`
    with QOS046 at the configuration line."""
    queue = body.get("queue", {})
    if not queue.get("strict") or "rate-cap" in queue or "policer" in body:
        return
    if cls.cap_rate is not None:
        if trusted_edge:  # a service policer would police trusted edges too: keep the cap as a rate
            queue["rate-cap"] = format_rate(cls.cap_rate)
        else:
            body["policer"] = lifter.policer(Envelope(cls.cap_rate, max(1500, cls.cap_rate // 800)), f"{name}-cap")
        return
    used = set(lifter.rule_policers.get(name, ()))
    if len(used) == 1 and not trusted_edge:
        body["policer"] = used.pop()
        return
    # a guaranteed rate is no cap: a strict queue is served first whatever it (JUNOS: a strict-high queue's
    # transmit rate "only serves as a placeholder", "Configuring Strict-High Priority", Junos OS CoS User Guide)
    rate = f" (its rate of {cls.share:g}% does not limit a strict-priority queue)" if cls.share else ""
    if not used:  # the device runs it uncapped: the policy says so on purpose (QOS046 there too)
        queue["rate-cap"] = UNCAPPED
        lifter.diagnostics.append(warning(
            "QOS046", f"strict-priority class {cls.name} has no rate cap in the configuration{rate} and no edge "
            "policer marks into it: imported as rate-cap: none (uncapped on purpose), so its traffic can starve "
            "every other service", cls.origin, "cap it in the policy (queue.rate-cap or a policer) once the "
            "traffic it carries is known"))
        return
    lifter.diagnostics.append(warning(
        "QOS172", f"strict-priority class {cls.name} has no rate cap in the configuration{rate} and its edge rules "
        "use different policers: the policy language needs one cap (QOS042)", cls.origin,
        "give the service a queue.rate-cap or a policer by hand"))
