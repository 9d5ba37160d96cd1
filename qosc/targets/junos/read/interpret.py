"""What a JUNOS configuration does with packets: its class-of-service and firewall statements as behaviour.

Reads the flattened paths of qosc.targets.junos.read.parse (curly and set text
alike).  Per interface unit that carries QoS (a scheduler map on the port,
classifiers or rewrite rules on the unit, an input filter): the forwarding
classes of the scheduler map as classes (transmit-rate percent or remainder,
shaping-rate, buffer-size percent or temporal, priority, drop-profile-map by
loss priority; protocol non-tcp maps are not TCP traffic's and are left
out), the 64 code points through the bound classifier (with `import
default`: the rest through dscp-default), the rewrite per code point, and
the input filter's terms as edge rules.  Dangling references are QOS174,
code points listed twice in one classifier QOS175.  A unit without a
classifier (an untrusted edge, classified by its filter): a code point is
in the class whose rewrite writes it, every other code point in the class of
the filter's catch-all term (unknown without one).  A unit with a classifier
and no DSCP rewrite rule keeps every code point: its role is transparent.  The
EXP and 802.1p tables, rewrites and the EXP a PE imposes: read.marks (a unit
through which traffic enters LSPs is an edge).
"""

from __future__ import annotations

from collections import defaultdict

from qosc.behaviour.model import Class, Curve, Device, Interface
from qosc.diagnostics import Diagnostic, Location, warning
from qosc.targets.junos.read.config import Config, Path, collect
from qosc.targets.junos.read.edge import rules as edge_rules
from qosc.targets.junos.read.facts import DEFAULT_QUEUES, LOSS_PRECEDENCE, PRIORITY, default_classifier
from qosc.targets.junos.read.marks import exp_bindings, imposition, unit_marking
from qosc.tree import Document


def curve(lines: list[Path]) -> Curve:
    fills = [float(p[2]) for p in lines if p[:2] == ("interpolate", "fill-level")]
    probs = [float(p[2]) for p in lines if p[:2] == ("interpolate", "drop-probability")]
    if fills:
        return Curve(tuple(zip(fills, probs, strict=False)), interpolate=True, beyond=100.0)
    steps = sorted((float(p[1]), float(p[3])) for p in lines if p[0] == "fill-level" and len(p) >= 4)
    return Curve(tuple(steps), interpolate=False)


def scheduler_class(c: Config, fc: str, sched: str, share_left: float, remainders: int,
                    loc: Location | None) -> Class:
    lines = c.schedulers.get(sched, [])
    share = cap = None
    strict = False
    priority = None
    buffer = None
    drops: dict[int, Curve] = {}
    # `exact` is a sibling of the rate: on the same line or its own (`transmit-rate { percent 20; exact; }`)
    exact = any(p[0] == "transmit-rate" and "exact" in p[1:] for p in lines)
    for p in lines:
        if p[0] == "transmit-rate" and len(p) >= 2:
            if p[1] == "percent":
                share = float(p[2])
                cap = share if exact else cap
            elif p[1] == "remainder":
                share = round(share_left / max(remainders, 1), 6)
        elif p[0] == "shaping-rate" and p[1:2] == ("percent",):
            cap = float(p[2])
        elif p[0] == "priority":
            strict = p[1] == "strict-high"
            priority = PRIORITY.get(p[1])
        elif p[0] == "buffer-size" and len(p) >= 3:
            buffer = ("percent", float(p[2])) if p[1] == "percent" else ("us", float(p[2])) \
                if p[1] == "temporal" else None
        elif p[0] == "drop-profile-map" and len(p) >= 7 and p[4] in ("any", "tcp"):
            prof = c.profiles.get(p[6])
            if prof is None:
                c.diagnostics.append(warning("QOS174", f"scheduler {sched} names drop profile {p[6]}, "
                                             "which is not defined", c.where.get(("scheduler", sched))))
                continue
            drops[LOSS_PRECEDENCE.get(p[2], 0)] = curve(prof)
    if 2 not in drops and 3 in drops and 1 in drops:
        drops[2] = drops[3]  # two loss priorities (M-series): medium drop precedence is classified high
    if set(drops) == {1, 2, 3} and len(set(drops.values())) == 1:
        drops = {0: drops[1]}
    return Class(fc, share=share, strict=strict, priority=priority, cap=cap, buffer=buffer,
                 drop=tuple(sorted(drops.items())), queue=c.queues.get(fc, DEFAULT_QUEUES.get(fc)), origin=loc)


