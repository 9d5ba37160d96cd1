"""What a JUNOS configuration does with packets: its class-of-service and firewall statements as behaviour.

Reads the flattened paths of qosc.targets.junos.read.parse (curly and set text
alike).  Per interface unit that carries QoS (a scheduler map on the port,
classifiers or rewrite rules on the unit, an input filter): the forwarding
classes of the scheduler map as classes (transmit-rate percent or remainder,
shaping-rate, buffer-size percent or temporal, priority, drop-profile-map by
loss priority; protocol non-tcp maps are not TCP traffic's and are left
out), the 64 code points through the bound classifier (with `import
default`: the rest through dscp-default; a unit's fixed `forwarding-class`:
all of them in that class, read.ports), the rewrite per code point, and
the input filter's terms as edge rules.  Dangling references are QOS174,
code points listed twice in one classifier QOS175.  A unit without a
classifier (an untrusted edge, classified by its filter): a code point is
in the class whose rewrite writes it, every other code point in the class of
the filter's catch-all term (unknown without one); a filter whose first term
takes everything into a class (what qosc writes for a fixed unit) puts every
code point there, and one whose catch-all term accepts without a class leaves
IPv4 to Junos's implicit ipprec-compatibility classifier (a multifield
classifier overrides the BA class only where it sets one), the unit trusting
DSCP by it (Interface.implicit).  A fixed unit that rewrites DSCP reads as the
edge qosc writes for it: unmatched traffic leaves with its class's mark.  A
default class name (`import default`) is rewritten as the configuration's
class of its queue.  A unit with a classifier
and no DSCP rewrite rule keeps every code point: its role is transparent.  The
EXP and 802.1p tables, rewrites and the EXP a PE imposes: read.marks (a unit
through which traffic enters LSPs is an edge).
"""

from __future__ import annotations

from qosc.behaviour.model import FAMILIES, Device, Interface
from qosc.configtext import guard
from qosc.diagnostics import Diagnostic, Location, warning
from qosc.targets.junos.read.config import Config, collect
from qosc.targets.junos.read.edge import LAYER2, catch_all, leading, open_catch_all, unmatched_dropped
from qosc.targets.junos.read.edge import rules as edge_rules
from qosc.targets.junos.read.facts import (
    BITS,
    DEFAULT_QUEUES,
    DEFAULT_REWRITE,
    DSCP_FAMILIES,
    IPPREC_DEFAULT,
    PRECEDENCE,
    THREE_BIT,
    default_classifier,
    ipprec_compatibility,
)
from qosc.targets.junos.read.inventory import LOOPBACK
from qosc.targets.junos.read.inventory import seen as seen_objects
from qosc.targets.junos.read.inventory import uses as used_objects
from qosc.targets.junos.read.marks import exp_bindings, imposition, unit_marking
from qosc.targets.junos.read.ports import bindings
from qosc.targets.junos.read.schedulers import classes, default_classes, port_rate
from qosc.tree import Document


def _fc(c: Config, fc: str, known: set[str]) -> str:
    """A forwarding class as the scheduler map knows it (a default class name resolves by its queue)."""
    if fc in known or fc not in DEFAULT_QUEUES or fc in c.queues:
        return fc
    queue = DEFAULT_QUEUES[fc]
    return next((n for n, q in c.queues.items() if q == queue), fc)


