"""What both Cisco lowerings keep per device (ios-mqc and catalyst6500 subclass it): findings, the device's
names (class-maps and ACLs never share one), ACLs and class-maps by name, input classes per interface settings,
and the checks both make (interface names, queue.aqm, caps)."""

from __future__ import annotations

import re
from typing import Any

from qosc.model import Classifier, Device, Interface, Policy, Rule, Service
from qosc.names import Names
from qosc.targets.ios.acl import rule_acls
from qosc.targets.ios.common import Findings
from qosc.targets.ios.platform import IosPlatform as Platform
from qosc.tree import At
from qosc.units import Percent

RESERVED = frozenset({"class-default"})
"""The class IOS predefines in every policy-map (Cisco IOS QoS Command Reference, class-default)."""
NAME_LIMIT = 1000
"""No length limit is enforced here: the command tables' NAME token has none (a limit needs its source)."""

IFNAME = re.compile(r"[A-Za-z][A-Za-z0-9/.:-]*")


class IosLowering:
    """One Cisco device on its way to IR: findings, ACLs and class-maps by name, input classes per settings."""

    interface_example = "GigabitEthernet0/0/0"
    """How this platform names an interface, for the hint of a name IOS would refuse."""

    def __init__(self, policy: Policy, device: Device, platform: Platform) -> None:
        self.policy, self.device, self.platform = policy, device, platform
        self.found = Findings()
        self.acls: dict[str, dict[str, Any]] = {}
        self.class_maps: dict[str, dict[str, Any]] = {}
        self.names = Names("ios", max_length=NAME_LIMIT, reserved=RESERVED)
        """Every class-map and ACL name of the device, so a service named like a rule's class-map (c1-r1) or
        like a reserved class (class-default) never shares a name with another object."""
        self._ingress: dict[Any, Any] = {}  # interface settings -> (input classes, diagnostics)

    def class_name(self, wanted: str, owner: str) -> str:
        """The class-map name of `owner` (the same owner always gets the same name)."""
        return self.names.name("class-map", wanted, owner)

    def aqm_supported(self, s: Service) -> None:
        """queue.aqm: red is the service's WRED (its drop profile), none tail drop (no WRED even with a drop
        profile); IOS has no CoDel, so `codel` is QOS139 at the field."""
        if s.queue.aqm == "codel":
            self.found.error("QOS139", f"service '{s.name}' asks for CoDel, which {self.platform.name} does not "
                             "have (WRED or tail drop only)", s.where.at("queue.aqm"),
                             "aqm: red (with a drop profile) or aqm: none")

    def caps_supported(self, s: Service) -> None:
        """A rate cap or a ceiling below 100% on a class that is not strict: IOS XE shapes the bandwidth class
        (`shape average`, shares.py); elsewhere (classic IOS, the PFC) it would run uncapped: QOS191 at the field."""
        q = s.queue
        if q.strict or s.name != self.policy.queue_owner(s).name or getattr(self.platform, "shaping", False):
            return
        field = "queue.rate-cap" if q.rate_cap is not None else "queue.ceiling" if (
            q.ceiling is not None and q.ceiling != Percent(100.0)) else None
        if field is not None:
            self.found.error("QOS191", f"service '{s.name}' has a {field.split('.')[1]} but is not strict: "
                             f"{self.platform.name} bandwidth classes are not capped by qosc (only priority "
                             "classes, by police), so the cap would be dropped", s.where.at(field),
                             "remove it, or make the service strict (priority + police at the cap)")

    def check_interface_name(self, iface: Interface) -> None:
        if not IFNAME.fullmatch(iface.name):
            self.found.error("QOS121", f"interface name {iface.name!r} is not an IOS interface name",
                             iface.where.loc, f"write it as IOS does, e.g. {self.interface_example}")

    def check_subinterface(self, iface: Interface) -> None:
        """QOS186 (ios-mqc): a sub-interface (`unit:`, or a dotted name such as POS0/0.1) where the dialect writes
        no shaper.  The output policy queues (bandwidth, priority, WRED), and IOS attaches a queueing policy to a
        sub-interface only under a shaper: "Cisco IOS logical interfaces do not inherently support a state of
        congestion and do not support the direct application of a service policy that applies a queueing method",
        the router answering `CBWFQ : Not supported on subinterfaces` (Cisco tech note 10104, Applying QoS Features
        to Ethernet Subinterfaces, IOS 12.2(2)T; tech note 10050 says the same of ATM sub-interfaces).  Both
        spellings get the same refusal."""
        main, dot, _ = iface.name.partition(".")
        if getattr(self.platform, "shaping", False) or not (iface.unit or dot):
            return
        name = iface.name if dot else f"{iface.name}.{iface.unit}"
        self.found.error("QOS186", f"{self.device.name}:{name} is a sub-interface, but {self.platform.name} attaches "
                         "its output policy (bandwidth, priority, WRED: queueing) to it directly, and IOS queues on a "
                         "sub-interface only under a shaper (`CBWFQ : Not supported on subinterfaces`, Cisco tech "
                         f"note 10104), which qosc does not write on {self.platform.name}",
                         iface.where.at("unit") if iface.unit else iface.where.loc,
                         f"apply the policy to the main interface {main}")

    def ingress(self, iface: Interface) -> list[dict[str, Any]]:
        """The input classes of an edge interface, lowered once per settings.

        Their side effects (ACLs, class-maps, policed-DSCP entries) are keyed by
        name, so the first interface of given settings makes all of them.
        """
        return self.found.per_settings(self._ingress, iface, iface.settings(), lambda: self._lower_ingress(iface))

    def _lower_ingress(self, iface: Interface) -> list[dict[str, Any]]:
        raise NotImplementedError

    def rule_class(self, classifier: Classifier, rule: Rule) -> str | None:
        """The class-map of a classifier rule, its ACLs and class-map kept by name; None if it has no ACL."""
        acls = rule_acls(classifier.name, rule, self.found, self.names)
        if not acls:
            return None
        for acl in acls:
            self.acls.setdefault(acl["name"], acl)
        name = self.class_name(f"{classifier.name}-{rule.name}", f"rule {classifier.name}/{rule.name}")
        self.class_maps.setdefault(name, {"name": name, "kind": "match-any", "origin": At(rule.where),
                                          "matches": [["match", "access-group", "name", a["name"]] for a in acls]})
        return name
