"""Lift behaviours read back from devices into one qosc policy (qosc import).

Several devices import into one policy with shared services:

- a service per group of classes that share a code point in any domain (DSCP, EXP, PCP, the EXP an edge
  imposes: qosc.behaviour.liftmarks), named after the first class met, with the DSCP code points of all of them
  (none for a class carried in EXP or PCP alone) and their EXP and PCP values; the class most unclassified
  code points fall into is the default service; kinds from the code points (liftkinds.kind_of);
- queue settings from the first interface that carries the service and queues it by a policy of its
  configuration; any other such interface whose class differs (share, priority, strictness, cap, drop curve) is
  reported (QOS173) at its configuration line, with the value kept; an interface queued by the device's defaults
  (no scheduler map, no output policy) is lifted with `egress-queueing: device-default` (QOS208), its classes
  making services but not their queues, and one with no class at all (IOS: an input policy alone) after the
  others, its rules marking into their services (liftable.unqueued);
- priorities keep the order the device serves classes in (liftkinds.priorities); a device that
  gives none (IOS, Catalyst WRR) gets what the policy's own rules ask: LBE low, the rest high;
- a strict class is capped by its rate, else by its policer (a rate on an interface of unknown speed), else by
  the one policer of the edge rules marking into it (Catalyst priority queues); with none, `rate-cap: none`
  (QOS046); edge rules with different policers: QOS172 (qosc.behaviour.liftcaps);
- drop profiles and policers deduplicated by value (equal policers rules do not share stay apart); edge rules
  become classifiers (one per distinct rule list), interfaces keep role and rate where the configuration says them,
  and encapsulation, trust, rewrite and impose where they differ from the role's defaults (liftmarks.settings);
  logical units of one port are named port.unit;
- a class that cannot be a service (qosc.behaviour.liftable: no code point in any domain), and an interface of
  which nothing can be lifted, are named (QOS172), not lifted; the elements lifted (interfaces, classes, rules)
  are recorded for the reconciliation (qosc.behaviour.reconcile).

What the policy language cannot say is reported by the interpreters (QOS172), at its line, and left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from qosc import dscp as dscp_mod
from qosc.behaviour import liftable as lifting
from qosc.behaviour import liftcaps, liftfixed, liftimplicit, liftmarks
from qosc.behaviour.bodies import CLASS_KEYS, class_value, envelope_body, profile_body, queue_body
from qosc.behaviour.liftable import Element, element, families, not_lifted, unliftable, unscheduled
from qosc.behaviour.lifted import Lifted, yaml_spans
from qosc.behaviour.liftkinds import kind_of, priorities
from qosc.behaviour.liftrules import ethernet, ident, match_body, rule_service, unmatched_dropped
from qosc.behaviour.model import DOMAINS3, Class, Curve, Device, Envelope, Interface
from qosc.diagnostics import Diagnostic, Location, warning
from qosc.units import format_rate

__all__ = ["Lifted", "lift", "priorities", "yaml_spans"]

Key = tuple[Any, ...]
"""A service: ('default',) or ('group', the first class of its group: liftmarks.groups)."""


class _Lifter:
    def __init__(self, name: str, devices: Sequence[Device] = ()) -> None:
        self.name = name
        self.services: dict[Key, dict[str, Any]] = {}
        self.first: dict[Key, Class] = {}
        self.queued: dict[Key, Class] = {}
        """The class each service's queue settings come from: the first met on an interface the policy queues."""
        self.by_code: dict[int, str] = {}
        """DSCP -> the service carrying it (the first met; not the default's): what an interface without queues of
        its own (egress-queueing: device-default, no class) marks into."""
        self.service_names: dict[Key, str] = {}
        self.defaults = liftmarks.defaults(devices)
        self.groups = liftmarks.groups(devices, self.defaults)
        self.by_class: dict[tuple[int, str], str] = {}
        """(device index, class) -> the service of the class: what a rule that marks nothing classifies into."""
        self.members: dict[Key, list[tuple[Interface, str]]] = {}
        """The classes (interface, class name) of each service, for its EXP and PCP values."""
        self.codes: dict[Key, set[int]] = {}
        self.hosts = {d.host_class for d in devices if d.host_class}
        self.fixed = {(n, i.fixed) for n, d in enumerate(devices) for i in d.interfaces if i.fixed is not None}
        for d, device in enumerate(devices):
            for i, iface in enumerate(device.interfaces):
                for cls in iface.classes:
                    if (d, i, cls.name) in self.groups:
                        key = ("group", self.groups[(d, i, cls.name)])
                        self.codes.setdefault(key, set()).update(liftmarks.dscp_codes(iface, cls))
        self.curves: dict[Curve, str] = {}
        self.policers: dict[Envelope, str] = {}
        self.classifiers: dict[tuple[Any, ...], str] = {}
        """Edge rule lists (and ("fixed", service): qosc.behaviour.liftfixed) -> the classifier lifted for them."""
        self.classifier_bodies: dict[str, dict[str, Any]] = {}
        self.diagnostics: list[Diagnostic] = []
        self.rule_policers: dict[str, list[str]] = {}
        self.origins: dict[tuple[str, ...], Location] = {}
        self.carriers: dict[str, set[Element]] = {}
        self.rule_elements: dict[tuple[str, str], set[Element]] = {}

    # -- services -------------------------------------------------------------------------------------------
    def hosted(self, cls: Class) -> tuple[bool, bool]:
        """Whether the class is a device's host class (router traffic), and whether router traffic is in another."""
        return cls.name in self.hosts, bool(self.hosts) and cls.name not in self.hosts

    def codes_of(self, iface: Interface, cls: Class) -> frozenset[int]:
        return frozenset(c for c in range(64) if iface.classify[0][c] == cls.name)

    def key(self, node: tuple[int, int, str], default: bool) -> Key:
        return ("default",) if default else ("group", self.groups.get(node, node))

    def service(self, iface: Interface, cls: Class, default: bool, priority: str | None = None,
                node: tuple[int, int, str] = (0, 0, "")) -> str:
        """The service of a class (made when first met); its queue from the first class met on an interface the
        device queues by a policy of its configuration (a default queue, egress-queueing: device-default, says
        nothing of the service's)."""
        key = self.key(node, default)
        codes = frozenset(range(64)) if default else frozenset(self.codes.get(key, self.codes_of(iface, cls)))
        self.members.setdefault(key, []).append((iface, cls.name))
        if key not in self.services:
            name = ident(cls.name, "service")
            taken = set(self.service_names.values())
            n = 2
            while name in taken:
                name, n = f"{ident(cls.name, 'service')}-{n}", n + 1
            self.service_names[key] = name
            self.first[key] = cls
            if cls.origin is not None:
                self.origins[("services", name)] = cls.origin
            self.services[key] = self._service_body(iface, cls, codes, default)
            for code in codes if not default else ():
                self.by_code.setdefault(code, name)
        if not iface.default_queueing and key in self.queued:
            self._agree(key, cls)
        elif not iface.default_queueing:
            self.queued[key] = cls
            self._queue(self.services[key], iface, cls, priority)
        return self.service_names[key]

    def _service_body(self, iface: Interface, cls: Class, codes: frozenset[int], default: bool) -> dict[str, Any]:
        body: dict[str, Any] = {"kind": kind_of(codes, default, cls, *self.hosted(cls))}
        if default:
            body["default"] = True
            # the code points the class keeps (JUNOS rewrites the others); where nothing is rewritten at all
            # (IOS, Catalyst, transparent units) unclassified traffic lands here anyway: `default` says it
            untouched = all(iface.rewrite[0][c] in (c, None) for c in range(64))
            declared = [] if untouched else sorted(c for c in range(64) if iface.classify[0][c] == cls.name
                                                   and iface.rewrite[0][c] == c)
            body["dscp"] = [dscp_mod.name(c) for c in (declared or [0])][:8]
        elif codes:  # a class carried in EXP or PCP alone has no DSCP (never `dscp: []`)
            body["dscp"] = [dscp_mod.name(c) for c in liftmarks.marked_first(iface, codes)]
        return body

    def _queue(self, body: dict[str, Any], iface: Interface, cls: Class, priority: str | None) -> None:
        """A service's queue and drop profile, from a class of an interface the policy queues."""
        queue, found = queue_body(iface, cls, priority)
        self.diagnostics += found
        if queue:
            body["queue"] = queue
        drop = self._drop(cls)
        if drop is not None:
            body["drop-profile"] = drop

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

    def marking(self) -> None:
        """Each service's EXP and PCP values, from all its classes (liftmarks); the default's less the others'."""
        for domain in DOMAINS3:
            claimed: set[int] = set()
            lifted: dict[Key, dict[int, list[int]]] = {}
            for key, members in self.members.items():
                if key != ("default",) and (found := liftmarks.values(members, domain)):
                    lifted[key] = found
                    claimed |= {v for vs in found.values() for v in vs}
            if ("default",) in self.members:
                lifted[("default",)] = liftmarks.default_values(self.members[("default",)], domain, claimed)
                owners = {v: self.service_names[k] for k, found in lifted.items() if k != ("default",)
                          for vs in found.values() for v in vs}
                self.diagnostics += liftmarks.lost_defaults(self.members[("default",)], domain, owners)
            for key, found in lifted.items():
                if found:  # values of a higher drop precedence alone stay there ({high: [...]})
                    self.services[key][domain] = liftmarks.body(found)

    def _agree(self, key: Key, cls: Class) -> None:
        first = self.queued[key]
        for what, policy_key in CLASS_KEYS.items():
            here, there = getattr(cls, what), getattr(first, what)
            if here != there and None not in (here, there):
                self.diagnostics.append(warning(
                    "QOS173", f"service '{self.service_names[key]}': {policy_key} of class {cls.name} is "
                    f"{class_value(what, here)} here but {class_value(what, there)} where the service was first met; "
                    "the policy keeps the first", cls.origin or first.origin,
                    "split the service per site by hand, or make the devices agree"))

    # -- edges ------------------------------------------------------------------------------------------------
    def policer(self, env: Envelope, hint: str, origin: Location | None = None) -> str:
        if env not in self.policers:
            base = ident(hint, "policer")
            name, n = base, 2
            while name in self.policers.values():
                name, n = f"{base}-{n}", n + 1
            self.policers[env] = name
            if origin is not None:
                self.origins[("policers", name)] = origin
        return self.policers[env]

    def classifier(self, iface: Interface, service_of: dict[int, str], device: int = 0) -> str | None:
        rules = tuple(r for r in iface.rules if not r.name.startswith("police-"))
        if not rules:
            return None
        drop = iface.unmatched_drop and not iface.trust  # a trusted edge's unmatched traffic is the trusted kind
        key = (rules, iface.unmatched_drop)
        if key in self.classifiers:
            return self.classifiers[key]
        self.diagnostics += unmatched_dropped(iface) if not drop else []  # lifted as `unmatched: drop`
        name = ident(f"{iface.name}-in", "classifier")
        n = 2
        while name in self.classifier_bodies:
            name, n = f"{ident(iface.name + '-in', 'classifier')}-{n}", n + 1
        body = []
        for r in rules:
            item: dict[str, Any] = {"name": ident(r.name, "rule")}
            if match := match_body(r):
                item["match"] = match
            service, why = rule_service(r, service_of, self.by_class, device)
            if service is None:
                self.diagnostics.append(warning("QOS172", f"rule {r.name} {why}: the rule is left out", r.origin))
                continue
            item["service"] = service
            if r.mark is None and not ethernet(r) and not r.implicit and any(self.services[k].get("dscp") for k, n in
                                                          self.service_names.items() if n == service):
                item["mark"] = False  # the packets keep their DSCP; the service's would be marked
            if r.policer is not None:  # equal policers the rules do not share stay apart (one name is shared)
                own = r.policer.shared is None and [x.policer for x in rules].count(r.policer) > 1
                env = replace(r.policer, shared=f"rule {r.name}") if own else r.policer
                item["policer"] = self.policer(env, f"{r.name}-policer", r.origin)
                self.rule_policers.setdefault(service, []).append(item["policer"])
            body.append(item)
        if not body:  # every rule left out (named above): no classifier
            return None
        self.classifiers[key] = name
        self.classifier_bodies[name] = {"rules": body, **({"unmatched": "drop"} if drop else {})}
        if iface.origin is not None:
            self.origins[("classifiers", name)] = iface.origin
        return name


