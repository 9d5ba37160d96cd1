"""JUNOS read back, the 3-bit marking domains: EXP and 802.1p classification, EXP and PCP rewrite, and the EXP a
PE imposes.

Per unit: `classifiers exp` gives the eight EXP values their (forwarding class, drop precedence) and
`classifiers ieee-802.1` the eight PCP values (`ieee-802.1ad`: the 4-bit code points with the DEI clear, or set
where only that one is listed); with `import default`, values the classifier does not list take Junos's default
table (qosc.targets.junos.read.facts); otherwise they are not known.  A loss priority is the drop precedences
the platform maps to it (M-series: high is 2 and 3; a value classified high is at the lower), else as for DSCP
(low 1, medium-low and medium-high 2, high 3), a rule with no medium loss priority for a class giving precedence 2
its high value where the platform is not known.  `rewrite-rules exp` and `ieee-802.1` (`ieee-802.1ad`: its PCP
bits) give the marks of their domain, except where a rule keeps EXP on a platform that rewrites it by default
(`_keeps`: M-series, transparent MPLS units), which is no EXP rewrite.

Imposition: Junos writes the EXP of the labels a PE pushes with the EXP rewrite rule of the unit the packet
leaves by (Junos OS CoS User Guide, 'Applying Rewrite Rules to Output Logical Interfaces'), so every unit of a
device that is not itself an MPLS unit (no EXP classifier or rewrite bound) imposes with the EXP rewrite rule of
the device's MPLS units ('impose' marks), the first by name where they differ (QOS172 says so).  A rule bound
`protocol mpls-inet-both` or `mpls-inet-both-non-vpn` also writes the EXP into the IPv4 precedence ('protocol
(Rewrite Rules)'): that part is named, not represented (QOS172).
"""

from __future__ import annotations

from collections.abc import Callable

from qosc.diagnostics import Location, warning
from qosc.targets.junos.read.config import Config
from qosc.targets.junos.read.facts import LOSS_PRECEDENCE, default_classifier3

Slot = tuple[str, int] | None


def precedences(lp: str, platform: object = None) -> tuple[int, ...]:
    """The drop precedences a loss priority carries: those the platform maps to it (M-series: high is 2 and 3),
    else (no platform, or a loss priority qosc does not write) the reader's own reading of it."""
    mapping = getattr(platform, "precedence_loss_priority", None) or {}
    found = tuple(sorted(p for p, x in mapping.items() if x == lp))
    return found or (LOSS_PRECEDENCE.get(lp, 1),)


def exp_bindings(c: Config) -> dict[tuple[str, str], tuple[str, tuple[str, ...]]]:
    """(port, unit) -> (EXP rewrite rule, its protocols) of every unit that binds one."""
    out: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
    for port, parts in c.ports.items():
        for key, lines in parts.items():
            for p in lines:
                if key.startswith("unit") and len(p) >= 7 and p[4:6] == ("rewrite-rules", "exp"):
                    name, protocols = out.get((port, p[3]), (p[6], ()))
                    extra = (p[8],) if len(p) >= 9 and p[7] == "protocol" else ()
                    out[(port, p[3])] = (name, protocols + extra)
    return out


def _classify(c: Config, family: str, name: str | None, where: str, loc: Location | None,
              fc: Callable[[str], str], platform: object) -> tuple[Slot, ...]:
    if name is None:
        return (None,) * 8
    table = c.classifiers.get((family, name))
    if table is None:
        c.diagnostics.append(warning("QOS174", f"{where} names {family} classifier {name}, which is not defined",
                                     loc))
        return (None,) * 8
    if family == "ieee-802.1ad":  # the PCP with the DEI clear; with only the DEI-set code listed, that one
        table = {code >> 1: entry for code in range(0, 16, 2)
                 if (entry := table.get(code, table.get(code | 1))) is not None}
    imports = c.imports.get((family, name)) == "default"
    out: list[Slot] = []
    for value in range(8):
        entry = table.get(value) or (default_classifier3(value) if imports and family != "ieee-802.1ad" else None)
        out.append((fc(entry[0]), precedences(entry[1], platform)[0]) if entry else None)
    return tuple(out)


