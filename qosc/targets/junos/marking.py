"""JUNOS target, part 2b: the 3-bit marking domains of a device (MPLS EXP, 802.1p PCP) and what JUNOS cannot render.

Per device one EXP table (`classifiers exp` and `rewrite-rules exp`, same name) and one PCP table
(`ieee-802.1`, or `ieee-802.1ad` where a service needs the drop eligible indicator and the platform has it),
both written with every value 0..7 (0..15 for 802.1ad) spelled as bits, so nothing depends on Junos's default
tables (which name forwarding classes qosc renames) or on its default aliases (`ef` is EXP 010).  The
classifier gives each service's values its forwarding class at the loss priority of their drop precedence (the
platform's `precedence_loss_priority`); a value no carried service declares goes to the default class, low.  The
rewrite rule writes, per forwarding class and loss priority, the queue owner's value of that drop precedence
(`Service.mark_in`; the default service's 0 where it declares none), as the behaviour model's marks say.

Binding (on the logical unit, where Junos applies them): `classifiers exp` where the interface trusts exp,
`classifiers ieee-802.1` where it trusts pcp, `rewrite-rules exp NAME protocol mpls-any` where it rewrites exp,
`rewrite-rules ieee-802.1 NAME vlan-tag outer` where it rewrites pcp.  The core's marking checks keep exp
to units that carry mpls and pcp to units that carry vlan.

Imposition.  Junos has no per-edge imposition statement: the EXP of the label a PE pushes is written by the EXP
rewrite rule of the unit the packet leaves by (Junos OS CoS User Guide, 'Applying Rewrite Rules to Output Logical
Interfaces': `exp` sets the label's EXP bits independently of the IP header on IP packets entering an MPLS
tunnel).  `protocol mpls-any` writes the MPLS header only ('protocol (Rewrite Rules)',
https://www.juniper.net/documentation/us/en/software/junos/cos/topics/ref/statement/protocol-edit-cos-interfaces.html);
mpls-inet-both and mpls-inet-both-non-vpn also write the EXP into the IPv4 precedence (the customer's DSCP would
change) and on M-series (other than M120/M320) set the imposed EXP to 000 ('Rewriting MPLS and IPv4 Packet
Headers', https://www.juniper.net/documentation/us/en/software/junos/cos/topics/concept/cos-rewriting-mpls-and-ipv4-packet-headers.html,
and the 13.2 statement page), so qosc writes mpls-any.  Hence QOS114: edge interfaces of one device that disagree
on `impose`, an imposing edge beside an MPLS interface that does not rewrite EXP, or `impose: false` beside
one that does, cannot be rendered.

M-series.  Non-MPC MPLS interfaces apply the default EXP rewrite rule even where none is configured (platform
`exp_default` 'forwarding-class', Junos OS CoS User Guide 'Applying Default Rewrite Rules'), so an MPLS
interface that must keep EXP (transparent, or rewrite without exp) gets a keeping table: a classifier and
rewrite rule that spread the values over the loss priorities of their class until every declared value is
written back as it came (QOS115 where one cannot be).  Two loss priorities (low, high) carry drop precedences 2
and 3 alike (QOS115 where a service gives them different values), and there is no DEI (`dei`): a drop
precedence a service carries only in the DEI travels as its low value (QOS115).

Tunnel models (RFC 3270 section 2.6, `mpls.tunnel-model`).  short-pipe: rendered; with penultimate-hop popping,
Junos's default (`explicit-null (Protocols MPLS)`: label 3, implicit null, is advertised unless configured),
the egress PE receives the customer's IP packet and classifies it on the DSCP classifier qosc binds to its MPLS
units (QOS192 where such a unit does not trust dscp).  pipe and uniform need the egress PE to queue on the
tunnel's EXP, so the label must reach it: `explicit-null` under protocols mpls and ldp, or
`ultimate-hop-popping` (Junos 12.3; an M-series egress needs a vt- interface), which are routing configuration
outside class-of-service and firewall, the hierarchies qosc writes; uniform also needs the EXP copied back into
the DSCP, which a Junos penultimate hop does not do.  Both are refused at the field (QOS192) on devices that
have edge and MPLS interfaces, naming what the operator must configure.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from qosc.model import Domain, Interface, Role, Service
from qosc.targets.imposition import uplink_imposition
from qosc.targets.junos.plan import Plan, carried, jname

FAMILY = {Domain.EXP: "exp", Domain.PCP: "ieee-802.1"}
DEI_FAMILY = "ieee-802.1ad"


@dataclass
class Table:
    """One classifier and the rewrite rule of the same name of a 3-bit family."""

    family: str
    name: str
    classify: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Code point (bits) -> (forwarding class, loss priority), in code order."""
    rewrite: dict[tuple[str, str], str] = field(default_factory=dict)
    """(forwarding class, loss priority) -> code point (bits)."""


