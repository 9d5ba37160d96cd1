"""JUNOS target, part 3: lower a device's plan to its statement tree (qosc.tree).

One Document per device (dialect "junos"): the `class-of-service`,
`firewall` and `interfaces` hierarchies, every statement with its origin in
the policy.  The serializers (serialize.py) write the curly-brace and the set
form, and the NETCONF XML, from this one tree, so they cannot disagree; the
grammar (grammar.py) checks it first.  The rules are explained in
qosc/targets/junos/__init__.py.
"""

from __future__ import annotations

from qosc import dscp as dscp_mod
from qosc.marking import trust_label
from qosc.model import Device, Domain, Interface, Kind, Policy, Role
from qosc.render import quoted
from qosc.targets.junos.edge import Filter, Term, ThreeColour, TwoColour
from qosc.targets.junos.lower_marks import definitions, unit_classifiers, unit_rewrites
from qosc.targets.junos.plan import Plan, jname, num, split_unit
from qosc.tree import (
    At,
    Document,
    Statement,
    Word,
    dscp,
    group,
    integer,
    kw,
    name,
    percent,
    prefix,
    rate,
    size,
    stmt,
    time_us,
)
from qosc.units import format_rate

DIALECT = "junos"


def code_name(plan: Plan, code: int) -> str:
    """A code point in classifiers and rewrite rules: a JUNOS alias, our own alias, or the six bits."""
    alias = dscp_mod.name(code, "junos")
    if alias in plan.platform.dscp_aliases or not alias.isdigit():
        return alias
    return dscp_mod.bits(code)


def _code(plan: Plan, code: int) -> Word:
    return dscp(code, code_name(plan, code))


def _values(words: list[Word]) -> Word:
    """One value, or several as a `[ ... ]` group."""
    return words[0] if len(words) == 1 else group(words)


def _comments(policy: Policy, device: Device, plan: Plan) -> tuple[str, ...]:
    def line(text: str, quote: str | None) -> str:
        return text if quote is None else f"{text} {quoted(quote)}"

    out = [f"qosc: policy {policy.name}, device {device.name} ({plan.platform.name}). "
           "Generated; edit the policy, not this file."]
    if policy.description:
        out.append(line("policy:", policy.description))
    if device.description:
        out.append(line("device:", device.description))
    for fc in plan.classes:
        own = [(n, spec) for n, spec in plan.schedulers.items() if spec.fc == fc.name]
        for i, (sched, spec) in enumerate(own):
            shared = [m.name for m in fc.members if m is not fc.owner] if i == 0 else []
            which = f" (scheduler {sched} on {', '.join(spec.serves)})" if len(own) > 1 else ""
            excess = f", excess-priority {spec.excess}" if spec.excess else ""
            rate = f"transmit-rate {' '.join(spec.transmit)}" if spec.transmit else "no transmit-rate"
            text = (f"queue {fc.queue} {fc.name}{which}: {rate}, priority {spec.priority}" + excess
                    + (f"; burst-size {spec.burst.formula}" if spec.burst is not None else "")
                    + (f"; carries {', '.join(shared)}" if shared else ""))
            described = fc.owner.description if i == 0 else None
            out.append(line(text + ":" if described else text, described))
    for iface in device.interfaces:
        speed = f", {format_rate(iface.speed)}" if iface.speed else ""
        ifd, unit = split_unit(iface)  # ge-0/0/1.100 in the policy is unit 100 of ge-0/0/1, as written below
        text = f"{ifd} unit {unit}: {iface.role.value}{speed}, trust {trust_label(iface.trust)}" + (
            ", queued by Junos's default scheduler map (egress-queueing: device-default)" if iface.default_queueing
            else "")
        out.append(line(text + ":" if iface.description else text, iface.description))
    used = {n for maps in plan.drop_maps.values() for _, n in maps}
    out += [line(f"drop profile {d.name}:", d.description) for d in policy.drop_profiles
            if d.description and jname(d.name) in used]
    policers = set(plan.edge.policers) | set(plan.edge.tcms)
    out += [line(f"policer {p.name}:", p.description) for p in policy.policers
            if p.description and jname(p.name) in policers]
    edge = {i.classifier for i in device.interfaces if i.role is Role.EDGE}
    for c in policy.classifiers:
        if c.name in edge:
            if c.description:
                out.append(line(f"classifier {c.name}:", c.description))
            out += [line(f"classifier {c.name} rule {r.name}:", r.description) for r in c.rules if r.description]
    return tuple(out)


