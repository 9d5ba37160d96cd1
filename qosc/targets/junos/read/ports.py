"""What `class-of-service interfaces` binds to each port and unit: scheduler maps, classifiers and rewrite rules
(on a unit, or on the physical port for all its units), shaping, traffic-control profiles.

Source: Junos OS Class of Service User Guide (Routing Devices), release 21.4: "Applying Scheduler Maps to Physical
Interfaces" (`scheduler-map` on the port), "Classifiers and Rewrite Rules at the Global and Physical Interface
Levels" (a classifier or rewrite rule on the port applies to its logical interfaces; a unit's own overrides it;
QFX and EX switches bind them on the port: Junos OS Class of Service User Guide for Switches), "Oversubscribing
Interface Bandwidth" and "Configuring Traffic Control Profiles" (`shaping-rate` of a port or unit, in percent of
the port or absolute; `output-traffic-control-profile` gives the port or unit the profile's scheduler map and
shaping rate), "Applying Forwarding Classes to Interfaces" (`unit N forwarding-class FC`, fixed classification:
every packet the unit receives is in FC, whatever its code points; on the port, `forwarding-class FC` does so for
every unit that classifies by nothing of its own: "forwarding-class", Interface hierarchy, Junos OS Class of
Service User Guide for QFX/EX and Juniper's YANG junos-conf-class-of-service 17.4R1, which refuses it beside
the port's BA classifiers).  A binding this reader does not read is named (QOS172) at its line.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from qosc.diagnostics import warning
from qosc.targets.junos.read.config import Config
from qosc.targets.junos.read.facts import number
from qosc.targets.junos.read.inventory import qos_filter
from qosc.targets.junos.read.schedulers import port_rate


@dataclass
class Bindings:
    units: dict[tuple[str, str], dict[str, str]] = field(default_factory=lambda: defaultdict(dict))
    """(port, unit) -> what is bound: 'classifiers-<family>', 'rewrite-rules-<family>', 'filter-input-<family>',
    'forwarding-class' (fixed classification)."""
    smaps: dict[str, str] = field(default_factory=dict)
    """Port (or 'port unit N' for a unit's own) -> scheduler map."""
    shapes: dict[str, int] = field(default_factory=dict)
    """Port (or 'port unit N') -> shaping rate, bit/s."""
    wildcards: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    """What a wildcard (`et-*`, `unit *`) binds, by (port, unit): applied, not lifted (named)."""


def _shape(c: Config, port: str, words: tuple[str, ...]) -> int | None:
    if words[:1] == ("percent",) and len(words) > 1:
        speed = port_rate(c, port)
        return round(speed * float(words[1]) / 100) if speed else None
    return number(words[0]) if words else None


def _profile(c: Config, b: Bindings, port: str, key: str, name: str) -> bool:
    """The scheduler map and shaping rate of a traffic-control profile, bound to `key` (a port or a unit); False
    where the profile is not defined (QOS174): a name that stands for nothing binds nothing."""
    lines = c.tcps.get(name)
    if lines is None:
        c.diagnostics.append(warning("QOS174", f"interface {port} names traffic-control profile {name}, which is "
                                     "not defined: nothing bound by it", c.port_origin(port)))
        return False
    for p in lines:
        if p[0] == "scheduler-map" and len(p) >= 2:
            b.smaps[key] = p[1]
        elif p[0] == "shaping-rate" and len(p) >= 2:
            rate = _shape(c, port, p[1:])
            if rate:
                b.shapes[key] = rate
        else:
            c.diagnostics.append(warning("QOS172", f"traffic-control profile {name}: `{' '.join(p)}` not read",
                                         c.where.get(("traffic-control-profile", name))))
    return True


def bindings(c: Config) -> Bindings:
    b = Bindings()
    ports: dict[str, dict[str, str]] = defaultdict(dict)
    for port, parts in c.ports.items():
        if "*" in port or any("*" in key for key in parts):
            c.diagnostics.append(warning("QOS172", f"class-of-service interfaces {port}: a wildcard (`*`) stands for "
                                         "every matching port or unit: not lifted", c.port_origin(port),
                                         "write the interfaces out by name to import them"))
            for lines in parts.values():
                for p in lines:
                    if p[2:3] == ("scheduler-map",) and len(p) >= 4:
                        b.wildcards.setdefault((port, "*"), {})["scheduler-map"] = p[3]
                    elif p[2:3] == ("unit",) and len(p) >= 7 and p[4] in ("classifiers", "rewrite-rules"):
                        b.wildcards.setdefault((port, p[3]), {})[f"{p[4]}-{p[5]}"] = p[6]
            continue
        for key, lines in parts.items():
            for p in lines:
                loc = c.port_origin(port)
                if key == "scheduler-map" and len(p) >= 4:
                    b.smaps[port] = p[3]
                elif key in ("classifiers", "rewrite-rules") and len(p) >= 5:
                    ports[port][f"{key}-{p[3]}"] = p[4]
                elif key == "forwarding-class" and len(p) >= 4:
                    ports[port]["forwarding-class"] = p[3]  # fixed classification of the port's every unit
                elif key == "shaping-rate" and len(p) >= 4:
                    rate = _shape(c, port, p[3:])
                    if rate:
                        b.shapes[port] = rate
                elif key == "output-traffic-control-profile" and len(p) >= 4:
                    _profile(c, b, port, port, p[3])
                elif key.startswith("unit") and len(p) >= 7 and p[4] in ("classifiers", "rewrite-rules"):
                    if p[5] in ("dscp", "dscp-ipv6") and p[7:9] == ("protocol", "mpls"):
                        # IP packets entering LSPs: a plain binding of the family (IP leaving as IP) wins
                        b.units[(port, p[3])].setdefault(f"{p[4]}-{p[5]}", p[6])
                    else:
                        b.units[(port, p[3])][f"{p[4]}-{p[5]}"] = p[6]
                elif key.startswith("unit") and len(p) >= 6 and p[4] == "scheduler-map":
                    b.smaps[f"{port} unit {p[3]}"] = p[5]
                    b.units.setdefault((port, p[3]), {})
                elif key.startswith("unit") and len(p) >= 6 and p[4] == "shaping-rate":
                    rate = _shape(c, port, p[5:])
                    if rate:
                        b.shapes[f"{port} unit {p[3]}"] = rate
                elif key.startswith("unit") and len(p) >= 6 and p[4] == "forwarding-class":
                    b.units[(port, p[3])]["forwarding-class"] = p[5]  # fixed classification: the unit's every packet
                elif key.startswith("unit") and len(p) >= 6 and p[4] == "output-traffic-control-profile":
                    if _profile(c, b, port, f"{port} unit {p[3]}", p[5]):
                        b.units.setdefault((port, p[3]), {})
                else:
                    c.diagnostics.append(warning("QOS172", f"class-of-service interfaces {' '.join(p[1:])}: not "
                                                 "read", loc))
    for (port, unit), bound in c.bound.items():  # a filter that only accepts, discards or counts is an ACL
        for key, name in bound.items():
            if key.startswith("filter-output-") and qos_filter(c, key.removeprefix("filter-output-"), name):
                c.diagnostics.append(warning("QOS172", f"interface {port} unit {unit}: output filter {name} sets a "
                                             "class, loss priority or code point on leaving: not read (qosc reads "
                                             "input filters)", c.port_origin(port)
                                             or c.where.get(("filter", name))))
        qos = {k: v for k, v in bound.items() if k.startswith("filter-input-")
               and qos_filter(c, k.removeprefix("filter-input-"), v)}
        if qos:
            b.units[(port, unit)].update(qos)
    by_port: dict[str, list[tuple[str, str]]] = {}  # an index: a scan of every unit per port is quadratic
    for unit_key in b.units:
        by_port.setdefault(unit_key[0], []).append(unit_key)
    for port, bound in ports.items():  # on the port: for every unit, where the unit binds none of its own
        for unit_key in by_port.get(port) or [(port, "0")]:
            own = b.units.get(unit_key, {})
            if any(k == "forwarding-class" or k.startswith("classifiers-") for k in own):
                # a unit that classifies by its own fixed class or classifiers is not the port's fixed class's
                bound = {k: v for k, v in bound.items() if k != "forwarding-class"}
            b.units[unit_key] = {**bound, **own}
            by_port.setdefault(port, [unit_key])
    for port in list(b.smaps):
        if " unit " not in port and port not in by_port:
            b.units[(port, "0")] = {}
    return b
