"""The MQC objects of an IOS configuration: class-maps, policy-maps, access lists, interfaces, by name.

Source: Cisco IOS XE QoS: Modular QoS CLI Configuration Guide (17.x):
"Class maps" (match-any: any match; match-all: every match, the default),
"match dscp" (IPv4 and IPv6) and "match ip dscp" (IPv4 only: Cisco MWR 2941
Command Reference, IOS 15.1(3)MR, "match dscp": "To match DSCP values for
IPv4 packets only, use the ip keyword. Without the ip keyword the match
occurs on both IPv4 and IPv6 packets"; likewise precedence), "match
precedence", "match access-group name"; "Policy maps" (bandwidth kbps |
percent | remaining percent, priority [kbps | percent], police, set dscp,
queue-limit packets, random-detect dscp-based / precedence-based with
per-value min max mark-probability-denominator, shape average).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qosc.configtext import guard
from qosc.diagnostics import Diagnostic, Location, warning
from qosc.dscp import parse_dscp
from qosc.targets.ios.read.acl import Match, entry
from qosc.tree import Document, Statement


@dataclass
class ClassMap:
    name: str
    all: bool
    """match-all: a packet must match every match statement."""
    v4: set[int] | None = None
    v6: set[int] | None = None
    """Code points matched per family (None: no DSCP/precedence match)."""
    acls: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)
    origin: Location | None = None
    exp: list[int] | None = None
    """MPLS EXP values matched (`match mpls experimental [topmost] V...`), None: no EXP match."""
    cos: list[int] | None = None
    """802.1Q CoS values matched (`match cos V...`), None: no CoS match."""


@dataclass
class PolicyClass:
    name: str
    lines: list[tuple[tuple[str, ...], Location | None]]
    origin: Location | None


@dataclass
class Config:
    class_maps: dict[str, ClassMap] = field(default_factory=dict)
    policies: dict[str, list[PolicyClass]] = field(default_factory=dict)
    acls: dict[str, list[Match]] = field(default_factory=dict)
    interfaces: dict[str, list[tuple[tuple[str, ...], Location | None]]] = field(default_factory=dict)
    globals: list[tuple[tuple[str, ...], Location | None]] = field(default_factory=list)
    where: dict[tuple[str, str], Location | None] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)


_PRECEDENCE = {"routine": 0, "priority": 1, "immediate": 2, "flash": 3, "flash-override": 4, "critical": 5,
               "internet": 6, "network": 7}
"""IOS names of the IP precedences (Cisco IOS QoS Command Reference, "match precedence")."""


def code(text: str) -> int:
    """A DSCP as IOS writes it (0..63 or a name); ValueError (DscpError) otherwise."""
    value = int(text) if text.isdigit() else parse_dscp(text)
    if not 0 <= value <= 63:
        raise ValueError(f"DSCP {text} is out of range 0..63")
    return value


def precedence(text: str) -> int:
    value = int(text) if text.isdigit() else _PRECEDENCE.get(text, -1)
    if not 0 <= value <= 7:
        raise ValueError(f"{text!r} is not an IP precedence (0..7 or routine .. network)")
    return value


def _codes(words: tuple[str, ...], origin: Location | None, c: Config) -> set[int]:
    out: set[int] = set()
    for w in words:
        try:
            out.add(code(w))
        except ValueError:
            c.diagnostics.append(warning("QOS172", f"unknown code point {w}: not read", origin))
    return out


def _three(known: list[int] | None, words: tuple[str, ...]) -> list[int]:
    """The 3-bit values (EXP, CoS) of a match, added to those of the class-map's earlier matches."""
    out = list(known or [])
    out += [int(x) for x in words if x.isdigit() and int(x) < 8 and int(x) not in out]
    return out


def _origin(s: Statement) -> Location | None:
    return s.origin if isinstance(s.origin, Location) else None


def _match(c: Config, cm: ClassMap, child: Statement) -> None:
    """One `match` line of a class-map, into its code point sets, access lists or other matches."""
    match_all = cm.all
    w = child.texts()
    if w[:1] != ("match",) or len(w) < 2:
        return
    body, negate = (w[2:], True) if w[1:2] == ("not",) else (w[1:], False)
    sets: tuple[set[int] | None, set[int] | None] | None = None
    if body[:2] == ("ip", "dscp"):
        sets = (_codes(body[2:], _origin(child), c), set())
    elif body[:1] == ("dscp",):
        both = _codes(body[1:], _origin(child), c)
        sets = (both, set(both))
    elif body[:2] == ("ip", "precedence") or body[:1] == ("precedence",):
        precs = {precedence(x) for x in body[2 if body[0] == "ip" else 1:]}
        codes = {8 * p + i for p in precs for i in range(8)}
        sets = (codes, set() if body[0] == "ip" else set(codes))
    elif body[:2] == ("access-group", "name") and len(body) > 2:
        cm.acls.append(body[2])
    elif body[:1] == ("access-group",) and len(body) > 1:
        cm.acls.append(body[-1])
    elif body[:1] == ("any",):
        sets = (set(range(64)), set(range(64)))
    elif body[:2] == ("mpls", "experimental") and not negate:
        cm.exp = _three(cm.exp, body[3 if body[2:3] == ("topmost",) else 2:])
    elif body[:1] == ("cos",) and not negate:
        cm.cos = _three(cm.cos, body[1:])
    else:
        cm.other.append(" ".join(w))
    if sets is not None:
        if negate:
            sets = (set(range(64)) - (sets[0] or set()), set(range(64)) - (sets[1] or set()))
        if cm.v4 is None:
            cm.v4, cm.v6 = set(sets[0] or ()), set(sets[1] or ())
        elif match_all:
            cm.v4 &= sets[0] or set()
            cm.v6 = (cm.v6 or set()) & (sets[1] or set())
        else:
            cm.v4 |= sets[0] or set()
            cm.v6 = (cm.v6 or set()) | (sets[1] or set())


