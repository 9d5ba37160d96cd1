"""linux-tc lowering, edge half: clsact ingress classification, policing and DSCP remarking.

Each classifier rule becomes u32 filters (one per combination of prefix,
protocol, port mask and DSCP; a port range is split into value/mask pairs) on
the clsact ingress, at one tc prio per rule and family, in rule order; the
first rule that matches ends classification (its last action is ``pass``).

A rule's actions: its policer, then ``pedit ... dsfield set <mark> retain
0xfc`` (ECN bits kept) and ``csum ip4h`` for IPv4 (IPv6 has no header
checksum: ``pedit ... ip6 traffic_class``).  tc's police cannot jump on its
conform branch, so colours are marked worst first without jumps:

    pedit <violate mark>, csum, police PIR (exceed: ok | drop),
    pedit <exceed mark>,  csum, police CIR (exceed: ok | drop),
    pedit <conform mark>, csum, pass

A packet that exceeds a bucket leaves with the mark written just before it;
one that conforms goes on and is re-marked.  The token logic is exactly RFC
2698's (a violating packet takes no token, an exceeding one takes only PIR
tokens).  A single-rate three-colour policer (RFC 2697) is rendered as this
chain with PIR = CIR and PBS = CBS + EBS: the same long-term rate and bursts,
though RFC 2697 refills its two buckets in sequence rather than in parallel.
Police instances carry an ``index`` (from police_index_base, per device) so
all the filters of one rule, IPv4 and IPv6, share one token bucket, and so do
the rules of one interface that name the same policer (the schema's meaning).

After the rules: an edge trusting DSCP polices each service's code points with the service's policer; one
trusting PCP marks each tagged frame with the DSCP of the service its PCP selects (cls_bpf, marks.py), and
every edge that trusts neither marks the rest as the default service.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from qosc.model import Action, Device, Domain, Interface, Policer, Policy, Role, Rule, Service
from qosc.protocols import PROTOCOLS
from qosc.targets.linux_tc.marks import bytecode, pcp_program
from qosc.targets.linux_tc.plan import GSO_MAX
from qosc.targets.linux_tc.words import Words, bitrate, kws, mask, nbytes, text_of, tos
from qosc.tree import At, Kind, Word, integer, port, prefix

PORT_PROTOCOLS = ("tcp", "udp")
MAX_FILTERS_PER_RULE = 256



@dataclass(frozen=True)
class IngressFilter:
    protocol: str
    prio: int
    match_words: Words
    actions: tuple[Words, ...]
    rule: str
    origin: At | None = None
    """Where in the policy the filter comes from (the rule, the trusted service's DSCP, the interface's trust)."""
    kind: str = "u32"
    """u32, or bpf (a trusted PCP: marks.py)."""

    @property
    def match(self) -> str:
        return text_of(self.match_words)

    @property
    def action_kinds(self) -> tuple[str, ...]:
        return tuple(a[0].text for a in self.actions)


@dataclass
class Ingress:
    filters: list[IngressFilter] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def port_masks(lo: int, hi: int) -> list[tuple[int, int]]:
    """Cover the port range [lo, hi] with u32 (value, mask) pairs, fewest first-fit blocks."""
    out = []
    while lo <= hi:
        size = (lo & -lo) if lo else 1 << 16
        while size > hi - lo + 1:
            size >>= 1
        out.append((lo, 0xFFFF & ~(size - 1)))
        lo += size
    return out


def _proto_number(name: str) -> int:
    return PROTOCOLS[name] if name in PROTOCOLS else int(name)


def rule_matches(rule: Rule, family: str) -> list[Words]:
    """The u32 match words of one rule for one family (each a complete alternative)."""
    v6 = family == "inet6"
    ip = "ip6" if v6 else "ip"
    srcs: list[str | None] = [p for p in rule.sources if (":" in p) == v6] or [None]
    dsts: list[str | None] = [p for p in rule.destinations if (":" in p) == v6] or [None]
    protos: list[str | None] = list(rule.protocols_in(family)) or [None]
    if (rule.source_ports or rule.destination_ports) and not rule.protocols:
        protos = list(PORT_PROTOCOLS)
    sports: list[tuple[int, int] | None] = [m for lo, hi in rule.source_ports for m in port_masks(lo, hi)] or [None]
    dports: list[tuple[int, int] | None] = [m for lo, hi in rule.destination_ports
                                            for m in port_masks(lo, hi)] or [None]
    dscps: list[int | None] = list(rule.match_dscp) or [None]
    out = []
    for src, dst, proto, sport, dport, dscp in itertools.product(srcs, dsts, protos, sports, dports, dscps):
        parts: list[Word] = []
        if src:
            parts += [*kws(f"match {ip} src"), prefix(src)]
        if dst:
            parts += [*kws(f"match {ip} dst"), prefix(dst)]
        if proto is not None:
            parts += [*kws(f"match {ip} protocol"), integer(_proto_number(proto), "protocol"), mask(0xff)]
        if sport:
            parts += [*kws(f"match {ip} sport"), _port(*sport), mask(sport[1], 4)]
        if dport:
            parts += [*kws(f"match {ip} dport"), _port(*dport), mask(dport[1], 4)]
        if dscp is not None:
            parts += [*kws(f"match {ip} {'priority' if v6 else 'dsfield'}"), tos(dscp), mask(0xfc)]
        out.append(tuple(parts) or MATCH_ALL)
    return out


MATCH_ALL: Words = (*kws("match u32"), integer(0, "value"), integer(0, "mask"))


def _port(value: int, port_mask: int) -> Word:
    """The first port of a u32 value/mask block, standing for the block's range."""
    return port(value, value | (~port_mask & 0xFFFF), str(value))