def _marks(c: Config, family: str, name: str | None, label: str, where: str, loc: Location | None,
           fc: Callable[[str], str], platform: object) -> list[tuple[str, str, int, int]]:
    if name is None:
        return []
    rule = c.rewrites.get((family, name))
    if rule is None:
        c.diagnostics.append(warning("QOS174", f"{where} names {family} rewrite rule {name}, which is not "
                                     "defined", loc))
        return []
    shift = 1 if family == "ieee-802.1ad" else 0
    found: dict[tuple[str, int], int] = {}
    for (cls, lp), code in rule.items():
        for prec in precedences(lp, platform):
            found.setdefault((fc(cls), prec), code >> shift)
    for cls in {k[0] for k in found} if platform is None else ():  # two loss priorities, as M-series
        if (cls, 2) not in found and (cls, 3) in found:
            found[(cls, 2)] = found[(cls, 3)]
    return [(label, cls, prec, value) for (cls, prec), value in found.items()]


Marking = tuple[tuple[Slot, ...], tuple[Slot, ...], tuple[tuple[str, str, int, int], ...]]


def unit_marking(c: Config, where: str, bound: dict[str, str], loc: Location | None, fc: Callable[[str], str],
                 imposed: tuple[str, tuple[str, ...]] | None, platform: object = None) -> Marking:
    """(classify_exp, classify_pcp, marks) of one unit; `imposed`: the device's EXP rewrite rule for units that
    are not MPLS units (module doc).  `fc` spells a forwarding class as the scheduler map does."""
    ieee = "ieee-802.1ad" if "classifiers-ieee-802.1ad" in bound else "ieee-802.1"
    exp = _classify(c, "exp", bound.get("classifiers-exp"), where, loc, fc, platform)
    pcp = _classify(c, ieee, bound.get(f"classifiers-{ieee}"), where, loc, fc, platform)
    keeps = _keeps(c, bound, platform)
    marks = [] if keeps else _marks(c, "exp", bound.get("rewrite-rules-exp"), "exp", where, loc, fc, platform)
    rw = "ieee-802.1ad" if "rewrite-rules-ieee-802.1ad" in bound else "ieee-802.1"
    marks += _marks(c, rw, bound.get(f"rewrite-rules-{rw}"), "pcp", where, loc, fc, platform)
    if imposed is not None and not ({"classifiers-exp", "rewrite-rules-exp"} & set(bound)):
        marks += _marks(c, "exp", imposed[0], "impose", where, loc, fc, platform)
    return exp, pcp, tuple(sorted(marks))


def _keeps(c: Config, bound: dict[str, str], platform: object) -> bool:
    """On a platform that rewrites EXP by default (M-series: `exp_default` 'forwarding-class'), a unit that
    rewrites no DSCP and binds an EXP rewrite rule writing each forwarding class and loss priority back with a
    value its EXP classifier puts there keeps EXP: what qosc writes for a transparent MPLS interface."""
    if getattr(platform, "exp_default", None) != "forwarding-class" or any(
            k.startswith("rewrite-rules-dscp") for k in bound):
        return False
    table = c.classifiers.get(("exp", bound.get("classifiers-exp", "")))
    rule = c.rewrites.get(("exp", bound.get("rewrite-rules-exp", "")))
    if not table or not rule:
        return False
    into: dict[tuple[str, str], set[int]] = {}
    for value, slot in table.items():
        into.setdefault(slot, set()).add(value)
    return set(into) == set(rule) and all(code in into[slot] for slot, code in rule.items())


def imposition(c: Config, bindings: dict[tuple[str, str], tuple[str, tuple[str, ...]]]
               ) -> tuple[str, tuple[str, ...]] | None:
    """The EXP rewrite rule (and protocols) a device imposes with: that of its MPLS units (module doc)."""
    if not bindings:
        return None
    first = min(bindings)
    name, protocols = bindings[first]
    loc = c.where.get(("interface", first[0]))
    others = sorted({n for n, _ in bindings.values()} - {name})
    if others:
        c.diagnostics.append(warning("QOS172", f"the MPLS units of this device rewrite EXP with {name} and "
                                     f"{', '.join(others)}: the EXP a label gets when it is imposed depends on the "
                                     f"unit it leaves by; read as {name}'s (of {first[0]} unit {first[1]})", loc))
    both = sorted(set(protocols) & {"mpls-inet-both", "mpls-inet-both-non-vpn"})
    if both:
        c.diagnostics.append(warning("QOS172", f"{first[0]} unit {first[1]}: rewrite-rules exp {name} protocol "
                                     f"{' '.join(both)} also writes the EXP into the IPv4 precedence of the packets "
                                     "it imposes labels on: not represented (qosc reads the EXP)", loc))
    return name, protocols
