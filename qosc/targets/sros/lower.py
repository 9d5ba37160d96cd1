"""SR OS target, part 3: the plan as a statement tree of nokia-conf (what the three serializers write).

The tree follows `info` under /configure: `qos` (slope policies, network-queue,
network, sap-ingress, sap-egress), then the bindings (`port`, `router "Base"
interface`, `service` SAPs).  The header states the forwarding-class mapping,
the profile of each class (which slope it meets) and where each interface is
applied, so the reader of the configuration sees the decisions.
"""

from __future__ import annotations

from collections.abc import Iterable

from qosc.model import Device, DropProfile, Policy, Service
from qosc.targets.sros.lower_edge import ingress_statements, sap_bindings
from qosc.targets.sros.plan import Plan, PortSpec, Slope
from qosc.targets.sros.slopes import fit
from qosc.targets.sros.words import ascii_text, description, dscp_word, num, port_id
from qosc.tree import At, Document, Statement, integer, kw, name, stmt


def lower_device(policy: Policy, device: Device, plan: Plan) -> Document:
    core = [p for p in plan.ports if not p.binding.edge]
    qos: list[Statement] = []
    if core:
        qos.append(_slope_policy(plan))
    qos += _edge_slopes(plan)
    done: set[tuple[bool, str]] = set()
    for port in plan.ports:
        if (port.binding.edge, port.queue_policy) in done:
            continue
        done.add((port.binding.edge, port.queue_policy))
        qos.append(_sap_egress(plan, port) if port.binding.edge else _network_queue(plan, port))
    if any(p.binding.router_interface for p in core):
        qos.append(_network(plan))
    qos += [ingress_statements(plan, spec) for spec in plan.edge.ingress.values()]  # type: ignore[attr-defined]
    statements = [stmt("qos", children=qos), *_ports(plan), *_routers(plan), *sap_bindings(plan)]
    return Document(device.name, "sros", tuple(s for s in statements if s.children != ()),
                    _header(policy, device, plan), device.where.loc)


def _header(policy: Policy, device: Device, plan: Plan) -> tuple[str, ...]:
    lines = [f"qosc policy {policy.name} for {device.name} ({plan.platform.name})"]
    if ascii_text(device.description) is not None:
        lines.append(f"device: {ascii_text(device.description)}")
    lines.append("forwarding classes (fixed eight; the default service on be, then by kind, first free first):")
    for fc in plan.fcs:
        members = ", ".join(s.name for s in fc.members)
        profiles = sorted({plan.profile(s, c) for s in fc.members for c in s.dscp})
        lines.append(f"  {fc.name} queue {fc.queue}: {members} (profile {', '.join(profiles) or 'in'})")
        lines += [f"    {s.name}: {ascii_text(s.description)}" for s in fc.members if ascii_text(s.description)]
    for slope in plan.slopes:
        lines.append(f"  profile {slope.profile} meets the {slope.slope}: {slope.curve or 'disabled (tail drop)'}")
    for port in plan.ports:
        b = port.binding
        where = (f"SAP {b.sap} of {b.service_kind} {b.service}" if b.edge else
                 f"port {b.port}" + (f", router interface {b.router_interface}" if b.router_interface else
                                     " (no router interface named: classification stays as configured)"))
        lines.append(f"interface {port.iface.name}: {port.iface.role.value}, {where}")
        if ascii_text(port.iface.description) is not None:
            lines.append(f"  {ascii_text(port.iface.description)}")
    return tuple(lines)


def _slope(slope: Slope, profile: DropProfile | None) -> Statement:
    if profile is None:
        return stmt(slope.slope, children=[stmt("admin-state", kw("disable"))])
    line = fit(profile)
    why = () if line.exact else (
        f"{profile.name}: the line closest to the profile (an SR OS slope is one line): within {line.off:g} points "
        "of drop probability at every 5% of fill",)
    return stmt(slope.slope, children=[stmt("admin-state", kw("enable")), stmt("start-avg", integer(line.start)),
                                       stmt("max-avg", integer(line.top)), stmt("max-prob", integer(line.prob))],
                comment=why, origin=At(profile.where, "points", "min"))


def _slope_policy(plan: Plan) -> Statement:
    children = description(f"qosc {plan.policy.name}: pool slopes by profile")
    for slope in plan.slopes:
        children.append(_slope(slope, plan.policy.drop_profile_map.get(slope.curve or "")))
    return stmt("slope-policy", name(plan.slope_policy), children=children)


def edge_curve(service: Service) -> str | None:
    """The drop profile of a service's SAP egress queue: its first (lowest precedence) one, as the network side
    uses when it cannot tell precedences apart; native WRED has one curve for out-of-profile and exceed."""
    return service.drop_profiles[0][1] if service.queue.aqm == "red" and service.drop_profiles else None


def edge_slope_name(plan: Plan, curve: str) -> str:
    return plan.names.name("slope-policy", f"{plan.slope_policy}-{curve}", f"curve {curve}")


def _edge_slopes(plan: Plan) -> list[Statement]:
    """A slope policy per drop profile used on a SAP's queue (wred-queue native: low and exceed slopes)."""
    out = []
    curves = {edge_curve(q.fc.owner) for p in plan.ports if p.binding.edge and plan.platform.sap_egress_wred
              for q in p.queues} - {None}
    for curve in sorted(c for c in curves if c is not None):
        profile = plan.policy.drop_profile_map.get(curve)
        if profile is None:  # a dangling name: the core's reference check reports it
            continue
        children = [*description(profile.description, At(profile.where, "description")),
                    stmt("high-slope", children=[stmt("admin-state", kw("disable"))])]
        children += [_slope(Slope(p, sl, curve), profile) for p, sl in (("out", "low-slope"),
                                                                          ("exceed", "exceed-slope"))]
        out.append(stmt("slope-policy", name(edge_slope_name(plan, curve)), children=children))
    return out