def _remark(family: str, dscp: int, last: bool) -> list[Words]:
    control = kws("pass" if last else "pipe")
    if family == "inet6":
        return [(*kws("pedit ex munge ip6 traffic_class set"), tos(dscp), *kws("retain"), mask(0xfc), *control)]
    return [(*kws("pedit ex munge ip dsfield set"), tos(dscp), *kws("retain"), mask(0xfc), *kws("pipe")),
            (*kws("csum ip4h"), *control)]


def _police(rate: int, burst: int, exceed: str, index: int) -> Words:
    return (*kws("police rate"), bitrate(rate), *kws("burst"), nbytes(burst), *kws("conform-exceed"),
            Word(Kind.KEYWORD, f"{exceed}/pipe"), *kws("index"), integer(index, "index"))


def _mark(action: Action, classify: int) -> int | None:
    """The DSCP an outcome leaves with, or None when it is dropped."""
    if action.kind == "drop":
        return None
    if action.kind == "remark" and action.dscp is not None:
        return action.dscp
    return classify


def action_chain(family: str, policer: Policer | None, classify: int, index: int) -> tuple[Words, ...]:
    """Actions for one filter: police stages worst colour first, then the conform mark.

    `classify` is what "transmit" writes: the rule's service mark, or for traffic
    whose DSCP is trusted the very code point the filter matched (rewritten
    unchanged), so every filter binding a police index gives it the same controls.
    """
    stages: list[tuple[int, int, Action]] = []
    conform: Action = Action("transmit")
    if policer is not None:
        conform = policer.conform
        if policer.pir is not None or policer.ebs is not None:
            pir = policer.pir if policer.pir is not None else policer.cir
            pbs = policer.pbs if policer.pir is not None else policer.cbs + (policer.ebs or 0)
            stages.append((pir, pbs or policer.cbs, policer.violate or Action("drop")))
        stages.append((policer.cir, policer.cbs, policer.exceed))
    actions: list[Words] = []
    for number, (rate, burst, outcome) in enumerate(stages):
        mark = _mark(outcome, classify)
        if mark is None:
            actions.append(_police(rate, burst, "drop", index + number))
            continue
        actions.extend(_remark(family, mark, last=False))
        actions.append(_police(rate, burst, "ok", index + number))
    final = _mark(conform, classify)
    if final is None:
        actions.append(kws("gact drop"))  # a policer that drops conforming traffic: odd, but what was asked
    else:
        actions.extend(_remark(family, final, last=True))
    return tuple(actions)


def stages_of(policer: Policer | None) -> int:
    if policer is None:
        return 0
    return 2 if (policer.pir is not None or policer.ebs is not None) else 1


class _Indexes:
    """Police action indexes for one device: one block per policed rule or service."""

    def __init__(self, base: int) -> None:
        self.next = base + 1
        self.owners: dict[tuple[str, str, str], int] = {}

    def take(self, key: tuple[str, str, str], count: int) -> int:
        if key not in self.owners:
            self.owners[key] = self.next
            self.next += max(count, 1)
        return self.owners[key]


