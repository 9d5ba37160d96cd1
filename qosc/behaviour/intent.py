"""What a policy says a device should do: its behaviour straight from the model, without any target.

This is the reference verify and the round-trip tests compare a device
against, so it reads the policy's semantics, not any vendor's:

- classes are queues: a service and those that share its queue (queue.shared-with) are one class, named
  after the owner;
- every code point of a service scheduled on the interface is classified into its class; every other code
  point (undeclared, or of a service the interface does not schedule) into the default service's class;
- declared code points of scheduled services leave the interface as they came (services keep their marks);
  undeclared ones are not specified (targets differ, and the policy says nothing about them);
  transparent interfaces keep every code point;
- at edges, classifier rules mark the service's first code point (or set-dscp; a rule with mark: false or into a
  service without DSCP marks nothing and says its class) and apply the rule's or the
  service's policer; a policer several rules of the interface name is one policer for all of them (shared);
  edges that trust nothing mark unmatched traffic as the default service (a classifier with `unmatched: drop`
  discards it instead) (an edge trusting EXP or PCP leaves it
  to that classification), and where their first rule matches every packet, every code point is in its class.
"""

from __future__ import annotations

from dataclasses import replace

from qosc.behaviour.model import FAMILIES, Class, Curve, Device, Envelope, Interface, Rule
from qosc.model import Action, Domain, DropProfile, Kind, Policer, Policy, Role, Service, rate_percent
from qosc.model import Device as ModelDevice
from qosc.model import Interface as ModelInterface
from qosc.rulemarks import rule_mark
from qosc.units import Percent


def curve(profile: DropProfile) -> Curve:
    if profile.red is not None:
        low, high, p = profile.red
        return Curve(((low, 0.0), (high, p)), interpolate=True, beyond=100.0)
    return Curve(tuple(profile.points), interpolate=profile.interpolate)


def action(a: Action | None) -> str | None:
    if a is None:
        return None
    return f"dscp {a.dscp}" if a.kind == "remark" else a.kind


def envelope(p: Policer, shared: bool = False) -> Envelope:
    """The policer's envelope; `shared`: several rules of the interface use it, and it polices them together."""
    return Envelope(p.cir, p.cbs, p.pir, p.pbs, p.ebs, action(p.conform) or "transmit", action(p.exceed) or "drop",
                    action(p.violate), p.name if shared else None)


def _pct(value: object, iface: ModelInterface) -> float | None:
    if value is None:
        return None
    pct = rate_percent(value, iface.rate)  # type: ignore[arg-type]
    return None if pct is None else round(pct, 6)


def _buffer(s: Service) -> tuple[str, float] | None:
    b = s.queue.buffer
    if b is None:
        return None
    if b.percent is not None:
        return ("percent", b.percent.value)
    return ("us", float(b.time_us or 0))


def _class(policy: Policy, owner: Service, iface: ModelInterface) -> Class:
    q = owner.queue
    drops: list[tuple[int, Curve]] = []
    profiles = dict(owner.drop_profiles) if q.aqm == "red" else {}  # aqm none: tail drop; codel: no curve
    if profiles and len(set(profiles.values())) == 1 and set(profiles) == {1, 2, 3}:
        d = policy.drop_profile_map.get(profiles[1])
        drops = [(0, curve(d))] if d is not None else []
    else:
        drops = [(prec, curve(policy.drop_profile_map[name])) for prec, name in sorted(profiles.items())
                 if name in policy.drop_profile_map]
    ceiling = None if q.ceiling is None or q.ceiling == Percent(100.0) else _pct(q.ceiling, iface)
    return Class(owner.name, share=_pct(q.share, iface), strict=q.strict, priority=int(q.priority),
                 cap=_pct(q.rate_cap, iface), ceiling=ceiling, buffer=_buffer(owner), drop=tuple(drops),
                 ecn=q.ecn, origin=owner.where.loc)


