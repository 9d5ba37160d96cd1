"""The class-of-service and firewall objects of a JUNOS configuration, collected by name from its paths.

Sources as in qosc.targets.junos.read.facts and .edge (Junos OS 21.4 Class of
Service and Firewall Filter user guides).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qosc.configtext import guard
from qosc.diagnostics import Diagnostic, Location, warning
from qosc.targets.junos.read.facts import BITS, code_point
from qosc.targets.junos.read.parse import paths
from qosc.tree import Document

Path = tuple[str, ...]


@dataclass
class Config:
    """The class-of-service and firewall objects of one configuration, by name, with where each is."""

    queues: dict[str, int] = field(default_factory=dict)
    classifiers: dict[tuple[str, str], dict[int, tuple[str, str]]] = field(default_factory=dict)
    imports: dict[tuple[str, str], str] = field(default_factory=dict)
    """Classifier -> the classifier it imports (`import default`: 'default')."""
    profiles: dict[str, list[Path]] = field(default_factory=dict)
    schedulers: dict[str, list[Path]] = field(default_factory=dict)
    maps: dict[str, dict[str, str]] = field(default_factory=dict)
    rewrites: dict[tuple[str, str], dict[tuple[str, str], int]] = field(default_factory=dict)
    ports: dict[str, dict[str, list[Path]]] = field(default_factory=dict)
    policers: dict[str, list[Path]] = field(default_factory=dict)
    filters: dict[tuple[str, str], dict[str, list[Path]]] = field(default_factory=dict)
    bound: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    where: dict[tuple[str, str], Location | None] = field(default_factory=dict)
    aliases: dict[str, dict[str, int]] = field(default_factory=dict)
    """Code-point aliases per family (dscp, dscp-ipv6, inet-precedence, exp, ieee-802.1, ieee-802.1ad, ...)."""
    others: dict[tuple[str, str, str], Location | None] = field(default_factory=dict)
    """(kind, family, name) of classifiers and rewrite rules of families this reader does not read (facts.BITS):
    where each is (named where bound, and by the reconciliation)."""
    speeds: dict[str, str] = field(default_factory=dict)
    """Port -> its `speed` under interfaces (10g, 100g, ...)."""
    tcps: dict[str, list[Path]] = field(default_factory=dict)
    """Traffic-control profiles by name: their statements."""
    host_class: str | None = None
    """host-outbound-traffic forwarding-class: where router-generated traffic is queued, on every egress interface
    ("The forwarding class selected is global to the device", Junos OS CoS User Guide, Change the Default Queuing
    and Marking of Host Outbound Traffic).  Without it Junos's default assignments hold: control protocol packets
    in queue 3 (network-control), management traffic in queue 0 (ibid., Default Routing Engine Protocol Queue
    Assignments)."""
    filtered: dict[str, Location | None] = field(default_factory=dict)
    """Port -> where an input or output filter is bound on one of its units under `interfaces`: the origin of a
    unit no class-of-service statement names (an IRB unit classified by its filter alone)."""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    memo: dict[tuple[object, ...], object] = field(default_factory=dict)
    """What the interpreter reads once for every unit that shares it (a filter, a scheduler map)."""

    def at(self, kind: str, name: str, loc: Location | None) -> None:
        self.where.setdefault((kind, name), loc)

    def port_origin(self, port: str) -> Location | None:
        """Where a port's class-of-service statements are, else where a filter is bound on one of its units."""
        return self.where.get(("interface", port)) or self.filtered.get(port)

    def aliases_of(self, family: str) -> dict[str, int]:
        return self.aliases.get(family, {})

    def code(self, text: str, family: str, what: str, loc: Location | None) -> int | None:
        """A code point of a family, or None with QOS172 where it is neither bits of the family's width nor an
        alias of it (an EXP value is never read as a DSCP)."""
        try:
            return code_point(text, self.aliases_of(family), family)
        except ValueError:
            self.diagnostics.append(warning("QOS172", f"{what}: unknown {family} code point {text}: not read", loc,
                                            f"define it under code-point-aliases {family}, or write the "
                                            f"{BITS[family]}-bit pattern"))
            return None


def collect(document: Document) -> Config:
    c = Config()
    leaves = paths(document.statements, ("class-of-service", "firewall", "interfaces", "chassis"))
    for p, loc in leaves:
        if p[:2] == ("class-of-service", "code-point-aliases") and len(p) == 5:
            with guard(c.diagnostics, p, loc):
                if not set(p[4]) <= {"0", "1"} or len(p[4]) != BITS.get(p[2], len(p[4])):
                    raise ValueError(f"{p[4]!r} is not a bit pattern of the {p[2]} family")
                c.aliases.setdefault(p[2], {})[p[3]] = int(p[4], 2)
    for p, loc in leaves:
        with guard(c.diagnostics, p, loc):
            if p[:1] == ("class-of-service",):
                _cos(c, p[1:], loc)
            elif p[:1] == ("firewall",):
                _firewall(c, p[1:], loc)
            elif p[:1] == ("interfaces",) and len(p) >= 8 and p[2] == "unit" and p[4] == "family" and \
                    p[6] == "filter":
                c.bound.setdefault((p[1], p[3]), {})[f"filter-{p[7]}-{p[5]}"] = p[8] if len(p) > 8 else ""
                c.filtered.setdefault(p[1], loc)
            elif p[:1] == ("interfaces",) and len(p) == 4 and p[2] == "speed":
                c.speeds[p[1]] = p[3]
            elif p[:1] == ("chassis",) and len(p) == 9 and p[1::2][:4] == ("fpc", "pic", "port", "speed"):
                c.speeds[f"{p[2]}/{p[4]}/{p[6]}"] = p[8]  # the port's speed, whatever its interface's prefix
    return c


