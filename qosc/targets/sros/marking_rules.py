"""SR OS target, part 2c: the conditions of the marking domains (marking.py) and what SR OS cannot render of them.

The DE bit carries a drop precedence where a service gives its low-precedence PCP again at a higher one and the
platform reads it (platform `dei`) with profiles in and out (what a dot1p entry's `de` gives); else it is said
(QOS236).  QOS238 what the uplinks' network egress EXP cannot impose for a PE's SAPs, QOS239 a tunnel model a PE
cannot render, QOS235 EXP at a layer-3 SAP or 802.1p where no VLAN tag is, QOS236 a class with two EXP values of
one drop precedence on a router interface that rewrites EXP (labels SR OS swaps keep theirs).  The reasons and
sources are in marking.py.
"""

from __future__ import annotations

from qosc.model import Domain, Interface, Service
from qosc.targets.imposition import uplink_imposition
from qosc.targets.sros.plan import Plan
from qosc.targets.sros.ports import binding


def dei_pairs(s: Service) -> set[tuple[int, int]]:
    """(PCP, drop precedence) a service carries in the DE bit: its low value given again at a higher precedence."""
    values = s.pcp.values
    return {(v, p) for v, p in values if p > 1 and (v, 1) in values}


def dei_ok(plan: Plan, s: Service) -> bool:
    """Whether the DE bit can carry a service's DE precedences: profiles in and out (what `de` gives)."""
    return bool(plan.platform.dei) and all(plan.profile_at(s, 1) == "in" and plan.profile_at(s, p) == "out"
                                           for _, p in dei_pairs(s))


def router_interfaces(plan: Plan) -> list[Interface]:
    out = []
    for iface in plan.device.interfaces:
        b = binding(iface)
        if b is not None and not b.edge and b.router_interface:
            out.append(iface)
    return out


def dei_said(plan: Plan, routed: list[Interface], edges: list[Interface]) -> None:
    if not any(Domain.PCP in i.trust or Domain.PCP in i.rewrite for i in (*routed, *edges)):
        return
    for fc in plan.fcs:
        for s in fc.members:
            pairs = dei_pairs(s)
            if not pairs or dei_ok(plan, s):
                continue
            shown = ", ".join(f"PCP {v} at drop precedence {p}" for v, p in sorted(pairs))
            why = (f"{plan.platform.name} does not read or write the DE bit (platform data)" if not plan.platform.dei
                   else f"SR OS's DE bit gives profiles in and out, and '{s.name}' meets "
                   f"{', '.join(sorted({plan.profile_at(s, p) for p in (1, *(p for _, p in pairs))}))}")
            plan.warn("QOS236", f"service '{s.name}' carries {shown} in the DE bit, but {why}: on "
                      f"{plan.device.name} that traffic travels as its low-precedence PCP, DE not read",
                      s.where.at("pcp"), "give the drop precedence a PCP value of its own, or a drop profile per "
                      "precedence (profiles in and out)")


def imposition(plan: Plan, pe: bool, routed: list[Interface], edges: list[Interface]) -> None:
    """QOS238: what the uplinks' network egress EXP cannot do for the device's edges (module doc)."""
    if not pe:
        return
    uplink_imposition(plan.device.name, "SR OS", [i for i in routed if i.mpls], edges,
                      "SR OS writes the EXP of the labels a PE pushes with the network egress lsp-exp values of the "
                      "router interface the packet leaves by, for the traffic of every SAP alike",
                      "the default network policy's EXP",
                      lambda message, loc, hint: plan.error("QOS238", message, loc, hint))


def swapped(plan: Plan, routed: list[Interface]) -> None:
    """QOS236: a class with several EXP values of one drop precedence keeps each on the labels SR OS swaps."""
    rewriting = [i for i in routed if Domain.EXP in i.rewrite]
    several = [s for fc in plan.fcs for s in fc.members
               if any(len({v for v, p in s.exp.values if p == q}) > 1 for q in (1, 2, 3))]
    if rewriting and several:
        s = several[0]
        plan.warn("QOS236", f"{plan.device.name}:{rewriting[0].name} rewrites EXP, but SR OS re-marks only the labels "
                  f"it pushes for SAP traffic: a label it swaps keeps its EXP, so '{s.name}' leaves with each of its "
                  f"EXP values {', '.join(str(v) for v in s.exp.codes)} as it came (remark-trusted would re-mark the "
                  "DSCP of routed packets too)", s.where.at("exp"), f"give '{s.name}' one EXP value per drop "
                  "precedence")