def interpret(document: Document, platform: object = None) -> tuple[Device, list[Diagnostic]]:
    c = collect(document)
    interfaces: list[Interface] = []
    b = bindings(c)
    units, smaps = b.units, b.smaps
    imposed = imposition(c, exp_bindings(c))
    for (port, unit), bound in units.items():
        if port == LOOPBACK:
            c.diagnostics.append(warning("QOS172", f"interface {port} unit {unit}: its filters act on traffic to the "
                                         "routing engine, not on transit traffic: not lifted", c.where.get(
                                             ("interface", port)) or c.where.get(("filter", next(iter(bound.values()),
                                                                                                 "")))))
            continue
        with guard(c.diagnostics, f"interface {port} unit {unit}", c.port_origin(port)):
            own = f"{port} unit {unit}"
            interfaces.append(_interface(c, port, unit, bound, smaps.get(own, smaps.get(port)),
                                         b.shapes.get(own, b.shapes.get(port)), imposed, platform))
    mine = _firewall_owned(c)
    inner = ("map-entry", "term", "forwarding-class")
    owned = tuple(sorted(((k, n, loc) for (k, n), loc in c.where.items() if k not in inner
                          and (k not in ("filter", "policer") or (k, n) in mine)), key=lambda t: (t[0], t[1])))
    name = document.stem
    origin = document.origin if isinstance(document.origin, Location) else None
    # a map shared by interfaces is read once each: its diagnostics once
    return Device(name, None, tuple(interfaces), owned, origin, host_class=c.host_class, device_classes=True,
                  seen=seen_objects(c, units), uses=used_objects(c, units, smaps, b.wildcards)), list(
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


def _table(c: Config, family: str, name: str, loc: Location | None, seen: frozenset[str] = frozenset()
           ) -> dict[int, tuple[str, str]] | None:
    """A bound classifier as code point -> (forwarding class, loss priority): a defined one with what it imports
    (`import default`, or another classifier of its family), or a built-in one (`default`: dscp-default,
    ipprec-default).  inet-precedence tables are by precedence 0..7.  None when it is not defined (QOS174)."""
    if name == "default":
        if family == PRECEDENCE:
            return {p: IPPREC_DEFAULT[p] for p in range(8)}
        return {code: default_classifier(code) for code in range(64)}
    table = c.classifiers.get((family, name))
    if table is None:
        c.diagnostics.append(warning("QOS174", f"{family} classifier {name} is named but not defined", loc))
        return None
    source = c.imports.get((family, name))
    if source is None or source in seen:
        return dict(table)
    base = _table(c, family, source, c.where.get(("classifier", name)), seen | {name}) or {}
    return {**base, **table}


def _classification(c: Config, port: str, unit: str, bound: dict[str, str], fam: int, known: set[str],
                    rule: dict[tuple[str, str], int], loc: Location | None
                    ) -> tuple[tuple[str | None, ...], tuple[int | None, ...], bool, bool]:
    """The class and the rewritten code point of each of the 64 code points of one IP family on a unit, whether
    a classifier of the unit (bound, or JUNOS's implicit one) says the classes, and whether it is the implicit one."""
    family = DSCP_FAMILIES[fam]
    rname = bound.get(f"rewrite-rules-{family}")
    cname, kind = bound.get(f"classifiers-{family}"), family
    if cname is None and fam == 0 and f"classifiers-{PRECEDENCE}" in bound:
        cname, kind = bound[f"classifiers-{PRECEDENCE}"], PRECEDENCE
    table = _table(c, kind, cname, loc) if cname is not None else None
    implicit = False
    if table is None and cname is None and "forwarding-class" in bound:  # fixed: every code point is the class's
        table = dict.fromkeys(range(64), (bound["forwarding-class"], "low"))
    if table is None:
        # no classifier: a code point belongs to the class whose rewrite writes it (what the unit's own marks
        # mean), the rest is unknown; with neither a rewrite nor an input filter, IPv4 goes through the implicit
        # ipprec-compatibility classifier (Junos assigns it to every logical interface), except on a unit that
        # classifies EXP or 802.1p: its IP classification is not the policy's (qosc writes an MPLS or 802.1p
        # interface's classifiers of those families alone, and reads it back so)
        own = {code: fc for (fc, lp), code in sorted(rule.items(), key=lambda kv: kv[0][1] != "low")}
        # (an input filter whose catch-all term accepts without a class leaves the rest to that classifier too)
        filtered = any(k.startswith("filter-input") for k in bound) and not open_catch_all(c, bound, "inet")
        if own or fam or filtered or cname is not None or any(f"classifiers-{f}" in bound for f in THREE_BIT):
            return tuple(_fc(c, own[code], known) if code in own else None for code in range(64)), \
                (None,) * 64, False, False
        table, kind = {p: ipprec_compatibility(p) for p in range(8)}, PRECEDENCE
        implicit = True
    full = {code: table.get(code >> 3 if kind == PRECEDENCE else code) for code in range(64)}
    classify = tuple(_fc(c, v[0], known) if v else None for v in full.values())
    # a default class name (from `import default`, dscp-default, ipprec-compatibility) is the class of its queue
    # for the rewrite rule too, which names the configuration's classes (FC-BEST-EFFORT writes DSCP 4 as be)
    rewrite = tuple((rule.get((v[0], v[1]), rule.get((_fc(c, v[0], set()), v[1]), code)) if rname else code)
                    if v else None for code, v in full.items())
    return classify, rewrite, True, implicit


def _interface(c: Config, port: str, unit: str, bound: dict[str, str], smap: str | None,
               shape: int | None, imposed: tuple[str, tuple[str, ...]] | None = None,
               platform: object = None) -> Interface:
    loc = c.port_origin(port)
    if smap is not None and smap not in c.maps:
        c.diagnostics.append(warning("QOS174", f"interface {port} names scheduler map {smap}, which is not "
                                     "defined", loc))
    rate = shape or port_rate(c, port)
    klasses = classes(c, smap, rate) if smap else ()
    if not smap and any(k.startswith(("classifiers-", "rewrite-rules-", "forwarding-class", "filter-input-"))
                        for k in bound):
        # the unit classifies (a classifier, a filter, a fixed class) or rewrites: its port queues by Junos's
        # default map
        klasses = default_classes(c, loc)
    known = {k.name for k in klasses}
    for key, name in bound.items():
        kind, _, family = key.partition("s-")
        if key.startswith(("classifiers-", "rewrite-rules-")) and family not in BITS:
            c.diagnostics.append(warning("QOS172", f"interface {port} unit {unit}: {kind.replace('-', ' ')} "
                                         f"{family} {name}: not read (qosc reads the families "
                                         f"{', '.join(BITS)})", loc))
    classify: list[tuple[str | None, ...]] = []
    rewrite: list[tuple[int | None, ...]] = []
    marks: list[dict[tuple[str, str], int]] = []
    classified = implicit = False
    for fam, family in enumerate(DSCP_FAMILIES):
        rname = bound.get(f"rewrite-rules-{family}")
        rule = DEFAULT_REWRITE if rname == "default" else c.rewrites.get((family, rname or ""), {})
        if rname not in (None, "default") and (family, rname) not in c.rewrites:
            c.diagnostics.append(warning("QOS174", f"interface {port} unit {unit} names {family} rewrite rule "
                                         f"{rname}, which is not defined", loc))
        marks.append(rule)
        table, written, told, default = _classification(c, port, unit, bound, fam, known, rule, loc)
        implicit = implicit or default
        classify.append(table)
        rewrite.append(written)
        # an edge trusts DSCP where a classifier says the classes of IPv4: its own, or the implicit
        # ipprec-compatibility of a PE's customer unit (it keeps the packet's DSCP and queues by it)
        classified = classified or (told and fam == 0)
    rules, unmatched = edge_rules(c, port, unit, bound, marks[0])
    first = leading(c, bound) if not any(k.startswith("classifiers-") for k in bound) else None
    if first is not None:  # a filter that classifies every packet into one class, first of all
        classify = [(_fc(c, first, known),) * 64] * 2
    pinned = bound["forwarding-class"] if "forwarding-class" in bound and not any(
        k.startswith(("classifiers-", "filter-input-")) for k in bound) else None
    if pinned is not None:  # fixed: it trusts no code point, and every packet leaves with its class's rewrite
        classified = False
        unmatched = marks[0].get((pinned, "low"))
    ethernet = any(f"filter-input-{family}" in bound for family in LAYER2)  # frames: no DSCP read or written
    if ethernet:
        classify, rewrite = [(None,) * 64] * 2, [(None,) * 64] * 2
    for fam, family in enumerate(DSCP_FAMILIES):
        # no classifier but a catch-all filter term: the code points no class writes are that term's class
        catch = classify[fam][unmatched] if unmatched is not None else catch_all(c, bound, FAMILIES[fam])
        if f"classifiers-{family}" not in bound and catch and not ethernet:
            classify[fam] = tuple(x if x is not None else _fc(c, catch, known) for x in classify[fam])
    exp, pcp, marked = unit_marking(c, f"interface {port} unit {unit}", bound, loc, lambda n: _fc(c, n, known),
                                    imposed, platform)
    # a unit that classifies DSCP but binds no DSCP rewrite rule keeps every code point as it came: transparent
    # (an EXP or 802.1p rewrite beside it leaves the DSCP alone); a unit that classifies no DSCP and rewrites in
    # another family is an MPLS or 802.1p core (its marks); a unit whose traffic enters LSPs (imposes) is an edge
    rewrites = any(k in ("rewrite-rules-dscp", "rewrite-rules-dscp-ipv6") for k in bound) or (
        not any(k.startswith("classifiers-dscp") for k in bound) and any(k.startswith("rewrite-rules-") for k in bound))
    dropped = unmatched_dropped(c, bound)
    edge = rules or unmatched is not None or any(m[0] == "impose" for m in marked)
    role = "edge" if edge else ("core" if rewrites else "transparent" if bound or smap else None)
    fixed = _fc(c, pinned, known) if pinned is not None else first and _fc(c, first, known)
    return Interface(port, int(unit), role, rate, shape, klasses, (classify[0], classify[1]),
                     (rewrite[0], rewrite[1]), None if role != "edge" else classified,
                     tuple(rules), unmatched, classify_exp=exp, classify_pcp=pcp, marks=marked,
                     default_queueing=not smap and bool(klasses), origin=loc, fixed=fixed, ethernet=ethernet,
                     implicit=implicit, unmatched_drop=dropped)
