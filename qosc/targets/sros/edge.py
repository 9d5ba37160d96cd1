"""SR OS target, part 2: edge conditioning decisions (sap-ingress, sap-egress) on the SAPs of edge interfaces.

One sap-ingress per (classifier, trust): `default-fc` the default service's
class; with trust dscp a `dscp` map of the carried code points; `ip-criteria`
(IPv4) and `ipv6-criteria` entries from the classifier's rules in order (SR
OS matches one value per field, so a rule with several prefixes, protocols or
ports is one entry per combination), each accepting into the service's class
with its policer; policers from the policy's (rates in kbit/s rounded up,
buckets in bytes).  Colours: SR OS ingress policers mark in-profile up to CIR
and out-of-profile up to PIR and discard above PIR; conform and exceed re-marks
are the class's in-remark and out-remark.  One sap-egress per distinct queue
plan: queues per class with percent-rate CIR/PIR and per-queue WRED (wred-queue
native: out-of-profile meets the low slope, exceed the exceed slope).
"""

from __future__ import annotations

import ipaddress
import itertools
import math
from dataclasses import dataclass, field

from qosc.model import Classifier, Policer, Role, Rule, Service
from qosc.targets.sros.plan import Plan, sname

ENTRY_STEP = 10


@dataclass(frozen=True)
class Entry:
    id: int
    family: str  # inet | inet6
    rule: Rule
    protocol: str | None
    src: str | None
    dst: str | None
    sport: tuple[int, int] | None
    dport: tuple[int, int] | None
    dscp: int | None
    fc: str
    policer: int | None


@dataclass
class PolicerSpec:
    id: int
    policer: Policer
    cir_kbps: int
    pir_kbps: int | None  # None: max
    cbs: int
    mbs: int
    why: tuple[str, ...] = ()


@dataclass
class Ingress:
    name: str
    classifier: Classifier | None
    trust: str
    entries: list[Entry] = field(default_factory=list)
    policers: dict[str, PolicerSpec] = field(default_factory=dict)
    remarks: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)
    """Forwarding class -> (in-remark DSCP, out-remark DSCP)."""


@dataclass
class Edge:
    ingress: dict[tuple[str | None, str], Ingress] = field(default_factory=dict)


def _kbps(bps: int) -> int:
    return max(1, math.ceil(bps / 1000))


def plan_edge(plan: Plan) -> Edge:
    edge = Edge()
    for iface in plan.device.interfaces:
        if iface.role is not Role.EDGE:
            continue
        classifier = plan.policy.classifier_map.get(iface.classifier) if iface.classifier else None
        key = (classifier.name if classifier else None, iface.trust)
        if key not in edge.ingress:
            wanted = "-".join(x for x in (sname(plan.policy.name), key[0] and sname(key[0]), iface.trust) if x)
            edge.ingress[key] = _ingress(plan, plan.names.name("sap-ingress", wanted, f"ingress {key}"), classifier,
                                         iface.trust)
    return edge


def _service(plan: Plan, name: str) -> Service | None:
    s = plan.policy.service_map.get(name)
    return s if s is not None and s.name in plan.fc_of else None


def _ingress(plan: Plan, name: str, classifier: Classifier | None, trust: str) -> Ingress:
    spec = Ingress(name, classifier, trust)
    services: list[Service] = []
    for rule in classifier.rules if classifier else ():
        s = _service(plan, rule.service)
        if s is None:
            plan.warn("QOS236", f"classifier rule '{rule.name}' sends traffic to '{rule.service}', which device "
                      f"{plan.device.name} does not queue: it is left to the default class", rule.where.loc)
            continue
        policer = _policer(plan, spec, rule.policer or s.policer, s)
        fc = plan.fc_of[s.name].name
        _remark(plan, spec, fc, rule, s)
        for family in ("inet", "inet6"):
            srcs = _prefixes(rule.sources, family)
            dsts = _prefixes(rule.destinations, family)
            if srcs == [] or dsts == []:
                continue  # the rule's prefixes are all of the other family
            none: list[None] = [None]
            for proto, src, dst, sport, dport, code in itertools.product(
                    rule.protocols or none, srcs or none, dsts or none, rule.source_ports or none,
                    rule.destination_ports or none, rule.match_dscp or none):
                spec.entries.append(Entry(ENTRY_STEP * (len(spec.entries) + 1), family, rule, proto, src, dst,
                                          sport, dport, code, fc, policer))
        services.append(s)
    if trust == "dscp":
        for cls in plan.fcs:
            for member in cls.members:
                if member.policer:
                    _policer(plan, spec, member.policer, member)
    return spec


def _prefixes(prefixes: tuple[str, ...], family: str) -> list[str] | None:
    """The rule's prefixes of one family; None when the rule names none (match any), [] when all are the other's."""
    if not prefixes:
        return None
    version = 4 if family == "inet" else 6
    return [p for p in prefixes if ipaddress.ip_network(p, strict=False).version == version]


def _remark(plan: Plan, spec: Ingress, fc: str, rule: Rule, s: Service) -> None:
    if rule.set_dscp is None or (s.dscp and rule.set_dscp == s.mark):
        return
    seen = spec.remarks.get(fc)
    if seen is not None and seen[0] not in (None, rule.set_dscp):
        plan.error("QOS235", f"rules of classifier '{spec.classifier.name if spec.classifier else ''}' re-mark "
                   f"class {fc} to two code points: SR OS re-marks per forwarding class in a sap-ingress",
                   rule.where.at("set-dscp"), "mark the rules of one service with the same code point")
        return
    spec.remarks[fc] = (rule.set_dscp, rule.set_dscp if seen is None else seen[1])


def _policer(plan: Plan, spec: Ingress, name: str | None, s: Service) -> int | None:
    if name is None:
        return None
    found = spec.policers.get(name)
    if found is not None:
        return found.id
    p = plan.policy.policer_map.get(name)
    if p is None:  # a dangling name: the core's reference check reports it (QOS0xx) at its line
        return None
    fc = plan.fc_of[s.name].name
    why: list[str] = []
    if p.color_aware:
        plan.error("QOS235", f"policer '{p.name}' is colour-aware: SR OS sap-ingress policers meter colour-blind",
                   p.where.at("color-aware"), "make the policer colour-blind")
    pir: int | None
    mbs = p.cbs
    if p.pir is not None:
        pir, mbs = _kbps(p.pir), p.pbs or p.cbs
    elif p.ebs is not None:
        pir, mbs = _kbps(p.cir), p.cbs + p.ebs
        why.append("single-rate three-colour: PIR = CIR, MBS = CBS + EBS (out-of-profile while the excess bucket "
                   "lasts)")
    elif p.exceed.kind == "drop":
        pir = _kbps(p.cir)
    else:
        pir = None
        why.append("exceed re-marks, nothing is dropped: PIR max")
    conform = p.conform.dscp if p.conform.kind == "remark" else None
    exceed = p.exceed.dscp if p.exceed.kind == "remark" else None
    if p.violate is not None and p.violate.kind == "remark":
        plan.warn("QOS236", f"policer '{p.name}': SR OS ingress policers discard above PIR, so violating traffic is "
                  "dropped instead of re-marked", p.where.at("violate"), "say violate: drop")
        why.append("violate re-mark: SR OS discards above PIR")
    if conform is not None or exceed is not None:
        spec.remarks[fc] = (conform, exceed)
    spec.policers[name] = PolicerSpec(len(spec.policers) + 1, p, _kbps(p.cir), pir, p.cbs, mbs, tuple(why))
    return spec.policers[name].id
