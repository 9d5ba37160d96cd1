"""SR OS read back, the network QoS policies and the 3-bit marking domains: DSCP, LSP EXP and dot1p
classification, the egress marks, the enqueuing priorities of a SAP, and the EXP a PE imposes.

A network policy's ingress gives each DSCP, EXP and PCP value a forwarding class and profile (values it does not
list go to the default-action; a domain without entries is not classified on); a profile is a drop precedence
by its rank among the profiles the class uses (qosc.targets.sros.profiles).  Its egress gives each class an
in-profile and an out-of-profile value per domain: drop precedence 1 leaves with the in-profile one, 2 and 3 with
the out-of-profile one (traffic from SAPs is in-profile up to its policer's CIR).  A sap-ingress `dot1p` or
`lsp-exp` entry gives a class at the drop precedence of its enqueuing priority (high before low, per class);
a sap-egress `dot1p` the PCP marks of the SAP.  Imposition: SR OS writes the EXP of the labels it pushes for SAP
traffic with the egress lsp-exp values of the network interface they leave by, so every SAP imposes with those
of the device's router interfaces (the first by name where they differ, QOS172 says so).
"""

from __future__ import annotations

from qosc.diagnostics import Diagnostic, Location, warning
from qosc.grammar.yang import Data
from qosc.targets.sros.profiles import precedences, priority_precedences, profile_of
from qosc.targets.sros.read.codes import code_of
from qosc.targets.sros.read.data import entries, one, val

Slot = tuple[str, int] | None
KINDS = {"exp": "lsp-exp", "pcp": "dot1p"}
EGRESS = {"exp": "lsp-exp", "pcp": "dot1p"}


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


class Net:
    """One network QoS policy as read: classification per domain and the egress marks."""

    def __init__(self, data: Data | None) -> None:
        self.data = data
        ingress = one(data, "ingress")
        self.default: tuple[str, str] | None = None
        if ingress is not None:
            self.default = (val(ingress, "default-action", "fc") or "be",
                            val(ingress, "default-action", "profile") or "out")
        self.dscp: dict[int, tuple[str, str]] = {}
        for key, e in entries(ingress, "dscp").items():
            code = code_of(key)
            if code is not None:
                self.dscp[code] = (val(e, "fc") or "be", val(e, "profile") or "out")
        self.three: dict[str, dict[int, tuple[str, str]]] = {}
        for domain, kind in KINDS.items():
            self.three[domain] = {v: (val(e, "fc") or "be", val(e, "profile") or "out")
                                  for key, e in entries(ingress, kind).items() if (v := _int(key)) is not None}
        used: dict[str, list[str]] = {}
        for fc, profile in [*self.dscp.values(), *(x for t in self.three.values() for x in t.values()),
                            *([self.default] if self.default else [])]:
            used.setdefault(fc, []).append(profile)
        self.ranks = {fc: precedences(profiles) for fc, profiles in used.items()}
        self.egress: dict[str, dict[str, tuple[int | None, int | None]]] = {d: {} for d in EGRESS}
        self.dscp_marks: dict[str, int] = {}
        for fc, e in entries(one(data, "egress"), "fc").items():
            code = code_of(val(e, "dscp-in-profile") or "")
            if code is not None:
                self.dscp_marks[fc] = code
            for domain, kind in EGRESS.items():
                pair = (_int(val(e, f"{kind}-in-profile")), _int(val(e, f"{kind}-out-profile")))
                if pair != (None, None):
                    self.egress[domain][fc] = pair

    def fc_of(self, code: int) -> tuple[str, str] | None:
        return self.dscp.get(code, self.default)

    def precedence(self, fc: str, profile: str) -> int:
        return self.ranks.get(fc, {}).get(profile_of(profile), 1)

    def classified(self, domain: str, by_fc: dict[str, str]) -> tuple[Slot, ...]:
        """EXP ('exp') or PCP ('pcp') value -> (class, drop precedence); all None where nothing is listed."""
        table = self.three[domain]
        if not table:
            return (None,) * 8
        out: list[Slot] = []
        for value in range(8):
            where = table.get(value, self.default)
            out.append((by_fc[where[0]], self.precedence(*where)) if where and where[0] in by_fc else None)
        return tuple(out)

    def marks(self, domain: str, by_fc: dict[str, str], label: str | None = None) -> list[tuple[str, str, int, int]]:
        """(label, class, drop precedence, value) of the egress values of a domain."""
        return in_out_marks(self.egress[domain], by_fc, label or domain)


def in_out_marks(pairs: dict[str, tuple[int | None, int | None]], by_fc: dict[str, str],
                 label: str) -> list[tuple[str, str, int, int]]:
    """Drop precedence 1 leaves with the in-profile value, 2 and 3 with the out-of-profile one."""
    out = []
    for fc, (inside, outside) in pairs.items():
        if fc not in by_fc:
            continue
        for precedence, value in ((1, inside), (2, outside), (3, outside)):
            if value is not None:
                out.append((label, by_fc[fc], precedence, value))
    return out


def sap_classified(ingress: Data | None, domain: str, by_fc: dict[str, str]) -> tuple[Slot, ...]:
    """A sap-ingress's dot1p or lsp-exp entries: value -> (class, drop precedence of its enqueuing priority);
    values it does not list to the default-fc."""
    listed = {v: (val(e, "fc") or "be", val(e, "priority")) for key, e in entries(ingress, KINDS[domain]).items()
              if (v := _int(key)) is not None}
    if not listed:
        return (None,) * 8
    default_fc = (val(ingress, "default-fc") or "be").split(".")[0]
    used: dict[str, list[str | None]] = {}
    for fc, priority in listed.values():
        used.setdefault(fc, []).append(priority)
    ranks = {fc: priority_precedences(p) for fc, p in used.items()}
    out: list[Slot] = []
    for value in range(8):
        fc, priority = listed.get(value, (default_fc, None))
        fc = fc.split(".")[0]
        out.append((by_fc[fc], ranks.get(fc, {}).get(priority or "auto", 1)) if fc in by_fc else None)
    return tuple(out)


def sap_pcp_marks(egress: Data | None, by_fc: dict[str, str]) -> list[tuple[str, str, int, int]]:
    pairs = {fc: (_int(val(e, "dot1p", "in-profile")), _int(val(e, "dot1p", "out-profile")))
             for fc, e in entries(egress, "fc").items()}
    return in_out_marks({fc: p for fc, p in pairs.items() if p != (None, None)}, by_fc, "pcp")


def imposing(routers: list[tuple[str, Net]], diagnostics: list[Diagnostic], where: Location | None) -> Net | None:
    """The network policy whose egress EXP values the device's SAPs impose with: that of the first router
    interface by name that has them (QOS172 where others differ)."""
    marking = sorted(((name, net) for name, net in routers if net.egress["exp"]), key=lambda x: x[0])
    if not marking:
        return None
    first_name, first = marking[0]
    others = sorted({n for n, net in marking[1:] if net.egress["exp"] != first.egress["exp"]})
    if others:
        diagnostics.append(warning("QOS172", f"the router interfaces of this device write different EXP values "
                                   f"({first_name} and {', '.join(others)}): the EXP a label pushed for SAP traffic "
                                   f"gets depends on the interface it leaves by; read as {first_name}'s",
                                   where))
    return first