@dataclass
class Marks:
    exp: Table | None = None
    keep: Table | None = None
    """M-series: the EXP table of MPLS units that must keep every EXP (the box rewrites it by default)."""
    pcp: Table | None = None

    def keeps(self, plan: Plan, iface: Interface) -> bool:
        """Whether an interface must keep EXP with the keeping table (see the module doc)."""
        return (self.keep is not None and iface.mpls and Domain.EXP not in iface.rewrite
                and Domain.EXP in iface.trust)

    def classifiers(self, plan: Plan, iface: Interface) -> Iterator[tuple[str, str]]:
        """(family, classifier) bound on an interface's unit."""
        if Domain.EXP in iface.trust:
            table = self.keep if self.keeps(plan, iface) else self.exp
            if table is not None:
                yield table.family, table.name
        if Domain.PCP in iface.trust and self.pcp is not None:
            yield self.pcp.family, self.pcp.name

    def rewrites(self, plan: Plan, iface: Interface) -> Iterator[tuple[str, str]]:
        """(family, rewrite rule) bound on an interface's unit."""
        if Domain.EXP in iface.rewrite and self.exp is not None:
            yield self.exp.family, self.exp.name
        elif self.keeps(plan, iface) and self.keep is not None:
            yield self.keep.family, self.keep.name
        if Domain.PCP in iface.rewrite and self.pcp is not None:
            yield self.pcp.family, self.pcp.name

    def tables(self) -> list[Table]:
        return [t for t in (self.exp, self.keep, self.pcp) if t is not None]


def _bits(value: int, width: int = 3) -> str:
    return format(value, f"0{width}b")


def _uses(plan: Plan, domain: Domain, how: str) -> bool:
    return any(domain in getattr(i, how) for i in plan.device.interfaces)


def _values(plan: Plan, domain: Domain) -> list[tuple[int, int, str, Service]]:
    """(value, drop precedence, forwarding class, service) of the carried services, in policy order."""
    out = []
    for s in carried(plan.policy, plan.device):
        fc = plan.fc_of[s.name]
        out += [(v, prec, fc, s) for v, prec in s.marking(domain).values]
    return out


def _dei(s: Service) -> set[tuple[int, int]]:
    """(value, drop precedence) pairs a service carries in the DEI: its low value given again to a higher drop
    precedence (`pcp: {low: [2], medium: [2]}`; as the core's AF collapse check reads it)."""
    values = s.pcp.values
    return {(v, p) for v, p in values if p > 1 and (v, 1) in values}


def plan_marks(plan: Plan) -> Marks:
    marks = Marks()
    if plan.default_fc is None:
        return marks
    base = jname(plan.policy.name)
    keeping = plan.platform.exp_default == "forwarding-class"
    if keeping and any(i.mpls and Domain.EXP not in i.rewrite and Domain.EXP in i.trust
                       for i in plan.device.interfaces):
        marks.keep = _keep(plan, plan.names.name("exp", f"{base}-exp-keep", "exp keep"))
    if any(Domain.EXP in i.rewrite or (Domain.EXP in i.trust and not marks.keeps(plan, i))
           for i in plan.device.interfaces):
        marks.exp = _table(plan, Domain.EXP, "exp", plan.names.name("exp", f"{base}-exp", "exp"))
    if _uses(plan, Domain.PCP, "trust") or _uses(plan, Domain.PCP, "rewrite"):
        dei = {s.name: _dei(s) for s in carried(plan.policy, plan.device) if _dei(s)}
        if dei and plan.platform.dei:
            marks.pcp = _table(plan, Domain.PCP, DEI_FAMILY, plan.names.name("ieee", f"{base}-8021ad", "8021ad"), dei)
        else:
            marks.pcp = _table(plan, Domain.PCP, "ieee-802.1", plan.names.name("ieee", f"{base}-8021p", "8021p"))
            _no_dei(plan, dei)
    _imposition(plan)
    _tunnel_model(plan)
    return marks


