"""SR OS target, part 5: the network QoS policies (marking.py's Network) as statements, and the router interfaces
they are applied on.

Ingress: `ler-use-dscp` (tunnel model short-pipe on a PE), the default-action (the default service's class), the
`dot1p`, `dscp` and `lsp-exp` entries the policy's interfaces classify on; egress: per forwarding class the
dot1p, DSCP and LSP EXP values of in-profile and out-of-profile traffic the interfaces write, and `de-mark` where
a class carries a drop precedence in the DE bit.  No `remark-trusted`: traffic from the network keeps its
markings (DSCP transparency; marking.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from qosc.model import Domain
from qosc.targets.sros.marking import Marking, Network
from qosc.targets.sros.plan import Plan
from qosc.targets.sros.words import description, dscp_word, port_id
from qosc.tree import At, Statement, integer, kw, name, stmt


def _marking(plan: Plan) -> Marking:
    assert isinstance(plan.marking, Marking)
    return plan.marking


def network_policies(plan: Plan) -> list[Statement]:
    """One network policy per distinct Network of the device's router interfaces, in their order."""
    done: dict[str, Network] = {}
    for net in _marking(plan).networks.values():
        done.setdefault(net.name, net)
    return [_network(plan, net) for net in done.values()]


def _entry(kind: str, value: object, fc: str, profile: str) -> Statement:
    return stmt(kind, value, children=[stmt("fc", name(fc)), stmt("profile", kw(profile))])  # type: ignore[arg-type]


def _network(plan: Plan, net: Network) -> Statement:
    m = _marking(plan)
    default = plan.default_fc
    ingress: list[Statement] = []
    if net.ler_use_dscp:
        ingress.append(stmt("ler-use-dscp", kw("true"), comment=(
            "tunnel model short-pipe: IP packets of the LSPs that end here queue on the customer's DSCP",)))
    if default is not None:
        ingress.append(stmt("default-action", children=[
            stmt("fc", name(default.name)), stmt("profile", kw(plan.profile_at(default.owner, 1)))]))
    if net.pcp:
        ingress += [_entry("dot1p", integer(v), fc, p) for v, (fc, p) in m.classify[Domain.PCP].items()]
    if net.dscp:
        ingress += [_entry("dscp", dscp_word(code), *plan.codes[code]) for code in sorted(plan.codes)]
    if net.exp:
        ingress += [_entry("lsp-exp", integer(v), fc, p) for v, (fc, p) in m.classify[Domain.EXP].items()]
    egress = []
    for fc in plan.fcs:
        inner: list[Statement] = []
        pcp = m.marks[Domain.PCP].get(fc.name) if net.mark_pcp else None
        if pcp is not None:
            inner += [stmt("dot1p-in-profile", integer(pcp[0])), stmt("dot1p-out-profile", integer(pcp[1]))]
        if net.mark_dscp and fc.name in plan.marks:  # a service without code points marks no DSCP
            mark = dscp_word(plan.marks[fc.name])
            inner += [stmt("dscp-in-profile", mark), stmt("dscp-out-profile", mark)]
        exp = m.marks[Domain.EXP].get(fc.name) if net.mark_exp else None
        if exp is not None:
            inner += [stmt("lsp-exp-in-profile", integer(exp[0])), stmt("lsp-exp-out-profile", integer(exp[1]))]
        if pcp is not None and fc.name in m.de_mark:
            inner.append(stmt("de-mark", children=(), comment=("DE 0 in-profile, 1 out-of-profile",)))
        if inner:
            egress.append(stmt("fc", name(fc.name), children=inner,
                               origin=At(fc.owner.where, "dscp" if fc.owner.dscp else "exp")))
    return stmt("network", name(net.name), children=[
        *description(plan.policy.description or f"qosc {plan.policy.name}", At(plan.policy.where, "description")),
        stmt("ingress", children=ingress), *([stmt("egress", children=egress)] if egress else [])],
        comment=("egress marks traffic from SAPs; remark-trusted is not set, so every DSCP arriving from the "
                 "network leaves unchanged (DSCP transparency)",))


def routers(plan: Plan) -> Iterable[Statement]:
    """The Base router interfaces the network policies are applied on."""
    m = _marking(plan)
    bound = [p for p in plan.ports if not p.binding.edge and p.binding.router_interface]
    if bound:
        yield stmt("router", name("Base"), children=[
            stmt("interface", name(p.binding.router_interface or ""), children=[
                stmt("port", port_id(p.binding.router_port),
                     comment="the port the policy names this interface on (it must be the box's)"),
                stmt("qos", "network-policy", name(m.networks[p.iface.name].name))], origin=p.iface.where.loc)
            for p in bound])


__all__ = ["network_policies", "routers"]
