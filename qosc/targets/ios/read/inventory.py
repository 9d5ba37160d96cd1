"""The QoS objects of an IOS or Catalyst configuration and what each interface, class and rule read back is made
of (qosc.behaviour.model.Device.seen and .uses): what import reconciles.

Objects: QoS class-maps, the classes of QoS policy-maps, the access lists QoS class-maps match, the interfaces'
`service-policy` bindings, the Catalyst 6500 ports' own queueing (`wrr-queue`, `priority-queue`) and trust, and
aggregate policers.  What an output class matches besides code points, EXP and CoS values (access lists, ...) is
applied but not read: its element is ("unread", ...), which no lift holds.
"""

from __future__ import annotations

from qosc.diagnostics import Location
from qosc.targets.ios.read.mqc import Config
from qosc.targets.ios.read.pfc import is_pfc

Element = tuple[str, ...]
Use = tuple[Element, tuple[str, str]]


def _policies(lines: list[tuple[tuple[str, ...], Location | None]]) -> list[tuple[str, str, Location | None]]:
    return [(w[1], w[-1], loc) for w, loc in lines if w[:1] == ("service-policy",) and len(w) >= 3
            and w[1] in ("input", "output")]


def seen(c: Config) -> tuple[tuple[str, str, Location | None], ...]:
    out: list[tuple[str, str, Location | None]] = []
    out += [("class-map", name, cm.origin) for name, cm in c.class_maps.items()]
    out += [("policy-map class", f"{policy} {pc.name}", pc.origin) for policy, pcs in c.policies.items()
            for pc in pcs]
    acls = {a for cm in c.class_maps.values() for a in cm.acls}
    out += [("access-list", name, c.where.get(("access-list", name))) for name in sorted(acls) if name in c.acls]
    for name, lines in c.interfaces.items():
        out += [("service-policy", f"{name} {direction} {policy}", loc) for direction, policy, loc in _policies(lines)]
        if is_pfc(lines):
            out.append(("port queueing", name, c.where.get(("interface", name))))
        trust = next(((w, loc) for w, loc in lines if w[:3] == ("mls", "qos", "trust")), None)
        if trust is not None:
            out.append(("trust", f"{name} {' '.join(trust[0][3:])}", trust[1]))
    out += [("aggregate-policer", name, loc) for (kind, name), loc in c.where.items() if kind == "aggregate-policer"]
    return tuple(out)


def _class(c: Config, element: Element, policy: str, name: str, acls_read: bool) -> list[Use]:
    """An output class (code points read, access lists not) or an input rule (both read)."""
    out: list[Use] = [(element, ("policy-map class", f"{policy} {name}"))]
    cm = c.class_maps.get(name)
    if cm is None:
        return out
    out.append((element, ("class-map", name)))
    unread = ("unread", *element[1:])
    out += [(element if acls_read else unread, ("access-list", a)) for a in cm.acls]
    if not acls_read and cm.all and (cm.acls or cm.other):  # match-all: not classified by its code points alone
        out = [(unread, obj) for _, obj in out]
    return out


def uses(c: Config, read: dict[str, tuple[str, str]]) -> tuple[Use, ...]:
    """`read`: interface name -> (port, unit) of the interfaces read back."""
    out: list[Use] = []
    for name, lines in c.interfaces.items():
        port, unit = read.get(name, (name, "0"))
        iface: Element = ("interface", port, unit) if name in read else ("unread", name)
        for direction, policy, _ in _policies(lines):
            out.append((iface, ("service-policy", f"{name} {direction} {policy}")))
            pcs = list(c.policies.get(policy, []))
            child = next((w[1] for pc in pcs if pc.name == "class-default" for w, _ in pc.lines
                          if w[:1] == ("service-policy",) and len(w) == 2 and w[1] in c.policies), None)
            if direction == "output" and child is not None and len(pcs) == 1:  # a parent shaper and its child
                out.append((iface, ("policy-map class", f"{policy} class-default")))
                policy, pcs = child, list(c.policies[child])
            for pc in pcs:
                element: Element = (("class" if direction == "output" else "rule"), port, unit, pc.name)
                if pc.name == "class-default" or name not in read:
                    element = iface
                out += _class(c, element, policy, pc.name, direction == "input")
                police = next((w for w, _ in pc.lines if w[:2] == ("police", "aggregate") and len(w) > 2), None)
                if police is not None:
                    out.append((element, ("aggregate-policer", police[2])))
        if is_pfc(lines):
            out.append((iface, ("port queueing", name)))
        trust = next((w for w, _ in lines if w[:3] == ("mls", "qos", "trust")), None)
        if trust is not None:
            # DSCP: what a policy's core interface does; CoS: read on a PFC port (read.marks: its CoS maps)
            kept = name in read and (trust[3:] == ("dscp",) or (trust[3:] == ("cos",) and is_pfc(lines)))
            out.append((iface if kept else ("unread", name), ("trust", f"{name} {' '.join(trust[3:])}")))
    return tuple(out)