def lift(devices: Sequence[Device], name: str = "imported") -> Lifted:
    """One policy for all the devices (see the module doc)."""
    devices = liftimplicit.views(devices)
    devices = liftfixed.views(devices)
    lifter = _Lifter(name, devices)
    out_devices: dict[str, Any] = {}
    elements: set[Element] = set()
    lifted_from: dict[tuple[str, str], Element] = {}
    for d, device in enumerate(devices):
        mpls_device = any(any(i.classify_exp) or i.marked("exp") for i in device.interfaces)
        ports = Counter(i.name for i in device.interfaces)
        bodies: dict[int, tuple[str, dict[str, Any]]] = {}
        # an interface without queues of its own marks (or classifies) into the services of the others: lifted
        # after them
        for i in sorted(range(len(device.interfaces)), key=lambda i: (lifting.unqueued(device.interfaces[i]),
                                                                      not device.interfaces[i].classes)):
            iface = device.interfaces[i]
            # logical units of one port are interfaces of their own (ae11.700: JUNOS reads the unit from the name)
            called = f"{iface.name}.{iface.unit}" if ports[iface.name] > 1 else iface.name
            body = _interface(lifter, device, (d, i), iface, elements, mpls_device, called == iface.name)
            if body is None:
                continue
            bodies[i] = (called, body)
            lifted_from[(device.name, called)] = element("interface", device.name, iface)
            if iface.origin is not None:
                lifter.origins[("devices", device.name, "interfaces", called)] = iface.origin
        interfaces = dict(bodies[i] for i in sorted(bodies))
        out_devices[device.name] = {"platform": device.platform or "unknown", "interfaces": interfaces}
    lifter.marking()
    liftfixed.classify_only(lifter)
    liftfixed.hosts(lifter, devices, out_devices, elements)
    services = {lifter.service_names[k]: lifter.services[k] for k in liftcaps.strict_order(
        liftcaps.queue_order(list(lifter.services), lifter.queued), lifter.queued)}
    trusted_edge = any(b.get("role") == "edge" and b.get("trust") != "none" for d in out_devices.values()
                       for b in d["interfaces"].values())
    for key, cls in lifter.queued.items():
        liftcaps.strict_cap(lifter, lifter.service_names[key], lifter.services[key], cls, trusted_edge)
    every = set(services)
    for dev in out_devices.values():
        for body in dev["interfaces"].values():
            if "services" in body and set(body["services"]) == every:
                del body["services"]
    policy: dict[str, Any] = {"qosc": 1, "name": name, "services": services}
    if lifter.curves:
        policy["drop-profiles"] = {n: profile_body(c) for c, n in lifter.curves.items()}
    if lifter.policers:
        policy["policers"] = {n: envelope_body(e) for e, n in lifter.policers.items()}
    if lifter.classifier_bodies:
        policy["classifiers"] = lifter.classifier_bodies
    policy["devices"] = out_devices
    return Lifted(policy, lifter.diagnostics, lifter.origins, elements, lifter.carriers, lifter.rule_elements,
                  lifted_from)


