"""One IOS XR device as a statement tree: class-maps, policy-maps and the interfaces that bind them.

- a `class-map match-any` per queue (a service and those sharing its queue) and per set of trusted markings:
  `match dscp` (IPv4 and IPv6), `match mpls experimental topmost` where the interface trusts EXP, `match cos`
  where it trusts PCP; the default service is class-default;
- egress: a policy-map per distinct interface treatment (`<policy>-out[-N]`, queues.py); an interface with a
  shaper, or a sub-interface (`unit`), gets a parent policy `...-shape` whose class-default shapes to the
  interface rate and runs the queuing policy under it (`service-policy`);
- ingress (edge.py): at an edge, the classifier rules, policed trusted services and the default mark; on the
  Cisco 8000 (classification and queuing split) every interface gets an ingress policy whose classes set the
  traffic-class of their queue (and a discard-class per drop precedence where WRED differs by precedence), and
  the egress queuing policy matches `traffic-class N`;
- `interface <name>` with `service-policy input` and `service-policy output`.
"""

from __future__ import annotations

from typing import Any

from qosc.diagnostics import Diagnostic, error, info
from qosc.model import Device, Domain, Interface, Policy, Role, Service
from qosc.targets.iosxr.edge import marking_sets, police, rule_class_names, rule_matches, set_lines
from qosc.targets.iosxr.platform import IosxrPlatform
from qosc.targets.iosxr.queues import Queues
from qosc.targets.iosxr.words import dscp_word, kbps_words, label, number, xr_name
from qosc.targets.platform import Range
from qosc.tree import At, Document, Statement, stmt
from qosc.tree import name as name_word

SAID = {"remaining_ratio": "bandwidth remaining ratio {}", "default_queue_us": "default queue-limit {} us",
        "port_buffer_us": "buffer 100% = {} us", "wred_fields": "random-detect keyed by {}",
        "wred_per_class": "{} random-detect profiles per class", "min_bandwidth": "bandwidth (a minimum) taken: {}",
        "strict_cap": "priority classes capped by {}"}
"""How the header says a platform value it assumes."""
MATCH = {Domain.DSCP: ("match", "dscp"), Domain.EXP: ("match", "mpls", "experimental", "topmost"),
         Domain.PCP: ("match", "cos")}