def _class_map(s: Statement, t: tuple[str, ...], c: Config) -> None:
    match_all = "match-any" not in t
    name = t[-1]
    cm = ClassMap(name, match_all, origin=_origin(s))
    for child in s.children or ():
        with guard(c.diagnostics, f"class-map {name}: {' '.join(child.texts())}", _origin(child)):
            _match(c, cm, child)
    if match_all and cm.v4 is not None and len([x for x in s.children or () if x.texts()[:1] == ("match",)]) > 1 \
            and not cm.v4 and not cm.v6:
        c.diagnostics.append(warning("QOS175", f"class-map match-all {name} matches no code point: its "
                                     "matches exclude each other", cm.origin))
    c.class_maps[name] = cm
    c.where[("class-map", name)] = cm.origin


def _flat(s: Statement) -> tuple[str, ...]:
    """A policy-map class command with the lines of its own block appended: the IOS XE police block (`police cir X
    bc Y` with one `conform-action ...` a line, Policer Enhancement: Multiple Actions) reads as the one-line form,
    an action keyword repeated where a colour has several actions."""
    out = s.texts()
    for child in s.children or ():
        out += _flat(child)
    return out


def collect(document: Document) -> Config:
    c = Config()
    for s in document.statements:
        t = s.texts()
        with guard(c.diagnostics, " ".join(t), _origin(s)):
            _statement(c, s, t)
    return c


def _not_qos(t: tuple[str, ...]) -> bool:
    """A class-map or policy-map of a type that is not QoS (zone firewall `inspect`, `control` ...)."""
    return len(t) > 2 and t[1] == "type" and t[2] not in ("qos", "queueing")


def _statement(c: Config, s: Statement, t: tuple[str, ...]) -> None:
    if t[:1] == ("class-map",) and len(t) >= 2:
        if not _not_qos(t):
            _class_map(s, t, c)
    elif t[:1] == ("policy-map",) and len(t) >= 2:
        if _not_qos(t):
            return
        c.policies[t[-1]] = [PolicyClass(k.texts()[-1], [(_flat(g), _origin(g)) for g in k.children or ()],
                                         _origin(k)) for k in s.children or ()
                             if k.texts()[:1] == ("class",) and len(k.texts()) > 1]
        c.where[("policy-map", t[-1])] = _origin(s)
    elif t[:2] in (("ip", "access-list"), ("ipv6", "access-list")) and len(t) >= 3:
        v6 = t[0] == "ipv6"
        name, standard = t[-1], t[2] == "standard"
        found = c.acls.setdefault(name, [])
        kinds = [next((w for w in k.texts()[:2] if w in ("permit", "deny")), "") for k in s.children or ()]
        for i, k in enumerate(s.children or ()):
            with guard(c.diagnostics, f"access-list {name} entry {' '.join(k.texts())}", _origin(k)):
                m = entry(list(k.texts()), v6, _origin(k), standard)
                found += [m] if m else []
                if kinds[i] == "deny" and "permit" in kinds[i + 1:]:  # a deny before a permit narrows it
                    c.diagnostics.append(warning("QOS172", f"access-list {name}: deny entry {' '.join(k.texts())} "
                                                 "not read: a class matching the list is read as matching what "
                                                 "its permit entries match", _origin(k)))
        c.where.setdefault(("access-list", name), _origin(s))
    elif t[:1] == ("access-list",) and len(t) >= 3 and t[1].isdigit():  # numbered: 1-99 standard
        number = int(t[1])
        m = entry(list(t[2:]), False, _origin(s), number < 100 or 1300 <= number < 2000)
        c.acls.setdefault(t[1], []).extend([m] if m else [])
        c.where.setdefault(("access-list", t[1]), _origin(s))
    elif t[:1] == ("interface",) and len(t) >= 2:
        c.interfaces[t[1]] = [(k.texts(), _origin(k)) for k in s.children or ()]
        c.where[("interface", t[1])] = _origin(s)
    elif t[:2] == ("mls", "qos"):
        c.globals.append((t, _origin(s)))
        if t[2:3] == ("aggregate-policer",) and len(t) > 3:
            c.where[("aggregate-policer", t[3])] = _origin(s)
