"""The pieces of an IOS XR configuration the interpreter reads (interpret.py, output.py).

What an IOS XR configuration does (qosc.behaviour): class-maps, policy-maps and interface service-policies.

Per interface with a service-policy: the output policy's classes (a parent whose class-default shapes and runs a
child policy gives the interface rate) are the classes; `priority level` is strict, capped by `police rate` or
`shape average` (a rate: the configuration does not say the link speed), `bandwidth percent` a share,
`bandwidth remaining ratio` a share of the sum of the ratios, `queue-limit` the buffer, `random-detect` drop
curves in percent of the queue-limit (IOS XR drops everything above the maximum threshold) per drop
precedence (dscp profiles by their code points' AF precedence, discard-class d is precedence d + 1).
Classification: the code points each class-map matches (`match dscp` both families, `match dscp ipv4|ipv6`
one), EXP (`match mpls experimental topmost`) and PCP (`match cos`); where the output policy matches
`traffic-class` (Cisco 8000) through the input policy's classes that set it (the class is named after the
first of them, its drop precedence from `set discard-class`).  Unmatched code points go to class-default.  At
an edge (an input policy with `match-all` rule classes or a class-default that sets DSCP): the rules (a rule's
classes are <name> and <name>-N of one body), their marks and policers, the mark of unmatched traffic, the EXP
imposed.  EXP and PCP rewrites from `set mpls experimental topmost` / `set cos` in output classes.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

from qosc.behaviour.model import Class, Curve, Envelope, Rule
from qosc.diagnostics import Diagnostic, Location, warning
from qosc.dscp import drop_precedence
from qosc.targets.iosxr.words import DSCP_VALUES, RATE_UNITS, SIZE_UNITS, TIME_UNITS
from qosc.tree import Document, Statement

_RATES = dict(RATE_UNITS)


def _dscp(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if part in DSCP_VALUES:
            out.append(DSCP_VALUES[part])
        elif lo.isdigit() and hi.isdigit():
            out += range(int(lo), int(hi) + 1)
        elif part.isdigit():
            out.append(int(part))
    return out


@dataclass
class Config:
    class_maps: dict[str, Statement] = field(default_factory=dict)
    policies: dict[str, Statement] = field(default_factory=dict)
    interfaces: list[Statement] = field(default_factory=list)
    tc: dict[int, list[tuple[str, int]]] = field(default_factory=dict)
    """traffic-class -> (input class-map that sets it, drop precedence): the Cisco 8000's classification."""
    found: list[Diagnostic] = field(default_factory=list)


def collect(doc: Document) -> Config:
    c = Config()
    for s in doc.statements:
        w = s.texts()
        if w[:1] == ("class-map",) and len(w) >= 3:
            c.class_maps[w[-1]] = s
        elif w[:1] == ("policy-map",) and len(w) >= 2:
            c.policies[w[-1]] = s
        elif w[:1] == ("interface",) and len(w) == 2:
            c.interfaces.append(s)
    return c


def matches(c: Config, name: str) -> dict[str, list[int]]:
    """A class-map's matches: 'inet'/'inet6' DSCP, 'exp', 'pcp', 'tc' values."""
    out: dict[str, list[int]] = {"inet": [], "inet6": [], "exp": [], "pcp": [], "tc": []}
    cm = c.class_maps.get(name)
    for s in cm.children or () if cm is not None else ():
        w = s.texts()
        if w[:2] == ("match", "dscp"):
            fams = ("inet",) if w[2:3] == ("ipv4",) else ("inet6",) if w[2:3] == ("ipv6",) else ("inet", "inet6")
            for f in fams:
                out[f] += [x for t in w[2:] if t not in ("ipv4", "ipv6") for x in _dscp(t)]
        elif w[:4] == ("match", "mpls", "experimental", "topmost"):
            out["exp"] += [int(t) for t in w[4:]]
        elif w[:2] == ("match", "cos"):
            out["pcp"] += [int(t) for t in w[2:]]
        elif w[:2] == ("match", "traffic-class"):
            out["tc"] += [int(t) for t in w[2:]]
    return out


def rate(value: str, unit: str) -> int:
    return int(value) * _RATES.get(unit, 1)


def size(value: str, unit: str) -> int:
    return int(value) * SIZE_UNITS.get(unit, 1)


def time_us(value: str, unit: str) -> int:
    return int(value) * TIME_UNITS.get(unit, 1)


