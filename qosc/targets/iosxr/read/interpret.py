"""What an IOS XR configuration does (qosc.behaviour): see config.py for the rules, output.py for an interface."""

from __future__ import annotations

from qosc.behaviour.model import Device
from qosc.diagnostics import Diagnostic
from qosc.targets.iosxr.read.config import _origin, collect, rules_of
from qosc.targets.iosxr.read.output import interface
from qosc.tree import Document


def interpret(document: Document, platform: object = None) -> tuple[Device, list[Diagnostic]]:
    c = collect(document)
    for s in c.interfaces:  # Cisco 8000: the traffic-class every input policy of the device sets, by class-map
        for w in (x.texts() for x in s.children or ()):
            if w[:2] == ("service-policy", "input") and len(w) == 3 and w[2] in c.policies:
                for name, st in rules_of(c, c.policies[w[2]])[1]:
                    if "traffic-class" in st and name != "class-default":
                        c.tc.setdefault(int(st["traffic-class"]), [])
                        if name not in [n for n, _ in c.tc[int(st["traffic-class"])]]:
                            c.tc[int(st["traffic-class"])].append((name, int(st.get("discard-class", "0")) + 1))
    interfaces = []
    for s in c.interfaces:
        iface = interface(c, s)
        if iface is not None:
            interfaces.append(iface)
    owned = tuple(("class-map", n, _origin(s)) for n, s in c.class_maps.items()) + \
        tuple(("policy-map", n, _origin(s)) for n, s in c.policies.items())
    return Device(document.stem, getattr(platform, "name", None), tuple(interfaces), owned,
                  origin=_origin(document.statements[0]) if document.statements else None), c.found