def classes(c: Config, smap: str) -> tuple[Class, ...]:
    entries = c.maps.get(smap, {})
    fixed = sum(float(p[2]) for s in entries.values() for p in c.schedulers.get(s, [])
                if p[:2] == ("transmit-rate", "percent"))
    remainders = sum(1 for s in entries.values() for p in c.schedulers.get(s, []) if p[:2] == ("transmit-rate",
                                                                                                "remainder"))
    out = []
    for fc, sched in entries.items():
        loc = c.where.get(("map-entry", f"{smap}/{fc}"))
        if sched not in c.schedulers:
            c.diagnostics.append(warning("QOS174", f"scheduler map {smap} names scheduler {sched}, which is not "
                                         "defined", loc))
        out.append(scheduler_class(c, fc, sched, max(100.0 - fixed, 0.0), remainders, loc))
    return tuple(out)


def _fc(c: Config, fc: str, known: set[str]) -> str:
    """A forwarding class as the scheduler map knows it (a default class name resolves by its queue)."""
    if fc in known or fc not in DEFAULT_QUEUES or fc in c.queues:
        return fc
    queue = DEFAULT_QUEUES[fc]
    return next((n for n, q in c.queues.items() if q == queue), fc)


def interpret(document: Document, platform: object = None) -> tuple[Device, list[Diagnostic]]:
    c = collect(document)
    interfaces: list[Interface] = []
    units: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    smaps: dict[str, str] = {}
    for port, parts in c.ports.items():
        for key, lines in parts.items():
            for p in lines:
                if key == "scheduler-map":
                    smaps[port] = p[3]
                elif key.startswith("unit") and len(p) >= 7 and p[4] in ("classifiers", "rewrite-rules"):
                    if p[5] in ("dscp", "dscp-ipv6") and p[7:9] == ("protocol", "mpls"):
                        # IP packets entering LSPs: a plain binding of the family (IP leaving as IP) wins
                        units[(port, p[3])].setdefault(f"{p[4]}-{p[5]}", p[6])
                    else:
                        units[(port, p[3])][f"{p[4]}-{p[5]}"] = p[6]
    for (port, unit), bound in c.bound.items():
        units[(port, unit)].update(bound)
    for port in smaps:
        if not any(k[0] == port for k in units):
            units[(port, "0")] = {}
    imposed = imposition(c, exp_bindings(c))
    for (port, unit), bound in units.items():
        interfaces.append(_interface(c, port, unit, bound, smaps.get(port), imposed, platform))
    mine = _firewall_owned(c)
    owned = tuple(sorted(((k, n, loc) for (k, n), loc in c.where.items() if k not in ("map-entry", "term")
                          and (k not in ("filter", "policer") or (k, n) in mine)), key=lambda t: (t[0], t[1])))
    name = document.stem
    origin = document.origin if isinstance(document.origin, Location) else None
    # a map shared by interfaces is read once each: its diagnostics once
    return Device(name, None, tuple(interfaces), owned, origin, host_class=c.host_class), list(
        dict.fromkeys(c.diagnostics))


def _firewall_owned(c: Config) -> set[tuple[str, str]]:
    """The firewall filters and policers qosc may own: those bound (filters) or used (policers, by a term of such
    a filter) on a unit of a port qosc schedules (it has class-of-service interfaces statements: qosc replaces
    class-of-service whole).  An operator's filter on another interface is left alone, never reported stale."""
    ports = set(c.ports)
    filters = {name for (port, _), bound in c.bound.items() if port in ports for name in bound.values() if name}
    owned = {("filter", name) for name in filters}
    for (_, name), terms in c.filters.items():
        if name in filters:
            owned |= {("policer", p[-1]) for lines in terms.values() for p in lines
                      if len(p) >= 3 and p[0] == "then" and p[1] in ("policer", "three-color-policer")}
    return owned