class Lowering:
    def __init__(self, policy: Policy, device: Device, platform: IosxrPlatform) -> None:
        self.policy, self.device, self.platform = policy, device, platform
        self.q = Queues(policy, platform, device.name)
        self.class_maps: dict[str, Statement] = {}
        self.policy_maps: dict[str, Statement] = {}
        self.bodies: dict[tuple[Any, ...], str] = {}

    @property
    def found(self) -> list[Diagnostic]:
        return self.q.found

    # -- class-maps -----------------------------------------------------------------------------------------
    def class_map(self, name: str, matches: list[Statement], where: Any, kind: str = "match-any") -> str:
        name = xr_name(name)
        if name not in self.class_maps:
            self.class_maps[name] = stmt("class-map", kind, label(name), children=matches, origin=where)
        return name

    def queue_class(self, owner: Service, iface: Interface, precedences: tuple[int, ...] = (),
                    egress: bool = False) -> str | None:
        """The class-map of a queue's code points in the markings the interface trusts, and DSCP on egress (the
        ingress marked it), (None: it matches none)."""
        members = self.q.members(owner, iface)
        matches = []
        domains = tuple(d for d in (Domain.DSCP, Domain.EXP, Domain.PCP) if d in iface.trust or
                        (egress and d is Domain.DSCP))
        for domain in domains:
            if domain is Domain.DSCP:
                codes = [c for s in members for c in s.dscp if not precedences or _prec(c) in precedences]
            else:
                codes = [v for s in members for v, p in s.marking(domain).values if not precedences or
                         p in precedences]
            codes = list(dict.fromkeys(codes))
            for i in range(0, len(codes), 8):
                words = [dscp_word(c) if domain is Domain.DSCP else number(c) for c in codes[i:i + 8]]
                matches.append(stmt(*MATCH[domain], *words, origin=At(owner.where, domain.value)))
        if not matches:
            return None
        suffix = "-".join(d.value for d in domains if d is not Domain.DSCP) + ("-only" if Domain.DSCP not in domains
                                                                               else "")
        prec = "-dp" + "".join(str(p) for p in precedences) if precedences else ""
        return self.class_map(owner.name + (f"-{suffix}" if suffix else "") + prec, matches, At(owner.where))

    # -- policies ---------------------------------------------------------------------------------------------
    def policy_map(self, stem: str, classes: list[Statement], where: Any) -> str:
        key = (stem, tuple(classes))
        if key in self.bodies:
            return self.bodies[key]
        n = sum(1 for k in self.bodies if k[0] == stem)
        name = xr_name(f"{self.policy.name}-{stem}" + (f"-{n + 1}" if n else ""))
        self.bodies[key] = name
        self.policy_maps[name] = stmt("policy-map", label(name), children=classes, origin=where)
        return name

    def egress(self, iface: Interface) -> list[Statement]:
        owners = self.q.owners(iface)
        strict = [o for o in owners if o.queue.strict]
        if len(owners) > self.platform.queues or len(strict) > self.platform.priority_levels:
            self.found.append(error("QOS240", f"{self.device.name}:{iface.name} has {len(owners)} queues and "
                                    f"{len(strict)} strict ones; {self.platform.name} has {self.platform.queues} "
                                    f"queues and {self.platform.priority_levels} priority levels",
                                    iface.where.at("services"), "let services share queues (queue.shared-with)"))
        pcts = {o.name: self._pct(o, iface) for o in owners if not o.queue.strict}
        shares = {k: v for k, v in pcts.items() if v is not None}
        classes = []
        for owner in owners:
            body = self.q.body(owner, iface, strict.index(owner) + 1 if owner in strict else 0, shares)
            if owner.default:
                classes.append(stmt("class", "class-default", children=body, origin=At(owner.where),
                                    comment=f"service {owner.name}" + (f": {owner.description}"
                                                                       if owner.description else "")))
                continue
            if self.platform.split:
                name = self.class_map(f"tc{self.q.tc[owner.name]}", [
                    stmt("match", "traffic-class", number(self.q.tc[owner.name]))], At(owner.where))
            else:
                found = self.queue_class(owner, iface, egress=True)
                if found is None:
                    continue
                name = found
            classes.append(stmt("class", label(name), children=body, origin=At(owner.where),
                                comment=f"service {owner.name}" + (f": {owner.description}" if owner.description
                                                                    else "")))
        self._priorities(owners)
        return classes

    def _pct(self, s: Service, iface: Interface) -> float | None:
        from qosc.model import rate_percent
        return rate_percent(s.queue.share, iface.rate)

    def _priorities(self, owners: list[Service]) -> None:
        loose = [o for o in owners if not o.queue.strict]
        if len({o.queue.priority for o in loose}) > 1:
            low = min(loose, key=lambda o: o.queue.priority)
            self.found.append(info("QOS242", f"service '{low.name}' has priority {low.queue.priority.label}, below "
                                   "others, but IOS XR has no priority between non-priority classes: they share "
                                   "what priority traffic leaves by their bandwidth", low.where.at("queue.priority"),
                                   "its share is what it is guaranteed: keep it small"))

    def ingress(self, iface: Interface) -> list[Statement]:
        classes: list[Statement] = []
        policy = self.policy
        split = self.platform.split
        if iface.role is Role.EDGE:
            classifier = policy.classifier_map.get(iface.classifier or "")
            for r in classifier.rules if classifier else ():
                service = policy.service_map.get(r.service)
                if service is None or classifier is None:
                    continue
                owner = policy.queue_owner(service)
                mark: int | None = r.set_dscp if r.set_dscp is not None else (service.mark if service.dscp else None)
                tc = self.q.tc.get(owner.name) if split else None
                body = self._mark(service, iface, mark, tc, policy.policer_map.get(r.policer or service.policer
                                                                                    or ""), At(r.where))
                matches = list(rule_matches(r))
                for name, (_, m) in zip(rule_class_names(classifier, r, len(matches)), matches, strict=True):
                    cname = self.class_map(name, m, At(r.where, "match"), "match-all")
                    classes.append(stmt("class", label(cname), children=body, origin=At(r.where),
                                        comment=[f"rule {r.name}" + (f": {r.description}" if r.description else ""),
                                                 *([f"classifier {classifier.name}: {classifier.description}"]
                                                   if classifier.description else [])]))
        for owner in self.q.owners(iface):
            if owner.default:
                continue
            pol = policy.policer_map.get(owner.policer or "") if iface.role is Role.EDGE else None
            if not split and pol is None and not iface.impose:
                continue
            groups = self._precedence_groups(owner) if split else [()]
            for precs in groups:
                found = self.queue_class(owner, iface, precs)
                if found is None:
                    continue
                prec = precs[0] if precs else 1
                tc = self.q.tc.get(owner.name) if split else None
                body = (self._mark(owner, iface, None, tc, pol, At(owner.where), prec) if pol else
                        set_lines(marking_sets(owner, iface, prec, tc, self.q.discard_class(owner, prec) or None),
                                  At(owner.where)))
                if body:
                    classes.append(stmt("class", label(found), children=body, origin=At(owner.where)))
        default = policy.default_service
        sets: list[Statement] = []
        if default is not None and default in policy.services_on(iface):
            if iface.role is Role.EDGE and Domain.DSCP not in iface.trust:
                sets.append(stmt("set", "dscp", dscp_word(default.mark if default.dscp else 0),
                                 origin=At(iface.where, "trust")))
            sets += set_lines(marking_sets(default, iface, 1, 0 if split else None, None), At(default.where))
        if sets:
            classes.append(stmt("class", "class-default", children=sets))
        return classes

    def _precedence_groups(self, owner: Service) -> list[tuple[int, ...]]:
        """Cisco 8000: the drop precedences whose code points one ingress class marks with one discard-class (a
        precedence without a drop profile goes with the first)."""
        groups = [precs for precs, _ in self.q.drop_groups(owner)]
        if len(groups) <= 1:
            return [()]
        left = tuple(p for p in (1, 2, 3) if not any(p in g for g in groups))
        return [tuple(sorted(groups[0] + left)), *groups[1:]]

    def _mark(self, service: Service, iface: Interface, mark: int | None, tc: int | None, pol: Any, where: Any,
              precedence: int = 1) -> list[Statement]:
        split = self.platform.split
        if pol is None:
            out = [stmt("set", "dscp", dscp_word(mark), origin=where)] if mark is not None else []
            return out + set_lines(marking_sets(service, iface, precedence, tc, None), where)
        extras = {n: marking_sets(service, iface, n, None, self.q.discard_class(service, n) or None if split else None)
                  for n in (1, 2, 3)}
        out = [police(pol, mark, extras)]
        if tc is not None:
            out.append(stmt("set", "traffic-class", number(tc), origin=where))
        return out

    def traffic_classes(self) -> None:
        """Cisco 8000: each queue owner of the device takes a traffic-class, the default service 0."""
        owners: list[Service] = []
        for iface in self.device.interfaces:
            owners += [o for o in self.q.owners(iface) if o not in owners]
        n = 1
        for o in owners:
            if o.default:
                self.q.tc[o.name] = 0
            else:
                self.q.tc[o.name] = n
                n += 1
        if n > self.platform.traffic_classes:
            self.found.append(error("QOS240", f"{self.device.name} needs {n} traffic classes; "
                                    f"{self.platform.name} has {self.platform.traffic_classes}",
                                    self.device.where.at("interfaces"), "let services share queues"))
        elif self.platform.split:
            self.found.append(info("QOS248", f"{self.platform.name} classifies on ingress and queues on egress: "
                                   "every interface of " + self.device.name + " gets an input policy setting the "
                                   "traffic-class of its queue (" + ", ".join(f"{k} {v}" for k, v in
                                                                             self.q.tc.items()) + ")",
                                   self.device.where.at("platform")))

    def _assumed(self) -> list[str]:
        """QOS250 and header lines for the unverified platform values the output relies on (platform `unverified`)."""
        facts = sorted(self.q.assumed)
        if not facts:
            return []
        p = self.platform
        said = {f: SAID.get(f, f + " {}").format(_value(getattr(p, f))) for f in facts}
        self.found.append(info("QOS250", f"{self.device.name}'s configuration relies on values qosc assumes for "
                               f"{p.name}, which no Cisco text qosc's authors could read confirms: " +
                               "; ".join(f"{said[f]} ({f})" for f in facts) + "; its header says what each is "
                               "inferred from", self.device.where.at("platform"),
                               "check them on the box before relying on the configuration"))
        return [f"assumed, not confirmed by a Cisco text qosc's authors read (qosc/targets/iosxr/platforms/"
                f"{p.name}.json, `unverified` and `sources`):",
                *(f"  {said[f]} ({f}): inferred from {p.unverified[f]}" for f in facts)]

    # -- the device -------------------------------------------------------------------------------------------
    def interface(self, iface: Interface) -> Statement:
        cmds: list[Statement] = []
        if iface.role is Role.CORE and Domain.DSCP not in iface.rewrite:
            self.found.append(info("QOS249", f"{self.device.name}:{iface.name} rewrites no DSCP, as IOS XR's output "
                                   "classes never do: each packet leaves with the DSCP it came with (the same as "
                                   "with rewrite dscp for the code points of the policy's services)",
                                   iface.where.at("rewrite")))
        inbound = self.ingress(iface)
        if inbound:
            cmds.append(stmt("service-policy", "input", label(self.policy_map("in", inbound, At(iface.where)))))
        outbound = self.egress(iface)
        if outbound:
            name = self.policy_map("out", outbound, At(iface.where, "services"))
            rate = iface.shape if iface.shape is not None else (iface.speed if iface.unit else None)
            if rate is not None:
                parent = [stmt("class", "class-default", origin=At(iface.where, "shape"), children=[
                    stmt("shape", "average", *kbps_words(rate)), stmt("service-policy", label(name))])]
                name = self.policy_map("shape", parent, At(iface.where, "shape"))
            elif iface.unit:
                self.found.append(error("QOS243", f"sub-interface {self.device.name}:{iface.name}.{iface.unit} "
                                        "queues only under a parent shaper, which needs a rate", iface.where.at("unit"),
                                        "set speed: or shape: on the interface"))
            cmds.append(stmt("service-policy", "output", label(name)))
        ifname = f"{iface.name}.{iface.unit}" if iface.unit else iface.name
        return stmt("interface", name_word(ifname), children=cmds, origin=At(iface.where),
                    comment=f"role {iface.role.value}" + (f": {iface.description}" if iface.description else ""))

    def lower(self) -> Document:
        if self.platform.split:
            self.traffic_classes()
        if self.policy.tunnel_model != "short-pipe" and self.policy.has_mpls:
            self.found.append(error("QOS246", f"tunnel model {self.policy.tunnel_model}: qosc writes IOS XR's "
                                    "short-pipe (the egress PE queues on the customer's DSCP) only",
                                    self.policy.where.at("mpls"), "use mpls.tunnel-model: short-pipe"))
        interfaces = [self.interface(i) for i in self.device.interfaces]
        header = [f"qosc policy {self.policy.name}, device {self.device.name} ({self.platform.name}), target iosxr",
                  "units written on every value: rates bps/kbps/mbps/gbps, bursts bytes, queue-limit and "
                  "random-detect thresholds us/ms"]
        if self.policy.description:
            header.append(f"policy: {self.policy.description}")
        if self.device.description:
            header.append(f"device: {self.device.description}")
        header += self._assumed()
        statements = (*self.class_maps.values(), *self.policy_maps.values(), *interfaces)
        return Document(self.device.name, "iosxr", tuple(statements), tuple(header), At(self.device.where))


def _value(value: object) -> str:
    if isinstance(value, Range):
        return f"{value.low}..{value.high}"
    if isinstance(value, tuple):
        return ", ".join(map(str, value))
    return str(value).lower() if isinstance(value, bool) else str(value)


def _prec(code: int) -> int:
    from qosc.dscp import drop_precedence
    return drop_precedence(code)


def lower_device(policy: Policy, device: Device, platform: IosxrPlatform) -> tuple[Document, list[Diagnostic]]:
    lowering = Lowering(policy, device, platform)
    doc = lowering.lower()
    return doc, sorted(set(lowering.found), key=Diagnostic.sort_key)
