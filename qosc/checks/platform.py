"""QOS091-QOS095: does the policy fit the box?  Generic, driven by platform data.

Targets add their own finer checks; this one needs only the numbers every
platform file states (qosc.targets.platform.Platform), so a new platform
gets these diagnostics for free.  (QOS090, a field a target does not
support, is reported by the pipeline with the target checks.)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from qosc.checks.network import Scratch
from qosc.diagnostics import Diagnostic, error
from qosc.model import Device, Policy
from qosc.targets.registry import for_platform, platform
from qosc.units import format_rate, format_size


def check_devices(scratch: Scratch, device: Device) -> Iterator[Diagnostic]:
    data = platform(device.platform)
    served = for_platform(device.platform)
    if data is not None and served and hasattr(data, "queues"):
        yield from _device(scratch.policy, device, data, served[0], scratch.table("platform"))


def _device(policy: Policy, device: Device, platform: Any, target: Any,
            seen: dict[tuple[Any, ...], tuple[list[Any], int, list[Any], bool]]) -> Iterator[Diagnostic]:
    for iface in (i for i in device.interfaces if not i.default_queueing):  # (device-default: the device's queues)
        shape = (device.platform, iface.services, iface.port_type)  # (what the queues of an interface depend on)
        found = seen.get(shape)
        if found is None:
            own = [s for s in policy.services_on(iface) if not s.queue.shared_with]
            available = target.queues(platform, iface)
            strict = [s for s in own if s.queue.strict]
            found = seen[shape] = (own, available, strict, (len(own) > available and platform.queue_overflow ==
                                                            "reject") or len(strict) > platform.strict_per_interface)
        own, available, strict, bad = found
        if not bad:
            continue
        if len(own) > available and platform.queue_overflow == "reject":
            yield error("QOS091", f"{device.name}:{iface.name} needs {len(own)} queues "
                        f"({', '.join(s.name for s in own)}) "
                        f"but {platform.name}{' port type ' + iface.port_type if iface.port_type else ''} has "
                        f"{available}", iface.where.at("services", "port-type") or device.where.at("platform"),
                        "carry fewer services on this interface (services:), or let a service use another's "
                        "queue with queue.shared-with (never LBE)")
        if len(strict) > platform.strict_per_interface:
            first = strict[platform.strict_per_interface] if platform.strict_per_interface < len(strict) else strict[0]
            limit = platform.strict_per_interface
            yield error("QOS093", f"{device.name}:{iface.name}: {len(strict)} strict-priority services but "
                        f"{platform.name} allows {limit} per interface", first.where.at("queue.strict"),
                        "use priority: high without strict" if limit == 0 else "keep one strict-priority service")
    for s in policy.services:
        if s.queue.shared_with:
            continue
        if s.queue.priority.label not in platform.priorities and any(s.name in i.services for i in device.interfaces):
            yield error("QOS092", f"service '{s.name}' priority '{s.queue.priority.label}' is not available on "
                        f"{platform.name} (device {device.name})", s.where.at("queue.priority"),
                        f"{platform.name} has priorities {', '.join(platform.priorities)}")
        zero = s.queue.share is not None and getattr(s.queue.share, "value", s.queue.share) == 0
        if zero and not platform.zero_share and any(s.name in i.services for i in device.interfaces):
            yield error("QOS094", f"service '{s.name}' has a 0% share, which {platform.name} cannot schedule "
                        f"(device {device.name})", s.where.at("queue.share"),
                        "use the smallest share the platform has (e.g. 1%)")
    if any(i.role.value == "edge" for i in device.interfaces):
        for p in policy.policers:
            for key, value in (("cir", p.cir), ("pir", p.pir)):
                if value is not None and value not in platform.policer_rate:
                    yield error("QOS095", f"policer '{p.name}' {key} {format_rate(value)} is outside {platform.name}'s "
                                f"range {format_rate(platform.policer_rate.low)}.."
                                f"{format_rate(platform.policer_rate.high)}"
                                f" (device {device.name})", p.where.at(key))
            for key, value in (("cbs", p.cbs), ("pbs", p.pbs), ("ebs", p.ebs)):
                if value is not None and value not in platform.policer_burst:
                    yield error("QOS095", f"policer '{p.name}' {key} {format_size(value)} is outside {platform.name}'s "
                                f"range {format_size(platform.policer_burst.low)}.."
                                f"{format_size(platform.policer_burst.high)} (device {device.name})", p.where.at(key))


DEVICE_RULES = (check_devices,)