def interface(policy: Policy, iface: ModelInterface) -> Interface:
    scheduled = policy.services_on(iface)
    owners: list[Service] = []
    for s in scheduled:
        owner = policy.queue_owner(s)
        if owner not in owners:
            owners.append(owner)
    strict = [o for o in owners if o.queue.strict]  # served in the policy's order (IOS XR levels, JUNOS on ACX)
    classes = tuple(replace(c, strict_rank=len(strict) - strict.index(o)) if o in strict else c
                    for o, c in ((o, _class(policy, o, iface)) for o in owners))
    default = policy.default_service
    default_class = policy.queue_owner(default).name if default is not None and default in scheduled else None
    classify = [default_class] * 64
    declared: set[int] = set()
    for s in scheduled:
        for code in s.dscp:
            classify[code] = policy.queue_owner(s).name
            declared.add(code)
    transparent = iface.role is Role.TRANSPARENT
    rewrite = tuple(code if transparent or code in declared else None for code in range(64))
    rules: list[Rule] = []
    unmatched = None
    dropped = False
    trust = Domain.DSCP in iface.trust
    if iface.role is Role.EDGE:
        classifier = policy.classifier_map.get(iface.classifier or "")
        policers = []
        for r in classifier.rules if classifier else ():
            service = policy.service_map.get(r.service)
            policers.append(policy.policer_map.get(r.policer or (service.policer if service else None) or ""))
        users = [p.name for p in policers if p is not None]
        for r, police in zip(classifier.rules if classifier else (), policers, strict=True):
            service = policy.service_map.get(r.service)
            mark = rule_mark(r, service)
            fc = policy.queue_owner(service).name if mark is None and service is not None else None
            rules.append(Rule(r.name, r.sources, r.destinations, r.protocols, r.source_ports, r.destination_ports,
                              r.match_dscp, mark, envelope(police, users.count(police.name) > 1) if police else None,
                              r.families, origin=r.where.loc, fc=fc, pcp=r.pcp, source_macs=r.source_macs,
                              destination_macs=r.destination_macs))
        # an edge trusting EXP or PCP keeps those; an interface of Ethernet frames writes no DSCP
        dropped = classifier is not None and classifier.drop_unmatched  # `unmatched: drop`: discarded, not marked
        if not iface.trust and default is not None and default.dscp and not iface.ethernet_only and not dropped:
            unmatched = default.mark
        if trust:
            for s in scheduled:
                police = policy.policer_map.get(s.policer or "")
                if police is not None and s.dscp:
                    rules.append(Rule(f"police-{s.name}", match_dscp=s.dscp, mark=s.mark, policer=envelope(police),
                                      origin=s.where.at("policer")))
    if rules and not trust and _everything(rules[0]):  # its first rule takes every packet: one class for all
        first = rules[0]
        classify = [classify[first.mark] if first.mark is not None else first.fc] * 64
    both = tuple(classify) if not iface.ethernet_only else (None,) * 64  # frames: no DSCP is read or written
    rewrite = rewrite if not iface.ethernet_only else (None,) * 64
    options = (("port-type", iface.port_type),) if iface.port_type else ()
    exp, pcp = (_classify3(policy, iface, scheduled, d) for d in (Domain.EXP, Domain.PCP))
    return Interface(iface.name, iface.unit, iface.role.value, iface.rate, iface.shape, classes, (both, both),
                     (rewrite, rewrite), trust, tuple(rules), unmatched, options, exp, pcp,
                     _marks(policy, iface, owners), default_queueing=iface.default_queueing, origin=iface.where.loc,
                     ethernet=iface.ethernet_only, unmatched_drop=dropped)


def _everything(rule: Rule) -> bool:
    """Whether an edge rule matches every packet (no match of any kind, both IP families)."""
    return not (rule.sources or rule.destinations or rule.protocols or rule.source_ports or rule.destination_ports
                or rule.match_dscp) and set(rule.families) == set(FAMILIES)


def _classify3(policy: Policy, iface: ModelInterface, scheduled: tuple[Service, ...],
               domain: Domain) -> tuple[tuple[str, int] | None, ...]:
    """Each EXP or PCP value to its service's class at its drop precedence; undeclared values to the default."""
    if domain not in iface.trust:
        return (None,) * 8
    default = policy.default_service
    fallback = (policy.queue_owner(default).name, 1) if default is not None and default in scheduled else None
    table: list[tuple[str, int] | None] = [fallback] * 8
    for s in scheduled:
        for value, precedence in s.marking(domain).values:
            if table[value] == fallback:  # the first precedence a value is listed at
                table[value] = (policy.queue_owner(s).name, precedence)
    return tuple(table)


def _marks(policy: Policy, iface: ModelInterface, owners: list[Service]) -> tuple[tuple[str, str, int, int], ...]:
    """What each class leaves with where the interface rewrites EXP or PCP, and the EXP an edge imposes: the
    queue owner's value of each drop precedence (the default service's 0 when it declares none)."""
    domains = [(d.value, d) for d in (Domain.EXP, Domain.PCP) if d in iface.rewrite]
    if iface.impose:
        domains.append(("impose", Domain.EXP))
    out = []
    for label, domain in domains:
        for owner in owners:
            for precedence in (1, 2, 3):
                value = owner.mark_in(domain, precedence)
                value = 0 if value is None and owner.default else value
                if value is not None:
                    out.append((label, owner.name, precedence, value))
    return tuple(sorted(out))


def device(policy: Policy, dev: ModelDevice) -> Device:
    """The behaviour the policy asks of a device: router-generated traffic in the network-control service's
    class where the device carries one, else in the default service's."""
    carried = {n for i in dev.interfaces for n in i.services}
    nc = next((s for s in policy.services if s.kind is Kind.NETWORK_CONTROL and s.name in carried), None)
    home = nc or policy.default_service
    host = policy.queue_owner(home).name if home is not None else None
    return Device(dev.name, dev.platform, tuple(interface(policy, i) for i in dev.interfaces), host_class=host,
                  origin=dev.where.loc)


__all__ = ["FAMILIES", "curve", "device", "envelope", "interface"]