def tunnel_model(plan: Plan, pe: bool, routed: list[Interface], edges: list[Interface]) -> None:
    """QOS239: the RFC 3270 tunnel models a PE cannot render (module doc)."""
    if not pe:
        return
    model = plan.policy.tunnel_model
    for i in (i for i in routed if i.mpls):
        needed = Domain.DSCP if model == "short-pipe" else Domain.EXP
        if needed not in i.trust:
            how = ("queues on the customer's DSCP (ler-use-dscp)" if model == "short-pipe" else
                   "queues on the tunnel's EXP")
            plan.error("QOS239", f"tunnel model {model}: the egress PE {how}, but {plan.device.name}:{i.name} does "
                       f"not classify on {needed.label}", i.where.at("trust"),
                       f"trust {needed.value} on the MPLS interfaces of a PE (the default)")
    if model == "uniform":
        for e in edges:
            b = binding(e)
            if b is not None and b.service_kind == "vpls":
                plan.error("QOS239", f"tunnel model uniform: the egress PE writes the class its EXP gives back into "
                           f"the DSCP at the SAP's egress, which SR OS does for layer-3 services only, and "
                           f"{plan.device.name}:{e.name} is a VPLS SAP", plan.policy.where.at("mpls.tunnel-model"),
                           "use tunnel-model: pipe or short-pipe, or an IES or VPRN SAP")
                break


def sap_domains(plan: Plan, edges: list[Interface]) -> None:
    """QOS235: 3-bit marking SR OS has no statement for at a SAP."""
    for e in edges:
        b = binding(e)
        if b is None:
            continue
        if Domain.EXP in e.rewrite:
            plan.error("QOS235", f"{plan.device.name}:{e.name} rewrites EXP: an SR OS sap-egress policy writes "
                       "dot1p and DSCP, not EXP", e.where.at("rewrite", "encapsulation"), "rewrite without exp")
        if Domain.EXP in e.trust and b.service_kind != "vpls":
            plan.error("QOS235", f"{plan.device.name}:{e.name} classifies on EXP: SR OS classifies EXP at a SAP of "
                       f"a VPLS (Ethernet layer 2) only, and this is a {b.service_kind} SAP", e.where.at("trust"),
                       "trust exp on a vpls SAP, or classify on dscp or pcp")



def untagged(plan: Plan, routed: list[Interface], edges: list[Interface]) -> None:
    """QOS235: 802.1p on a router interface or a layer-3 SAP whose name carries no VLAN (its frames are
    untagged)."""
    for i in (*routed, *edges):
        b = binding(i)
        if b is None or "vlan" not in i.encapsulation or (b.service_kind == "vpls"):
            continue
        tagged = b.vlan is not None if not b.edge else ":" in (b.sap or "")
        if not tagged:
            where = (f"router interface {b.router_interface} on port {b.port}" if not b.edge else
                     f"SAP {b.sap} of {b.service_kind} {b.service}")
            plan.error("QOS235", f"{plan.device.name}:{i.name} carries vlan, but its name puts it on {where}, "
                       "without a VLAN: its frames carry no 802.1Q tag, so no 802.1p", i.where.at("encapsulation"),
                       f"name the VLAN ({i.name}:VLAN), or remove vlan from its encapsulation")


def ies_dscp(plan: Plan, routed: list[Interface], edges: list[Interface]) -> None:
    """QOS236: a router interface that rewrites no DSCP still marks the DSCP of IES traffic from SAPs (the
    default network policy's code points): network egress maps the DSCP of the customer IP header of IES traffic
    (7450 ESS/7750 SR QoS Guide, 'Network Egress QoS Policy Commands', egress)."""
    ies = next((e for e in edges if (b := binding(e)) is not None and b.service_kind == "ies"), None)
    keeping = next((i for i in routed if Domain.DSCP not in i.rewrite), None)
    if ies is not None and keeping is not None:
        plan.warn("QOS236", f"{plan.device.name}:{keeping.name} rewrites no DSCP, but SR OS marks the DSCP of IES "
                  f"traffic from SAPs ({ies.name}) at network egress: it leaves with the default network policy's "
                  "code point of its forwarding class", keeping.where.at("rewrite", "role"),
                  "rewrite dscp on the interface (the service's own code points are then written)")


def check(plan: Plan, pe: bool, routed: list[Interface], edges: list[Interface]) -> None:
    dei_said(plan, routed, edges)
    imposition(plan, pe, routed, edges)
    swapped(plan, routed)
    tunnel_model(plan, pe, routed, edges)
    sap_domains(plan, edges)
    untagged(plan, routed, edges)
    ies_dscp(plan, routed, edges)
