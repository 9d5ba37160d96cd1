"""Lifting an interface whose every packet is in one class (fixed classification: JUNOS `unit N forwarding-class
FC`, "Applying Forwarding Classes to Interfaces", Junos OS Class of Service User Guide): not as that class's code
points (it has all of them, and they belong to other services elsewhere) but as an edge that trusts nothing and
classifies by one rule without a match into the class's service, writing only what the unit's rewrite rules
write (no DSCP where it binds no DSCP rewrite rule).  Only on a device whose class names are its own (JUNOS):
elsewhere an interface with one class (a Linux TBF, an IOS policy of class-default alone) is no such edge.  Its
other classes stay services of the interface (their queues), joined to the rest by name and code points
(qosc.behaviour.liftmarks)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from qosc.behaviour import liftmarks
from qosc.behaviour.model import Class, Interface
from qosc.marking import default_rewrite


def fixed_class(iface: Interface, liftable: list[Class]) -> Class | None:
    """The class every IPv4 and IPv6 code point of an interface is in, where that is one of its liftable classes
    and no rule of the interface classifies."""
    if iface.rules:
        return None
    names = {c for table in iface.classify for c in table}
    if len(names) != 1:
        return None
    return next((cls for cls in liftable if cls.name in names), None)


def settings(iface: Interface, mpls_device: bool) -> dict[str, Any]:
    """role, trust, encapsulation and rewrite of such an interface in the policy."""
    out: dict[str, Any] = {"role": "edge", **liftmarks.settings(replace(iface, trust=False), "edge", mpls_device),
                           "trust": "none"}
    enc = out.get("encapsulation", "ip")
    written = out.get("rewrite", [d.value for d in default_rewrite("edge", tuple(enc) if isinstance(enc, list)
                                                                   else (enc,))])
    if "dscp" in written and all(iface.rewrite[f][c] in (c, None) for f in (0, 1) for c in range(64)):
        out["rewrite"] = [d for d in written if d != "dscp"]
    return out
