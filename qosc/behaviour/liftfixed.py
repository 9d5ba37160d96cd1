"""What import lifts as roles and services rather than code points: fixed classification and router traffic.

- Fixed classification (Interface.fixed: every packet an interface receives in one class, whatever its
  markings; JUNOS `forwarding-class` on a unit or port) classifies by no code point.  The policy says it as an
  untrusted edge (trust none) whose one rule, matching everything, classifies into the fixed class's service (the
  default service too: an edge with no classifier would say every packet is re-marked, QOS081), DSCP rewritten
  only where the configuration rewrites it.  Its classes are the device's forwarding classes, so for the lift
  the interface classifies each code point as the first other interface of the device that classifies it into
  one of its classes (`views`), and its classes join those services by their code points, never by the fixed
  table; where no interface of the device classifies by code point, the first fixed one's table stands (its
  class takes every code point: the default service) and the others see it.  A fixed class that is no service
  even so (no code point of the device reaches it, or the interface does not schedule it) leaves the interface
  out, named (QOS172): the policy could only send its traffic elsewhere.
- An interface that carries Ethernet frames only (Interface.ethernet: a JUNOS family ccc unit classified by its
  filter's 802.1p and MAC terms) classifies no code point either: the lift sees it the same way (`views`), so its
  classes join the device's services; it is lifted as `encapsulation: vlan` (liftmarks.settings).
- Router-generated traffic (Device.host_class: JUNOS host-outbound-traffic): the policy puts it in the first
  network-control service a device carries, else in the default service (qosc.behaviour.intent.device, what the
  JUNOS target writes); where that is the service the host class was lifted into, the statement is lifted
  (`hosts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from qosc.behaviour.liftable import Element
from qosc.behaviour.model import Device, Interface
from qosc.diagnostics import Diagnostic, warning
from qosc.marking import default_rewrite

RULE = "fixed"
"""The name of the one rule of a fixed interface's classifier."""


def views(devices: Sequence[Device]) -> list[Device]:
    """The devices as the lift sees them: each fixed interface classifying code points as the device's other
    interfaces do into its classes (module doc)."""
    out = []
    for device in devices:
        fixed = [i for i in device.interfaces if i.fixed is not None or i.ethernet]
        others = [i for i in device.interfaces if i.fixed is None and any(c is not None for c in i.classify[0])]
        if not fixed:
            out.append(device)
            continue
        # no interface classifies by code point: the first fixed one keeps its table (its class every code point's)
        others = others or fixed[:1]
        out.append(replace(device, interfaces=tuple(_view(i, others) if (i.fixed is not None or i.ethernet)
                                                    and i not in others else i for i in device.interfaces)))
    return out


def _view(iface: Interface, others: Sequence[Interface]) -> Interface:
    names = {c.name for c in iface.classes}
    tables = tuple(tuple(next((o.classify[fam][code] for o in others if o.classify[fam][code] in names), None)
                         for code in range(64)) for fam in range(2))
    return replace(iface, classify=(tables[0], tables[1]))


def unliftable(iface: Interface, liftable: set[str]) -> Diagnostic | None:
    """QOS172 where the fixed class of an interface cannot be a service (module doc): the interface is left out."""
    if iface.fixed is None or iface.fixed in liftable:
        return None
    why = ("which the interface does not schedule (no queue of its own here)" if iface.class_named(iface.fixed) is None
           else "which no code point of the device is classified into: a service of the policy language is its code "
           "points")
    return warning("QOS172", f"interface {iface.name} unit {iface.unit} not lifted: every packet it receives goes to "
                   f"class {iface.fixed} (fixed classification), {why}", iface.origin,
                   "classify code points into the class on another interface, or fix the unit to a class that has some")


def edge(lifter: Any, body: dict[str, Any], iface: Interface, service: str, mpls_device: bool = False) -> None:
    """The body of a fixed interface: an untrusted edge classifying everything into `service` (module doc);
    `lifter`: qosc.behaviour.lift's, whose classifiers it adds to."""
    body["role"] = "edge"
    body["trust"] = "none"
    name = lifter.classifiers.get(("fixed", service))
    if name is None:
        base = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in f"{iface.name}-in").strip("-._")
        name, n = base, 2
        while name in lifter.classifier_bodies:
            name, n = f"{base}-{n}", n + 1
        lifter.classifiers[("fixed", service)] = name
        lifter.classifier_bodies[name] = {"rules": [{"name": RULE, "service": service}]}
        if iface.origin is not None:
            lifter.origins[("classifiers", name)] = iface.origin
    body["classifier"] = name
    # DSCP leaves as it came unless the configuration rewrites it (an EXP or 802.1p rewrite beside it does not)
    encapsulation = body.get("encapsulation", "ip")
    encapsulation = tuple(encapsulation) if isinstance(encapsulation, list) else (encapsulation,)
    dscp = any(iface.rewrite[fam][c] not in (c, None) for fam in range(2) for c in range(64))
    rewrite = [d for d, on in (("dscp", dscp), ("exp", bool(iface.marked("exp"))),
                               ("pcp", bool(iface.marked("pcp")))) if on]
    body.pop("rewrite", None)
    if tuple(rewrite) != tuple(d.value for d in default_rewrite("edge", encapsulation)):
        body["rewrite"] = rewrite
    if mpls_device and not iface.marked("impose"):  # an edge of an MPLS device imposes EXP by default
        body["impose"] = False


def hosts(lifter: Any, devices: Sequence[Device], out_devices: dict[str, Any], elements: set[Element]) -> None:
    """Router traffic lifted where the policy puts it where the device does (module doc): element ("host", device,
    class), carried by that service (left out with it)."""
    kinds = {lifter.service_names[k]: body.get("kind") for k, body in lifter.services.items()}
    default = lifter.service_names.get(("default",))
    for device in devices:
        if device.host_class is None:
            continue
        carried = {s for body in out_devices[device.name]["interfaces"].values() for s in body["services"]}
        home = next((n for n in kinds if n in carried and kinds[n] == "network-control"), default)
        made = [s for s, held in lifter.carriers.items()
                if any(e[0] == "class" and e[1] == device.name and e[-1] == device.host_class for e in held)]
        if home is not None and made == [home]:
            host = ("host", device.name, device.host_class)
            elements.add(host)
            lifter.carriers[home].add(host)
