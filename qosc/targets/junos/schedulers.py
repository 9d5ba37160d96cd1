"""JUNOS target, part 1b: the schedulers of a device's plan (plan.py), one per forwarding class and shaper burst.

`plan_schedulers(plan)` turns each forwarding class's queue into what its
scheduler says: transmit-rate (with `exact` when the queue may not borrow),
shaping-rate for other caps (MX), buffer-size, priority and the MX
excess-priority; and gives the class one scheduler per distinct shaper burst
among the interfaces that carry it (sizing.py).  The rules are explained in
qosc/targets/junos/__init__.py.
"""

from __future__ import annotations

from dataclasses import replace

from qosc.model import Interface, Service
from qosc.sizing import Burst
from qosc.targets.junos.plan import ForwardingClass, Plan, SchedulerSpec, num
from qosc.targets.junos.sizing import interface_burst
from qosc.units import Percent


def _rate(plan: Plan, s: Service, key: str, value: object) -> tuple[str, ...]:
    """('percent', '5') or ('2500000',); flags what JUNOS cannot take."""
    if isinstance(value, Percent):
        if not float(value.value).is_integer():
            plan.error("QOS113", f"service '{s.name}' {key} {value} is not a whole percentage, which JUNOS needs",
                       s.where.at(f"queue.{key}"), f"write {int(value.value)}% or {int(value.value) + 1}%")
        return ("percent", num(value.value))
    low, high = plan.platform.transmit_rate_bps.low, plan.platform.transmit_rate_bps.high
    if not low <= int(value) <= high:  # type: ignore[call-overload]
        plan.error("QOS113", f"service '{s.name}' {key} {value} bit/s is outside JUNOS's range {low}..{high} bit/s",
                   s.where.at(f"queue.{key}"))
    return (str(value),)


def plan_schedulers(plan: Plan) -> None:
    for fc in plan.classes:  # the class names first: a burst variant never takes another class's name
        plan.names.name("scheduler", fc.name, f"class {fc.name}")
    for fc in plan.classes:
        if not _queued(plan, fc):  # only interfaces left at Junos's default map carry it: no scheduler of qosc's
            continue
        s, q = fc.owner, fc.owner.queue
        # No share is no guarantee (qosc.sls: 0 bit/s, a strict queue its cap): a scheduler without transmit-rate,
        # which reserves nothing (Junos OS CoS User Guide, "transmit-rate (Schedulers)": the rates are the guaranteed
        # minimum, only the default scheduler map gives queues rates without it; "excess-rate": excess bandwidth is
        # what strict-high queues and the transmit rates leave). `remainder` would guarantee what the rates leave.
        transmit = () if q.share is None else _rate(plan, s, "share", q.share)
        if transmit and q.strict and not plan.platform.strict_transmit_rate:
            plan.error("QOS113", f"service '{s.name}' is strict-priority with a share, but {plan.platform.name} takes "
                       "no transmit-rate on a strict-priority queue (platform data strict_transmit_rate)",
                       s.where.at("queue.share"), "remove the share: a strict queue is served first, up to its "
                       "rate-cap")
            transmit = ()
        caps = [(k, v) for k, v in (("rate-cap", q.rate_cap), ("ceiling", q.ceiling))
                if v is not None and v != Percent(100.0)]
        shaping = None
        if caps and not q.strict and any(v == q.share for _, v in caps):
            transmit += ("exact",)
        elif caps:
            key, cap = caps[0]
            if plan.platform.queue_shaping:
                shaping = _rate(plan, s, key, cap)
            elif not (q.strict and not plan.platform.strict_priorities):  # else QOS110 says what to do
                plan.error("QOS112", f"service '{s.name}' {key} {cap} differs from its share, but {plan.platform.name}"
                           " cannot shape a queue: only transmit-rate ... exact (cap = share) exists there",
                           s.where.at(f"queue.{key}"), f"set {key} equal to the share, or remove it")
        buffer = None
        if q.buffer is not None and q.buffer.percent is not None:
            buffer = _rate(plan, s, "buffer", q.buffer.percent)
        elif q.buffer is not None and q.buffer.time_us is not None:
            limits = plan.platform.buffer_temporal_us
            if limits and q.buffer.time_us not in limits:
                plan.error("QOS113", f"service '{s.name}' buffer {q.buffer.time_us}us is outside "
                           f"{plan.platform.name}'s temporal buffer range {limits.low}..{limits.high}us",
                           s.where.at("queue.buffer"), "use a shorter time or a percentage")
            buffer = ("temporal", str(q.buffer.time_us))
        if q.strict:
            priority = next(iter(plan.platform.strict_priorities), None)  # (per interface: _variants)
            if priority is None:
                plan.error("QOS110", f"service '{s.name}' is strict-priority, but {plan.platform.name} has no "
                           f"strict-high queue (device {plan.device.name})", s.where.at("queue.strict"),
                           "on M-series use priority: high without strict, and police the service at the edge "
                           "(policer:) so that it cannot starve the other queues")
                priority = "high"
        else:
            priority = plan.platform.scheduler_priorities.get(q.priority.label, q.priority.label)
        # A strict-high queue, and one whose transmit rate is exact (it never runs above it), have no excess
        # region: junos-conf-class-of-service (23.4R1, 17.4R1) `schedulers excess-priority` junos:must "Cannot
        # specify excess-priority with transmit-rate exact/rate-limit or strict-high priority" (priority_mapping)
        excess = None if q.strict or "exact" in transmit else plan.platform.excess_priorities.get(q.priority.label)
        _variants(plan, fc, SchedulerSpec(transmit, buffer, priority, shaping, excess, fc=fc.name))


