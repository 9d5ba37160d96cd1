"""What import makes of an interface classified by the device's implicit default classifier (Interface.implicit:
JUNOS assigns ipprec-compatibility to every logical interface that binds no classifier: "Default IP Precedence
Classifier", Junos OS Class of Service User Guide).

A code point is one service in the policy.  Where the device's own classifiers (those of its other interfaces)
put a code point in one class and the implicit classifier puts it in another (JUNOS: cs6 to network-control's
queue 3 class, while CL-DSCP puts it in FC-SIGNALING), the device's classifiers say the service: the implicit
interface is seen classifying that code point as they do (`views`), so its default does not join the two
services, and what it does differently is named at its line (QOS172): the policy queues those code points there
by their service.  Code points no classifier of the device names stay as the implicit classifier puts them (a
PE whose customer units bind none: their services come from it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from qosc import dscp as dscp_mod
from qosc.behaviour.model import Device, Interface
from qosc.diagnostics import Diagnostic, warning


def views(devices: Sequence[Device]) -> tuple[list[Device], list[Diagnostic]]:
    """The devices as the lift sees them (module doc), and what is named."""
    out: list[Device] = []
    found: list[Diagnostic] = []
    for device in devices:
        explicit = [i for i in device.interfaces if not i.implicit and i.fixed is None
                    and any(c is not None for c in i.classify[0])]
        if not explicit or not any(i.implicit for i in device.interfaces):
            out.append(device)
            continue
        seen: list[Interface] = []
        for iface in device.interfaces:
            if iface.implicit:
                iface = _view(iface, explicit, found)
            seen.append(iface)
        out.append(replace(device, interfaces=tuple(seen)))
    return out, found


def _view(iface: Interface, explicit: Sequence[Interface], found: list[Diagnostic]) -> Interface:
    names = {c.name for c in iface.classes}
    table = list(iface.classify[0])
    moved: dict[tuple[str, str], list[int]] = {}
    for code in range(64):
        theirs = next((o.classify[0][code] for o in explicit if o.classify[0][code] is not None), None)
        here = table[code]
        if theirs is not None and here is not None and theirs != here and theirs in names:
            moved.setdefault((here, theirs), []).append(code)
            table[code] = theirs
    parts = []
    for (here, there), codes in moved.items():
        shown = " ".join(dscp_mod.name(c) for c in codes[:6]) + (f" and {len(codes) - 6} more" if len(codes) > 6
                                                                  else "")
        parts.append(f"{shown} in {here} here, in {there} by them")
    if parts:
        found.append(warning(
            "QOS172", f"interface {iface.name} unit {iface.unit}: its implicit default classification (it binds no "
            "classifier) not lifted where the device's classifiers put code points elsewhere: " + "; ".join(parts)
            + " (a code point is one service in the policy: it queues them here in the service of the device's "
            "classifiers)", iface.origin, "bind the device's classifier to this interface, or classify these code "
            "points here by hand"))
    return replace(iface, classify=(tuple(table), iface.classify[1]))