def _table(plan: Plan, domain: Domain, family: str, name: str, dei: dict[str, set[tuple[int, int]]] | None = None
           ) -> Table:
    """The classifier and rewrite rule of a domain (see the module doc); `dei`: 802.1ad with these DEI pairs."""
    prec_lp = plan.platform.precedence_loss_priority
    table = Table(family, name)
    first: dict[int, tuple[str, str]] = {}
    flagged: dict[int, tuple[str, str]] = {}
    for v, prec, fc, s in _values(plan, domain):
        if dei is not None and (v, prec) in dei.get(s.name, set()):
            flagged.setdefault(v, (fc, prec_lp[prec]))
        else:
            first.setdefault(v, (fc, prec_lp[prec]))
    default = (plan.default_fc or "", "low")
    for v in range(8):
        if dei is None:
            table.classify[_bits(v)] = first.get(v, default)
        else:
            table.classify[_bits(v) + "0"] = first.get(v, flagged.get(v, default))
            table.classify[_bits(v) + "1"] = flagged.get(v, first.get(v, default))
    for klass in plan.classes:
        owner = klass.owner
        pairs = dei.get(owner.name, set()) if dei is not None else set()
        given = owner.marking(domain).precedences()
        # the precedences that give a value of their own first: one that falls back to a lower one's value yields
        # where both share a loss priority (M-series: medium and high)
        for prec in sorted((1, 2, 3), key=lambda p: p not in given):
            value = owner.mark_in(domain, prec)
            value = 0 if value is None and owner.default else value
            if value is None:
                continue
            bits = _bits(value) + ("1" if (value, prec) in pairs else "0" if dei is not None else "")
            key = (klass.name, prec_lp[prec])
            kept = table.rewrite.setdefault(key, bits)
            if kept != bits and prec in given and domain in _rewritten(plan):
                names = ", ".join(plan.platform.loss_priorities)
                plan.warn("QOS115", f"{plan.platform.name} has loss priorities {names} only: drop precedence {prec} "
                          f"of service '{owner.name}' shares loss priority {key[1]} with another, so "
                          f"{plan.device.name} writes {domain.label} {int(kept[:3], 2)} for it, not {value}",
                          owner.where.at(domain.value), f"give '{owner.name}' one {domain.value} value for drop "
                          "precedences medium and high")
    order = {fc.name: fc.queue for fc in plan.classes}
    lps = list(plan.platform.loss_priorities)
    table.rewrite = dict(sorted(table.rewrite.items(), key=lambda kv: (order[kv[0][0]], lps.index(kv[0][1]))))
    return table


def _rewritten(plan: Plan) -> set[Domain]:
    return {d for i in plan.device.interfaces for d in i.rewrite}


def _keep(plan: Plan, name: str) -> Table:
    """M-series: EXP classification that every declared value survives the box's rewrite (module doc)."""
    prec_lp = plan.platform.precedence_loss_priority
    services = carried(plan.policy, plan.device)
    # each service's mark of each drop precedence first, then its other values, then those of services the device
    # does not carry (queued as the default), then the values nobody declares (they may share, unsaid)
    carried_values = _values(plan, Domain.EXP)
    marks = [(v, prec) for v, prec, _, s in carried_values if v == s.exp.mark(prec)]
    ranked: list[tuple[int, str, str, Service | None]] = [
        (v, fc, prec_lp[prec], s) for v, prec, fc, s in carried_values if (v, prec) in marks]
    ranked += [(v, fc, prec_lp[prec], s) for v, prec, fc, s in carried_values if (v, prec) not in marks]
    default = plan.default_fc or ""
    ranked += [(v, default, "low", s) for s in plan.policy.services if s not in services for v in s.exp.codes]
    ranked += [(v, default, "low", None) for v in range(8)]
    table = Table("exp", name)
    taken: dict[tuple[str, str], int] = {}
    where: dict[int, tuple[str, str]] = {}
    for v, fc, lp, s in ranked:
        if v in where:
            continue
        if (fc, lp) in taken and s is not None:
            free = [x for x in plan.platform.spread_loss_priorities if (fc, x) not in taken]
            if free:
                lp = free[0]
            elif taken[(fc, lp)] != v and not s.default:
                plan.warn("QOS115", f"{plan.device.name} ({plan.platform.name}) rewrites EXP by forwarding class and "
                          f"loss priority even where nothing is configured, and {fc} has no loss priority left for "
                          f"EXP {v} of service '{s.name}': it leaves as EXP {taken[(fc, lp)]}",
                          s.where.at("exp"), "give fewer EXP values to the services sharing this queue")
        where[v] = (fc, lp)
        taken.setdefault((fc, lp), v)
    table.classify = {_bits(v): where[v] for v in range(8)}
    table.rewrite = {key: _bits(v) for key, v in taken.items()}
    return table