def lower_ingress(policy: Policy, device: Device, iface: Interface, indexes: _Indexes) -> Ingress:
    ingress = Ingress()
    if iface.role is not Role.EDGE:
        return ingress
    prio = 0
    classifier = policy.classifier_map.get(iface.classifier or "")
    for rule in classifier.rules if classifier else ():
        service = policy.service_map.get(rule.service)
        if service is None or (rule.set_dscp is None and not service.dscp):
            continue  # an unknown service, or one without a code point to mark: QOS034 and the like say so
        mark = rule.set_dscp if rule.set_dscp is not None else service.mark
        policer_name = rule.policer or service.policer
        policer = policy.policer_map.get(policer_name or "")
        # rules of one interface naming the same policer (their own or their service's) share it: one index
        key = (iface.name, "policer", policer_name or "")
        index = indexes.take(key, stages_of(policer)) if policer else 0
        if policer is not None:
            _police_notes(ingress, policer, iface)
        for family in rule.families:
            prio += 1
            protocol = "ipv6" if family == "inet6" else "ip"
            chain = action_chain(family, policer, mark, index)
            for match in rule_matches(rule, family)[:MAX_FILTERS_PER_RULE]:
                ingress.filters.append(IngressFilter(protocol, prio, match, chain, rule.name, At(rule.where)))
    if Domain.DSCP in iface.trust:
        for service in policy.services:
            policer = policy.policer_map.get(service.policer or "")
            if policer is None or not service.dscp:
                continue
            index = indexes.take((iface.name, "service", service.name), stages_of(policer))
            _police_notes(ingress, policer, iface)
            for family, protocol, field_ in (("inet", "ip", "dsfield"), ("inet6", "ipv6", "priority")):
                prio += 1
                ip = "ip6" if family == "inet6" else "ip"
                for code in service.dscp:
                    ingress.filters.append(IngressFilter(protocol, prio, (*kws(f"match {ip} {field_}"), tos(code),
                                                                           mask(0xfc)),
                                                         action_chain(family, policer, code, index),
                                                         f"{service.name} (trusted DSCP)",
                                                         At(service.where, "policer", "dscp")))
    elif Domain.PCP in iface.trust:
        prio = _trusted_pcp(policy, iface, ingress, indexes, prio)
    if not iface.trust or (Domain.PCP in iface.trust and Domain.DSCP not in iface.trust):
        # untrusted traffic (with trust: pcp, what is untagged or of a PCP no service has) to the default service;
        # an edge trusting EXP alone leaves IP packets as they are (labelled ones are classified by their EXP)
        default: Service | None = policy.default_service
        mark = default.mark if default is not None and default.dscp else 0
        policer = policy.policer_map.get(default.policer or "") if default is not None else None
        index = indexes.take((iface.name, "service", default.name), stages_of(policer)) \
            if policer is not None and default is not None else 0
        if policer is not None:
            _police_notes(ingress, policer, iface)
        for family, protocol in (("inet", "ip"), ("inet6", "ipv6")):
            prio += 1
            ingress.filters.append(IngressFilter(protocol, prio, MATCH_ALL,
                                                 action_chain(family, policer, mark, index),
                                                 "unclassified traffic to the default service"
                                                 + (" (trust: none)" if not iface.trust else ""),
                                                 At(iface.where, "trust", "classifier", "role")))
    return ingress


def _trusted_pcp(policy: Policy, iface: Interface, ingress: Ingress, indexes: _Indexes, prio: int) -> int:
    """An edge trusting PCP: a tagged frame's PCP selects its service (the first that lists the value, at that
    value's drop precedence), whose DSCP of that precedence the packet is marked with, through its policer, so the
    egress queues it by that DSCP after routing has removed the tag.  cls_bpf reads the tag the kernel keeps in
    the packet's metadata (marks.py); one filter per value and family.  Which returns the next free prio."""
    for family, protocol in (("inet", "ip"), ("inet6", "ipv6")):
        prio += 1
        for value in range(8):
            found = next(((s, p) for s in policy.services for v, p in s.pcp.values if v == value), None)
            if found is None or not found[0].dscp:
                continue  # the default's filter marks it
            service, precedence = found
            policer = policy.policer_map.get(service.policer or "")
            index = indexes.take((iface.name, "service", service.name), stages_of(policer)) if policer else 0
            if policer is not None:
                _police_notes(ingress, policer, iface)
            code = service.mark_in(Domain.DSCP, precedence)
            assert code is not None
            ingress.filters.append(IngressFilter(protocol, prio, (*kws("bytecode"), bytecode(pcp_program(value))),
                                                 action_chain(family, policer, code, index),
                                                 "tagged frames to the service of their PCP (trust: pcp)",
                                                 At(service.where, "pcp"),
                                                 kind="bpf"))
    return prio


def _police_notes(ingress: Ingress, policer: Policer, iface: Interface) -> None:
    notes = []
    if policer.color_aware:
        notes.append(f"policer {policer.name} is colour-aware in the policy; tc police is colour-blind")
    smallest = min(b for b in (policer.cbs, policer.pbs, policer.ebs) if b is not None)
    if smallest < GSO_MAX:
        notes.append(f"policer {policer.name} has a {smallest}-byte bucket, smaller than a 64 KiB GRO aggregate: "
                     f"turn GRO off on {iface.name} (ethtool -K {iface.name} gro off) so it polices packets, "
                     "not aggregates")
    for note in notes:
        if note not in ingress.notes:
            ingress.notes.append(note)


def new_indexes(base: int) -> _Indexes:
    return _Indexes(base)
