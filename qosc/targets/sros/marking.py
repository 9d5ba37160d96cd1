"""SR OS target, part 2b: the marking domains of a device (MPLS EXP, 802.1p) and the RFC 3270 tunnel models.

Network side (router interfaces `IF:PORT` or `IF:PORT:VLAN`): one `network` QoS policy per distinct need of
the device's router interfaces (ingress `dscp` entries where the interface trusts dscp, `lsp-exp` where it
trusts exp, `dot1p` where it trusts pcp; egress per forwarding class `dscp-in/out-profile` where it rewrites
dscp, `lsp-exp-in/out-profile` where it rewrites exp, `dot1p-in/out-profile` where it rewrites pcp;
`ler-use-dscp` below), the first named after the policy, the others -2, -3.  Every EXP and PCP value of a
carried service goes to its forwarding class at the profile of its drop precedence (profiles.py: the profile
also picks the pool slope of the service's drop curve, plan.py); a value no carried service declares goes to
the default-action, the default service's class.  Two drop precedences of a service with different values
that meet one profile cannot be told apart (QOS236).  At egress each class writes its queue owner's value of
the drop precedence in-profile traffic carries and of the one out-of-profile traffic carries (the default
service's 0 where it declares none); a precedence of the same profile group with another value is said
(QOS236).  Network egress marks the traffic that needs marking (from SAPs: the labels a PE pushes); a label
switched or an IP packet from the network leaves with the EXP or DSCP it came with, as `remark-trusted` is
not set (Nokia 7750 SR Quality of Service Guide 15.0.R1, 'Network QoS Policies Overview': the egress policy
marks DSCP and EXP of packets from a SAP, or of every packet only with remarking; remark-trusted would
re-mark the DSCP of routed packets too, and qosc keeps DSCP 8 intact): a class with two EXP values of one
precedence keeps each on the labels it swaps (QOS236 where a core rewrites EXP).

802.1p DEI: where a service carries a drop precedence in the DE bit (the same PCP at a higher precedence) and
the platform has it (platform `dei`), the dot1p entry's profile is `de` (DE 0 in, DE 1 out:
nokia-types-qos typedef profile-de) and the class's egress `de-mark` writes the DE bit from the profile
(0 in-profile, 1 out-of-profile and exceed without a forced value, as IEEE 802.1ad-2005: Alcatel-Lucent 7450
ESS/7750 SR/7950 XRS Quality of Service Guide 14.0.R1, 'de-mark'), when the two precedences meet profiles in
and out; else the DE bit is not read (QOS236).

Edge (SAPs): `sap-ingress` `dot1p` (trust pcp) and `lsp-exp` (trust exp, on a VPLS SAP: SR OS applies EXP
classification at Ethernet layer-2 SAPs only, 7750 SR QoS Guide 22.5.R1, 'FC mapping based on EXP bits')
entries give the class; a SAP's profile comes from its policer's CIR, so a class whose values
span drop precedences writes the enqueuing priority (high for precedence 1, low above), the drop precedence
of SR OS's ingress queues, and `de-1-out-profile` where the DE bit carries one.  `sap-egress` writes `dot1p
in-profile/out-profile` where the SAP rewrites pcp (without it the PCP the packet came with is kept: 7750 SR
QoS Guide 22.5.R1, 'Dot1p egress remarking') and `de-mark` for a DE precedence.  A SAP egress writes no EXP
(QOS235 for a SAP that rewrites exp).

Imposition.  SR OS writes the EXP of the labels a PE pushes for SAP traffic with the network egress
`lsp-exp-in/out-profile` of the network interface the packet leaves by, in-profile or out-of-profile (7450
ESS/7750 SR QoS Guide, 'Network Egress QoS Policy Commands', egress); without them the default network
policy's values (platform `exp_default` 'forwarding-class').  So, as for JUNOS, QOS238: edges of one device
that disagree on `impose`, an imposing edge beside an MPLS router interface that does not rewrite EXP, or
`impose: false` beside one that does.

Tunnel models (`mpls.tunnel-model`, on a PE: a device with SAPs and an MPLS router interface).  SR OS's
egress LER receives the label (LDP and RSVP signal implicit null only where `implicit-null-label` is
configured: 7750 SR MPLS Guide 22.5.R1, 'Configuring implicit null label'; a VPRN or VPLS packet keeps its
service label) and classifies it by its EXP.  short-pipe: `ler-use-dscp` on the PE's MPLS interfaces' network
policy (the interface then classifies the IP packets of the tunnels ending there on their own DSCP, not the
tunnel's marking: 7750 SR QoS Guide 22.5.R1, 'Network ingress tunnel QoS override'), so they must trust dscp
(QOS239).  pipe: EXP classification at the egress PE (they must trust exp, QOS239) and no DSCP re-marking at
the SAPs' egress (the customer's DSCP is left as it was).  uniform: EXP classification and the SAPs' egress
re-mark the DSCP from the class (sap-egress `fc dscp in-profile/out-profile`), which SR OS does for layer-3
services only (7750 SR QoS Guide 22.5.R1, 'DSCP and IP precedence egress remarking'), so a PE with a VPLS SAP
is QOS239.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qosc.model import Domain, Interface, Role, Service
from qosc.targets.sros.marking_rules import check, dei_ok, dei_pairs, router_interfaces
from qosc.targets.sros.plan import Fc, Plan, sname
from qosc.targets.sros.profiles import IN_PROFILE

THREE_BIT = (Domain.EXP, Domain.PCP)


@dataclass(frozen=True)
class Network:
    """One network QoS policy: what it classifies on, what it marks at egress, and ler-use-dscp."""

    name: str
    dscp: bool
    exp: bool
    pcp: bool
    mark_dscp: bool
    mark_exp: bool
    mark_pcp: bool
    ler_use_dscp: bool


@dataclass
class Marking:
    classify: dict[Domain, dict[int, tuple[str, str]]] = field(default_factory=dict)
    """Network ingress: EXP (lsp-exp) and PCP (dot1p) value -> (forwarding class, profile; `de` for dot1p)."""
    marks: dict[Domain, dict[str, tuple[int, int]]] = field(default_factory=dict)
    """Egress: forwarding class -> (in-profile, out-of-profile) value per 3-bit domain."""
    de_mark: set[str] = field(default_factory=set)
    """Forwarding classes whose egress writes the DE bit from the profile."""
    sap: dict[Domain, dict[int, tuple[str, str | None]]] = field(default_factory=dict)
    """sap-ingress: EXP and PCP value -> (forwarding class, enqueuing priority or None)."""
    de_in: set[str] = field(default_factory=set)
    """Forwarding classes whose sap-ingress takes DE 1 frames out of profile (de-1-out-profile)."""
    networks: dict[str, Network] = field(default_factory=dict)
    """Policy interface name -> the network policy of its router interface."""
    pe: bool = False
    """The device pushes labels for SAP traffic: it has edges and an MPLS router interface."""


def _value(s: Service, domain: Domain, precedence: int) -> int | None:
    value = s.mark_in(domain, precedence)
    return 0 if value is None and s.default else value


def plan_marking(plan: Plan) -> Marking:
    m = Marking()
    routed = router_interfaces(plan)
    edges = [i for i in plan.device.interfaces if i.role is Role.EDGE]
    m.pe = bool(edges) and any(i.mpls for i in routed)
    model = plan.policy.tunnel_model
    for domain in THREE_BIT:
        classified = any(domain in i.trust for i in (*routed, *edges))
        m.classify[domain] = _table(plan, domain, classified)
        written = any(domain in i.rewrite for i in routed) or any(
            domain in i.rewrite for i in edges if domain is Domain.PCP)
        m.marks[domain] = {fc.name: pair for fc in plan.fcs
                           if (pair := in_out(plan, fc, domain, written)) is not None}
        m.sap[domain] = _sap_table(plan, domain, edges)
    for fc in plan.fcs:
        dei = [s for s in fc.members if dei_pairs(s)]
        if dei and dei_ok(plan, fc.owner) and fc.owner in dei:
            m.de_mark.add(fc.name)
        if dei and dei_ok(plan, dei[0]):
            m.de_in.add(fc.name)
    seen: dict[tuple[bool, ...], str] = {}
    for iface in routed:
        flags = (Domain.DSCP in iface.trust, Domain.EXP in iface.trust, Domain.PCP in iface.trust,
                 Domain.DSCP in iface.rewrite, Domain.EXP in iface.rewrite, Domain.PCP in iface.rewrite,
                 m.pe and model == "short-pipe" and iface.mpls)
        if flags not in seen:
            seen[flags] = plan.network_policy if not seen else plan.names.name(
                "network", f"{sname(plan.policy.name)}-{len(seen) + 1}", f"network {len(seen)}")
        m.networks[iface.name] = Network(seen[flags], *flags)
    check(plan, m.pe, routed, edges)
    return m


def _table(plan: Plan, domain: Domain, classified: bool) -> dict[int, tuple[str, str]]:
    """Each value of a carried service -> (its class, the profile of the drop precedence it is listed at first);
    values of two drop precedences that meet one profile are said where the domain is classified (QOS236)."""
    table: dict[int, tuple[str, str]] = {}
    for fc in plan.fcs:
        for s in fc.members:
            pairs = dei_pairs(s) if domain is Domain.PCP else set()
            de = {v for v, _ in pairs} if pairs and dei_ok(plan, s) else set()
            first: dict[str, tuple[int, int]] = {}
            for value, precedence in s.marking(domain).values:
                if (value, precedence) in pairs:
                    continue  # carried in the DE bit
                profile = plan.profile_at(s, precedence)
                seen = first.setdefault(profile, (value, precedence))
                if classified and seen[1] < precedence and seen[0] != value and value not in table:
                    plan.warn("QOS236", f"service '{s.name}': SR OS carries a packet's drop precedence as its "
                              f"profile, and drop precedences {seen[1]} and {precedence} meet one profile "
                              f"({profile}), so {domain.label} {value} is classified like {domain.label} "
                              f"{seen[0]}, at drop precedence {seen[1]}", s.where.at(domain.value),
                              "give each drop precedence a drop profile of its own (drop-profile: {low: ..., "
                              "medium: ...}), so that SR OS gives each a profile")
                table.setdefault(value, (fc.name, "de" if value in de else profile))
    return dict(sorted(table.items()))


def in_out(plan: Plan, fc: Fc, domain: Domain, written: bool = False) -> tuple[int, int] | None:
    """(in-profile, out-of-profile) value of a class: its owner's value of the lowest precedence of each profile
    group (none of the group: precedence 1 in, 2 out, as a SAP's policer profiles); another value of the same
    group is said where the domain is written."""
    owner = fc.owner
    if _value(owner, domain, 1) is None:
        return None
    groups: dict[bool, list[int]] = {True: [], False: []}
    for precedence in (1, 2, 3):
        groups[plan.profile_at(owner, precedence) in IN_PROFILE].append(precedence)
    chosen = {True: min(groups[True], default=1), False: min(groups[False], default=2)}
    pair = (_value(owner, domain, chosen[True]), _value(owner, domain, chosen[False]))
    given = owner.marking(domain).precedences()
    for in_group, precs in groups.items():
        mark = pair[0] if in_group else pair[1]
        for p in precs:
            if written and p in given and _value(owner, domain, p) != mark:
                plan.warn("QOS236", f"service '{owner.name}': SR OS marks {domain.label} per forwarding class and "
                          f"profile, and drop precedence {p} meets profile {plan.profile_at(owner, p)}, marked "
                          f"{'in' if in_group else 'out-of'}-profile with {mark}, not {_value(owner, domain, p)}",
                          owner.where.at(domain.value), "give the drop precedences that share a drop profile one "
                          f"{domain.value} value, or each precedence a drop profile of its own")
    return pair[0], pair[1]  # type: ignore[return-value]


def _sap_table(plan: Plan, domain: Domain, edges: list[Interface]) -> dict[int, tuple[str, str | None]]:
    """sap-ingress entries: value -> (class, enqueuing priority: high for precedence 1 and low above, where the
    class's values span drop precedences; None where they do not)."""
    if not any(domain in i.trust for i in edges):
        return {}
    table: dict[int, tuple[str, str | None]] = {}
    for fc in plan.fcs:
        pairs = [(v, p, s) for s in fc.members for v, p in s.marking(domain).values
                 if not (domain is Domain.PCP and (v, p) in dei_pairs(s))]
        spans = len({p for _, p, _ in pairs}) > 1
        for value, precedence, s in pairs:
            if value in table:
                continue
            table[value] = (fc.name, ("high" if precedence == 1 else "low") if spans else None)
            if precedence == 3 and spans and any(p == 2 for _, p, _ in pairs):
                plan.warn("QOS236", f"service '{s.name}': a SAP tells two enqueuing priorities apart, so "
                          f"{domain.label} {value} (drop precedence 3) enters with low priority like drop "
                          "precedence 2", s.where.at(domain.value), f"give drop precedences 2 and 3 one "
                          f"{domain.value} value")
    return dict(sorted(table.items()))


TUNNEL = {"short-pipe": "IP packets of the LSPs that end here queue on the customer's DSCP (ler-use-dscp on the "
                        "MPLS interfaces)",
          "pipe": "the LSPs that end here queue on their EXP (SR OS's default: the label reaches the egress PE); the "
                  "SAPs keep the customer's DSCP",
          "uniform": "the LSPs that end here queue on their EXP and the SAPs write the class back into the DSCP"}


def header(plan: Plan) -> list[str]:
    """What the output's header says of the marking decisions."""
    m = plan.marking
    if not isinstance(m, Marking) or not m.pe:
        return []
    imposing = any(i.impose for i in plan.device.interfaces if i.role is Role.EDGE)
    return [f"tunnel model {plan.policy.tunnel_model}: {TUNNEL[plan.policy.tunnel_model]}",
            "labels pushed for SAP traffic take the EXP of the network egress of the interface they leave by"
            + ("" if imposing else " (impose false: the default network policy's)")]