def _rate_words(spec: tuple[str, ...]) -> list[Word]:
    """('percent', '5') / ('remainder',) / ('2500000',) / (..., 'exact') as typed words."""
    out: list[Word] = []
    items = list(spec)
    while items:
        word = items.pop(0)
        if word == "percent":
            value = items.pop(0)
            out += [kw("percent"), percent(float(value), value)]
        elif word in ("remainder", "exact"):
            out.append(kw(word))
        elif word == "temporal":
            value = items.pop(0)
            out += [kw("temporal"), time_us(int(value))]
        else:
            out.append(rate(int(word)))
    return out


def lower_device(policy: Policy, device: Device, plan: Plan) -> Document:
    """The JUNOS configuration of one device as a statement tree."""
    lp_order = list(plan.platform.loss_priorities)
    order = {fc.name: fc.queue for fc in plan.classes}
    fc_origin = {fc.name: At(fc.owner.where) for fc in plan.classes}
    cname = plan.names.name("classifier", jname(policy.name), "policy")
    # IPv6 is classified and marked like IPv4 on every unit (issue 14): a dscp-ipv6 table beside the dscp one
    ba = (("dscp", cname), ("dscp-ipv6", plan.names.name("classifier", f"{jname(policy.name)}-ipv6", "policy ipv6")))

    cos: list[Statement] = []
    if plan.classes:
        cos.append(stmt("forwarding-classes", children=[
            stmt("queue", integer(fc.queue), name(fc.name), origin=fc_origin[fc.name]) for fc in plan.classes]))
    host = _host_outbound(plan)
    if host is not None:
        cos.append(host)
    aliases = sorted({(code_name(plan, c), dscp_mod.bits(c)) for c in list(plan.codes) + list(plan.rewrite.values())
                      if code_name(plan, c) not in plan.platform.dscp_aliases and not code_name(plan, c).isdigit()})
    if aliases:
        cos.append(stmt("code-point-aliases", children=[
            stmt(kw(kind), children=[stmt(name(alias), kw(bits)) for alias, bits in aliases]) for kind, _ in ba]))

    by_fc: dict[str, dict[str, list[int]]] = {}
    for code, (fc_name, lp) in sorted(plan.codes.items(), key=lambda kv: (order[kv[1][0]], lp_order.index(kv[1][1]))):
        by_fc.setdefault(fc_name, {}).setdefault(lp, []).append(code)
    entries = [stmt("forwarding-class", name(fc), origin=fc_origin[fc], children=[
        stmt("loss-priority", kw(lp), "code-points", _values([_code(plan, c) for c in codes]))
        for lp, codes in lps.items()]) for fc, lps in sorted(by_fc.items(), key=lambda kv: order[kv[0]])]
    marked, remarked = definitions(plan)
    cos.append(stmt("classifiers", children=[
        *(stmt(kw(kind), name(cl), children=[stmt("import", "default"), *entries]) for kind, cl in ba), *marked]))

    used = {n for maps in plan.drop_maps.values() for _, n in maps}
    profiles = []
    for d in policy.drop_profiles:
        if jname(d.name) not in used:
            continue
        origin = At(d.where, "points", "min", "max", "max-probability")
        fills = [percent(f, num(f)) for f, _ in d.points]
        probabilities = [percent(p, num(p)) for _, p in d.points]
        if d.interpolate or d.red is not None:  # RED min/max/p is a linear ramp
            body = [stmt("interpolate", children=[stmt("fill-level", group(fills)),
                                                   stmt("drop-probability", group(probabilities))])]
        else:
            body = [stmt("fill-level", f, "drop-probability", p) for f, p in zip(fills, probabilities, strict=True)]
        profiles.append(stmt(name(jname(d.name)), children=body, origin=origin))
    if profiles:
        cos.append(stmt("drop-profiles", children=profiles))

    schedulers = []
    owners = {fc.name: fc.owner for fc in plan.classes}
    for sched, spec in plan.schedulers.items():
        owner = owners[spec.fc]
        body = []  # no transmit-rate: the service has no share, nothing reserved (schedulers.py)
        if spec.transmit:
            body.append(stmt("transmit-rate", *_rate_words(spec.transmit), origin=At(owner.where, "queue.share")))
        if spec.shaping:
            burst = [kw("burst-size"), size(spec.burst.bytes)] if spec.burst is not None else []
            body.append(stmt("shaping-rate", *_rate_words(spec.shaping), *burst,
                             origin=At(owner.where, "queue.rate-cap", "queue.ceiling")))
        if spec.buffer:
            body.append(stmt("buffer-size", *_rate_words(spec.buffer), origin=At(owner.where, "queue.buffer")))
        body.append(stmt("priority", kw(spec.priority), origin=At(owner.where, "queue.strict", "queue.priority")))
        if spec.excess is not None:
            body.append(stmt("excess-priority", kw(spec.excess), origin=At(owner.where, "queue.priority")))
        body += [stmt("drop-profile-map", "loss-priority", kw(lp), "protocol", "any", "drop-profile", name(p),
                      origin=At(owner.where, "drop-profile")) for lp, p in plan.drop_maps.get(spec.fc, ())]
        schedulers.append(stmt(name(sched), children=body, origin=fc_origin[spec.fc]))
    if schedulers:
        cos.append(stmt("schedulers", children=schedulers))

    everything = tuple((fc.name, fc.name) for fc in plan.classes)
    maps: dict[tuple[tuple[str, str], ...], str] = {}
    by_ifd: dict[str, list[tuple[Interface, str, str | None]]] = {}
    for iface in device.interfaces:
        fcs = tuple(sorted(dict.fromkeys(plan.fc_of[n] for n in iface.services if n in plan.fc_of),
                           key=lambda f: order[f]))
        # each class with the scheduler that serves it here (its own shaper burst: schedulers.py)
        pairs = tuple((fc, plan.scheduler_of.get((iface.name, fc), fc)) for fc in fcs)
        smap = None
        if pairs and not iface.default_queueing:  # egress-queueing: device-default: Junos's default scheduler map
            wanted = jname(policy.name) if pairs == everything else f"{jname(policy.name)}-{jname(iface.name)}"
            holder = " ".join(fc if fc == sched else f"{fc}={sched}" for fc, sched in pairs)
            smap = maps.setdefault(pairs, plan.names.name("scheduler-map", wanted, holder))
        ifd, unit = split_unit(iface)
        by_ifd.setdefault(ifd, []).append((iface, unit, smap))
    per_unit: dict[str, Interface] = {}
    interfaces = []
    into_lsp = _into_lsp(plan, ba)
    for ifd, members in by_ifd.items():
        split = len({(smap, i.shape) for i, _, smap in members}) > 1 and plan.platform.per_unit_scheduler
        body = []
        if split:
            per_unit[ifd] = members[0][0]
        else:
            first, _, smap = members[0]
            body += _schedule(first, smap)
        for iface, unit, smap in members:
            unit_body = _schedule(iface, smap) if split else []
            bound = [stmt(kw(kind), name(cl)) for kind, cl in ba] if Domain.DSCP in iface.trust else []
            if bound or unit_classifiers(plan, iface):
                unit_body.append(stmt("classifiers", children=bound + unit_classifiers(plan, iface)))
            bound = _dscp_rewrites(plan, iface, ba, into_lsp) if Domain.DSCP in iface.rewrite and plan.rewrite else []
            if bound or unit_rewrites(plan, iface):
                unit_body.append(stmt("rewrite-rules", children=bound + unit_rewrites(plan, iface)))
            body.append(stmt("unit", integer(int(unit)), children=unit_body, origin=At(iface.where)))
        interfaces.append(stmt(name(ifd), children=body, origin=At(members[0][0].where)))
    if maps:
        cos.append(stmt("scheduler-maps", children=[
            stmt(name(n), children=[stmt("forwarding-class", name(fc), "scheduler", name(sched))
                                    for fc, sched in pairs]) for pairs, n in maps.items()]))
    rewrites: dict[str, list[tuple[str, int]]] = {}
    for (fc_name, lp), code in sorted(plan.rewrite.items(),
                                      key=lambda kv: (order[kv[0][0]], lp_order.index(kv[0][1]))):
        rewrites.setdefault(fc_name, []).append((lp, code))
    dscp_rules = []
    if rewrites:
        rules = [stmt("forwarding-class", name(fc), origin=fc_origin[fc], children=[
            stmt("loss-priority", kw(lp), "code-point", _code(plan, c)) for lp, c in v]) for fc, v in rewrites.items()]
        dscp_rules = [stmt(kw(kind), name(cl), children=rules) for kind, cl in ba]
        dscp_rules += [stmt(kw(kind), name(into_lsp[cl]), children=rules) for kind, cl in ba if cl in into_lsp]
    if dscp_rules or remarked:
        cos.append(stmt("rewrite-rules", children=dscp_rules + remarked))
    cos.append(stmt("interfaces", children=interfaces))

    statements = [stmt("class-of-service", children=cos)]
    edge = plan.edge
    firewall = ([_policer(p, p.name in edge.shared) for p in edge.policers.values()]
                + [_tcm(p, p.name in edge.shared) for p in edge.tcms.values()])
    for family in ("inet", "inet6", "ccc"):
        filters = [_filter(f) for f in edge.filters if f.family == family]
        if filters:
            firewall.append(stmt("family", kw(family), children=filters))
    if firewall:
        statements.append(stmt("firewall", children=firewall))
    grouped: dict[str, dict[str, list[tuple[str, str]]]] = {ifd: {} for ifd in per_unit}
    for ifd, unit, family, fname in edge.attach:
        grouped.setdefault(ifd, {}).setdefault(unit, []).append((family, fname))
    if grouped:
        statements.append(stmt("interfaces", children=[
            stmt(name(ifd), children=[
                *([stmt("per-unit-scheduler", origin=At(per_unit[ifd].where, "services", "shape"),
                        comment="units of this interface carry different scheduler maps or shaping")]
                  if ifd in per_unit else []),
                *(stmt("unit", integer(int(unit)), children=[
                    stmt("family", kw(family), children=[stmt("filter", children=[stmt("input", name(fname))])])
                    for family, fname in families]) for unit, families in units.items())])
            for ifd, units in grouped.items()]))
    return Document(device.name, DIALECT, tuple(statements), _comments(policy, device, plan), At(device.where))