def _queued(plan: Plan, fc: ForwardingClass) -> bool:
    """Whether an interface queues the class by the policy's scheduler map (egress-queueing: policy), or no
    interface carries it; False where every interface that carries it is left at Junos's default map."""
    carriers = [i for i in plan.device.interfaces if any(plan.fc_of.get(n) == fc.name for n in i.services)]
    return not carriers or any(not i.default_queueing for i in carriers)


def _strict_priority(plan: Plan, iface: Interface, fc: ForwardingClass, spec: SchedulerSpec) -> str:
    """The scheduler priority of a strict class on one interface: the platform's strict priority of its place
    among the interface's strict services in the policy's order (junos-acx: low-latency, then strict-high)."""
    levels = plan.platform.strict_priorities
    if not fc.owner.queue.strict or len(levels) < 2:
        return spec.priority
    owners: list[Service] = []
    for s in plan.policy.services_on(iface):
        owner = plan.policy.queue_owner(s)
        if owner.queue.strict and owner not in owners:
            owners.append(owner)
    rank = owners.index(fc.owner) if fc.owner in owners else 0
    return levels[min(rank, len(levels) - 1)]  # (more strict services than levels: QOS093)


def _variants(plan: Plan, fc: ForwardingClass, spec: SchedulerSpec) -> None:
    """The schedulers of a class: one per distinct shaper burst of the interfaces that carry it (sizing.py), and
    per strict priority where a strict class is an interface's first strict service here and its second there.

    The one named after the class has the first strict priority and the largest burst (or none, unshaped); the
    others are `<class>-burst-<bytes>` (`<class>-burst-default` for interfaces without a speed, whose percentage
    cap qosc cannot size: Juniper's default burst applies), `<class>-<priority>` and
    `<class>-<priority>-burst-<bytes>`, each name within JUNOS's 64 characters (plan.names).
    """
    groups: dict[tuple[str, int | None], tuple[Burst | None, list[str]]] = {}
    for iface in plan.device.interfaces:
        if iface.default_queueing or not any(plan.fc_of.get(n) == fc.name for n in iface.services):
            continue
        burst = interface_burst(plan.policy, iface, fc.owner, plan.platform) if spec.shaping else None
        key = (_strict_priority(plan, iface, fc, spec), None if burst is None else burst.bytes)
        groups.setdefault(key, (burst, []))[1].append(iface.name)
    levels = list(plan.platform.strict_priorities)
    order = sorted(groups, key=lambda k: (levels.index(k[0]) if k[0] in levels else -1, k[1] is None,
                                          -(k[1] or 0))) or [(spec.priority, None)]
    first_priority, first_size = order[0]
    for i, (priority, size) in enumerate(order):
        burst, serves = groups.get((priority, size), (None, []))
        own = f" {priority}" if priority != first_priority else ""
        tail = (f"-{priority}" if own else "") + (f"-burst-{'default' if size is None else size}"
                                                  if size != first_size else "")
        sched = plan.names.name("scheduler", fc.name + tail, f"class {fc.name}" if i == 0 else
                                f"class {fc.name}{own}" + (f" burst {size}" if size != first_size else ""))
        plan.schedulers[sched] = replace(spec, priority=priority, burst=burst, serves=tuple(serves))
        for name in serves:
            plan.scheduler_of[(name, fc.name)] = sched
