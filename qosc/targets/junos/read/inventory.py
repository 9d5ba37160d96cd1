"""The QoS objects of a JUNOS configuration and what each interface, class and rule read back is made of
(qosc.behaviour.model.Device.seen and .uses): what import reconciles.

Objects: forwarding classes, classifiers and rewrite rules (by family), drop profiles, schedulers, scheduler
maps, class-of-service interface units, the QoS terms of firewall filters (a term whose `then` sets a forwarding
class, loss priority, policer or code point: a term that only accepts or discards is an ACL, not QoS), policers,
host-outbound-traffic.  An object reachable from no interface unit does nothing; one reached through something
this reader does not read (an EXP or 802.1p table) is applied but not read: its element is ("unread", ...), which
no lift holds.  host-outbound-traffic is the element ("host", class): lifted where the policy puts router traffic
in the service its class became (qosc.behaviour.lift).
"""

from __future__ import annotations

from qosc.diagnostics import Location
from qosc.targets.junos.read.config import Config, Path
from qosc.targets.junos.read.facts import BITS
from qosc.targets.junos.read.schedulers import default_map_classes

Element = tuple[str, ...]
Use = tuple[Element, tuple[str, str]]
LOOPBACK = "lo0"
"""The routing engine's interface: its filters protect the control plane (Junos OS Routing Policies, Firewall
Filters and Traffic Policers User Guide, "Protecting the Routing Engine"), they do not treat transit traffic."""
_QOS_ACTIONS = ("forwarding-class", "loss-priority", "policer", "three-color-policer", "dscp", "traffic-class")


def qos_term(lines: list[Path]) -> bool:
    """A firewall term that classifies, marks or polices (not only accepts or discards)."""
    return any(p[:1] == ("then",) and len(p) >= 2 and p[1] in _QOS_ACTIONS for p in lines)


def qos_filter(c: Config, family: str, name: str) -> bool:
    key = ("qos filter", family, name)
    if key not in c.memo:
        c.memo[key] = any(qos_term(lines) for lines in c.filters.get((family, name), {}).values())
    return bool(c.memo[key])


def _terms(c: Config, family: str, name: str) -> list[tuple[str, bool, tuple[str, ...]]]:
    """(term, has `from`, the policers its `then` names) of the QoS terms of a filter, read once."""
    key = ("qos terms", family, name)
    if key not in c.memo:
        c.memo[key] = [(term, any(p[:1] == ("from",) for p in lines),
                        tuple(p[-1] for p in lines if p[:1] == ("then",) and len(p) >= 3
                              and p[1] in ("policer", "three-color-policer")))
                       for term, lines in c.filters.get((family, name), {}).items() if qos_term(lines)]
    return c.memo[key]  # type: ignore[return-value]


def seen(c: Config, units: dict[tuple[str, str], dict[str, str]]) -> tuple[tuple[str, str, Location | None], ...]:
    out: list[tuple[str, str, Location | None]] = []
    out += [("forwarding-class", fc, c.where.get(("forwarding-class", fc))) for fc in c.queues]
    out += [("classifier", f"{fam} {name}", c.where.get(("classifier", name))) for fam, name in c.classifiers]
    out += [("rewrite-rule", f"{fam} {name}", c.where.get(("rewrite-rule", name))) for fam, name in c.rewrites]
    out += [("classifier" if head == "classifiers" else "rewrite-rule", f"{fam} {name}", loc)
            for (head, fam, name), loc in c.others.items()]
    out += [("drop-profile", name, c.where.get(("drop-profile", name))) for name in c.profiles]
    out += [("scheduler", name, c.where.get(("scheduler", name))) for name in c.schedulers]
    out += [("scheduler-map", name, c.where.get(("scheduler-map", name))) for name in c.maps]
    out += [("interface", f"{port} unit {unit}", c.port_origin(port)) for port, unit in units]
    for (fam, fname), terms in c.filters.items():
        out += [("filter term", f"{fname} {term}", c.where.get(("term", f"{fam}/{fname}/{term}")))
                for term, lines in terms.items() if qos_term(lines)]
    out += [("policer", name, c.where.get(("policer", name))) for name in c.policers]
    if c.host_class is not None:
        out.append(("host-outbound-traffic", c.host_class, c.where.get(("host-outbound-traffic", "forwarding-class"))))
    return tuple(out)