def _no_dei(plan: Plan, dei: dict[str, set[tuple[int, int]]]) -> None:
    for sname, pairs in sorted(dei.items()):
        s = plan.policy.service_map[sname]
        shown = ", ".join(f"PCP {v} at drop precedence {p}" for v, p in sorted(pairs))
        plan.warn("QOS115", f"service '{sname}' carries {shown} in the drop eligible indicator, which "
                  f"{plan.platform.name} does not classify or rewrite: on {plan.device.name} that traffic travels "
                  "as its low-precedence PCP, without DEI", s.where.at("pcp"),
                  "give the drop precedence a PCP value of its own, or schedule the VLAN on MX (ieee-802.1ad)")


def _imposition(plan: Plan) -> None:
    """QOS114: what the uplinks' EXP rewrite cannot do for the device's edges (module doc)."""
    device = plan.device
    mpls = [i for i in device.interfaces if i.mpls and i.role is not Role.EDGE]
    edges = [i for i in device.interfaces if i.role is Role.EDGE and not i.mpls]
    if not mpls or not edges:
        return
    uplink_imposition(device.name, "JUNOS", mpls, edges,
                      "JUNOS writes the EXP of the labels a PE imposes with the EXP rewrite rule of the unit the "
                      "packet leaves by, for the traffic of every edge alike", "the box's EXP",
                      lambda message, loc, hint: plan.error("QOS114", message, loc, hint))


def _tunnel_model(plan: Plan) -> None:
    """QOS192: the RFC 3270 tunnel models JUNOS class-of-service cannot render (module doc)."""
    device = plan.device
    if not any(i.mpls for i in device.interfaces) or not any(i.role is Role.EDGE for i in device.interfaces):
        return
    model = plan.policy.tunnel_model
    loc = plan.policy.where.at("mpls.tunnel-model")
    label = ("the label must reach the egress PE: `set protocols mpls explicit-null` and `set protocols ldp "
             "explicit-null` (Junos advertises implicit null, penultimate-hop popping, by default) or "
             "`ultimate-hop-popping` (Junos 12.3; an M-series egress needs a vt- interface), routing configuration "
             "outside the class-of-service and firewall hierarchies qosc writes")
    if model == "pipe":
        plan.error("QOS192", f"tunnel model pipe on {device.name}: the egress PE must queue on the tunnel's EXP, so "
                   f"{label}", loc, "configure explicit-null yourself and keep the customers' DSCP (rewrite without "
                   "dscp on the edges), or use tunnel-model: short-pipe")
    elif model == "uniform":
        plan.error("QOS192", f"tunnel model uniform on {device.name}: the egress PE must classify on the EXP the "
                   f"core leaves and write it back into the DSCP; a Junos penultimate hop does not copy EXP into the "
                   f"IP header, so {label}", loc, "configure explicit-null yourself (the egress then rewrites DSCP "
                   "from the class its EXP classifier gives), or use tunnel-model: short-pipe")
    else:
        for i in device.interfaces:
            if i.mpls and i.role is not Role.EDGE and Domain.DSCP not in i.trust:
                plan.error("QOS192", f"tunnel model short-pipe: the egress PE queues on the customer's DSCP, but "
                           f"{device.name}:{i.name} does not classify on DSCP, so IP packets that arrive after "
                           "penultimate-hop popping are not classified by their service", i.where.at("trust"),
                           "trust dscp on the MPLS interfaces of a PE (the default)")