def _host_outbound(plan: Plan) -> Statement | None:
    """Router-generated traffic (routing protocols) to the network-control class, else to the default one.

    Without this statement Junos queues host-outbound traffic on queue 3 or
    its default forwarding class, which may be a 0% scavenger queue when the
    policy has no network-control service (Junos OS CoS User Guide,
    'Changing the Routing Engine Outbound Traffic Defaults').
    """
    nc = next((fc for fc in plan.classes if fc.owner.kind is Kind.NETWORK_CONTROL), None)
    fc_name = nc.name if nc is not None else plan.default_fc
    if fc_name is None:
        return None
    origin = At(nc.owner.where) if nc is not None else At(plan.device.where)
    return stmt("host-outbound-traffic", children=[stmt("forwarding-class", name(fc_name), origin=origin)])


def _into_lsp(plan: Plan, ba: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """DSCP rewrite rules -> the copy bound `protocol mpls` on units that carry IP and MPLS (Junos takes one
    binding of a rule per unit, and a plain binding does not write the DSCP of IP packets entering an LSP)."""
    if not plan.platform.dscp_into_lsp or not any(
            i.mpls and "ip" in i.encapsulation and Domain.DSCP in i.rewrite for i in plan.device.interfaces):
        return {}
    return {cl: plan.names.name("classifier", f"{cl}-mpls", f"{kind} into LSPs") for kind, cl in ba}


def _dscp_rewrites(plan: Plan, iface: Interface, ba: tuple[tuple[str, str], ...],
                   into_lsp: dict[str, str]) -> list[Statement]:
    """The DSCP rewrite bindings of a unit: plain for IP leaving as IP; `protocol mpls` where IP packets enter
    LSPs here, on platforms that write their DSCP (`dscp_into_lsp`), with the rule's copy where both happen."""
    if not iface.mpls or not plan.platform.dscp_into_lsp:
        return [stmt(kw(kind), name(cl)) for kind, cl in ba]
    at = At(iface.where, "encapsulation")
    if "ip" not in iface.encapsulation:
        return [stmt(kw(kind), name(cl), "protocol", "mpls", origin=at) for kind, cl in ba]
    return [*(stmt(kw(kind), name(cl)) for kind, cl in ba),
            *(stmt(kw(kind), name(into_lsp[cl]), "protocol", "mpls", origin=at) for kind, cl in ba)]


def _schedule(iface: Interface, smap: str | None) -> list[Statement]:
    """The scheduler map and shaping rate of an interface (on the physical interface or, per unit, on its unit)."""
    out = []
    if smap is not None:
        out.append(stmt("scheduler-map", name(smap), origin=At(iface.where, "services")))
    if iface.shape is not None:
        out.append(stmt("shaping-rate", rate(int(iface.shape)), origin=At(iface.where, "shape")))
    return out


def _policer(p: TwoColour, shared: bool) -> Statement:
    then = [stmt(*_action(a)) for a in p.then]
    return stmt("policer", name(p.name), children=[
        *([stmt("filter-specific")] if shared else []),
        stmt("if-exceeding", children=[stmt("bandwidth-limit", rate(int(p.bandwidth))),
                                       stmt("burst-size-limit", size(int(p.burst)))]),
        stmt("then", *_action(p.then[0])) if len(then) == 1 else stmt("then", children=then)])


def _action(text: str) -> tuple[Word, ...]:
    words = text.split()
    if words[0] == "forwarding-class":
        return (kw(words[0]), name(words[1]))
    return tuple(kw(w) for w in words)


def _tcm(p: ThreeColour, shared: bool) -> Statement:
    body = [stmt("filter-specific")] if shared else []
    if p.discard_red:
        body.append(stmt("action", children=[stmt("loss-priority", "high", "then", "discard")]))
    rates = [stmt(key, size(int(value)) if key.endswith("size") else rate(int(value))) for key, value in p.rates]
    body.append(stmt(kw(p.mode), children=[stmt(kw(p.aware)), *rates]))
    return stmt("three-color-policer", name(p.name), children=body)


def _filter(f: Filter) -> Statement:
    return stmt("filter", name(f.name), children=[stmt("interface-specific"), *(_term(t) for t in f.terms)])


def _match(key: str, value: str) -> Word:
    if key in ("source-address", "destination-address"):
        return prefix(value)
    return integer(int(value)) if key == "learn-vlan-1p-priority" else kw(value)


def _term(t: Term) -> Statement:
    body = []
    if t.addresses or t.matches:
        match = [stmt(key, children=[stmt(_match(key, v)) for v in values]) for key, values in t.addresses]
        match += [stmt(key, _values([_match(key, v) for v in values])) for key, values in t.matches]
        body.append(stmt("from", children=match))
    then = []
    if t.policer is not None:
        then.append(stmt("policer", name(t.policer)))
    if t.tcm is not None:
        then.append(stmt("three-color-policer", children=[stmt(kw(t.tcm[0]), name(t.tcm[1]))]))
    if t.fc is not None:
        then.append(stmt("forwarding-class", name(t.fc)))
    if t.lp is not None:
        then.append(stmt("loss-priority", kw(t.lp)))
    then.append(stmt("discard" if t.discard else "accept"))
    body.append(stmt("then", children=then))
    return stmt("term", name(t.name), children=body, origin=t.origin)
