"""JUNOS target, part 2: edge conditioning as firewall filters and policers.

One filter per (edge classifier, trust) and family, its terms taken from the
classifier rules in order: inet and inet6, or, on a unit that carries Ethernet
frames only (encapsulation vlan), one family ccc filter whose terms match
learn-vlan-1p-priority, source-mac-address and destination-mac-address (Junos OS
Routing Policies, Firewall Filters and Traffic Policers User Guide, "Firewall
Filter Match Conditions for Layer 2 CCC Traffic"; YANG junos-conf-firewall
ccc_filter, 17.4R1 and 23.4R1) and set the forwarding class alone.  A term sets the forwarding class and loss
priority the plan gives the service's mark; the DSCP itself is written on the
way out by the rewrite rule, so marking and re-marking are both expressed as
(forwarding class, loss priority).  Three-colour policers only colour traffic
(green low, yellow medium-high, red high), so their re-marks must be code
points the rewrite rule gives those loss priorities.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from qosc import dscp as dscp_mod
from qosc.diagnostics import Location
from qosc.marking import trust_label
from qosc.model import Action, Domain, Interface, Policer, Role, Rule, Service
from qosc.rulemarks import rule_mark
from qosc.targets.junos.plan import Plan, jname, split_unit


@dataclass(frozen=True)
class Term:
    name: str
    addresses: tuple[tuple[str, tuple[str, ...]], ...] = ()
    matches: tuple[tuple[str, tuple[str, ...]], ...] = ()
    fc: str | None = None
    lp: str | None = None
    policer: str | None = None
    tcm: tuple[str, str] | None = None
    """(single-rate | two-rate, three-colour policer name)."""
    origin: Location | None = None
    """The policy line the term comes from (its rule, or the service it polices)."""
    discard: bool = False
    """`then discard` instead of accept: the classifier's `unmatched: drop` (a term without `from`)."""


@dataclass(frozen=True)
class Filter:
    family: str
    name: str
    terms: tuple[Term, ...]


@dataclass(frozen=True)
class TwoColour:
    name: str
    bandwidth: str
    burst: str
    then: tuple[str, ...]


@dataclass(frozen=True)
class ThreeColour:
    name: str
    mode: str
    aware: str
    rates: tuple[tuple[str, str], ...]
    discard_red: bool


