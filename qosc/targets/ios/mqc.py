"""Lower the model for one IOS MQC device (GSR 12000, 7600, ASR, ISR) to plain data.

Rules (the dialect comes from typed platform data, MqcPlatform: ``match``, ``priority``,
``ecn``, ``queue``, ``reservable``):

- one class-map per service (``match ip dscp`` or, where ``match`` is
  ``precedence``, ``match ip precedence``); a service that shares another's
  queue is matched in the owner's class-map; the default service is
  ``class class-default``;
- egress policy-map per interface (equal ones are merged): strict services get
  ``priority`` + ``police`` at the cap (a hard cap: ``priority <kbps>`` only
  limits under congestion; its burst from qosc.sizing, see sizing.py), in the
  dialect's form (``police: positional`` on 12.0S, ``police cir ... bc ...``
  where keywords exist); the cap is ``queue.rate-cap``, else the service
  policer's CIR.  Other services get ``bandwidth percent N`` when every share
  is a whole percentage, else ``bandwidth <kbit/s>``, else ``bandwidth
  remaining ratio`` (one form per policy-map: see shares.py);
- ``queue-limit`` (packets) only where the service has a buffer: a percentage
  of ``queue.port_buffer_packets`` (a qosc convention), or a time at the link
  rate divided by the interface MTU; WRED: see queueing.py;
- interfaces whose guaranteed total exceeds ``reservable.default`` (75% on
  classic IOS) get ``max-reserved-bandwidth 100`` before the service-policy;
- edge interfaces get an input policy-map: one ACL class per classifier rule
  (``set dscp``, or ``police`` whose transmit actions mark the class's DSCP
  so the policer's own remarking is never overwritten), per-service policers
  for trusted traffic, and ``class-default`` marked to the default service
  where the interface trusts nothing;
- MPLS EXP and 802.1p CoS (classification, rewrite, imposition, drop
  precedence by discard-class) and the tunnel model: marks.py.
"""

from __future__ import annotations

from typing import Any

from qosc import dscp as dscp_mod
from qosc.model import Device, Domain, Interface, Policer, Policy, Role, Service
from qosc.targets.ios.classmaps import ClassMatching
from qosc.targets.ios.common import (
    Command,
    Findings,
    at,
    check_policer,
    descriptions,
    device_services,
    ios_dscp,
    is_integral,
    mqc_police,
    percent_text,
    policer_users,
    share_percent,
    unique_names,
)
from qosc.targets.ios.lowering import IosLowering
from qosc.targets.ios.marks import Marks
from qosc.targets.ios.platform import MqcPlatform
from qosc.targets.ios.queueing import Queueing
from qosc.targets.ios.shares import Shares
from qosc.targets.ios.sizing import police_burst, strict_cap
from qosc.tree import At
from qosc.units import format_rate

# `priority` alone is unconditional strict priority: "When used by itself (not followed by the police policy-map
# command), the priority command assigns traffic to a low-latency path ... packets in the priority queue are
# scheduled and sent until the queue is empty" (Cisco ME 3400 Ethernet Access Switch Command Reference,
# OL-9640-07, priority); the grammar's bare `priority` (platforms/ios-gsr.json, source gsr-wred).
UNCAPPED_PRIORITY = "strict priority, uncapped (rate-cap: none): priority without police, served until empty"


