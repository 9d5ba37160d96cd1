"""What of an interface read back import can lift, and what it names instead (QOS172).

- the default class: qosc.behaviour.liftmarks.default_class (the one the configuration says takes what nothing
  else names, else the class of DSCP 0, else the class most code points fall into);
- a class is a service where IP code points, EXP or PCP values are classified into it or it leaves with an EXP or
  PCP value (liftmarks), or it is the device's host class (router-generated traffic), or an interface of the device
  is fixed into it (a service without code points where none reaches it: liftfixed); a class of none of these (a
  queue fed by filters on ports and addresses, or by nothing) is not a service of the policy language: named, not
  lifted;
- a code point the interface classifies one way for IPv4 and another for IPv6 (`match ip dscp`, an IPv4-only
  u32 filter) cannot be said by a policy, whose services carry their code points for both families: named, and
  the IPv4 classification lifted;
- an interface queued by the device's defaults (no scheduler map or output policy) is lifted with
  `egress-queueing: device-default`, said at its line (QOS208);
- an element (interface, class, rule) is a key of qosc.behaviour.model.Device.uses, so the reconciliation
  (qosc.behaviour.reconcile) can tell which configuration objects were lifted.
"""

from __future__ import annotations

from qosc import dscp as dscp_mod
from qosc.behaviour.liftmarks import carried
from qosc.behaviour.model import Class, Interface
from qosc.diagnostics import Diagnostic, info, warning

Element = tuple[str, ...]
"""("interface", device, port, unit), ("class", device, port, unit, class), ("rule", device, port, unit, rule)."""


def element(kind: str, device: str, iface: Interface, name: str | None = None) -> Element:
    key = (kind, device, iface.name, str(iface.unit))
    return (*key, name) if name is not None else key


def codes(iface: Interface, cls: Class) -> frozenset[int]:
    """The IPv4 code points classified into a class (what the service is keyed by)."""
    return frozenset(c for c in range(64) if iface.classify[0][c] == cls.name)


def unliftable(iface: Interface, cls: Class, default: str | None, host: bool = False) -> str | None:
    """Why a class cannot be a service of the policy, or None when it can (module doc); `host`: the class is
    the device's host class, or one an interface of it is fixed into (a service without code points where none
    reaches it: qosc.behaviour.liftfixed)."""
    if cls.name == default or codes(iface, cls) or carried(iface, cls.name) or host:
        return None
    if any(iface.classify[1][c] == cls.name for c in range(64)):
        return "only IPv6 code points are classified into it (a policy's service carries both families)"
    return ("no IP code point, EXP or PCP value is classified into it nor written for it (its queue takes what "
            "filters on ports and addresses put there, or nothing): a service of the policy language is its code "
            "points")


def not_lifted(iface: Interface, cls: Class, why: str) -> Diagnostic:
    queue = f" (queue {cls.queue})" if cls.queue is not None else ""
    return warning("QOS172", f"interface {iface.name} unit {iface.unit}: class {cls.name}{queue} not lifted: {why}",
                   cls.origin or iface.origin, "give the class code points, or leave it to the device's defaults")


def unscheduled(iface: Interface) -> list[Diagnostic]:
    """QOS172 where code points (DSCP, EXP or PCP values) are classified into a class the interface does not
    schedule (a JUNOS forwarding class its scheduler map leaves out): they are lifted into the default service.
    Junos queues such packets in their class's own queue with the minimal delay buffer and WRR credit of an
    unconfigured class and a default drop profile ("A default congestion and transmission control mechanism is
    used when an output interface is not configured for a certain forwarding class", Junos OS Class of Service
    User Guide, Configuring Forwarding Classes, 13.2): a queue the policy cannot say (a service an interface
    carries is scheduled there; one it does not carry is queued and marked as the default: QOS116)."""
    names = {c.name for c in iface.classes}
    if not names:
        return []
    tables = (("DSCP", iface.classify[0], dscp_mod.name),
              ("EXP", [x[0] if x else None for x in iface.classify_exp], str),
              ("PCP", [x[0] if x else None for x in iface.classify_pcp], str))
    out = []
    for label, table, spell in tables:
        lost: dict[str, list[int]] = {}
        for code, cls in enumerate(table):
            if cls is not None and cls not in names:
                lost.setdefault(cls, []).append(code)
        out += [warning("QOS172", f"interface {iface.name} unit {iface.unit}: {label} "
                        f"{' '.join(spell(c) for c in points[:8])}{' ...' if len(points) > 8 else ''} go to class "
                        f"{cls}, which the interface does not schedule (Junos gives its queue the minimal buffer and "
                        "credit of a class without a scheduler, which a policy cannot say): not lifted (the imported "
                        "policy gives them the default service)", iface.origin,
                        "schedule the class on the interface, or classify its code points into a scheduled one")
                for cls, points in sorted(lost.items())]
    return out


def families(iface: Interface) -> list[Diagnostic]:
    """QOS172 where IPv4 and IPv6 code points of the interface go to different classes (both known)."""
    apart: dict[tuple[str | None, str | None], list[int]] = {}
    for code in range(64):
        v4, v6 = iface.classify[0][code], iface.classify[1][code]
        if v4 is not None and v6 is not None and v4 != v6:
            apart.setdefault((v4, v6), []).append(code)
    out = []
    for (v4, v6), points in sorted(apart.items(), key=lambda kv: kv[1][0]):
        shown = " ".join(dscp_mod.name(c) for c in points[:8]) + (" ..." if len(points) > 8 else "")
        out.append(warning("QOS172", f"interface {iface.name} unit {iface.unit}: IPv6 packets of DSCP {shown} go to "
                           f"class {v6}, IPv4 packets to class {v4}: not lifted for IPv6 (a policy's service "
                           "carries its code points for both families; the IPv4 classification is imported)",
                           iface.origin, "match both families on the device (`match dscp`, not `match ip dscp`), "
                           "or accept that the imported policy classifies IPv6 like IPv4"))
    return out


def unqueued(iface: Interface) -> bool:
    """Queued by the device's defaults, with no class the reader knows (IOS: an input policy, no output policy)."""
    return iface.default_queueing and not iface.classes


def device_default(iface: Interface) -> Diagnostic:
    """QOS208: an interface that classifies or rewrites but queues by the device's defaults."""
    return info("QOS208", f"interface {iface.name} unit {iface.unit} classifies or rewrites but has no queueing of "
                "its own (no scheduler map or output policy): lifted with egress-queueing: device-default, its "
                "egress queued by the device's defaults", iface.origin)