def police(s: Statement) -> tuple[Envelope, dict[str, list[tuple[str, ...]]]]:
    w = s.texts()
    kv = {w[i]: (w[i + 1], w[i + 2]) for i in range(len(w) - 2) if w[i] in ("rate", "burst", "peak-rate",
                                                                           "peak-burst")}
    actions: dict[str, list[tuple[str, ...]]] = {}
    for child in s.children or ():
        cw = child.texts()
        actions.setdefault(cw[0], []).append(cw[1:])

    def act(colour: str) -> str | None:
        lines = actions.get(f"{colour}-action")
        if not lines:
            return None
        for line in lines:
            if line[:2] == ("set", "dscp"):
                return f"dscp {_dscp(line[2])[0]}"
        return "drop" if lines[0] == ("drop",) else "transmit"

    cir = rate(*kv["rate"]) if kv["rate"][0] != "percent" else 0
    pir = rate(*kv["peak-rate"]) if "peak-rate" in kv else None
    pbs = size(*kv["peak-burst"]) if "peak-burst" in kv else None
    violate = act("violate")
    env = Envelope(cir, size(*kv["burst"]) if "burst" in kv else 0, pir, pbs if pir is not None else None,
                   pbs if pir is None and violate is not None else None, act("conform") or "transmit",
                   act("exceed") or "drop", violate)
    return env, actions


def sets(body: tuple[Statement, ...]) -> dict[str, str]:
    out = {}
    for s in body:
        w = s.texts()
        if w[:1] == ("set",):
            out[" ".join(w[1:-1])] = w[-1]
    return out


def _origin(s: Statement) -> Location | None:
    return s.origin if isinstance(s.origin, Location) else None


def rules_of(c: Config, policy: Statement) -> tuple[list[Rule], list[tuple[str, dict[str, str]]]]:
    """The edge rules of an input policy (match-all classes; <name>-N classes of one body are one rule), and the
    (class-map, sets) of its other classes."""
    rules: list[Rule] = []
    others: list[tuple[str, dict[str, str]]] = []
    last: tuple[str, tuple[object, ...]] | None = None
    for cls in policy.children or ():
        w = cls.texts()
        if w[:1] != ("class",):
            continue
        name, body = w[-1], cls.children or ()
        cm = c.class_maps.get(name)
        if cm is None or cm.texts()[1] != "match-all":
            others.append((name, sets(body)))
            continue
        stem = re.sub(r"-\d+$", "", name)
        fields = _rule_fields(cm)
        if last is not None and last[0] == stem and last[1] == _texts(body) and rules:
            prev = rules[-1]
            rules[-1] = Rule(prev.name, tuple(dict.fromkeys(prev.sources + fields["sources"])),
                             tuple(dict.fromkeys(prev.destinations + fields["destinations"])), prev.protocols,
                             prev.source_ports, prev.destination_ports, prev.match_dscp, prev.mark, prev.policer,
                             tuple(sorted(set(prev.families) | set(fields["families"]))), prev.origin)
            continue
        last = (name, _texts(body))
        env, mark = None, None
        for b in body:
            if b.texts()[:1] == ("police",):
                env, _ = police(b)
                mark = int(env.conform.split()[1]) if env.conform.startswith("dscp") else None
        mark = _dscp(sets(body)["dscp"])[0] if "dscp" in sets(body) else mark
        rules.append(Rule(name, fields["sources"], fields["destinations"], fields["protocols"], fields["sports"],
                          fields["dports"], fields["dscp"], mark, env, fields["families"], _origin(cls)))
    return rules, others


def _texts(body: tuple[Statement, ...]) -> tuple[object, ...]:
    return tuple((s.texts(), _texts(s.children or ())) for s in body)


def _rule_fields(cm: Statement) -> dict[str, tuple]:  # type: ignore[type-arg]
    out: dict[str, list] = {k: [] for k in ("sources", "destinations", "protocols", "sports", "dports", "dscp",  # type: ignore[type-arg]
                                            "families")}
    for s in cm.children or ():
        w = s.texts()
        if w[1:2] in (("source-address",), ("destination-address",)):
            prefix = (f"{w[3]}/{w[4]}" if w[2] == "ipv6" else
                      str(ipaddress.ip_network(f"{w[3]}/{w[4]}", strict=False)))
            out["sources" if w[1] == "source-address" else "destinations"].append(str(
                ipaddress.ip_network(prefix, strict=False)))
            out["families"].append("inet" if w[2] == "ipv4" else "inet6")
        elif w[1:2] == ("protocol",):
            out["protocols"] += ["icmp6" if p == "ipv6icmp" else p for p in w[2:]]
        elif w[1:2] in (("source-port",), ("destination-port",)):
            ports = [(int(a), int(b or a)) for a, _, b in (p.partition("-") for p in w[2:])]
            out["sports" if w[1] == "source-port" else "dports"] += ports
        elif w[1:2] == ("dscp",):
            out["dscp"] += [x for t in w[2:] for x in _dscp(t)]
    fams = tuple(dict.fromkeys(out["families"])) or ("inet", "inet6")
    return {**{k: tuple(v) for k, v in out.items()}, "families": fams}


def precedence_of(codes: list[int]) -> set[int]:
    return {drop_precedence(c) for c in codes}


def warn(c: Config, message: str, where: Statement) -> None:
    c.found.append(warning("QOS172", message, _origin(where)))


__all__ = ["Class", "Curve", "collect", "rules_of"]
