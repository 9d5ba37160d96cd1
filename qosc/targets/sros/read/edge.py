"""SR OS sap-ingress as edge rules: ip-criteria and ipv6-criteria entries, the class's mark, the policer.

One rule per entry description (qosc writes the rule's name there, one entry
per combination of values): its values gathered back.  The mark is the
class's in-remark in the sap-ingress, else the code point the network policy
marks the class with at egress.  Conform and exceed actions are the class's
in-remark and out-remark; a policer with PIR = CIR and MBS = CBS drops above
CIR, MBS above CBS is the excess bucket, PIR above CIR the peak rate, and
above PIR SR OS discards.
"""

from __future__ import annotations

from typing import Protocol

from qosc.behaviour.model import Envelope, Rule
from qosc.grammar.yang import Data
from qosc.targets.sros.read.codes import code_of
from qosc.targets.sros.read.data import entries, envelope_of, one, val


class Reading(Protocol):
    """What the edge rules need of interpret.Reading: the code point the network policy marks each class with."""

    def marks(self) -> dict[str, int]: ...


def _ports(match: Data | None, which: str) -> tuple[int, int] | None:
    d = one(match, which)
    if d is None:
        return None
    eq = val(d, "eq")
    if eq is not None:
        return int(eq), int(eq)
    start, end = val(d, "range", "start"), val(d, "range", "end")
    return (int(start), int(end)) if start is not None and end is not None else None


def sap_rules(r: Reading, ingress: Data) -> tuple[tuple[Rule, ...], bool, int | None]:
    marks = r.marks()
    remarks = {fc: (code_of(val(e, "in-remark", "dscp") or ""), code_of(val(e, "out-remark", "dscp") or ""))
               for fc, e in entries(ingress, "fc").items()}
    policers = entries(ingress, "policer")
    trust = bool(ingress.get("dscp"))
    default_fc = val(ingress, "default-fc") or "be"
    # an edge trusting EXP or PCP leaves unmatched traffic to that classification
    unmatched = None if trust or ingress.get("dot1p") or ingress.get("lsp-exp") else marks.get(default_fc)
    gathered: dict[str, dict[str, list[object]]] = {}
    order: list[str] = []
    for family, container in (("inet", "ip-criteria"), ("inet6", "ipv6-criteria")):
        for eid, e in sorted(entries(one(ingress, container), "entry").items(), key=lambda kv: int(kv[0])):
            label = val(e, "description") or f"entry-{eid}"
            g = gathered.setdefault(label, {k: [] for k in ("id", "family", "src", "dst", "proto", "sport", "dport",
                                                             "dscp", "fc", "policer")})
            if label not in order:
                order.append(label)
            match = one(e, "match")
            values = {"id": int(eid), "family": family, "src": val(match, "src-ip", "address"),
                      "dst": val(match, "dst-ip", "address"),
                      "proto": val(match, "protocol") or val(match, "next-header"),
                      "sport": _ports(match, "src-port"), "dport": _ports(match, "dst-port"),
                      "dscp": code_of(val(match, "dscp") or ""), "fc": val(e, "action", "fc"),
                      "policer": val(e, "action", "policer")}
            for k, v in values.items():
                if v is not None and v not in g[k]:
                    g[k].append(v)
    rules = []
    for label in sorted(order, key=lambda lb: min(int(str(i)) for i in gathered[lb]["id"])):
        g = gathered[label]
        fc = str(g["fc"][0]) if g["fc"] else default_fc
        conform, exceed = remarks.get(fc, (None, None))
        mark = conform if conform is not None else marks.get(fc)
        envelope: Envelope | None = None
        if g["policer"] and str(g["policer"][0]) in policers:
            envelope = envelope_of(policers[str(g["policer"][0])],
                                   f"dscp {conform}" if conform is not None else "transmit",
                                   f"dscp {exceed}" if exceed is not None else "transmit")
        rules.append(Rule(label, tuple(map(str, g["src"])), tuple(map(str, g["dst"])), tuple(map(str, g["proto"])),
                          tuple(g["sport"]), tuple(g["dport"]), tuple(g["dscp"]),  # type: ignore[arg-type]
                          mark, envelope, tuple(map(str, g["family"]))))
    return tuple(rules), trust, unmatched