@dataclass
class Edge:
    filters: list[Filter] = field(default_factory=list)
    attach: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(physical interface, unit, family, filter)."""
    policers: dict[str, TwoColour] = field(default_factory=dict)
    tcms: dict[str, ThreeColour] = field(default_factory=dict)
    refused: set[str] = field(default_factory=set)
    shared: set[str] = field(default_factory=set)
    """Policers that several terms of one filter use: written `filter-specific`, one instance for those terms
    (by default Junos makes one instance per term that names a policer: Junos OS 12.3 CLI reference,
    'filter-specific (Firewall)'); filters are `interface-specific`, so one instance per interface."""
    per_family: set[str] = field(default_factory=set)
    """Policers named by both the IPv4 and the IPv6 filter of an interface (one instance per family, QOS190)."""


def term_policer(t: Term) -> str | None:
    """The policer (two- or three-colour) a term names, if any."""
    return t.policer or (t.tcm[1] if t.tcm else None)


def _family(prefix: str) -> str:
    return "inet6" if ":" in prefix else "inet"


def filter_code(plan: Plan, code: int) -> str:
    """A DSCP as a firewall match value: a JUNOS keyword where one exists, else the number."""
    name = dscp_mod.name(code, "junos")
    return name if name in plan.platform.dscp_aliases and not name.startswith("nc") else str(code)


def plan_edge(plan: Plan) -> Edge:
    edge = Edge()
    made: dict[tuple[str | None, str], list[tuple[str, str]]] = {}
    for iface in plan.device.interfaces:
        if iface.role is not Role.EDGE:
            continue
        key = (iface.classifier, trust_label(iface.trust))
        if key not in made:
            made[key] = _filters(plan, edge, iface)
        ifd, unit = split_unit(iface)
        edge.attach += [(ifd, unit, family, name) for family, name in made[key]]
    return edge


def _filters(plan: Plan, edge: Edge, iface: Interface) -> list[tuple[str, str]]:
    policy = plan.policy
    classifier = policy.classifier_map.get(iface.classifier or "")
    rules = classifier.rules if classifier else ()
    trusted = Domain.DSCP in iface.trust
    if classifier:
        wanted = jname(classifier.name) + ("-dscp" if trusted else "")
    else:
        wanted = jname(policy.name) + ("-police" if trusted else "-edge")
    name = plan.names.name("filter", wanted, f"{iface.classifier} {trust_label(iface.trust)}")
    made = []
    named: dict[str, set[str]] = {}
    # IPv6 is conditioned like IPv4 (issue 14); Ethernet frames (a unit that routes no IP) by a family ccc filter
    for family in ("ccc",) if iface.ethernet_only else ("inet", "inet6"):
        terms = [t for t in (_rule_term(plan, edge, r, family, classifier.name if classifier else "")
                             for r in rules) if t is not None]
        if trusted:
            terms += _police_terms(plan, edge, family)
            if not terms:
                continue
            terms.append(Term("trusted"))
        elif iface.trust:  # trusts EXP or PCP only: the rules, then the BA classifier for the rest
            if not terms:
                continue
            terms.append(Term("trusted"))
        elif classifier is not None and classifier.drop_unmatched:  # `unmatched: drop`: said, not left implicit
            terms.append(Term("unmatched", discard=True, origin=classifier.where.at("unmatched")))
        else:
            default = policy.default_service
            if default is not None and default.name in plan.fc_of:
                terms.append(_term(plan, edge, "unclassified", default, default.mark if default.dscp else None,
                                   default.policer, default.where.loc))
        names: set[str] = set()
        unique = []
        for t in terms:
            n, i = t.name, 2
            while n in names:
                n, i = f"{t.name}-{i}", i + 1
            names.add(n)
            unique.append(replace(t, name=plan.names.name(f"term {family} {name}", n, n)))
        edge.filters.append(Filter(family, name, tuple(unique)))
        made.append((family, name))
        counts = Counter(n for n in map(term_policer, unique) if n)
        edge.shared |= {n for n, c in counts.items() if c > 1}
        named[family] = set(counts)
    for pname in sorted(named.get("inet", set()) & named.get("inet6", set()) - edge.per_family):
        edge.per_family.add(pname)
        p = next((x for x in policy.policers if jname(x.name) == pname), None)
        plan.note("QOS190", f"policer '{p.name if p else pname}' polices the IPv4 and the IPv6 traffic of "
                  f"{plan.device.name} separately: JUNOS applies filters per family, with a policer instance in "
                  "each, so together the two families may reach twice its rate",
                  p.where.loc if p else None, "give IPv4 and IPv6 rules policers of their own with half the rate "
                  "each, or accept the per-family rate")
    return made


def _rule_term(plan: Plan, edge: Edge, rule: Rule, family: str, classifier: str) -> Term | None:
    sources = tuple(p for p in rule.sources if _family(p) == family)
    destinations = tuple(p for p in rule.destinations if _family(p) == family)
    if family != "ccc" and family not in rule.families:  # no prefix of the family, or the other one's protocols
        return None
    service = plan.policy.service_map.get(rule.service)
    if service is None:
        return None
    if service.name not in plan.fc_of:
        plan.error("QOS114", f"rule '{rule.name}' of classifier '{classifier}' classifies into service "
                   f"'{service.name}', which device {plan.device.name} does not schedule", rule.where.at("service"),
                   "add the service to the device's interfaces, or classify into a scheduled service")
        return None
    mark = rule_mark(rule, service)
    if not rule.mark and (plan.fc_of[service.name], "low") in plan.rewrite:  # the rewrite rule writes its DSCP
        _classify_only(plan, rule, service)
    term = _term(plan, edge, jname(rule.name), service, mark, rule.policer or service.policer,
                 rule.where.at("set-dscp", "service"))
    if family == "ccc":  # the Ethernet header (the checks keep IP keys off such units: QOS211)
        return replace(term, addresses=tuple((k, v) for k, v in (("source-mac-address", rule.source_macs),
                                                                 ("destination-mac-address", rule.destination_macs))
                                             if v),
                       matches=(("learn-vlan-1p-priority", tuple(map(str, rule.pcp))),) if rule.pcp else ())
    addresses = tuple((k, v) for k, v in (("source-address", sources), ("destination-address", destinations)) if v)
    proto, dscp_kw = ("protocol", "dscp") if family == "inet" else ("next-header", "traffic-class")
    matches = tuple((k, v) for k, v in (
        (proto, rule.protocols_in(family)),
        ("source-port", tuple(_port(p) for p in rule.source_ports)),
        ("destination-port", tuple(_port(p) for p in rule.destination_ports)),
        (dscp_kw, tuple(filter_code(plan, c) for c in rule.match_dscp)),
    ) if v)
    return replace(term, addresses=addresses, matches=matches)


def _classify_only(plan: Plan, rule: Rule, service: Service) -> None:
    """QOS114 for `mark: false` where the device rewrites DSCP: JUNOS marks by the egress rewrite rule of the
    forwarding class (Junos OS Class of Service User Guide, "Rewriting Packet Headers to Ensure Forwarding
    Behavior"), so the matched packets would leave those units with the service's code point."""
    units = [i.name + (f".{i.unit}" if i.unit else "") for i in plan.device.interfaces if Domain.DSCP in i.rewrite]
    if units:
        plan.error("QOS114", f"rule '{rule.name}' classifies into '{service.name}' without marking (mark: false), "
                   f"but on {plan.device.name} JUNOS marks by the rewrite rule of the forwarding class: "
                   f"{', '.join(units[:4])}{' ...' if len(units) > 4 else ''} rewrite DSCP, so the packets would "
                   f"leave there marked {dscp_mod.name(service.mark, 'junos')}", rule.where.at("mark"),
                   "set rewrite without dscp on those interfaces (e.g. rewrite: [exp]), or let the rule mark")


def _port(p: tuple[int, int]) -> str:
    return str(p[0]) if p[0] == p[1] else f"{p[0]}-{p[1]}"


def _police_terms(plan: Plan, edge: Edge, family: str) -> list[Term]:
    """Trusted edge: police the services that have a policer, matched by their code points."""
    terms = []
    kw = "dscp" if family == "inet" else "traffic-class"
    for s in plan.policy.services:
        if s.policer and s.name in plan.fc_of and s.dscp:
            t = _term(plan, edge, "police-" + jname(s.name), s, s.mark, s.policer, s.where.at("policer"))
            terms.append(replace(t, matches=((kw, tuple(filter_code(plan, c) for c in s.dscp)),), fc=None, lp=None))
    return terms


def _term(plan: Plan, edge: Edge, name: str, service: Service, mark: int | None, policer: str | None,
          loc: Location | None) -> Term:
    fc = plan.fc_of[service.name]
    where = (fc, "low") if mark is None else plan.realise(mark)
    if where is None:
        plan.error("QOS114", f"service '{service.name}' marks {dscp_mod.name(mark or 0, 'junos')} on "
                   f"{plan.device.name}, but JUNOS cannot carry that code point to the rewrite rule intact",
                   loc, _unrealised_hint(plan, service, mark or 0))
        where = plan.codes.get(mark or 0, (fc, "low"))
    p = plan.policy.policer_map.get(policer or "")
    if p is None:
        return Term(name, fc=where[0], lp=where[1], origin=loc)
    if p.colours == 2 or _drops_all_but_green(p):
        if p.conform.kind == "remark" and p.conform.dscp is not None:
            where = _remark(plan, p, "conform", p.conform.dscp) or where
        return Term(name, fc=where[0], lp=where[1], policer=_two_colour(plan, edge, p), origin=loc)
    if not plan.platform.three_color_policers:
        if p.name not in edge.refused:
            edge.refused.add(p.name)
            plan.error("QOS111", f"policer '{p.name}' is three-colour, but {plan.platform.name} has no tricolor "
                       f"marking (device {plan.device.name}, edge interface)", p.where.at("pir", "ebs"),
                       "use a two-colour policer (cir, cbs, exceed) on this platform")
        return Term(name, fc=where[0], lp=where[1], origin=loc)
    mode = _three_colour(plan, edge, p, where[0], mark)
    return Term(name, fc=where[0], tcm=(mode, jname(p.name)), origin=loc)


def _unrealised_hint(plan: Plan, service: Service, mark: int) -> str:
    """QOS114's hint: mark the service's first code point where that one is carried intact; else what keeps the
    mark from the rewrite rule (the code point written in its place, the loss priorities the class leaves)."""
    if mark != service.mark and service.dscp and plan.realise(service.mark) is not None:
        return f"mark the service's first code point {dscp_mod.name(service.mark, 'junos')} (see the QOS115 warning)"
    where = plan.codes.get(mark)
    kept = plan.rewrite.get(where) if where is not None else None
    if where is None or kept is None:
        return "classify into a service scheduled on this device"
    owner = next((s.name for s in plan.policy.services if kept in s.dscp), None)
    first = ("marks its first code point already" if mark == service.mark else
             f"cannot mark its first code point {dscp_mod.name(service.mark, 'junos')} intact either")
    own = (f"'{service.name}' a queue of its own (no shared-with)" if service.queue.shared_with
           else f"{dscp_mod.name(mark, 'junos')} a service of its own")
    other = f", or classify into '{owner}'" if owner and owner != service.name else ""
    return (f"'{service.name}' {first}: {dscp_mod.name(mark, 'junos')} gets loss priority {where[1]} in forwarding "
            f"class {where[0]}, where the rewrite rule writes {dscp_mod.name(kept, 'junos')}; "
            f"{plan.crowded(where[0], mark, 'there')}; give {own}{other}")


def _drops_all_but_green(p: Policer) -> bool:
    """A three-colour policer that drops yellow and red is a two-colour policer at CIR/CBS."""
    return p.exceed.kind == "drop" and (p.violate is None or p.violate.kind == "drop")


def _remark(plan: Plan, p: Policer, label: str, code: int) -> tuple[str, str] | None:
    where = plan.realise(code)
    if where is None:
        plan.error("QOS114", f"policer '{p.name}' {label} re-marks to {dscp_mod.name(code, 'junos')}, which no "
                   f"service scheduled on {plan.device.name} keeps through the JUNOS rewrite rule",
                   p.where.at(label), "re-mark to the first code point of a service scheduled on this device")
    return where


def _two_colour(plan: Plan, edge: Edge, p: Policer) -> str:
    name = jname(p.name)
    if name in edge.policers:
        return name
    then: tuple[str, ...] = ()
    if p.exceed.kind == "drop":
        then = ("discard",)
    elif p.exceed.kind == "remark" and p.exceed.dscp is not None:
        where = _remark(plan, p, "exceed", p.exceed.dscp)
        then = (f"forwarding-class {where[0]}", f"loss-priority {where[1]}") if where else ("discard",)
    else:
        plan.error("QOS114", f"policer '{p.name}' transmits exceeding traffic unchanged; a JUNOS policer must "
                   "discard it or change its class or loss priority", p.where.at("exceed"),
                   "exceed: drop, or exceed: <dscp> to re-mark")
        then = ("discard",)
    edge.policers[name] = TwoColour(name, str(p.cir), str(p.cbs), then)
    return name


def _three_colour(plan: Plan, edge: Edge, p: Policer, fc: str, mark: int | None) -> str:
    colours = plan.platform.colour_loss_priority
    assert colours is not None, "three-colour policers only on platforms with colour loss priorities"
    violate = p.violate or Action("drop")
    for colour, label, action in (("green", "conform", p.conform), ("yellow", "exceed", p.exceed),
                                  ("red", "violate", violate)):
        lp = colours[colour]
        if action.kind == "drop":
            if colour != "red":
                plan.error("QOS114", f"policer '{p.name}' drops {colour} ({label}) traffic, but a JUNOS three-colour "
                           "policer always forwards green and yellow packets; only red can be discarded",
                           p.where.at(label), f"{label}: transmit or a DSCP to re-mark")
            continue
        existing = plan.rewrite.get((fc, lp))
        if action.kind == "transmit" and mark is None:
            continue
        code = mark if action.kind == "transmit" else action.dscp
        assert code is not None
        if plan.codes.get(code, ("",))[0] != fc:
            plan.error("QOS114", f"policer '{p.name}' {label} re-marks to {dscp_mod.name(code, 'junos')}, but a "
                       f"JUNOS three-colour policer only sets the loss priority: the code point must belong to "
                       f"forwarding class {fc}", p.where.at(label), "re-mark within the policed service's code points")
        elif existing is None:
            plan.rewrite[(fc, lp)] = code
        elif existing != code:
            plan.error("QOS114", f"policer '{p.name}' {label} ({colour}) traffic gets loss priority {lp}, which the "
                       f"rewrite rule of {fc} marks {dscp_mod.name(existing, 'junos')}, not "
                       f"{dscp_mod.name(code, 'junos')}", p.where.at(label),
                       f"{label}: {dscp_mod.name(existing, 'junos')}, or police a service whose mark is its "
                       "low-loss-priority code point")
    mode = "two-rate" if p.algorithm == "trtcm" else "single-rate"
    name = jname(p.name)
    if name not in edge.tcms:
        rates: tuple[tuple[str, int | None], ...]
        if mode == "two-rate":
            rates = (("committed-information-rate", p.cir), ("committed-burst-size", p.cbs),
                     ("peak-information-rate", p.pir), ("peak-burst-size", p.pbs))
        else:
            rates = (("committed-information-rate", p.cir), ("committed-burst-size", p.cbs),
                     ("excess-burst-size", p.ebs))
        edge.tcms[name] = ThreeColour(name, mode, "color-aware" if p.color_aware else "color-blind",
                                      # a missing pbs or ebs is the core's QOS012; lower what is there
                                      tuple((k, str(v)) for k, v in rates if v is not None), violate.kind == "drop")
    return mode
