"""Lifting the marking domains into a policy: which classes are one service, their EXP and PCP values, and the
marking settings of interfaces (generic: what every reader's behaviour says).

- One service per group of classes joined by any code point they share in any domain: the DSCP code points a
  class is classified by, the EXP and PCP values it is classified by or leaves with (rewrite), and the EXP an edge
  imposes for it.  So an edge's DSCP class and a core's EXP class are one service when the edge imposes the core's
  value.  Default classes (what a classifier's leftovers fall into) are one service of their own, never joined by
  code points: they hold values of other services on devices that do not schedule those.
- The default class of an interface: the one the configuration says takes what nothing else names (IOS
  class-default, the HTB `default` class: Interface.default_class), else the class of DSCP 0 (best effort on
  every platform), else the class most DSCP code points fall into; on an interface that classifies no DSCP, the
  one most EXP, then PCP, values fall into (ties: the class of value 0).
- EXP and PCP values per drop precedence: the value a class leaves with (rewritten, imposed) first, then the
  values classified into it at that precedence; a precedence whose mark is what a lower one would give anyway
  (`Marking.mark` falls back) is left out.  The default service takes the values it is written with (all it
  is classified by where nothing writes it), less values other services claim (a value it is written with that
  another service holds is named, QOS172: lost_defaults).
- Interfaces where EXP or PCP is classified, written or imposed get `encapsulation` (mpls where EXP is
  classified or written on them, vlan where PCP is), `trust` and `rewrite` (the domains classified and written),
  and at edges `impose: false` where labels are pushed without the service's EXP, each only where it differs
  from the default of the role (qosc.marking).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from qosc.behaviour.model import DOMAINS3, Class, Device, Interface
from qosc.diagnostics import Diagnostic, warning
from qosc.marking import ENCAPSULATIONS, default_rewrite, default_trust

Node = tuple[int, int, str]
"""(device index, interface index, class name)."""
_PRECEDENCE = {1: "low", 2: "medium", 3: "high"}


def default_class(iface: Interface) -> str | None:
    """The class unclassified traffic falls into, what import makes the default service (module doc)."""
    names = [c.name for c in iface.classes]
    if iface.default_class in names:
        return iface.default_class
    if iface.classify[0][0] in names:
        return iface.classify[0][0]
    counts = {cls.name: sum(1 for c in iface.classify[0] if c == cls.name) for cls in iface.classes}
    if any(counts.values()) or not involved(iface):
        return max(counts, key=lambda n: (counts[n], n)) if counts else None
    for table in ([x[0] if x else None for x in iface.classify_exp], [x[0] if x else None for x in iface.classify_pcp]):
        counts = {cls.name: sum(1 for c in table if c == cls.name) for cls in iface.classes}
        if any(counts.values()):
            zero = table[0]
            return max(counts, key=lambda n: (counts[n], n == zero, n))
    # nothing classified that qosc reads (a unit classified by a filter of another family): the class that
    # leaves with value 0, as value 0 decides it where something is classified
    for domain in ("exp", "impose", "pcp"):
        leaving = sorted((prec, cls) for (cls, prec), value in iface.marked(domain).items() if value == 0)
        if leaving and leaving[0][1] in names:
            return leaving[0][1]
    return max(counts, key=lambda n: (counts[n], n)) if counts else None


def defaults(devices: Sequence[Device]) -> dict[tuple[int, int], str | None]:
    """(device, interface) index -> the default class there: default_class, except on a device whose class names
    are its own (Device.device_classes: JUNOS), where the class most of its interfaces take as default is the
    default on every interface that has it (a unit whose every packet is in one class, `forwarding-class` on a
    JUNOS unit, does not make that class the device's default)."""
    out: dict[tuple[int, int], str | None] = {}
    for d, device in enumerate(devices):
        own = [default_class(iface) for iface in device.interfaces]
        votes = Counter(name for name in own if name is not None)
        common = max(votes, key=lambda n: (votes[n], -own.index(n))) if device.device_classes and votes else None
        for i, iface in enumerate(device.interfaces):
            out[(d, i)] = common if common is not None and iface.class_named(common) is not None else own[i]
    return out


def dscp_codes(iface: Interface, cls: Class) -> frozenset[int]:
    """The DSCP code points a class is classified by; none for a class every code point is in (a unit that puts
    every packet in one class: no code point tells that class from the others)."""
    codes = frozenset(c for c in range(64) if iface.classify[0][c] == cls.name)
    return frozenset() if len(codes) == 64 else codes


def classified(iface: Interface, domain: str, cls: str) -> list[tuple[int, int]]:
    """(value, drop precedence) an interface classifies into a class in a 3-bit domain."""
    return [(v, x[1]) for v, x in enumerate(iface.classified(domain)) if x is not None and x[0] == cls]


def written(iface: Interface, domain: str, cls: str) -> dict[int, int]:
    """Drop precedence -> the value a class leaves with in a 3-bit domain ('exp' counts the imposed EXP too)."""
    out: dict[int, int] = {}
    for label in (domain, "impose") if domain == "exp" else (domain,):
        for (name, prec), value in sorted(iface.marked(label).items()):
            if name == cls:
                out.setdefault(prec, value)
    return out


def _codes(iface: Interface, cls: Class) -> set[tuple[str, int]]:
    out = {("dscp", c) for c in dscp_codes(iface, cls)}
    for domain in DOMAINS3:
        out |= {(domain, v) for v, _ in classified(iface, domain, cls.name)}
        out |= {(domain, v) for v in written(iface, domain, cls.name).values()}
    return out


def carried(iface: Interface, cls: str) -> bool:
    """Whether a class is classified by, or leaves with, an EXP or PCP value (or the EXP an edge imposes)."""
    return any(classified(iface, d, cls) or written(iface, d, cls) for d in DOMAINS3)


def groups(devices: Sequence[Device], default_of: dict[tuple[int, int], str | None] | None = None
           ) -> dict[Node, Node]:
    """Every non-default class -> the first class of its group (classes that share a code point in a domain, and
    on a device whose class names are its own, classes of one name); `default_of`: defaults(devices)."""
    default_of = defaults(devices) if default_of is None else default_of
    parent: dict[Node, Node] = {}

    def find(n: Node) -> Node:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    holder: dict[tuple[str, Any], Node] = {}
    for d, device in enumerate(devices):
        for i, iface in enumerate(device.interfaces):
            default = default_of[(d, i)]
            for cls in iface.classes:
                if cls.name == default:
                    continue
                node = (d, i, cls.name)
                parent.setdefault(node, node)
                named = [("class", (d, cls.name))] if device.device_classes else []
                for code in named + sorted(_codes(iface, cls)):
                    other = holder.setdefault(code, node)
                    a, b = find(node), find(other)
                    if a != b:
                        parent[max(a, b)] = min(a, b)
    return {n: find(n) for n in parent}


def _collect(members: Iterable[tuple[Interface, str]], domain: str) -> tuple[dict[int, int], dict[int, list[int]]]:
    marks: dict[int, int] = {}
    seen: dict[int, list[int]] = {}
    for iface, cls in members:
        for prec, value in written(iface, domain, cls).items():
            marks.setdefault(prec, value)
        for value, prec in classified(iface, domain, cls):
            if value not in seen.setdefault(prec, []):
                seen[prec].append(value)
    return marks, seen


def _fold(marks: dict[int, int], seen: dict[int, list[int]]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    fallback: int | None = None
    for prec in (1, 2, 3):
        mark = marks.get(prec)
        listed = sorted(seen.get(prec, []))
        if mark is not None and (mark != fallback or listed):
            listed = [mark] + [v for v in listed if v != mark]
        if listed:
            out[prec] = listed
        fallback = mark if mark is not None else (listed[0] if listed else fallback)
    return out


def values(members: Iterable[tuple[Interface, str]], domain: str) -> dict[int, list[int]]:
    """Drop precedence -> values of a service in a 3-bit domain, from the classes that are it (module doc)."""
    return _fold(*_collect(members, domain))


def default_values(members: Iterable[tuple[Interface, str]], domain: str, claimed: set[int]) -> dict[int, list[int]]:
    """The default service's values: those it is written with, else those it is classified by, less `claimed`."""
    marks, seen = _collect(members, domain)
    written_values = set(marks.values())
    found = _fold(marks, {p: [v for v in vs if v in written_values] for p, vs in seen.items()} if marks else seen)
    return {p: kept for p, vs in found.items() if (kept := [v for v in vs if v not in claimed])}


def lost_defaults(members: Iterable[tuple[Interface, str]], domain: str, owners: dict[int, str]
                  ) -> list[Diagnostic]:
    """QOS172 for each value a default class leaves with (rewrite, imposition) that another service holds
    (`owners`: value -> that service): a value is one service in the policy (two services of one EXP or PCP value
    share a queue: QOS083), so the default service does not take it and leaves with the default's value."""
    out, seen = [], set()
    for iface, name in members:
        for value in sorted(set(written(iface, domain, name).values()) & set(owners)):
            if (name, value) in seen:
                continue
            seen.add((name, value))
            cls = iface.class_named(name)
            out.append(warning(
                "QOS172", f"interface {iface.name} unit {iface.unit}: class {name} (the default service) leaves "
                f"with {domain.upper()} {value}, which service {owners[value]} holds: not lifted (a value is one "
                f"service in the policy, and the two have queues of their own: QOS083), so the default service "
                f"leaves with the default's {domain.upper()}", cls.origin if cls else iface.origin,
                f"give one of the classes another {domain.upper()} value"))
    return out


def body(found: dict[int, list[int]]) -> Any:
    """A service's `exp` or `pcp` as the schema takes it: a list when all are of drop precedence low, else a
    mapping by precedence (a class classified at a higher precedence alone has no `low`)."""
    if set(found) == {1}:
        return found[1]
    return {_PRECEDENCE[p]: vs for p, vs in sorted(found.items())}


def involved(iface: Interface) -> bool:
    """Whether an interface classifies, writes or imposes EXP or PCP."""
    return any(iface.classify_exp) or any(iface.classify_pcp) or bool(iface.marks)


def settings(iface: Interface, role: str | None, mpls_device: bool) -> dict[str, Any]:
    """encapsulation, trust, rewrite and impose of an interface where they differ from its role's defaults."""
    exp_in, pcp_in = any(iface.classify_exp), any(iface.classify_pcp)
    exp_out, pcp_out = bool(iface.marked("exp")), bool(iface.marked("pcp"))
    # an edge says whether it trusts DSCP; so does a reader that knows (a Catalyst trunk trusting CoS: False)
    dscp_in = bool(iface.trust) if role == "edge" or iface.trust is not None else \
        any(c is not None for c in iface.classify[0])
    # an edge or core writes DSCP, unless it is an edge that trusts DSCP and leaves every code point it classifies
    # as it came (a PE's customer unit classified by Junos's implicit ipprec-compatibility, no DSCP rewrite rule)
    # (or its implicit classification lifted as rules: qosc.behaviour.liftimplicit)
    kept = (bool(iface.trust) or any(r.implicit for r in iface.rules)) and all(
        iface.rewrite[0][c] == c for c in range(64) if iface.classify[0][c] is not None)
    dscp_out = role in ("edge", "core") and any(c is not None for c in iface.classify[0]) and not (
        kept and role == "edge")
    enc = {"mpls": exp_in or exp_out, "vlan": pcp_in or pcp_out}
    enc["ip"] = ((dscp_in or dscp_out) and not enc["mpls"]) or not (enc["mpls"] or enc["vlan"])
    if iface.ethernet:  # Ethernet frames only (a JUNOS family ccc unit): encapsulation vlan alone, no DSCP
        dscp_in = dscp_out = False
        enc = {"ip": False, "mpls": False, "vlan": True}
    encapsulation = tuple(e for e in ENCAPSULATIONS if enc[e])
    out: dict[str, Any] = {}
    if encapsulation != ("ip",):
        out["encapsulation"] = list(encapsulation) if len(encapsulation) > 1 else encapsulation[0]
    role_ = role or "core"
    trust = [d for d, on in (("dscp", dscp_in), ("exp", exp_in), ("pcp", pcp_in)) if on]
    if tuple(trust) != tuple(d.value for d in default_trust(role_, encapsulation)):
        out["trust"] = trust if len(trust) > 1 else trust[0] if trust else "none"
    rewrite = [d for d, on in (("dscp", dscp_out), ("exp", exp_out), ("pcp", pcp_out)) if on]
    if tuple(rewrite) != tuple(d.value for d in default_rewrite(role_, encapsulation)):
        out["rewrite"] = rewrite
    if role == "edge" and mpls_device and not iface.marked("impose"):
        out["impose"] = False
    return out


def marked_first(iface: Interface, codes: frozenset[int]) -> list[int]:
    """A service's code points, the one the interface's rewrite writes for most of the others first (JVD LLQ an1:
    cs3 and af31 in FC-HIGH, both written af31): a policy marks a service's first code point of each drop
    precedence (qosc.marking.dscp_mark), so the compiled rewrite writes what the configuration's does."""
    written = Counter(w for c in codes if (w := iface.rewrite[0][c]) is not None and w != c and w in codes)
    if not written:
        return sorted(codes)
    first = min(written, key=lambda w: (-written[w], w))
    return [first] + sorted(codes - {first})
