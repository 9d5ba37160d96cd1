"""Lift behaviours read back from devices into one qosc policy (qosc import).

Several devices import into one policy with shared services:

- a service per set of code points that some class carries (classes of the same code points on several devices
  or interfaces are one service, named after the first class met); the class most unclassified code points
  fall into is the default service; kinds from the code points (see _kind);
- queue settings from the first interface that carries the service; any other interface whose class differs
  (share, priority, strictness, cap, drop curve) is reported (QOS173) at its configuration line, with the
  value kept;
- priorities keep the order the device serves classes in (qosc.behaviour.lift.priorities); a device that
  gives none (IOS, Catalyst WRR) gets what the policy's own rules ask: LBE low, the rest high;
- a strict class is capped by its rate, else by its policer (a rate on an interface of unknown speed), else by
  the one policer of the edge rules marking into it (Catalyst priority queues); none: QOS172;
- drop profiles and policers deduplicated by value (equal policers rules do not share stay apart); edge rules
  become classifiers (one per distinct rule list), interfaces keep role and rate where the configuration says them.

What the policy language cannot say is reported by the interpreters (QOS172), at its line, and left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from qosc import dscp as dscp_mod
from qosc.behaviour.bodies import envelope_body, port_value, profile_body
from qosc.behaviour.liftable import Element, default_class, element, families, not_lifted, unliftable, unscheduled
from qosc.behaviour.model import Class, Curve, Device, Envelope, Interface, Rule
from qosc.diagnostics import Diagnostic, Location, warning
from qosc.units import format_rate

_NAME = re.compile(r"[^A-Za-z0-9_.-]")


def _ident(text: str, fallback: str) -> str:
    name = _NAME.sub("-", text).strip("-._")
    if not name or not name[0].isalpha():
        name = f"{fallback}-{name}" if name else fallback
    return name[:63]


def _pct(value: float) -> str:
    return f"{value:g}%"


_LEVELS = ("low", "medium-low", "medium-high", "high")


def priorities(iface: Interface, kinds: dict[str, str]) -> tuple[dict[str, str], list[Diagnostic]]:
    """The policy priority of each non-strict class of an interface, keeping the order the device serves them
    in (only the order counts: vendors have different numbers of levels).

    Ranks 0..3 are the policy's own levels (JUNOS); other scales (HTB prio) are mapped by order, lowest rank
    to low and highest to high.  A device that gives no priority (IOS, Catalyst: WRR shares only) gets the
    levels the policy's own rules ask for: LBE low, every other class high.  More distinct ranks than the
    policy has levels are collapsed, with QOS172 at the class.
    """
    ranked = [c for c in iface.classes if not c.strict and c.priority is not None]
    if not ranked:
        return {c.name: "low" if kinds.get(c.name) == "lbe" else "high" for c in iface.classes if not c.strict}, []
    ranks = sorted({c.priority for c in ranked if c.priority is not None})
    if all(0 <= r <= 3 for r in ranks):
        label = {r: _LEVELS[r] for r in ranks}
    elif len(ranks) <= len(_LEVELS):
        picks = {1: (3,), 2: (0, 3), 3: (0, 2, 3), 4: (0, 1, 2, 3)}[len(ranks)]
        label = {r: _LEVELS[i] for r, i in zip(ranks, picks, strict=True)}
    else:
        label = {r: _LEVELS[round(i * 3 / (len(ranks) - 1))] for i, r in enumerate(ranks)}
    out = {c.name: label[c.priority] for c in ranked if c.priority is not None}
    diags: list[Diagnostic] = []
    if len(ranks) > len(_LEVELS):
        worst = next(c for c in ranked if list(out.values()).count(out[c.name]) > 1)
        diags.append(warning("QOS172", f"interface {iface.name} serves {len(ranks)} priority levels, the policy "
                             f"language has {len(_LEVELS)}: classes of neighbouring levels share one (e.g. "
                             f"{worst.name}: {out[worst.name]})", worst.origin))
    return out, diags


_SCAVENGER = re.compile(r"(^|[^a-z])(lbe|le|scavenger|less-than-best|qbss)([^a-z]|$)", re.IGNORECASE)


def _kind(codes: frozenset[int], default: bool, cls: Class) -> str:
    """ef: premium; cs1/le: LBE, unless an assured class taking a whole precedence (IOS, Catalyst: af1x with
    cs1; told by AF code points, a share above 0, no scavenger name); cs6/cs7: network-control; AF: assured."""
    if default or 46 in codes:
        return "best-effort" if default else "premium"
    af = any(dscp_mod.af_class(c) for c in codes)
    if codes & {1, 8}:
        return "assured" if af and cls.share != 0 and not _SCAVENGER.search(cls.name) else "lbe"
    if codes & {48, 56}:
        return "network-control"
    return "assured" if af else "other"


@dataclass
class Lifted:
    policy: dict[str, Any]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    origins: dict[tuple[str, ...], Location] = field(default_factory=dict)
    """Where each service, drop profile, policer, classifier and interface of the policy came from in the
    configurations (its first class, rule or interface statement)."""
    elements: set[Element] = field(default_factory=set)
    """The interfaces, classes and rules read back that the policy holds (qosc.behaviour.liftable.element)."""
    carriers: dict[str, set[Element]] = field(default_factory=dict)
    """Service name -> the classes it was lifted from."""
    rule_elements: dict[tuple[str, str], set[Element]] = field(default_factory=dict)
    """(classifier, rule name in the policy) -> the rules read back it was lifted from."""


class _Lifter:
    def __init__(self, name: str) -> None:
        self.name = name
        self.services: dict[frozenset[int], dict[str, Any]] = {}
        self.first: dict[frozenset[int], Class] = {}
        self.service_names: dict[frozenset[int], str] = {}
        self.curves: dict[Curve, str] = {}
        self.policers: dict[Envelope, str] = {}
        self.classifiers: dict[tuple[Rule, ...], str] = {}
        self.classifier_bodies: dict[str, dict[str, Any]] = {}
        self.diagnostics: list[Diagnostic] = []
        self.default: frozenset[int] | None = None
        self.rule_policers: dict[str, list[str]] = {}
        self.origins: dict[tuple[str, ...], Location] = {}
        self.carriers: dict[str, set[Element]] = {}
        self.rule_elements: dict[tuple[str, str], set[Element]] = {}

    # -- services -------------------------------------------------------------------------------------------
    def codes_of(self, iface: Interface, cls: Class) -> frozenset[int]:
        return frozenset(c for c in range(64) if iface.classify[0][c] == cls.name)

    def service(self, iface: Interface, cls: Class, default: bool, priority: str | None = None) -> str:
        codes = frozenset(range(64)) if default else self.codes_of(iface, cls)
        key = frozenset({-1}) if default else codes
        if key not in self.services:
            name = _ident(cls.name, "service")
            taken = set(self.service_names.values())
            n = 2
            while name in taken:
                name, n = f"{_ident(cls.name, 'service')}-{n}", n + 1
            self.service_names[key] = name
            self.first[key] = cls
            if cls.origin is not None:
                self.origins[("services", name)] = cls.origin
            self.services[key] = self._service_body(iface, cls, codes, default, priority)
        else:
            self._agree(key, cls)
        return self.service_names[key]

    def _service_body(self, iface: Interface, cls: Class, codes: frozenset[int], default: bool,
                      priority: str | None) -> dict[str, Any]:
        body: dict[str, Any] = {"kind": _kind(codes, default, cls)}
        if default:
            body["default"] = True
            # the code points the class keeps (JUNOS rewrites the others); where nothing is rewritten at all
            # (IOS, Catalyst, transparent units) unclassified traffic lands here anyway: `default` says it
            untouched = all(iface.rewrite[0][c] in (c, None) for c in range(64))
            declared = [] if untouched else sorted(c for c in range(64) if iface.classify[0][c] == cls.name
                                                   and iface.rewrite[0][c] == c)
            body["dscp"] = [dscp_mod.name(c) for c in (declared or [0])][:8]
        else:
            body["dscp"] = [dscp_mod.name(c) for c in sorted(codes)]
        queue: dict[str, Any] = {}
        if cls.share is not None:
            queue["share"] = _pct(cls.share)
        if priority is not None and not cls.strict:
            queue["priority"] = priority
        if cls.strict:
            queue["strict"] = True
        if cls.cap is not None:
            queue["rate-cap"] = _pct(cls.cap)
        if cls.ceiling is not None:
            queue["ceiling"] = _pct(cls.ceiling)
        if cls.buffer is not None and cls.buffer[0] in ("percent", "us"):
            queue["buffer"] = _pct(cls.buffer[1]) if cls.buffer[0] == "percent" else f"{int(cls.buffer[1])}us"
        elif cls.buffer is not None and cls.buffer[0] == "bytes" and iface.rate:
            # a queue of bytes (Linux bfifo) is a time at the rate it drains at: its guarantee (qosc.sizing)
            drain = iface.rate * (cls.share or 100.0) / 100
            queue["buffer"] = f"{max(1, round(cls.buffer[1] * 8_000_000 / drain))}us"
        elif cls.buffer is not None:
            self.diagnostics.append(warning("QOS172", f"class {cls.name}: a queue of {cls.buffer[1]:g} "
                                            f"{cls.buffer[0]} is not imported: a policy gives buffers in percent "
                                            "or time, and qosc sizes the queue from the class's rate",
                                            cls.origin, "set queue.buffer in the policy if the default does not do"))
        if cls.ecn:
            queue["ecn"] = True
        if queue:
            body["queue"] = queue
        drop = self._drop(cls)
        if drop is not None:
            body["drop-profile"] = drop
        return body

    def _drop(self, cls: Class) -> str | dict[str, str] | None:
        if not cls.drop:
            return None
        names = {level: self._curve(curve, cls.origin) for level, curve in cls.drop}
        if 0 in names:
            return names[0]
        return {label: names[level] for level, label in ((1, "low"), (2, "medium"), (3, "high")) if level in names}

    def _curve(self, curve: Curve, origin: Location | None = None) -> str:
        if curve not in self.curves:
            self.curves[curve] = f"drop-{len(self.curves) + 1}"
            if origin is not None:
                self.origins[("drop-profiles", self.curves[curve])] = origin
        return self.curves[curve]

    def _agree(self, key: frozenset[int], cls: Class) -> None:
        first = self.first[key]
        for what in ("share", "priority", "strict", "cap", "ceiling", "drop", "ecn"):
            if getattr(first, what) != getattr(cls, what) and None not in (getattr(first, what), getattr(cls, what)):
                self.diagnostics.append(warning(
                    "QOS173", f"service '{self.service_names[key]}': {what} of class {cls.name} is "
                    f"{getattr(cls, what)!r} here but {getattr(first, what)!r} where the service was first met; "
                    "the policy keeps the first", cls.origin or first.origin,
                    "split the service per site by hand, or make the devices agree"))

    # -- edges ------------------------------------------------------------------------------------------------
    def policer(self, env: Envelope, hint: str, origin: Location | None = None) -> str:
        if env not in self.policers:
            base = _ident(hint, "policer")
            name, n = base, 2
            while name in self.policers.values():
                name, n = f"{base}-{n}", n + 1
            self.policers[env] = name
            if origin is not None:
                self.origins[("policers", name)] = origin
        return self.policers[env]

    def classifier(self, iface: Interface, service_of: dict[int, str]) -> str | None:
        rules = tuple(r for r in iface.rules if not r.name.startswith("police-"))
        if not rules:
            return None
        if rules in self.classifiers:
            return self.classifiers[rules]
        name = _ident(f"{iface.name}-in", "classifier")
        n = 2
        while name in self.classifier_bodies:
            name, n = f"{_ident(iface.name + '-in', 'classifier')}-{n}", n + 1
        body = []
        for r in rules:
            item: dict[str, Any] = {"name": _ident(r.name, "rule")}
            match = {key: value for key, value in (
                ("source", list(r.sources)), ("destination", list(r.destinations)), ("protocol", list(r.protocols)),
                ("source-port", [port_value(p) for p in r.source_ports]),
                ("destination-port", [port_value(p) for p in r.destination_ports]),
                ("dscp", [dscp_mod.name(c) for c in r.match_dscp])) if value}
            if match:
                item["match"] = match
            service = service_of.get(r.mark) if r.mark is not None else None
            if service is None:
                self.diagnostics.append(warning("QOS172", f"rule {r.name} marks "
                                                f"{'nothing' if r.mark is None else dscp_mod.name(r.mark)}, which "
                                                "no imported service carries: the rule is left out", r.origin))
                continue
            item["service"] = service
            if r.policer is not None:  # equal policers the rules do not share stay apart (one name is shared)
                own = r.policer.shared is None and [x.policer for x in rules].count(r.policer) > 1
                env = replace(r.policer, shared=f"rule {r.name}") if own else r.policer
                item["policer"] = self.policer(env, f"{r.name}-policer", r.origin)
                self.rule_policers.setdefault(service, []).append(item["policer"])
            body.append(item)
        if not body:  # every rule left out (named above): no classifier
            return None
        self.classifiers[rules] = name
        self.classifier_bodies[name] = {"rules": body}
        if iface.origin is not None:
            self.origins[("classifiers", name)] = iface.origin
        return name


def _strict_cap(lifter: _Lifter, name: str, body: dict[str, Any], cls: Class, trusted_edge: bool) -> None:
    """A strict-priority class must be capped (QOS042): by its own rate where the device shows one (a rate of
    an interface whose speed the configuration does not say is the service's policer: IOS `priority` with
    `police` on a POS port), else by the policer the edge rules that mark into it share (Catalyst priority
    queues have no rate)."""
    queue = body.get("queue", {})
    if not queue.get("strict") or "rate-cap" in queue or "policer" in body:
        return
    if cls.cap_rate is not None:
        if trusted_edge:  # a service policer would police trusted edges too: keep the cap as a rate
            queue["rate-cap"] = format_rate(cls.cap_rate)
        else:
            body["policer"] = lifter.policer(Envelope(cls.cap_rate, max(1500, cls.cap_rate // 800)), f"{name}-cap")
        return
    used = set(lifter.rule_policers.get(name, ()))
    if len(used) == 1 and not trusted_edge:
        body["policer"] = used.pop()
        return
    lifter.diagnostics.append(warning(
        "QOS172", f"strict-priority class {cls.name} has no rate cap in the configuration and "
        f"{'no edge policer marks into it' if not used else 'its edge rules use different policers'}: the policy "
        "language needs one (QOS042)", cls.origin, "give the service a queue.rate-cap or a policer by hand"))


def lift(devices: Sequence[Device], name: str = "imported") -> Lifted:
    """One policy for all the devices (see the module doc)."""
    lifter = _Lifter(name)
    out_devices: dict[str, Any] = {}
    elements: set[Element] = set()
    for device in devices:
        interfaces: dict[str, Any] = {}
        for iface in device.interfaces:
            if iface.name in interfaces:
                lifter.diagnostics.append(warning(
                    "QOS172", f"interface {iface.name} unit {iface.unit} not lifted: unit "
                    f"{interfaces[iface.name].get('unit', 0)} of the port is imported, and a policy gives an interface "
                    "one unit", iface.origin))
                continue
            body = _interface(lifter, device, iface, elements)
            if body is not None:
                interfaces[iface.name] = body
        out_devices[device.name] = {"platform": device.platform or "unknown", "interfaces": interfaces}
    services = {lifter.service_names[k]: v for k, v in lifter.services.items()}
    trusted_edge = any(b.get("role") == "edge" and b.get("trust") != "none" for d in out_devices.values()
                       for b in d["interfaces"].values())
    for key, body in lifter.services.items():
        _strict_cap(lifter, lifter.service_names[key], body, lifter.first[key], trusted_edge)
    every = set(services)
    for dev in out_devices.values():
        for body in dev["interfaces"].values():
            if set(body["services"]) == every:
                del body["services"]
    policy: dict[str, Any] = {"qosc": 1, "name": name, "services": services}
    if lifter.curves:
        policy["drop-profiles"] = {n: profile_body(c) for c, n in lifter.curves.items()}
    if lifter.policers:
        policy["policers"] = {n: envelope_body(e) for e, n in lifter.policers.items()}
    if lifter.classifier_bodies:
        policy["classifiers"] = lifter.classifier_bodies
    policy["devices"] = out_devices
    return Lifted(policy, lifter.diagnostics, lifter.origins, elements, lifter.carriers, lifter.rule_elements)


def _interface(lifter: _Lifter, device: Device, iface: Interface, elements: set[Element]) -> dict[str, Any] | None:
    """The policy body of one interface read back (None when nothing of it can be lifted: named), its services
    made or met on the way; the elements lifted are added to `elements`."""
    default_name = default_class(iface)
    liftable = []
    for cls in iface.classes:
        why = unliftable(iface, cls, default_name)
        if why is None:
            liftable.append(cls)
        else:
            lifter.diagnostics.append(not_lifted(iface, cls, why))
    lifter.diagnostics += families(iface) + unscheduled(iface)
    if not liftable and not iface.rules:
        why = "none of its classes can be a service" if iface.classes else \
            "it has no queues of its own (no scheduler map or output policy: the device's default scheduling)"
        lifter.diagnostics.append(warning("QOS172", f"interface {iface.name} unit {iface.unit} not lifted: {why}",
                                          iface.origin))
        return None
    kinds = {cls.name: _kind(lifter.codes_of(iface, cls), cls.name == default_name, cls) for cls in liftable}
    levels, found = priorities(replace(iface, classes=tuple(liftable)), kinds)
    lifter.diagnostics += found
    capped = next((cls for cls in liftable if cls.cap_rate is not None), None)
    if capped is not None and iface.rate is None:
        lifter.diagnostics.append(warning(
            "QOS172", f"interface {iface.name}: the configuration does not say its speed, so the cap of "
            f"{capped.name} ({format_rate(capped.cap_rate or 0)}) cannot be put against the link; the "
            "policy needs the speed (QOS041)", iface.origin, "set the interface's speed: in the policy"))
    carried: list[str] = []
    service_of: dict[int, str] = {}
    for cls in liftable:
        service = lifter.service(iface, cls, cls.name == default_name, levels.get(cls.name))
        carried.append(service)
        lifter.carriers.setdefault(service, set()).add(element("class", device.name, iface, cls.name))
        elements.add(element("class", device.name, iface, cls.name))
        for code in lifter.codes_of(iface, cls):
            service_of[code] = service
    body: dict[str, Any] = {}
    if iface.role is not None:
        body["role"] = iface.role
    if iface.rate is not None:
        body["speed" if iface.shape is None else "shape"] = format_rate(iface.rate)
    if iface.unit:
        body["unit"] = iface.unit
    classifier = lifter.classifier(iface, service_of)
    if classifier is not None:
        body["classifier"] = classifier
        for r in iface.rules:
            if r.mark is not None and r.mark in service_of:
                elements.add(element("rule", device.name, iface, r.name))
                lifter.rule_elements.setdefault((classifier, _ident(r.name, "rule")), set()).add(
                    element("rule", device.name, iface, r.name))
    if iface.trust is not None and iface.role == "edge":
        body["trust"] = "dscp" if iface.trust else "none"
    body.update(dict(iface.options))
    body["services"] = carried
    elements.add(element("interface", device.name, iface))
    if iface.origin is not None:
        lifter.origins[("devices", device.name, "interfaces", iface.name)] = iface.origin
    return body
