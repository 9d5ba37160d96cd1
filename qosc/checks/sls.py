"""QOS16x: declared SLS targets against the bounds the configuration supports (domain.md 5).

A declared target (`sls:` of a service) is a promise to a customer or a
neighbouring domain; the bounds come from qosc.sls.bounds (share x link rate,
(burst + MTU) x 8 / link rate for a strict-priority queue, summed along the
declared path).  A promise the configuration cannot keep is reported at the
promise's own line.

QOS160 error    an sls.path hop (or a device:interface scope point) names no interface of the policy
QOS161 error    declared rate above the minimum rate (share x link rate) at a hop
QOS162 error    declared delay below the summed per-hop queueing delay bound along the path
QOS163 warning  a path hop does not schedule the service: nothing is guaranteed to it there
QOS164 error    declared rate above the committed rate (CIR) of the service's edge policer
QOS165 warning  LBE declares guarantees, but LBE is not parameterised
QOS166 error    declared IPDV below the summed per-hop queueing delay bound along the path
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from qosc.diagnostics import Diagnostic, Location, error, warning
from qosc.model import Policy, Service
from qosc.sls.bounds import derive, find_hop, fmt_rate, fmt_time, is_parameterised
from qosc.units import format_time


def _items(service: Service, *keys: str) -> list[Location | None]:
    """Locations of the items of the list at sls.<keys...> in the service's own mapping."""
    node: Any = service.where.nodes[-1] if service.where.nodes else None
    for key in ("sls", *keys):
        node = node.get(key) if isinstance(node, dict) else None
    return list(getattr(node, "item_locs", None) or [])


def _at(locs: list[Location | None], i: int, service: Service, field: str) -> Location | None:
    return locs[i] if i < len(locs) and locs[i] is not None else service.where.at(field, "sls")


def check_references(policy: Policy, service: Service) -> Iterator[Diagnostic]:
    sls = service.sls
    assert sls is not None
    devices = ", ".join(d.name for d in policy.devices) or "none"
    locs = _items(service, "path")
    for i, label in enumerate(sls.path):
        device, iface = find_hop(policy, label)
        if device is None:
            yield error("QOS160", f"sls.path of service '{service.name}': hop '{label}' names no device of the "
                        "policy", _at(locs, i, service, "sls.path"),
                        f"write hops as device:interface (egress side); devices: {devices}")
        elif iface is None:
            names = ", ".join(x.name for x in device.interfaces)
            yield error("QOS160", f"sls.path of service '{service.name}': device '{device.name}' has no interface "
                        f"'{label[len(device.name) + 1:]}'", _at(locs, i, service, "sls.path"),
                        f"interfaces of {device.name}: {names}")
    for side, points in (("ingress", sls.ingress), ("egress", sls.egress)):
        locs = _items(service, "scope", side)
        for i, label in enumerate(points):
            device, iface = find_hop(policy, label)
            if device is not None and iface is None:
                names = ", ".join(x.name for x in device.interfaces)
                yield error("QOS160", f"sls.scope.{side} of service '{service.name}': device '{device.name}' has "
                            f"no interface '{label[len(device.name) + 1:]}'",
                            _at(locs, i, service, f"sls.scope.{side}"), f"interfaces of {device.name}: {names}")


def check_service(policy: Policy, service: Service) -> Iterator[Diagnostic]:
    sls = service.sls
    if sls is None:
        return
    yield from check_references(policy, service)
    if not is_parameterised(service):
        declared = [k for k, v in (("rate", sls.rate), ("delay", sls.delay_us), ("ipdv", sls.ipdv_us),
                                   ("loss", sls.loss), ("availability", sls.availability),
                                   ("repair-time", sls.repair_time_us)) if v is not None]
        if declared:
            yield warning("QOS165", f"LBE service '{service.name}' declares {', '.join(declared)}, but LBE is not "
                          "parameterised: it guarantees nothing end to end", service.where.at(f"sls.{declared[0]}",
                                                                                            "sls"),
                          "remove the guarantees; an LBE SLS states only its DSCP, the DSCP-transparency rule and "
                          "the minimum share")
        return
    needs_bounds = sls.rate is not None or sls.delay_us is not None or sls.ipdv_us is not None or sls.path
    if not needs_bounds:
        return
    derived = derive(policy, service)
    path_locs = _items(service, "path")
    for i, hop in enumerate(derived.path):
        if hop.found and not hop.scheduled:
            yield warning("QOS163", f"sls.path of service '{service.name}': {hop.label} does not schedule "
                          "it; " + (hop.rate_note or "").removeprefix("not scheduled here: "),
                          _at(path_locs, i, service, "sls.path"),
                          f"add '{service.name}' to the services of {hop.label}, or take the hop out of the path")
    if sls.rate is not None:
        scope = "along sls.path" if derived.path else "on the interfaces that schedule it"
        short = [h for h in derived.rate_hops if h.min_rate is not None and h.min_rate < sls.rate]
        if short:
            worst = min(short, key=lambda h: h.min_rate or 0)
            listing = "; ".join(f"{h.label}: {h.rate_formula}" for h in short[:4]) + (
                f"; and {len(short) - 4} more" if len(short) > 4 else "")
            yield error("QOS161", f"service '{service.name}' declares rate {fmt_rate(sls.rate)}, but its minimum "
                        f"rate {scope} is only {fmt_rate(worst.min_rate or 0)} at {worst.label} ({listing})",
                        service.where.at("sls.rate", "sls"),
                        f"raise the share of '{worst.queue or service.name}' on {worst.label} or declare at most "
                        f"{fmt_rate(worst.min_rate or 0)}")
        env = derived.envelope
        if env.rate is not None and sls.rate > env.rate:
            names = ", ".join(p.name for p in env.policers)
            yield error("QOS164", f"service '{service.name}' declares rate {fmt_rate(sls.rate)}, above the committed "
                        f"rate {fmt_rate(env.rate)} of its edge policer {names}: traffic above the CIR is out of "
                        "profile", service.where.at("sls.rate", "sls"),
                        f"raise the CIR of {names} or declare at most {fmt_rate(env.rate)}")
    total = derived.path_delay_us
    if total is None:
        return
    partial = "" if derived.path_delay_complete else (
        f" over {len(derived.delay_hops)} of {len(derived.path)} hops (the others add to it)")
    for code, field, value, what in (("QOS162", "delay", sls.delay_us, "delay"),
                                     ("QOS166", "ipdv", sls.ipdv_us, "IPDV")):
        if value is not None and value < total:
            yield error(code, f"service '{service.name}' declares {what} {fmt_time(value)}, below the queueing "
                        f"delay bound summed along sls.path: {derived.path_delay_formula}{partial}",
                        service.where.at(f"sls.{field}", "sls"),
                        f"declare at least {format_time(math.ceil(total))}, or lower the policed burst (CBS) of the "
                        "service")


def check_sls(policy: Policy) -> Iterator[Diagnostic]:
    for service in policy.services:
        yield from check_service(policy, service)


RULES = (check_sls,)