def _interface(lifter: _Lifter, device: Device, at: tuple[int, int], iface: Interface, elements: set[Element],
               mpls_device: bool, unit: bool) -> dict[str, Any] | None:
    """The policy body of one interface read back (None when nothing of it can be lifted: named), its services
    made or met on the way; `at`: (device, interface) index; `unit`: the body says the unit.  The elements lifted
    are added to `elements`."""
    default_name = lifter.defaults.get(at, liftmarks.default_class(iface))
    liftable = []
    for cls in iface.classes:
        why = unliftable(iface, cls, default_name, cls.name in lifter.hosts or (at[0], cls.name) in lifter.fixed)
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
    fixed = liftfixed.unliftable(iface, {cls.name for cls in liftable})
    if fixed is not None:
        lifter.diagnostics.append(fixed)
        return None
    kinds = {cls.name: kind_of(lifter.codes_of(iface, cls), cls.name == default_name, cls, *lifter.hosted(cls))
             for cls in liftable}
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
    of_class: dict[str, str] = {}
    for cls in liftable:
        service = lifter.service(iface, cls, cls.name == default_name, levels.get(cls.name), (*at, cls.name))
        carried.append(service)
        of_class[cls.name] = service
        lifter.carriers.setdefault(service, set()).add(element("class", device.name, iface, cls.name))
        elements.add(element("class", device.name, iface, cls.name))
        lifter.by_class.setdefault((at[0], cls.name), service)
        for code in lifter.codes_of(iface, cls):
            service_of[code] = service
    body: dict[str, Any] = {}
    if iface.role is not None:
        body["role"] = iface.role
    if iface.rate is not None:
        body["speed" if iface.shape is None else "shape"] = format_rate(iface.rate)
    if unit and iface.unit:
        body["unit"] = iface.unit
    if lifting.unqueued(iface):  # its rules mark into the services of the device's other interfaces
        service_of = lifter.by_code
    classifier = lifter.classifier(iface, service_of, at[0])
    if not carried and classifier is None:
        lifter.diagnostics.append(warning("QOS172", f"interface {iface.name} unit {iface.unit} not lifted: none of "
                                          "its classes can be a service and none of its rules marks into one",
                                          iface.origin))
        return None
    if classifier is not None:
        body["classifier"] = classifier
        for r in iface.rules:
            if rule_service(r, service_of, lifter.by_class, at[0])[0] is not None:
                elements.add(element("rule", device.name, iface, r.name))
                lifter.rule_elements.setdefault((classifier, ident(r.name, "rule")), set()).add(
                    element("rule", device.name, iface, r.name))
    if iface.trust is not None and iface.role == "edge":
        body["trust"] = "dscp" if iface.trust else "none"
    if liftmarks.involved(iface) or iface.ethernet:
        body.pop("trust", None)
        body.update(liftmarks.settings(iface, iface.role, mpls_device))
    elif iface.role == "edge" and iface.rules and iface.unmatched_mark is None and all(
            r.mark is None for r in iface.rules):  # its rules mark nothing there (a filter, no DSCP rewrite)
        body["rewrite"] = []
    if iface.fixed is not None:
        liftfixed.edge(lifter, body, iface, of_class[iface.fixed], mpls_device)
    body.update(dict(iface.options))
    if iface.default_queueing:
        body["egress-queueing"] = "device-default"
        lifter.diagnostics.append(lifting.device_default(iface))
    if carried or not lifting.unqueued(iface):  # (no class: the interface carries every service)
        body["services"] = carried
    elements.add(element("interface", device.name, iface))
    return body