def _classifier(c: Config, family: str, name: str, seen_names: frozenset[str] = frozenset()) -> list[str]:
    """A bound classifier and every classifier it imports."""
    source = c.imports.get((family, name))
    if source is None or source == "default" or source in seen_names:
        return [name]
    return [name, *_classifier(c, family, source, seen_names | {name})]


def uses(c: Config, units: dict[tuple[str, str], dict[str, str]], smaps: dict[str, str],
         wildcards: dict[tuple[str, str], dict[str, str]] | None = None) -> tuple[Use, ...]:
    out: list[Use] = []
    for (port, unit), bound in (wildcards or {}).items():  # applied to every matching port: not lifted
        wild: Element = ("unread", port, unit)
        for key, name in bound.items():
            if key == "scheduler-map":
                out.append((wild, ("scheduler-map", name)))
                for fc, sched in c.maps.get(name, {}).items():
                    out += [(wild, ("forwarding-class", fc)), (wild, ("scheduler", sched))]
                    out += [(wild, ("drop-profile", p[6])) for p in c.schedulers.get(sched, [])
                            if p[:1] == ("drop-profile-map",) and len(p) >= 7]
            else:
                kind, _, family = key.partition("s-")
                out.append((wild, ("classifier" if kind == "classifier" else "rewrite-rule", f"{family} {name}")))
    for (port, unit), bound in units.items():
        u = str(int(unit)) if unit.isdigit() else unit
        unread: Element = ("unread", port, u)
        iface: Element = ("interface", port, u) if port != LOOPBACK else unread
        out.append((iface, ("interface", f"{port} unit {unit}")))
        smap = smaps.get(f"{port} unit {unit}", smaps.get(port))
        if smap is None and any(k.startswith(("classifiers-", "rewrite-rules-", "forwarding-class")) for k in bound):
            # the port queues by Junos's default map (schedulers.default_classes): its forwarding classes are used
            out += [(("class", port, u, fc), ("forwarding-class", fc)) for fc in default_map_classes(c).values()
                    if fc in c.queues]
        if smap is not None:
            out.append((iface, ("scheduler-map", smap)))
            for fc, sched in c.maps.get(smap, {}).items():
                klass: Element = ("class", port, u, fc)
                out += [(klass, ("forwarding-class", fc)), (klass, ("scheduler", sched))]
                out += [(klass, ("drop-profile", p[6])) for p in c.schedulers.get(sched, [])
                        if p[:1] == ("drop-profile-map",) and len(p) >= 7]
        for key, name in bound.items():
            _kind, _, family = key.partition("s-")
            if key.startswith("classifiers-"):
                element = iface if family in BITS else unread
                out += [(element, ("classifier", f"{family} {n}")) for n in _classifier(c, family, name)]
            elif key.startswith("rewrite-rules-"):
                out.append((iface if family in BITS else unread, ("rewrite-rule", f"{family} {name}")))
            elif key.startswith("filter-input-"):
                fam = key.removeprefix("filter-input-")
                for term, has_from, policers in _terms(c, fam, name):
                    element = ("rule", port, u, term) if has_from and port != LOOPBACK else iface
                    out.append((element, ("filter term", f"{name} {term}")))
                    out += [(element, ("policer", pol)) for pol in policers]
    for (port, unit), bound in c.bound.items():  # an output filter that classifies or marks: applied, not read
        for key, name in bound.items():
            if key.startswith("filter-output-") and port != LOOPBACK:
                out += [(("unread", port, unit), ("filter term", f"{name} {term}"))
                        for term, _, _ in _terms(c, key.removeprefix("filter-output-"), name)]
    if c.host_class is not None:
        out.append((("host", c.host_class), ("host-outbound-traffic", c.host_class)))
    return tuple(out)
