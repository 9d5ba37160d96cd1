"""What import makes of an interface classified by the device's implicit default classifier (Interface.implicit:
JUNOS assigns ipprec-compatibility to every logical interface that binds no classifier: "Default IP Precedence
Classifier", Junos OS Class of Service User Guide; the table is the JUNOS reader's facts).

A code point is one service in the policy.  Where the device's own classifiers (those of its other interfaces)
put a code point in one class and the implicit classifier puts it in another (JUNOS: cs6 to network-control's
queue 3 class, while CL-DSCP puts it in FC-SIGNALING), the device's classifiers say the services (`views`), so
the implicit interface's default does not join two services, and what it does is lifted as an untrusted edge:
its filter's own terms first, then a rule per class of the implicit classifier other than its default class,
matching the code points it puts there (precedence 6 and 7: DSCP 48-63), into that class's service, the rest
into the default service.  The rules mark as the device leaves those packets: by the egress rewrite of their
class (Rule.implicit: lifted marking, never `mark: false`).  Code points no classifier of the device names stay
as the implicit classifier puts them (a PE whose customer units bind none: their services come from it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from qosc.behaviour.model import Device, Interface, Rule


def views(devices: Sequence[Device]) -> list[Device]:
    """The devices as the lift sees them (module doc)."""
    out: list[Device] = []
    for device in devices:
        explicit = [i for i in device.interfaces if not i.implicit and i.fixed is None
                    and any(c is not None for c in i.classify[0])]
        if not explicit or not any(i.implicit for i in device.interfaces):
            out.append(device)
            continue
        seen: list[Interface] = []
        for iface in device.interfaces:
            if iface.implicit:
                iface = _view(iface, explicit)
            seen.append(iface)
        out.append(replace(device, interfaces=tuple(seen)))
    return out


def _view(iface: Interface, explicit: Sequence[Interface]) -> Interface:
    names = {c.name for c in iface.classes}
    implicit = iface.classify[0]
    table = list(implicit)
    differs = False
    for code in range(64):
        theirs = next((o.classify[0][code] for o in explicit if o.classify[0][code] is not None), None)
        if theirs is not None and implicit[code] is not None and theirs != implicit[code] and theirs in names:
            table[code] = theirs
            differs = True
    if not differs:
        return iface
    default = implicit[0]  # precedence 0's class: the implicit classifier's best effort, the rest's service
    rules = list(iface.rules)
    for cls in dict.fromkeys(c for c in implicit if c is not None and c != default):
        codes = tuple(code for code in range(64) if implicit[code] == cls)
        rules.append(Rule(f"ipprec-compatibility-{cls}", match_dscp=codes, families=("inet",), origin=iface.origin,
                          fc=cls, implicit=True))
    return replace(iface, classify=(tuple(table), iface.classify[1]), rules=tuple(rules), role="edge", trust=False,
                   unmatched_mark=None)