class MqcLowering(Queueing, Shares, IosLowering, Marks, ClassMatching):
    def __init__(self, policy: Policy, device: Device, platform: MqcPlatform):
        super().__init__(policy, device, platform)
        self.d = platform
        self.by_precedence = self.d.match == "precedence"  # QOS180 says what that classifies beyond the policy
        self._egress: dict[Any, Any] = {}  # interface settings -> (egress classes, diagnostics)

    # -- class-maps -----------------------------------------------------------
    def class_map(self, wanted: str, codes: list[int], owner: str, where: Any = None) -> str:
        name = self.class_name(wanted, owner)
        self.class_maps.setdefault(name, {"name": name, "kind": "match-any", "matches": self.dscp_lines(codes),
                                          "origin": At(where, "dscp")})
        return name

    # -- checks that only this dialect needs ----------------------------------
    def check_dialect(self, services: tuple[Service, ...]) -> None:
        if self.by_precedence:
            owner_of: dict[int, Service] = {}
            for s in services:
                mine = self.policy.queue_owner(s)
                for x in s.dscp:
                    other = owner_of.setdefault(x >> 3, s)
                    if self.policy.queue_owner(other) is not mine:
                        self.found.error("QOS120", f"service '{s.name}' DSCP {dscp_mod.name(x)} ({x}) has IP "
                                         f"precedence {x >> 3}, like service '{other.name}'; {self.platform.name} "
                                         "classifies by precedence only, so it cannot tell them apart",
                                         s.where.at("dscp"), "give each service code points of its own precedence")
                        break
            self.precedence_reach(services)
        for s in services:
            if s.queue.ecn and not self.d.ecn:
                self.found.error("QOS123", f"service '{s.name}' asks for ECN, which {self.platform.name} "
                                 "(IOS 12.0S) cannot mark", s.where.at("queue.ecn"), "remove queue.ecn")
            self.aqm_supported(s)
            self.caps_supported(s)
        for iface in self.device.interfaces:
            self.check_interface_name(iface)
            self.check_subinterface(iface)
            if iface.shape is not None and self.d.shaping:
                self.shape_fits(iface.shape, f"{self.device.name}:{iface.name}", iface.where.at("shape"),
                                "no shape: to leave the interface unshaped")
        self.priorities_unrendered(services)
        self.check_marking(services)

    def priorities_unrendered(self, services: tuple[Service, ...]) -> None:
        """MQC has one priority, `priority` (the strict class, LLQ); between bandwidth classes there is none, so a
        service whose priority is below another's is said (QOS184), never dropped silently."""
        owners = [s for s in services if not s.queue.strict and not s.queue.shared_with]
        top = max(owners, key=lambda s: s.queue.priority, default=None)
        for s in owners:
            if top is not None and s.queue.priority < top.queue.priority:
                self.found.info("QOS184", f"service '{s.name}' has priority {s.queue.priority.label}, below "
                                   f"'{top.name}' ({top.queue.priority.label}), but {self.platform.name} has no "
                                   "priority between bandwidth classes (its one priority is `priority`, the strict "
                                   "class): the class is served for its bandwidth like the others and takes part in "
                                   "what they leave over by the box's rule, not after them",
                                   s.where.at("queue.priority"), "its bandwidth is all it is guaranteed: keep its "
                                   "share small; JUNOS and Linux render the priority")

    # -- egress -----------------------------------------------------------------
    def strict_cap(self, s: Service, iface: Interface) -> int | None:
        cap = strict_cap(self.policy, s, iface)
        if cap is None and s.queue.rate_cap is not None:
            self.found.error("QOS121", f"strict-priority service '{s.name}' rate cap "
                             f"{percent_text(s.queue.rate_cap)} needs the speed of {self.device.name}:{iface.name}",
                             iface.where.at("speed"), "set speed: on the interface or its profile")
        limits = self.platform.policer_rate  # the range of `police cir` and of `priority <kbit/s>` alike
        if cap is not None and cap > limits.high and self.d.priority == "police":
            where = (s.where.at("queue.rate-cap") if s.queue.rate_cap is not None
                     else self.policy.policer_map[s.policer or ""].where.at("cir"))
            self.found.error("QOS131", f"strict-priority service '{s.name}' is capped at {format_rate(cap)} on "
                             f"{self.device.name}:{iface.name}, but {self.platform.name} limits a priority class "
                             f"only with police, whose rate is at most {format_rate(limits.high)}", where,
                             f"cap the service at {format_rate(limits.high)} or less on this link")
            return None
        if cap is not None and cap not in limits:
            origin = (f"rate cap {percent_text(s.queue.rate_cap)}" if s.queue.rate_cap is not None
                      else f"policer '{s.policer}' CIR")
            where = (s.where.at("queue.rate-cap") if s.queue.rate_cap is not None
                     else self.policy.policer_map[s.policer or ""].where.at("cir"))
            self.found.error("QOS121", f"strict-priority service '{s.name}' is capped at {format_rate(cap)} on "
                             f"{self.device.name}:{iface.name} ({origin}), outside {self.platform.name}'s range "
                             f"{format_rate(limits.low)}..{format_rate(limits.high)}", where,
                             "give the cap as a rate within that range, or check the interface speed")
            return None
        return cap

    def unqueued(self, iface: Interface) -> tuple[list[dict[str, Any]], float]:
        """egress-queueing: device-default: no output policy (the interface queues by IOS's defaults, its input
        policy is kept); QOS209 where the output policy would have had to mark (EXP, CoS) or shape."""
        marking = [s.name for s in self.policy.services_on(iface) if not s.queue.shared_with
                   and self.egress_marks(s, iface)[0]]
        if marking or iface.shape is not None:
            what = "shapes it" if iface.shape is not None else f"rewrites the EXP or CoS of {', '.join(marking)}"
            self.found.error("QOS209", f"{self.device.name}:{iface.name} leaves egress queueing to the device "
                             f"(egress-queueing: device-default) but {what}, which IOS does in the output policy "
                             "that queues", iface.where.at("egress-queueing"),
                             "let the policy queue the interface (egress-queueing: policy), or drop the egress "
                             "rewrite or shape")
        return [], 0.0

    def egress(self, iface: Interface) -> tuple[list[dict[str, Any]], float]:
        """The egress classes of an interface and their guaranteed total %, lowered once per settings."""
        return self.found.per_settings(self._egress, iface, iface.settings(), lambda: self._lower_egress(iface))

    def _lower_egress(self, iface: Interface) -> tuple[list[dict[str, Any]], float]:
        default = self.policy.default_service
        own = [s for s in self.policy.services_on(iface) if not s.queue.shared_with]
        own.sort(key=lambda s: s is default)
        shares = {s.name: share_percent(s, iface) for s in own if not s.queue.strict}
        fractional = [s for s in own if shares.get(s.name) is not None and not is_integral(shares[s.name] or 0)]
        if fractional and not iface.rate:
            self.found.error("QOS121", f"service '{fractional[0].name}' share is not a whole percentage, and IOS "
                             f"needs kbit/s then, but {self.device.name}:{iface.name} has no speed",
                             fractional[0].where.at("queue.share"), "use whole percentages or set the speed")
        matched: set[int] = set()
        for s in own:
            if s is not default:
                matched |= self.covered(self.class_dscps(s))
        form = self.share_form(own, shares, iface)
        ratio_of = self.ratios(own, shares, iface) if form == "ratio" else {}
        classes, total = [], 0.0
        for s in own:
            name = "class-default" if s is default else self.domain_class_map(
                s.name, s, iface, self.dscp_lines(self.class_dscps(s))) if self.matched_domains(iface) \
                else self.class_map(s.name, self.class_dscps(s), f"service {s.name}", s.where)
            cmds, notes = self.egress_marks(s, iface)
            if s.queue.strict:
                cap = self.strict_cap(s, iface)
                if cap is None and s.queue.uncapped and s.policer not in self.policy.policer_map:
                    cmds.append(at(["priority"], s.where, "queue.rate-cap"))
                    notes.append(UNCAPPED_PRIORITY)
                elif cap is not None:
                    total += 100.0 * cap / iface.rate if iface.rate else 0.0
                    if self.d.priority == "kbps":
                        cmds.append(at(["priority", max(8, cap // 1000)], s.where, "queue.rate-cap"))
                        notes.append(f"strict priority, capped at {cap} bit/s")
                    else:
                        burst = police_burst(self.policy, s, cap, iface, self.d)
                        bc = burst.bytes
                        rate: Command = [cap, bc, bc] if self.d.police == "positional" else ["cir", cap, "bc", bc]
                        cmds += [["priority"], at(["police", *rate, "conform-action", "transmit", "exceed-action",
                                                   "drop"], s.where, "queue.rate-cap")]
                        notes.append(f"strict priority, capped at {cap} bit/s; burst {burst.formula}")
                if s.queue.buffer is not None or s.drop_profiles:
                    notes.append("no queue-limit or WRED in a priority class")
                classes.append({"name": name, "service": s.name, "notes": notes, "commands": cmds})
                continue
            pct = shares[s.name]
            ratio, ratio_note = ratio_of.get(s.name, (None, None))
            share = self.bandwidth(s, pct, form, iface, ratio) if pct is not None else None
            cmds += [share] if share is not None else []
            notes += ["no guaranteed share"] if pct is None else [ratio_note] if ratio_note else []
            capped = self.class_cap(s, iface)
            if capped is not None:
                cmds.append(capped[0])
                notes.append(capped[1])
            total += pct or 0.0
            visible = (set(range(64)) - matched) if s is default else self.covered(self.class_dscps(s))
            queue_cmds, queue_notes = self.queue_commands(s, iface, pct, s is default, visible)
            cmds += queue_cmds
            notes += queue_notes
            classes.append({"name": name, "service": s.name, "notes": notes, "commands": cmds})
        if form == "ratio":
            self.ratio_surplus(own, shares, total - sum(pct or 0.0 for pct in shares.values()), iface)
        return classes, total

    # -- ingress (see IosLowering.ingress) ----------------------------------------
    def police(self, p: Policer, mark: int | None = None) -> Command:
        """The dialect's `police` for a policer (positional on classic IOS); a two-rate policer where the release
        has no two-rate policing is QOS132 at its pir."""
        if p.pir is not None and not self.d.two_rate:
            self.found.error("QOS132", f"policer '{p.name}' is two-rate (pir), but {self.platform.name} has only "
                             "the single-rate police of classic IOS (two-rate policing came with 12.2(4)T)",
                             p.where.at("pir"), "police at one rate here (cir and cbs, with ebs for three colours)")
        return mqc_police(p, mark, positional=self.d.police == "positional")

    def _lower_ingress(self, iface: Interface) -> list[dict[str, Any]]:
        """The input classes of an edge: its classifier's rules (each marks its service's DSCP, polices, imposes
        EXP), policed services where it trusts DSCP, the 3-bit classes of what it trusts (marks.py), and
        class-default, which marks the default service where the edge trusts nothing."""
        policy = self.policy
        imposing = iface.impose
        classes: list[dict[str, Any]] = []
        classifier = policy.classifier_map.get(iface.classifier or "")
        rules = classifier.rules if classifier else ()
        policer_users(policy, iface, rules, self.found)
        for r in rules:
            service = policy.service_map.get(r.service)
            if service is None or classifier is None:
                continue
            mark = r.set_dscp if r.set_dscp is not None else (service.mark if service.dscp else 0)
            name = self.rule_class(classifier, r)
            if name is None:
                continue
            pol = policy.policer_map.get(r.policer or service.policer or "")
            sets, police = self.rule_imposition(mark, pol, r.where) if imposing else ([], None)
            plain = self.police(pol, mark) if pol is not None else None  # its checks (QOS132) in every case
            cmds = sets + [police or plain] if plain is not None else [
                at([*self.d.set_dscp.split(), ios_dscp(mark)], r.where, "set-dscp", "service"), *sets]
            classes.append({"name": name, "service": service.name, "notes": [f"rule {r.name}"], "commands": cmds})
        default = policy.default_service
        policed: set[str] = set()
        for s in policy.services_on(iface):
            pol = policy.policer_map.get(s.policer or "")
            if pol is None or s is default or Domain.DSCP not in iface.trust:
                continue
            policed.add(s.name)
            sharers = any(o.queue.shared_with and policy.queue_owner(o) is s for o in policy.services)
            name = self.class_map(f"{s.name}-only" if sharers else s.name, list(s.dscp),
                                  f"service {s.name}" + (" alone" if sharers else ""), s.where)
            sets = self.rule_imposition(s.mark, None, s.where)[0] if imposing else []
            classes.append({"name": name, "service": s.name, "notes": ["trusted DSCP, policed"],
                            "commands": [*sets, self.police(pol)]})
        if imposing and Domain.DSCP in iface.trust:
            classes += self.trusted_imposition(iface, policed)
        classes += self.domain_input_classes(iface)
        dpol = policy.policer_map.get(default.policer or "") if default else None
        mark = default.mark if default and default.dscp else 0
        cmds = []
        if not iface.trust:
            cmds = [self.police(dpol, mark)] if dpol else [[*self.d.set_dscp.split(), ios_dscp(mark)]]
        elif dpol is not None and default is not None:
            cmds = [self.police(dpol)]
        exp = self.mark(default, Domain.EXP, 1) if imposing and default is not None else None
        cmds += [at(self.impose(exp), default.where, "exp")] if exp is not None and default is not None else []
        if cmds:
            notes = [] if iface.trust else ["untrusted: unclassified traffic is marked as the default service"]
            classes.append({"name": "class-default", "service": default.name if default else None, "notes": notes,
                            "commands": cmds})
        return classes

    # -- the device -------------------------------------------------------------
    def lower(self) -> dict[str, Any]:
        policy, device = self.policy, self.device
        self.check_dialect(device_services(policy, device))
        outs, ins, totals = [], [], []
        for iface in device.interfaces:
            classes, total = self.egress(iface) if not iface.default_queueing else self.unqueued(iface)
            outs.append(classes)
            totals.append(total)
            ins.append(self.ingress(iface) if iface.role is Role.EDGE else self.domain_input_classes(iface))
        used = {r.policer or (policy.service_map[r.service].policer if r.service in policy.service_map else None)
                for i in device.interfaces if i.role is Role.EDGE and i.classifier in policy.classifier_map
                for r in policy.classifier_map[i.classifier or ""].rules}
        used |= {s.policer for s in device_services(policy, device)}
        for p in policy.policers:
            if p.name in used:
                check_policer(p, self.found, self.platform.name)
        names = [i.name for i in device.interfaces]
        out_names = unique_names(f"{policy.name}-out", outs, names)
        edge = [(i.name, c) for i, c in zip(device.interfaces, ins, strict=True) if c]
        in_names = dict(zip([n for n, _ in edge], unique_names(f"{policy.name}-in", [c for _, c in edge],
                                                               [n for n, _ in edge]), strict=True))
        policy_maps: dict[str, dict[str, Any]] = {}
        interfaces = []
        reservable = self.d.reservable
        for iface, classes, total, out_name in zip(device.interfaces, outs, totals, out_names, strict=True):
            notes = [f"role {iface.role.value}" + (f": {iface.description}" if iface.description else "")]
            cmds: list[Command] = []
            if total > reservable.default + 1e-9:
                notes.append(f"guaranteed bandwidth totals {total:.4g}%, above the IOS default of "
                             f"{reservable.default}% reservable")
                cmds.append(at([reservable.command, 100], iface.where, "services"))
            if iface.name in in_names:
                policy_maps.setdefault(in_names[iface.name], {"name": in_names[iface.name],
                                                              "classes": ins[names.index(iface.name)],
                                                              "origin": At(iface.where, "classifier", "trust")})
                cmds.append(["service-policy", "input", in_names[iface.name]])
            if classes:
                policy_maps.setdefault(out_name, {"name": out_name, "classes": classes,
                                                  "origin": At(iface.where, "services")})
                attached = out_name
                if iface.shape is not None and self.d.shaping:
                    # hierarchical: the parent shapes everything (class-default) and runs the classes under it,
                    # whose shares are of the shaped rate (Interface.rate)
                    attached = f"{out_name}-shape-{iface.shape}"
                    policy_maps.setdefault(attached, {"name": attached, "origin": At(iface.where, "shape"), "classes": [
                        {"name": "class-default", "service": None, "notes": [f"shape to {iface.shape} bit/s"],
                         "commands": [["shape", "average", iface.shape], ["service-policy", out_name]]}]})
                cmds.append(["service-policy", "output", attached])
            name = f"{iface.name}.{iface.unit}" if iface.unit and self.d.shaping else iface.name
            interfaces.append({"name": name, "notes": notes, "commands": cmds, "origin": At(iface.where)})
        q = self.d.queue
        police = ("police <bit/s> <burst-normal bytes> <burst-max bytes>" if self.d.police == "positional"
                  else "police cir/pir bit/s, bc/be bytes")
        queue = (f"the class's queue (buffer, else {q.default_delay_us / 1000:g} ms at the link rate in MTU packets)"
                 if q.default_delay_us is not None else "queue-limit (buffer, else one BDP at the class's guarantee)"
                 if q.default_bdp else f"queue-limit (default {q.default_limit} packets)")
        header = [f"qosc policy {policy.name}, device {device.name} ({self.platform.name}), target ios-mqc",
                  f"units: bandwidth and priority kbit/s, {police}, queue-limit and WRED thresholds packets",
                  f"WRED thresholds = drop-profile fill % x {queue}; "
                  f"buffer % = share of a {q.port_buffer_packets}-packet pool", *descriptions(policy, device)]
        return {"dialect": self.platform.name, "header": header,
                "acls": list(self.acls.values()), "class_maps": list(self.class_maps.values()),
                "policy_maps": list(policy_maps.values()), "interfaces": interfaces}


def lower(policy: Policy, device: Device, platform: MqcPlatform) -> tuple[dict[str, Any], Findings]:
    lowering = MqcLowering(policy, device, platform)
    ir = lowering.lower()
    return ir, lowering.found