def _queue_children(plan: Plan, port: PortSpec, percent: bool) -> list[Statement]:
    out = []
    for q in port.queues:
        rate = [stmt("pir", num(q.pir) if percent else integer(round(q.pir))),
                stmt("cir", num(q.cir) if percent else integer(round(q.cir)))]
        children = [stmt("queue-type", kw(q.queue_type))]
        if q.mbs is not None and not percent:
            children.append(stmt("mbs", num(q.mbs)))
        children.append(stmt("percent-rate" if percent else "rate", children=rate))
        owner = q.fc.owner
        mode = plan.platform.sap_egress_wred
        curve = edge_curve(owner) if percent and mode else None
        if curve is not None and mode is not None:
            children.append(stmt("wred-queue", children=[stmt("policy", name(edge_slope_name(plan, curve))),
                                                         stmt("mode", kw(mode))]))
        out.append(stmt("queue", integer(q.fc.queue), children=children, comment=q.why,
                        origin=At(owner.where, "queue")))
    return out


def _network_queue(plan: Plan, port: PortSpec) -> Statement:
    children = description(f"qosc {plan.policy.name} network queues")
    children += _queue_children(plan, port, percent=False)
    children += [stmt("fc", name(q.fc.name), children=[stmt("queue", integer(q.fc.queue))]) for q in port.queues]
    return stmt("network-queue", name(port.queue_policy), children=children)


def _sap_egress(plan: Plan, port: PortSpec) -> Statement:
    children = description(f"qosc {plan.policy.name} SAP egress queues")
    children += _queue_children(plan, port, percent=True)
    for q in port.queues:
        inner = [stmt("queue", integer(q.fc.queue))]
        codes = {c for s in q.fc.members for c in s.dscp}
        if len(codes) == 1:  # one code point: re-mark to it, whatever the profile (several: left as classified)
            mark = dscp_word(next(iter(codes)))
            inner.append(stmt("dscp", children=[stmt("in-profile", mark), stmt("out-profile", mark)]))
        children.append(stmt("fc", name(q.fc.name), children=inner))
    return stmt("sap-egress", name(port.queue_policy), children=children)


def _network(plan: Plan) -> Statement:
    default = plan.default_fc
    ingress: list[Statement] = []
    if default is not None:
        ingress.append(stmt("default-action", children=[
            stmt("fc", name(default.name)),
            stmt("profile", kw(plan.profile(default.owner, default.owner.dscp[0] if default.owner.dscp else 0))),
        ]))
    for code in sorted(plan.codes):
        code_fc, code_profile = plan.codes[code]
        ingress.append(stmt("dscp", dscp_word(code), children=[stmt("fc", name(code_fc)),
                                                               stmt("profile", kw(code_profile))]))
    for exp in sorted(plan.exp):  # MPLS marking domains (issue 21)
        exp_fc, exp_profile = plan.exp[exp]
        ingress.append(stmt("lsp-exp", integer(exp), children=[stmt("fc", name(exp_fc)),
                                                                stmt("profile", kw(exp_profile))]))
    egress = []
    for fc in (f for f in plan.fcs if f.name in plan.marks):  # a service without code points marks nothing
        mark = dscp_word(plan.marks[fc.name])
        inner = [stmt("dscp-in-profile", mark), stmt("dscp-out-profile", mark)]
        if fc.name in plan.exp_marks:
            inner += [stmt("lsp-exp-in-profile", integer(plan.exp_marks[fc.name])),
                      stmt("lsp-exp-out-profile", integer(plan.exp_marks[fc.name]))]
        egress.append(stmt("fc", name(fc.name), children=inner, origin=At(fc.owner.where, "dscp")))
    return stmt("network", name(plan.network_policy), children=[
        *description(plan.policy.description or f"qosc {plan.policy.name}", At(plan.policy.where, "description")),
        stmt("ingress", children=ingress), stmt("egress", children=egress)],
        comment=("egress marks traffic from SAPs; remark-trusted is not set, so every DSCP arriving from the "
                 "network leaves unchanged (DSCP transparency)",))


def _ports(plan: Plan) -> Iterable[Statement]:
    for port in plan.ports:
        b, iface = port.binding, port.iface
        ethernet: list[Statement] = []
        if iface.shape is not None:
            ethernet.append(stmt("egress", "rate", integer(max(1, round(iface.shape / 1000))),
                                 origin=At(iface.where, "shape")))
        if not b.edge:
            ethernet.append(stmt("network", "egress", "queue-policy", name(port.queue_policy)))
        children = [stmt("ethernet", children=ethernet)] if ethernet else []
        if not b.edge:
            children.append(stmt("network", "egress", "pool", name("default"), "slope-policy",
                                 name(plan.slope_policy)))
        if children:
            yield stmt("port", port_id(b.port), children=children, origin=iface.where.loc)


def _routers(plan: Plan) -> Iterable[Statement]:
    bound = [p for p in plan.ports if not p.binding.edge and p.binding.router_interface]
    if bound:
        yield stmt("router", name("Base"), children=[
            stmt("interface", name(p.binding.router_interface or ""), children=[
                stmt("port", port_id(p.binding.port),
                     comment="the port the policy names this interface on (it must be the box's)"),
                stmt("qos", "network-policy", name(plan.network_policy))], origin=p.iface.where.loc)
            for p in bound])
