"""Target catalyst6500: Cisco Catalyst 6500 PFC QoS (IOS 12.1E / 12.2SX era).

What a device gets:

- ``mls qos``; ``mls qos map dscp-cos`` for all 64 code points, derived from
  the services (CoS = the service's PCP, else the precedence: cosmap.py, with
  the exceptions), and ``mls qos map cos-dscp`` where a port trusts CoS;
- per interface, from its port type (``port-type:`` in the policy, else the
  platform's ``default_port_type``): ``wrr-queue bandwidth``, ``wrr-queue
  queue-limit``, WRED (``wrr-queue random-detect min-threshold/max-threshold``)
  or tail-drop (``wrr-queue threshold``) thresholds, ``wrr-queue cos-map`` and
  ``priority-queue cos-map``; the queue-mapping rule is documented in
  qosc.targets.ios.pfc;
- ``mls qos trust dscp`` on core, transparent and DSCP-trusting edge ports,
  ``mls qos trust cos`` on ports that trust PCP alone (cosmap.port_trust; the
  PFC/PFC2 has no MPLS QoS: QOS188);
- at edge ports, an input policy-map: ACL classes per classifier rule with
  ``set ip dscp`` and ``police <cir> <normal-burst> [<max-burst>] [pir <pir>]
  conform-action ... exceed-action ... violate-action ...``.  The PFC remarks
  exceeding and violating traffic only through the policed-DSCP maps, so a
  policer that remarks to AFx2/AFx3 becomes ``policed-dscp-transmit`` plus
  ``mls qos map policed-dscp normal-burst|max-burst <class DSCP> to <DSCP>``
  (one global map: two policers wanting different marks for one code point is
  QOS129).  A policer several rule classes of one interface name is one
  policer for all of them: a named aggregate per interface and policer
  (``mls qos aggregate-policer <policer>-<interface> <police arguments>``,
  ``police aggregate <name>`` in each class; a named aggregate polices every
  port it is applied to together, so each interface has its own), named
  within the PFC's 31 characters; rules that mark different code points keep
  a policer each (an aggregate's conform action marks them all alike), with
  QOS130.  The PFC has no egress queueing policy-map: queues are per port.

Every statement tree is checked by the catalyst6500 grammar (its command
table, qosc.targets.ios.table) before it is written.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from typing import Any

from qosc.model import Classifier, Device, Domain, Interface, Policer, Policy, Role, Rule, Service
from qosc.names import Names
from qosc.targets.ios.common import (
    Cmd,
    Command,
    at,
    check_policer,
    chunks,
    descriptions,
    device_services,
    ios_dscp,
    sanitize,
    unique_names,
)
from qosc.targets.ios.cosmap import assign_cos, cos_claimants, cos_to_dscp, dscp_to_cos, port_trust
from qosc.targets.ios.lowering import IosLowering
from qosc.targets.ios.marks import dei_lost
from qosc.targets.ios.pfc import PortPlan, describe
from qosc.targets.ios.platform import CatalystPlatform
from qosc.tree import At


class AggregateUse(Cmd):
    """`police aggregate <name>` of a class whose policer other classes of the interface share: the name is the
    interface's (a named aggregate polices every port it is applied to together), given in lower()."""

    def __init__(self, policer: Policer, police: Command) -> None:
        super().__init__(["police", "aggregate", policer.name], getattr(police, "origin", None))
        self.policer, self.police = policer, police


