"""JUNOS input firewall filters as edge rules: matches, the mark (forwarding class and loss priority through
the unit's rewrite rule), and the policer envelope.

Source: Junos OS Routing Policies, Firewall Filters and Traffic Policers User
Guide, release 21.4: "Firewall Filter Match Conditions for IPv4/IPv6 Traffic"
(source-address, destination-address, protocol / next-header, source-port,
destination-port, dscp), "Firewall Filter Match Conditions for Layer 2 CCC
Traffic" (learn-vlan-1p-priority, source-mac-address, destination-mac-address:
a family ccc or bridge filter, read as rules on the Ethernet header that mark
nothing), "Firewall Filter Terminating Actions" (accept,
discard), "Nonterminating Actions" (forwarding-class, loss-priority, policer,
three-color-policer), "Two-Color Policer Configuration" (if-exceeding
bandwidth-limit, burst-size-limit; then discard or loss-priority), "Two-Rate
Three-Color Policers" (committed-information-rate, committed-burst-size,
peak-information-rate, peak-burst-size: green -> low, yellow -> medium-high,
red -> high loss priority).  A term whose forwarding class the unit's rewrite rule writes no code point for marks
nothing: the rule says its class (`fc`).  A term without `from` at the end is the mark of
unmatched traffic.  A policer is one instance per term that names it, unless it is `filter-specific`
(Junos OS 12.3 CLI reference, 'filter-specific (Firewall)'): then the terms of one filter that name it
share it (the rules' envelopes carry `shared`).
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from qosc.behaviour.model import FAMILIES, Envelope, Rule
from qosc.classifier import mac_address
from qosc.diagnostics import warning
from qosc.targets.junos.read.config import Config, Path
from qosc.targets.junos.read.facts import code_point, number

LAYER2 = ("ccc", "bridge")
"""The filter families of units that carry Ethernet frames (Junos OS Routing Policies, Firewall Filters and Traffic
Policers User Guide, "Firewall Filter Match Conditions for Layer 2 CCC Traffic" and "... for Layer 2 Bridging
Traffic": learn-vlan-1p-priority, source-mac-address, destination-mac-address)."""


def _port(text: str) -> tuple[int, int]:
    low, _, high = text.partition("-")
    return int(low), int(high or low)


def policer(c: Config, name: str, fc: str, marks: dict[tuple[str, str], int]) -> Envelope | None:
    lines = c.policers.get(name)
    if lines is None:
        c.diagnostics.append(warning("QOS174", f"a filter names policer {name}, which is not defined",
                                     c.where.get(("filter", name))))
        return None
    values = {p[-2]: p[-1] for p in [q[:-1] for q in lines] if len(p) >= 2}
    flat = {p[0]: p for p in [q[:-1] for q in lines]}
    mark = {lp: (f"dscp {marks[(fc, lp)]}" if (fc, lp) in marks else "transmit")
            for lp in ("low", "medium-high", "high")}
    if lines[0][-1] == "three-color-policer":
        two = "peak-information-rate" in values
        return Envelope(number(values.get("committed-information-rate", "0")),
                        number(values.get("committed-burst-size", "0")),
                        number(values["peak-information-rate"]) if two else None,
                        number(values["peak-burst-size"]) if two and "peak-burst-size" in values else None,
                        number(values["excess-burst-size"]) if "excess-burst-size" in values else None,
                        mark["low"], mark["medium-high"], mark["high"])
    then = flat.get("then", ())
    exceed = "drop" if "discard" in then else (mark["high"] if "loss-priority" in then else "transmit")
    return Envelope(number(values.get("bandwidth-limit", "0")), number(values.get("burst-size-limit", "0")),
                    conform="transmit", exceed=exceed)


def _term(c: Config, family: str, term: str, lines: list[Path],  # term: FILTER/TERM
          marks: dict[tuple[str, str], int]) -> tuple[Rule | None, int | None]:
    src: list[str] = []
    dst: list[str] = []
    protos: list[str] = []
    sports: list[tuple[int, int]] = []
    dports: list[tuple[int, int]] = []
    dscps: list[int] = []
    pcps: list[int] = []
    macs: dict[str, list[str]] = {"source-mac-address": [], "destination-mac-address": []}
    fc, lp, pol = None, "low", None
    has_from = False
    for p in lines:
        if p[0] == "from" and len(p) >= 3:
            has_from = True
            what, value = p[1], p[2]
            if what == "source-address":
                src.append(value)
            elif what == "destination-address":
                dst.append(value)
            elif what in ("protocol", "next-header"):
                protos.append(value)
            elif what == "source-port":
                sports.append(_port(value))
            elif what == "destination-port":
                dports.append(_port(value))
            elif what in ("dscp", "traffic-class"):  # the code point's alias family; the term keeps its own
                points = "dscp" if what == "dscp" else "dscp-ipv6"
                dscps.append(code_point(value, c.aliases_of(points), points))
            elif what == "learn-vlan-1p-priority":  # Layer 2 (ccc, bridge) filters: the frame's 802.1p priority
                pcps.append(int(value))
            elif what in macs:
                macs[what].append(_mac(value))
        elif p[0] == "then" and len(p) >= 3:
            if p[1] == "forwarding-class":
                fc = p[2]
            elif p[1] == "loss-priority":
                lp = p[2]
            elif p[1] == "policer" or p[1] == "three-color-policer":
                pol = p[-1]
    mark = marks.get((fc, lp)) if fc else None
    if not has_from:
        return None, mark
    env = policer(c, pol, fc or "", marks) if pol else None
    return Rule(term.rsplit("/", 1)[-1], tuple(src), tuple(dst), tuple(protos), tuple(sports), tuple(dports),
                tuple(dscps), mark, env, (family,), origin=c.where.get(("term", f"{family}/{term}")),
                fc=fc if mark is None else None, pcp=tuple(sorted(set(pcps))),
                source_macs=tuple(macs["source-mac-address"]),
                destination_macs=tuple(macs["destination-mac-address"]), drop=_discards(lines)), None


def _discards(lines: list[Path]) -> bool:
    """Whether a term's action discards what it matches (`then discard`, `then reject` with or without a reason)."""
    return any(p[0] == "then" and len(p) >= 2 and p[1] in ("discard", "reject") for p in lines)


def _mac(text: str) -> str:
    """A MAC address as the policy writes it (00:0c:0d:00:00:01/48 -> 00:0c:0d:00:00:01); as written, in lower
    case, where it is not one (it then differs from every policy value: equiv names it)."""
    try:
        return mac_address(text)
    except ValueError:
        return text.lower()


def _named(lines: list[Path]) -> str | None:
    """The policer a term's `then` names."""
    return next((p[-1] for p in lines if p[0] == "then" and len(p) >= 3 and p[1] in ("policer",
                                                                                      "three-color-policer")), None)


def _filter(c: Config, family: str, fname: str, terms: dict[str, list[Path]], marks: dict[tuple[str, str], int]
            ) -> list[tuple[str, Rule | None, int | None]]:
    """(term, rule or None for a catch-all term, its mark) of one filter with one rewrite rule's marks: read once
    for every unit that binds the pair (a filter shared by thousands of units is not read thousands of times)."""
    key = ("filter", family, fname, id(marks) if marks else 0)  # no rewrite: a fresh empty dict each time
    if key in c.memo:
        return c.memo[key]  # type: ignore[return-value]
    named = Counter(_named(lines) for lines in terms.values())
    out: list[tuple[str, Rule | None, int | None]] = []
    for term, lines in terms.items():
        rule, mark = _term(c, family, f"{fname}/{term}", lines, marks)
        pname = _named(lines)
        if rule is not None and rule.policer is not None and pname is not None and named[pname] > 1 and \
                any(q[0] == "filter-specific" for q in c.policers.get(pname, [])):
            rule = dataclasses.replace(rule, policer=dataclasses.replace(rule.policer, shared=pname))
        out.append((term, rule, mark))
    c.memo[key] = out
    c.memo[("marks", id(marks))] = marks  # keeps the marks alive while their id is a key
    return out


def rules(c: Config, port: str, unit: str, bound: dict[str, str],
          marks: dict[tuple[str, str], int]) -> tuple[list[Rule], int | None]:
    """The edge rules of a unit's input filters (IPv4 and IPv6 terms of one name merged) and the unmatched mark.

    A term of one family only (an icmp6 rule: issue 26) keeps its place among the terms of its own filter: it is
    put after the last term of that filter already merged, so the policy's rule order reads back for both."""
    merged: dict[str, Rule] = {}
    order: list[str] = []
    unmatched = None
    for family in (*FAMILIES, *LAYER2):
        cursor = -1
        fname = bound.get(f"filter-input-{family}")
        if fname is None:
            continue
        if family in LAYER2:
            marks = {}  # frames: no DSCP is written (Interface.ethernet), the term's class is what it says
        terms = c.filters.get((family, fname))
        if terms is None:
            c.diagnostics.append(warning("QOS174", f"interface {port} unit {unit} names {family} filter {fname}, "
                                         "which is not defined", c.port_origin(port)))
            continue
        for term, rule, mark in _filter(c, family, fname, terms, marks):
            if rule is None:
                unmatched = mark if unmatched is None else unmatched
                continue
            old = merged.get(term)
            if old is None:
                merged[term] = rule
                order.insert(cursor + 1, term)
                cursor += 1
            else:
                cursor = order.index(term)
                merged[term] = Rule(term, old.sources + rule.sources, old.destinations + rule.destinations,
                                    tuple(dict.fromkeys(old.protocols + rule.protocols)), old.source_ports,
                                    old.destination_ports, old.match_dscp, old.mark, old.policer,
                                    old.families + rule.families, old.origin, old.fc, drop=old.drop)
    return [merged[term] for term in order], unmatched


def unmatched_dropped(c: Config, bound: dict[str, str]) -> bool:
    """Whether a unit's input filters (any family read: inet, inet6, ccc, bridge) discard what no term matches: a
    filter whose last term has a `from` ends in Junos's implicit discard, and a last term without `from` that
    discards or rejects says it (Junos OS Routing Policies, Firewall Filters and Traffic Policers User Guide, release
    21.4, "How Firewall Filters Evaluate Packets" and, for release 13.2 and later, "How Simple Filters Evaluate
    Packets": a packet that matches the conditions of no term is discarded; "Firewall Filter Terminating Actions")."""
    for family in (*FAMILIES, *LAYER2):
        fname = bound.get(f"filter-input-{family}")
        terms = c.filters.get((family, fname)) if fname is not None else None
        if terms is None:  # not bound, or not defined (QOS174)
            continue
        last: list[Path] = list(terms.values())[-1] if terms else [("from",)]  # no term: everything discarded
        if any(p[0] == "from" for p in last) or _discards(last):
            return True
    return False


def leading(c: Config, bound: dict[str, str]) -> str | None:
    """The forwarding class of input filters whose first term has no `from` and sets one (every bound family's
    the same): every packet the unit receives is in it, whatever its code points (what qosc writes for an edge
    whose first rule matches everything: JUNOS fixed classification lifted).  None otherwise."""
    found: set[str | None] = set()
    for family in FAMILIES:
        fname = bound.get(f"filter-input-{family}")
        if fname is None:
            continue
        terms = c.filters.get((family, fname))
        first = next(iter(terms.values()), None) if terms else None
        if first is None or any(p[0] == "from" for p in first):
            return None
        found.add(next((p[2] for p in first if p[0] == "then" and len(p) >= 3 and p[1] == "forwarding-class"), None))
    return found.pop() if len(found) == 1 else None


def catch_all(c: Config, bound: dict[str, str], family: str) -> str | None:
    """The forwarding class a unit's input filter of a family sets in its last term, where that term has no
    `from` (it takes everything no term before it matched)."""
    fname = bound.get(f"filter-input-{family}")
    terms = c.filters.get((family, fname)) if fname is not None else None
    last = list(terms.values())[-1] if terms else []
    if not last or any(p[0] == "from" for p in last):
        return None
    return next((p[2] for p in last if p[0] == "then" and len(p) >= 3 and p[1] == "forwarding-class"), None)


def open_catch_all(c: Config, bound: dict[str, str], family: str) -> bool:
    """Whether a unit's input filter of a family ends in a term without `from` that accepts and sets no
    forwarding class: what no term matches keeps the class the unit's behaviour aggregate classifier gave it.
    Junos OS Class of Service User Guide: "Configuring Multifield Classifiers" (BA classification is performed
    first, then multifield classification, whose result overrides the BA result where they conflict), "Default
    Behavior Aggregate Classification Overview" (an implicit IP precedence classifier, ipprec-compatibility, on
    every logical interface that binds none)."""
    fname = bound.get(f"filter-input-{family}")
    terms = c.filters.get((family, fname)) if fname is not None else None
    if not terms:
        return False
    last = list(terms.values())[-1]
    return not any(p[0] == "from" for p in last) and ("then", "accept") in {tuple(p[:2]) for p in last} and not any(
        p[0] == "then" and len(p) >= 3 and p[1] == "forwarding-class" for p in last)