def _cos(c: Config, p: Path, loc: Location | None) -> None:
    head = p[0] if p else ""
    if head == "forwarding-classes" and len(p) >= 4:
        if p[1] == "queue":
            c.queues[p[3]] = int(p[2])
            c.at("forwarding-class", p[3], loc)
        elif p[1] == "class" and p[3] == "queue-num":
            c.queues[p[2]] = int(p[4])
            c.at("forwarding-class", p[2], loc)
    elif head in ("classifiers", "rewrite-rules") and len(p) >= 3 and p[1] not in BITS:
        # a family qosc does not read: named where it is bound, never read as DSCP
        c.others.setdefault((head, p[1], p[2]), loc)
        c.at("classifier" if head == "classifiers" else "rewrite-rule", p[2], loc)
    elif head == "classifiers" and len(p) >= 4:
        key = (p[1], p[2])
        table = c.classifiers.setdefault(key, {})
        c.at("classifier", p[2], loc)
        if p[3] == "import" and len(p) >= 5:
            c.imports[key] = p[4]
        elif p[3] == "forwarding-class" and len(p) >= 9 and p[5] == "loss-priority" and p[7] == "code-points":
            code = c.code(p[8], p[1], f"classifier {p[1]} {p[2]}", loc)
            if code is None:
                return
            if code in table and table[code] != (p[4], p[6]):
                c.diagnostics.append(warning("QOS175", f"classifier {p[2]} classifies code point {p[8]} twice "
                                             f"({table[code][0]} and {p[4]}); JUNOS refuses to commit it", loc))
            table[code] = (p[4], p[6])
    elif head == "traffic-control-profiles" and len(p) >= 3:
        c.tcps.setdefault(p[1], []).append(p[2:])
        c.at("traffic-control-profile", p[1], loc)
    elif head == "drop-profiles" and len(p) >= 3:
        c.profiles.setdefault(p[1], []).append(p[2:])
        c.at("drop-profile", p[1], loc)
    elif head == "schedulers" and len(p) >= 3:
        c.schedulers.setdefault(p[1], []).append(p[2:])
        c.at("scheduler", p[1], loc)
    elif head == "scheduler-maps" and len(p) >= 5 and p[2] == "forwarding-class" and p[4] == "scheduler":
        c.maps.setdefault(p[1], {})[p[3]] = p[5]
        c.at("scheduler-map", p[1], loc)
        c.where.setdefault(("map-entry", f"{p[1]}/{p[3]}"), loc)
    elif head == "rewrite-rules" and len(p) >= 9 and p[3] == "forwarding-class" and p[7] == "code-point":
        rule = c.rewrites.setdefault((p[1], p[2]), {})
        c.at("rewrite-rule", p[2], loc)
        code = c.code(p[8], p[1], f"rewrite rule {p[1]} {p[2]}", loc)
        if code is not None:
            rule[(p[4], p[6])] = code
    elif head == "interfaces" and len(p) >= 3:
        c.ports.setdefault(p[1], {}).setdefault(p[2] if p[2] != "unit" else f"unit {p[3]}", []).append(p)
        c.at("interface", p[1], loc)
    elif p[:2] == ("host-outbound-traffic", "forwarding-class") and len(p) == 3:
        c.host_class = p[2]
        c.at("host-outbound-traffic", "forwarding-class", loc)
    elif head != "code-point-aliases":
        c.diagnostics.append(warning("QOS172", f"class-of-service {' '.join(p)}: not read", loc))


def _firewall(c: Config, p: Path, loc: Location | None) -> None:
    if p[:1] == ("filter",):  # `firewall filter` without a family is an IPv4 filter
        p = ("family", "inet", *p)
    if p[:1] in (("policer",), ("three-color-policer",)) and len(p) >= 3:
        c.policers.setdefault(p[1], []).append(p[2:] + (p[0],))
        c.at("policer", p[1], loc)
    elif p[:1] == ("family",) and len(p) >= 7 and p[2] == "filter" and p[4] == "term":
        c.filters.setdefault((p[1], p[3]), {}).setdefault(p[5], []).append(p[6:])
        c.at("filter", p[3], loc)
        c.where.setdefault(("term", f"{p[1]}/{p[3]}/{p[5]}"), loc)