def _interface(c: Config, port: str, unit: str, bound: dict[str, str], smap: str | None,
               imposed: tuple[str, tuple[str, ...]] | None = None, platform: object = None) -> Interface:
    loc = c.where.get(("interface", port))
    if smap is not None and smap not in c.maps:
        c.diagnostics.append(warning("QOS174", f"interface {port} names scheduler map {smap}, which is not "
                                     "defined", loc))
    klasses = classes(c, smap) if smap else ()
    known = {k.name for k in klasses}
    classify: list[tuple[str | None, ...]] = []
    rewrite: list[tuple[int | None, ...]] = []
    marks: list[dict[tuple[str, str], int]] = []
    for family in ("dscp", "dscp-ipv6"):
        cname = bound.get(f"classifiers-{family}")
        table = c.classifiers.get((family, cname or ""))
        if cname is not None and table is None:
            c.diagnostics.append(warning("QOS174", f"interface {port} unit {unit} names {family} classifier "
                                         f"{cname}, which is not defined", loc))
        rname = bound.get(f"rewrite-rules-{family}")
        rule = c.rewrites.get((family, rname or ""), {})
        if rname is not None and (family, rname) not in c.rewrites:
            c.diagnostics.append(warning("QOS174", f"interface {port} unit {unit} names {family} rewrite rule "
                                         f"{rname}, which is not defined", loc))
        marks.append(rule)
        if table is None:
            # no classifier: a code point belongs to the class whose rewrite writes it (what the unit's own
            # marks mean); the rest is unknown
            own = {code: fc for (fc, lp), code in sorted(rule.items(), key=lambda kv: kv[0][1] != "low")}
            classify.append(tuple(_fc(c, own[code], known) if code in own else None for code in range(64)))
            rewrite.append((None,) * 64)
            continue
        full = {code: table.get(code) or (default_classifier(code) if (family, cname) in c.imports else None)
                for code in range(64)}
        classify.append(tuple(_fc(c, v[0], known) if v else None for v in full.values()))
        rewrite.append(tuple((rule.get((v[0], v[1]), code) if rname else code) if v else None
                             for code, v in full.items()))
    rules, unmatched = edge_rules(c, port, unit, bound, marks[0])
    for fam, family in enumerate(("dscp", "dscp-ipv6")):
        # no classifier but a catch-all filter term: the code points no class writes are that term's class
        if f"classifiers-{family}" not in bound and unmatched is not None and classify[fam][unmatched]:
            catch = classify[fam][unmatched]
            classify[fam] = tuple(x if x is not None else catch for x in classify[fam])
    exp, pcp, marked = unit_marking(c, f"interface {port} unit {unit}", bound, loc, lambda n: _fc(c, n, known),
                                    imposed, platform)
    # a unit that classifies but binds no DSCP rewrite rule keeps every code point as it came: transparent (an
    # EXP rewrite of its own keeps or writes EXP: marks); a unit whose traffic enters LSPs (imposes) is an edge
    rewrites = any(k.startswith("rewrite-rules-dscp") for k in bound) or (
        not any(k.startswith("classifiers-dscp") for k in bound) and any(k.startswith("rewrite-rules-") for k in bound))
    edge = rules or unmatched is not None or any(m[0] == "impose" for m in marked)
    role = "edge" if edge else ("core" if rewrites else "transparent" if bound else None)
    return Interface(port, int(unit), role, None, None, klasses, (classify[0], classify[1]),
                     (rewrite[0], rewrite[1]), None if role != "edge" else bool(bound.get("classifiers-dscp")),
                     tuple(rules), unmatched, classify_exp=exp, classify_pcp=pcp, marks=marked, origin=loc)