class CatalystLowering(IosLowering):
    interface_example = "GigabitEthernet1/1"
    platform: CatalystPlatform

    def __init__(self, policy: Policy, device: Device, platform: CatalystPlatform):
        super().__init__(policy, device, platform)
        self.policed: dict[tuple[str, int], tuple[int, Policer]] = {}
        self._ports: dict[Any, Any] = {}  # interface settings -> (queue commands and plan, diagnostics)
        self.aggregates = Names(platform.name, max_length=platform.aggregate_policer_name_max)
        """Names of the named aggregate policers: one per (interface, shared policer)."""

    def aggregate_name(self, iface: Interface, p: Policer) -> str:
        """The aggregate of policer `p` on `iface`: `<policer>-<interface>`, within the platform's length limit
        (a longer name is cut and given a stable hash suffix) and starting with a letter."""
        wanted = sanitize(f"{p.name}-{iface.name}")
        if not ("a" <= wanted[0].lower() <= "z"):
            wanted = f"p-{wanted}"
        return self.aggregates.name("aggregate-policer", wanted, f"policer {p.name} on {iface.name}")

    def port_spec(self, iface: Interface) -> dict[str, Any] | None:
        types = self.platform.port_types
        name = iface.port_type or self.platform.default_port_type
        if name not in types:
            self.found.error("QOS125", f"{self.device.name}:{iface.name} has port type {name!r}, which "
                             f"{self.platform.name} does not know", iface.where.at("port-type"),
                             f"port types: {', '.join(types)}")
            return None
        return {**dataclasses.asdict(types[name]), "name": name}

    # -- policing ----------------------------------------------------------------
    def police(self, p: Policer, internal: Iterable[int], mark: int | None = None) -> Command:
        """PFC `police`; exceed/violate remarks go through the policed-DSCP maps of the class's code points.
        `mark`: the DSCP an untrusted class marks its conforming traffic with.

        A policer whose PIR equals its CIR is one-rate (`police <cir> <bc> [<max-burst>]`, no `pir`); one that
        drops on exceed has no maximum burst (12.2SX refuses `exceed-action drop` with one, and a policer that
        drops above CIR never uses it).  Violating traffic is marked down through the max-burst policed-DSCP map,
        exceeding traffic through the normal-burst map, except where the policer has no `pir` and its maximum
        burst equals its normal burst (or is not entered): then exceed uses the max-burst map too (Catalyst 6500
        IOS Configuration Guide 12.1E, 78-14099-04, Configuring PFC QoS, p. 31-69; the same note in the 12.2SX
        guide's PFC QoS chapter, Cisco 7600 Release 12.2SX OL-4266-08 p. 42-63), so the map written is the one the
        PFC reads (an srTCM with two bursts remarks exceed and violate through two maps)."""
        self.check_buckets(p)
        pir = p.pir if p.pir is not None and p.pir != p.cir else None
        exceed, violate = p.exceed, p.violate if p.colours == 3 else None
        cmd: Command = ["police", p.cir, p.cbs]
        if exceed.kind == "drop":
            violate = None
        elif pir is not None and p.pbs is not None:
            cmd += [p.pbs, "pir", pir]
        elif p.pbs is not None or p.ebs is not None:
            cmd += [p.pbs if p.pbs is not None else p.ebs]
        one_bucket = "pir" not in cmd and (len(cmd) == 3 or cmd[3] == p.cbs)  # no pir, max burst = normal
        conform = p.conform
        if conform.kind == "remark" and conform.dscp is not None:
            cmd += ["conform-action", "set-dscp-transmit", ios_dscp(conform.dscp)]
        elif conform.kind == "transmit" and mark is not None:
            # untrusted: with `conform-action transmit` the PFC applies the port's trust state to conforming
            # traffic, trusting the customer's DSCP instead of marking it (Catalyst 6500 Release 12.2SX Software
            # Configuration Guide, PFC QoS policing); set-dscp-transmit marks it
            cmd += ["conform-action", "set-dscp-transmit", ios_dscp(mark)]
        else:
            cmd += ["conform-action", conform.kind]
        actions = [("exceed", exceed)] + ([("violate", violate)] if violate is not None else [])
        for label, action in actions:
            if action.kind != "remark" or action.dscp is None:
                cmd += [f"{label}-action", action.kind]
                continue
            cmd += [f"{label}-action", "policed-dscp-transmit"]
            kind = "normal-burst" if label == "exceed" and not one_bucket else "max-burst"
            for code in internal:
                key = (kind, code)
                prior = self.policed.setdefault(key, (action.dscp, p))
                if prior[0] == action.dscp:
                    continue
                if prior[1] is p:  # its own exceed, through the max-burst map too
                    self.found.error("QOS129", f"policer '{p.name}' remarks DSCP {code} to {prior[0]} on exceed "
                                     f"and to {action.dscp} on violate, but without pir and with a maximum burst "
                                     "equal to its normal burst the PFC marks both down through one map "
                                     "(max-burst)", p.where.at(label),
                                     "give the policer a larger maximum burst (ebs) or a pir, or one remark")
                    continue
                self.found.error("QOS129", f"policer '{p.name}' {label} remarks DSCP {code} to {action.dscp}, "
                                 f"but policer '{prior[1].name}' remarks it to {prior[0]}; the PFC has one "
                                 f"policed-DSCP map ({key[0]}) per switch", p.where.at(label),
                                 "let both policers remark the same code point alike")
        return at(cmd, p.where)

    def check_sharers(self, services: tuple[Service, ...], cos: Mapping[str, Mapping[int, int]]) -> None:
        """QOS136: a sharer given its owner's CoS lands on the owner's threshold (CoS picks the threshold)."""
        for s in services:
            owner = self.policy.queue_owner(s)
            if not s.queue.shared_with or owner is None or owner is s:
                continue
            same = sorted(set(cos.get(s.name, {}).values()) & set(cos.get(owner.name, {}).values()))
            if same:
                self.found.warning("QOS136", f"service '{s.name}' shares the queue of '{owner.name}' on CoS "
                                   f"{', '.join(map(str, same))}, like its owner, so both land on one drop threshold "
                                   "of the queue and the sharer's own threshold never applies",
                                   s.where.at("queue.shared-with"),
                                   "give the sharer code points of another precedence than its owner's")

    def rule_class(self, classifier: Classifier, rule: Rule) -> str | None:
        name = super().rule_class(classifier, rule)
        if name is not None and not self.platform.ipv6_qos and any(
                a["kind"].startswith("ipv6") for a in self.class_acls(name)):
            self.found.info("QOS137", f"rule '{rule.name}' of classifier '{classifier.name}' matches IPv6, but "
                               f"{self.platform.name}'s PFC has no IPv6 QoS: its IPv6 traffic is neither classified "
                               "nor marked nor policed", rule.where.at("match"),
                               "mark IPv6 on a router, or use a PFC3 (12.2SX)")
        return name

    def class_acls(self, class_map: str) -> list[dict[str, Any]]:
        matches = self.class_maps.get(class_map, {}).get("matches", [])
        return [self.acls[m[-1]] for m in matches if m[:3] == ["match", "access-group", "name"] and m[-1] in self.acls]

    def check_buckets(self, p: Policer) -> None:
        """QOS135: a PFC bucket below rate/4000 bytes (the PFC's sizing rule) polices bursts the rate allows."""
        for rate, size, key in ((p.cir, p.cbs, "cbs"), (p.pir, p.pbs, "pbs")):
            if rate is not None and size is not None and size < rate / 4000:
                self.found.warning("QOS135", f"policer '{p.name}' {key} {size} bytes is below rate/4000 "
                                   f"({math.ceil(rate / 4000)} bytes for {rate} bit/s), the smallest bucket the PFC "
                                   "polices that rate with", p.where.at(key),
                                   f"make {key} at least {math.ceil(rate / 4000)} bytes")

    def shared_policers(self, iface: Interface,
                        planned: list[tuple[Rule, Service, str, int, Policer | None]]) -> set[str]:
        """The policers several rule classes of the interface use: one named aggregate each (the policy's one
        policer polices their traffic together).  The aggregate's conform action marks every class alike, so
        classes that mark different code points keep a policer each, with QOS130."""
        users: dict[str, list[tuple[Rule, int]]] = {}
        for r, _, _, mark, pol in planned:
            if pol is not None:
                users.setdefault(pol.name, []).append((r, mark))
        shared = set()
        for name, used in users.items():
            if len(used) < 2:
                continue
            marks = sorted({ios_dscp(mark) for _, mark in used})
            if len(marks) == 1:
                shared.add(name)
                continue
            self.found.warning("QOS130", f"policer '{name}' is used by {len(used)} classifier rules on "
                               f"{iface.name} ({', '.join(r.name for r, _ in used)}), which mark different code "
                               f"points ({', '.join(marks)}); a PFC named aggregate marks conforming traffic with "
                               "one code point, so each class gets its own policer of the full rate",
                               self.policy.policer_map[name].where.loc,
                               "give each rule its own policer with its share of the rate, or let the rules mark "
                               "alike")
        return shared

    def _lower_ingress(self, iface: Interface) -> list[dict[str, Any]]:
        policy = self.policy
        classes: list[dict[str, Any]] = []
        classifier = policy.classifier_map.get(iface.classifier or "")
        rules = classifier.rules if classifier else ()
        planned: list[tuple[Rule, Service, str, int, Policer | None]] = []
        for r in rules:
            service = policy.service_map.get(r.service)
            if service is None or classifier is None:
                continue
            name = self.rule_class(classifier, r)
            if name is None:
                continue
            mark = r.set_dscp if r.set_dscp is not None else (service.mark if service.dscp else 0)
            planned.append((r, service, name, mark, policy.policer_map.get(r.policer or service.policer or "")))
        shared = self.shared_policers(iface, planned)
        for r, service, name, mark, pol in planned:
            cmds: list[Command] = [["set", "ip", "dscp", ios_dscp(mark)]]
            notes = [f"rule {r.name}"]
            if pol is not None:
                police = self.police(pol, [mark], mark)
                if pol.name in shared:
                    others = [x.name for x, *_, q in planned if q is pol and x is not r]
                    notes.append(f"policer {pol.name} shared with rule{'s' * (len(others) > 1)} "
                                 f"{', '.join(others)}: one named aggregate")
                    police = AggregateUse(pol, police)
                cmds.append(police)
            classes.append({"name": name, "service": service.name, "notes": notes, "commands": cmds})
        default = policy.default_service
        trusted = Domain.DSCP in iface.trust
        if trusted:
            for s in policy.services_on(iface):
                pol = policy.policer_map.get(s.policer or "")
                if pol is None or s is default or not s.dscp:
                    continue
                name = self.class_name(f"{s.name}-dscp", f"service {s.name} dscp")
                self.class_maps.setdefault(name, {"name": name, "kind": "match-any", "origin": At(s.where, "dscp"),
                                                  "matches": [
                    ["match", "ip", "dscp", *[ios_dscp(x) for x in part]] for part in chunks(list(s.dscp), 8)]})
                classes.append({"name": name, "service": s.name, "notes": ["trusted DSCP, policed"],
                                "commands": [["trust", "dscp"], self.police(pol, s.dscp)]})
        dpol = policy.policer_map.get(default.policer or "") if default else None
        mark = default.mark if default and default.dscp else 0
        cos = Domain.PCP in iface.trust and not trusted  # the CoS-to-DSCP map gives the internal DSCP (cosmap.py)
        cmds = [["trust", "dscp"]] if trusted else [["trust", "cos"]] if cos else [["set", "ip", "dscp",
                                                                                    ios_dscp(mark)]]
        if dpol is not None:
            cmds.append(self.police(dpol, list(default.dscp) if trusted and default else [mark],
                                    None if trusted or cos else mark))
        if not (trusted or cos) or dpol is not None:
            classes.append({"name": "class-default", "service": default.name if default else None,
                            "notes": [] if trusted else ["untrusted: unclassified traffic is marked as the default "
                                                         "service"], "commands": cmds})
        return classes

    def with_aggregates(self, iface: Interface, classes: list[dict[str, Any]],
                        aggregates: dict[str, Cmd]) -> list[dict[str, Any]]:
        """The interface's input classes with each shared policer as `police aggregate` of the interface's own
        named aggregate, defined in `aggregates` (`mls qos aggregate-policer <name> <police arguments>`)."""
        if not any(isinstance(cmd, AggregateUse) for c in classes for cmd in c["commands"]):
            return classes
        out = []
        for c in classes:
            cmds: list[Command] = []
            for cmd in c["commands"]:
                if isinstance(cmd, AggregateUse):
                    name = self.aggregate_name(iface, cmd.policer)
                    aggregates.setdefault(name, Cmd(["mls", "qos", "aggregate-policer", name, *cmd.police[1:]],
                                                    cmd.origin))
                    cmd = Cmd(["police", "aggregate", name], cmd.origin)
                cmds.append(cmd)
            out.append({**c, "commands": cmds})
        return out

    # -- the device ----------------------------------------------------------------
    def lower(self) -> dict[str, Any]:
        policy, device = self.policy, self.device
        services = device_services(policy, device)
        cos = assign_cos(policy, services, self.found)
        to_cos = dscp_to_cos(policy, services, cos)
        claimants = cos_claimants(services, cos)
        for s in services:
            if s.queue.ecn:
                self.found.error("QOS123", f"service '{s.name}' asks for ECN, which PFC QoS WRED cannot mark",
                                 s.where.at("queue.ecn"), "remove queue.ecn on catalyst6500 devices")
            self.aqm_supported(s)
            self.caps_supported(s)
        self.check_sharers(services, cos)
        dei_lost(self.found, policy, device, services, self.platform.name, "no DEI in PFC QoS: 3-bit CoS maps only")
        interfaces: list[dict[str, Any]] = []
        ins = []
        for iface in device.interfaces:
            self.check_interface_name(iface)
            spec = self.port_spec(iface)
            notes = [f"role {iface.role.value}" + (f": {iface.description}" if iface.description else "")]
            cmds: list[Command] = []
            plan: list[dict[str, Any]] = []
            cmds += port_trust(iface, device.name, self.platform, self.found)
            if not cmds:
                notes.append("untrusted: the input policy marks every packet")
            if spec is not None:
                wred_max = self.platform.wred_max_probability
                queue_cmds, plan = self.found.per_settings(
                    self._ports, iface, iface.settings(),
                    lambda: PortPlan(policy, iface, spec, self.found, wred_max).commands(claimants))  # noqa: B023 - now
                cmds += queue_cmds
                notes += describe(plan, spec["name"])
            ins.append(self.ingress(iface) if iface.role is Role.EDGE else [])
            interfaces.append({"name": iface.name, "notes": notes, "commands": cmds, "queues": plan,
                               "origin": At(iface.where)})
        used = {s.policer for s in services}
        used |= {r.policer for c in policy.classifiers for r in c.rules}
        for p in policy.policers:
            if p.name in used:
                check_policer(p, self.found, self.platform.name)
        aggregates: dict[str, Cmd] = {}
        edge = [(iface, self.with_aggregates(iface, c, aggregates))
                for iface, c in zip(device.interfaces, ins, strict=True) if c]
        names = unique_names(f"{policy.name}-in", [c for _, c in edge], [i.name for i, _ in edge])
        policy_maps: dict[str, dict[str, Any]] = {}
        for (iface, classes), name in zip(edge, names, strict=True):
            policy_maps.setdefault(name, {"name": name, "classes": classes,
                                          "origin": At(iface.where, "classifier", "trust")})
            entry = interfaces[list(device.interfaces).index(iface)]
            entry["commands"].insert(1 if entry["commands"][:1] and entry["commands"][0][:3] == ["mls", "qos",
                                                                                              "trust"] else 0,
                                     ["service-policy", "input", name])
        glob: list[Command] = [at(["mls", "qos"], device.where)]
        if any(["mls", "qos", "trust", "cos"] in i["commands"] for i in interfaces):
            glob.append(at(["mls", "qos", "map", "cos-dscp", *cos_to_dscp(policy, services, to_cos, self.found)],
                           device.where, "interfaces"))
        for c in range(8):
            codes = [x for x in range(64) if to_cos[x] == c]
            owner = claimants.get(c)
            glob += [at(["mls", "qos", "map", "dscp-cos", *part, "to", c], owner.where if owner else device.where,
                        "dscp") for part in chunks(codes, 8)]
        grouped: dict[tuple[str, int], list[int]] = {}
        policers: dict[tuple[str, int], Policer] = {}
        for (kind, code), (to, p) in sorted(self.policed.items(), key=lambda kv: kv[0]):
            grouped.setdefault((kind, to), []).append(code)
            policers.setdefault((kind, to), p)
        for (kind, to), codes in sorted(grouped.items()):
            glob += [at(["mls", "qos", "map", "policed-dscp", kind, *part, "to", to], policers[kind, to].where,
                        "exceed", "violate") for part in chunks(codes, 8)]
        glob += list(aggregates.values())
        header = [f"qosc policy {policy.name}, device {device.name} ({self.platform.name}), target catalyst6500",
                  "units: police rates bit/s, bursts bytes; queue-limit and thresholds percent of the queue; "
                  "WRR weights relative (1-255)",
                  "egress queues are chosen by CoS: CoS = " + ("the service's PCP of each code point's drop "
                                                               "precedence, else " if any(s.pcp for s in services)
                                                               else "") +
                  "IP precedence of each service's code points; code points of no service take the default "
                  "service's CoS", *descriptions(policy, device)]
        return {"dialect": self.platform.name, "header": header, "globals": glob, "acls": list(self.acls.values()),
                "class_maps": list(self.class_maps.values()), "policy_maps": list(policy_maps.values()),
                "interfaces": interfaces, "cos": {name: dict(v) for name, v in cos.items()}}
