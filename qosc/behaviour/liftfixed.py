"""What import lifts as roles and services rather than code points: fixed classification and router traffic.

- Fixed classification (Interface.fixed: every packet an interface receives in one class, whatever its
  markings; JUNOS `forwarding-class` on a unit or port) classifies by no code point.  The policy says it as an
  untrusted edge (trust none) whose one rule, matching everything, classifies into the fixed class's service (the
  default service too: an edge with no classifier would say every packet is re-marked, QOS081), DSCP rewritten
  only where the configuration rewrites it.  Its classes are the device's forwarding classes, so for the lift
  the interface classifies each code point as the first other interface of the device that classifies it into
  one of its classes (`views`), and its classes join those services by their code points, never by the fixed
  table; where no interface of the device classifies by code point, the first fixed one classifies every code
  point into the class Junos sends unclassified traffic to (queue 0's: the default service; its own class where
  it is fixed into that one or schedules no queue 0), and the others see it.  A fixed class no code point of the
  device reaches is a service without code points, which the fixed rule classifies into without marking (`mark:
  false`, `classify_only`: the packets keep their DSCP, as on the device; such a service needs no code point,
  QOS034).  A fixed class the interface does not schedule leaves the interface out, named (QOS172): the policy
  could only send its traffic elsewhere.
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
        interfaces = list(device.interfaces)
        if not others:  # no interface classifies by code point: the first fixed one classifies them as Junos would
            first = fixed[0]
            home = _unclassified(first)
            if home is not None:
                interfaces[interfaces.index(first)] = first = replace(first, classify=((home,) * 64, (home,) * 64))
            others = [first]
        out.append(replace(device, interfaces=tuple(_view(i, others) if (i.fixed is not None or i.ethernet)
                                                    and i not in others else i for i in interfaces)))
    return out


def _unclassified(iface: Interface) -> str | None:
    """The class of a fixed interface that Junos sends traffic no classifier names to: queue 0's (best-effort of
    the default forwarding classes, "Default Forwarding Classes", Junos OS Class of Service User Guide: best-effort
    queue 0, expedited-forwarding 1, assured-forwarding 2, network-control 3; the default classifiers send
    unclassified traffic there); None where the interface does not schedule queue 0 or is fixed into it."""
    if iface.fixed is None:
        return None
    home = next((c.name for c in iface.classes if c.queue == 0), None)
    return home if home != iface.fixed else None


def _view(iface: Interface, others: Sequence[Interface]) -> Interface:
    names = {c.name for c in iface.classes}
    tables = tuple(tuple(next((o.classify[fam][code] for o in others if o.classify[fam][code] in names), None)
                         for code in range(64)) for fam in range(2))
    return replace(iface, classify=(tables[0], tables[1]))


def unliftable(iface: Interface, liftable: set[str]) -> Diagnostic | None:
    """QOS172 where the fixed class of an interface cannot be a service (module doc): the interface is left out."""
    if iface.fixed is None or iface.fixed in liftable:
        return None
    return warning("QOS172", f"interface {iface.name} unit {iface.unit} not lifted: every packet it receives goes to "
                   f"class {iface.fixed} (fixed classification), which the interface does not schedule (no queue of "
                   "its own here)", iface.origin, "fix the unit to a class its scheduler map schedules")


def classify_only(lifter: Any) -> None:
    """The fixed rule into a service without code points (a fixed class no code point of the device reaches)
    classifies without marking (`mark: false`): the packets keep their DSCP, as on the device."""
    for key, name in lifter.classifiers.items():
        if key[0] == "fixed" and not any(lifter.services[k].get(domain) for k, n in lifter.service_names.items()
                                         if n == key[1] for domain in ("dscp", "exp", "pcp")):
            lifter.classifier_bodies[name]["rules"][0]["mark"] = False


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
