"""SR OS target, part 4: the edge plan (edge.py) as sap-ingress statements and the SAP bindings."""

from __future__ import annotations

from collections.abc import Iterable

from qosc.targets.sros.edge import Entry, Ingress, PolicerSpec
from qosc.targets.sros.plan import Plan
from qosc.targets.sros.words import ascii_text, dscp_word, port_id
from qosc.tree import At, Kind, Statement, Word, integer, kw, name, stmt

PROTOCOLS = {"tcp", "udp", "icmp", "igmp", "gre", "esp", "ah", "ospf-igp", "pim", "vrrp", "rsvp", "ipv6-icmp",
             "sctp"}
"""Protocol names nokia-types-sros match-ip-protocol spells; anything else is written as its number."""


def _protocol(value: str) -> Word:
    import socket
    if value in PROTOCOLS or not value.isdigit():
        if value in PROTOCOLS:
            return kw(value)
        try:
            return integer(socket.getprotobyname(value))
        except OSError:
            return kw(value)
    return integer(int(value))


def _port_match(which: str, ports: tuple[int, int] | None) -> list[Statement]:
    if ports is None:
        return []
    lo, hi = ports
    if lo == hi:
        return [stmt(which, "eq", integer(lo))]
    return [stmt(which, "range", children=[stmt("start", integer(lo)), stmt("end", integer(hi))])]


def _address(value: str) -> Word:
    return Word(Kind.PREFIX, value, value)


def _entry(e: Entry) -> Statement:
    match: list[Statement] = []
    if e.protocol is not None:
        match.append(stmt("protocol" if e.family == "inet" else "next-header", _protocol(e.protocol)))
    if e.dscp is not None:
        match.append(stmt("dscp", dscp_word(e.dscp)))
    if e.src is not None:
        match.append(stmt("src-ip", "address", _address(e.src)))
    if e.dst is not None:
        match.append(stmt("dst-ip", "address", _address(e.dst)))
    match += _port_match("src-port", e.sport) + _port_match("dst-port", e.dport)
    action = [stmt("type", kw("accept")), stmt("fc", name(e.fc))]
    if e.policer is not None:
        action.append(stmt("policer", integer(e.policer)))
    children = []
    desc = ascii_text(e.rule.description or e.rule.name)
    if desc is not None:
        children.append(stmt("description", desc))
    if match:
        children.append(stmt("match", children=match))
    children.append(stmt("action", children=action))
    return stmt("entry", integer(e.id), children=children, origin=e.rule.where.loc)


def _policer(spec: PolicerSpec) -> Statement:
    p = spec.policer
    rate = [stmt("pir", integer(spec.pir_kbps) if spec.pir_kbps is not None else kw("max")),
            stmt("cir", integer(spec.cir_kbps))]
    children = []
    desc = ascii_text(p.description)
    if desc is not None:
        children.append(stmt("description", desc))
    children += [stmt("cbs", integer(spec.cbs)), stmt("mbs", integer(spec.mbs)), stmt("rate", children=rate)]
    return stmt("policer", integer(spec.id), children=children, comment=(f"policer {p.name}", *spec.why),
                origin=At(p.where, "cir"))


def ingress_statements(plan: Plan, spec: Ingress) -> Statement:
    children: list[Statement] = []
    desc = ascii_text(spec.classifier.description if spec.classifier else None)
    if desc is not None:
        children.append(stmt("description", desc))
    default = plan.default_fc
    if default is not None:
        children.append(stmt("default-fc", name(default.name)))
    children += [_policer(p) for p in spec.policers.values()]
    for fc, (conform, exceed) in sorted(spec.remarks.items()):
        inner = []
        if conform is not None:
            inner.append(stmt("in-remark", "dscp", dscp_word(conform)))
        if exceed is not None:
            inner.append(stmt("out-remark", "dscp", dscp_word(exceed)))
        children.append(stmt("fc", name(fc), children=inner))
    if spec.trust == "dscp":
        for code in sorted(plan.codes):
            children.append(stmt("dscp", dscp_word(code), children=[
                stmt("fc", name(plan.codes[code][0]))]))
    for family, container in (("inet", "ip-criteria"), ("inet6", "ipv6-criteria")):
        entries = [e for e in spec.entries if e.family == family]
        if entries:
            children.append(stmt(container, children=[_entry(e) for e in entries]))
    origin = spec.classifier.where.loc if spec.classifier else None
    return stmt("sap-ingress", name(spec.name), children=children, origin=origin,
                comment=(f"edge conditioning: classifier {spec.classifier.name if spec.classifier else '(none)'}, "
                         f"trust {spec.trust}",))


def sap_bindings(plan: Plan) -> Iterable[Statement]:
    by_service: dict[tuple[str, str], list[Statement]] = {}
    for port in plan.ports:
        b, iface = port.binding, port.iface
        if not b.edge:
            continue
        classifier = iface.classifier if iface.classifier in plan.policy.classifier_map else None
        ingress = plan.edge.ingress[(classifier, iface.trust)]  # type: ignore[attr-defined]
        sap = stmt("sap", port_id(b.sap or ""), children=[
            stmt("ingress", "qos", "sap-ingress", "policy-name", name(ingress.name)),
            stmt("egress", "qos", "sap-egress", "policy-name", name(port.queue_policy))], origin=iface.where.loc)
        if b.service_kind != "vpls":
            sap = stmt("interface", name(b.router_interface or ""), children=[sap])
        by_service.setdefault((b.service_kind or "", b.service or ""), []).append(sap)
    if by_service:
        yield stmt("service", children=[stmt(kind, name(svc), children=saps)
                                        for (kind, svc), saps in by_service.items()])
