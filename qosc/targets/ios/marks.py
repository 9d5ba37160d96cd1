"""MPLS EXP and 802.1p CoS in IOS MQC (issue 21): what the classes of an ios-mqc device match and write.

The dialect's forms are typed platform data (MqcPlatform.marking, each with its command table source):

- classification.  An interface that trusts EXP (PCP) matches each service's EXP (PCP) values in its output
  class-maps (`match mpls experimental topmost V...`, 12.0S `match mpls experimental V...`; `match cos V...`),
  beside its DSCPs: class-maps `<service>-exp`, `-pcp`, `-exp-pcp`, so interfaces that do not carry the domain
  keep the DSCP-only `<service>`.  Values of no service fall to class-default.  MQC classes carry no drop
  precedence: an input class per (service, drop precedence above low) writes `set discard-class P` (P = the
  drop precedence, 2 or 3) for its values where the release has discard-class (IOS XE); 12.0S has none (QOS193).
- rewrite.  IOS keeps the EXP of a labelled packet unless a class sets it: an interface that rewrites EXP sets
  `set mpls experimental topmost M` in class-default (values of no service leave as the default service's) and
  in each class whose values are not all their drop precedence's mark; one value per class, so a class whose
  marks differ by drop precedence keeps what it carries (QOS194); 12.0S has no topmost rewrite (QOS194).  An
  interface that rewrites PCP sets `set cos M` in every class (the mark of drop precedence low: QOS194 where the
  service's medium and high differ); 12.0S: QOS188.
- imposition.  An edge that imposes EXP sets it in its input policy: `set mpls experimental imposition E`
  (12.0S: `set mpls experimental E`) in each rule class, E the EXP of the service the rule's DSCP belongs to at
  that DSCP's drop precedence; a policer whose colours lead to different EXP values sets it per colour
  (IOS XE: the police block with two actions per colour, `set-dscp-transmit` and
  `set-mpls-exp-imposition-transmit`; 12.0S takes one action per colour: QOS188).  Edges that trust DSCP impose per
  (service, EXP) class of the DSCPs; edges that trust PCP per (service, drop precedence) class of the CoS
  values; class-default imposes the default service's EXP.
"""

from __future__ import annotations

from typing import Any

from qosc import dscp as dscp_mod
from qosc.model import Device, Domain, Interface, Policer, Policy, Role, Service
from qosc.targets.ios.common import Command, Findings, at, chunks, ios_dscp, mqc_action
from qosc.targets.ios.platform import IosPlatform, MqcPlatform
from qosc.tree import At

THREE = (Domain.EXP, Domain.PCP)
PRECEDENCE = {1: "low", 2: "medium", 3: "high"}


class Marks:
    """What MqcLowering needs for the 3-bit marking domains (mixed in: it has these attributes)."""

    policy: Policy
    device: Device
    d: MqcPlatform
    platform: IosPlatform
    found: Findings
    class_maps: dict[str, dict[str, Any]]

    def class_name(self, wanted: str, owner: str) -> str:
        raise NotImplementedError

    # -- values ---------------------------------------------------------------------------------------------------
    def matched_domains(self, iface: Interface) -> tuple[Domain, ...]:
        """The 3-bit domains the output classes of an interface match: those it trusts."""
        return tuple(d for d in THREE if d in iface.trust)

    def queue_values(self, owner: Service, domain: Domain) -> list[int]:
        """The values of a queue in a domain: its owner's, then those of the services that share it."""
        out: list[int] = []
        for s in [owner, *(s for s in self.policy.services if s.queue.shared_with and s is not owner
                           and self.policy.queue_owner(s) is owner)]:
            out += [v for v in s.codes(domain) if v not in out]
        return out

    def match_lines(self, domain: Domain, values: list[int]) -> list[Command]:
        if domain is Domain.EXP:
            head = ["match", "mpls", "experimental"] + (["topmost"] if self.d.marking.exp == "topmost" else [])
            return [[*head, *part] for part in chunks(values, 8)]
        return [["match", "cos", *part] for part in chunks(values, 4)]

    def mark(self, s: Service, domain: Domain, precedence: int) -> int | None:
        """The value a service leaves with at a drop precedence (the default service's 0 when it declares none)."""
        value = s.mark_in(domain, precedence)
        return 0 if value is None and s.default else value

    def exp_of_dscp(self, code: int) -> int | None:
        """The EXP imposed on a packet of DSCP `code`: its service's at the code point's drop precedence (a code
        point of no service is the default service's)."""
        owner = next((s for s in self.policy.services if code in s.dscp), self.policy.default_service)
        return None if owner is None else self.mark(owner, Domain.EXP, dscp_mod.drop_precedence(code))

    def impose(self, value: int) -> Command:
        if self.d.marking.exp == "topmost":
            return ["set", "mpls", "experimental", "imposition", value]
        return ["set", "mpls", "experimental", value]

    # -- output classes -------------------------------------------------------------------------------------------
    def domain_class_map(self, name: str, owner: Service, iface: Interface, dscp_lines: list[Command]) -> str:
        """The class-map of a queue on an interface that trusts EXP or PCP: its DSCP lines and its values there."""
        domains = self.matched_domains(iface)
        cm = self.class_name(f"{name}-{'-'.join(d.value for d in domains)}",
                             f"service {owner.name} {' '.join(d.value for d in domains)}")
        lines = list(dscp_lines)
        for domain in domains:
            lines += self.match_lines(domain, self.queue_values(owner, domain))
        self.class_maps.setdefault(cm, {"name": cm, "kind": "match-any", "matches": lines,
                                        "origin": At(owner.where, *(d.value for d in domains))})
        return cm

    def egress_marks(self, owner: Service, iface: Interface) -> tuple[list[Command], list[str]]:
        """The EXP and CoS a queue's class writes on an interface that rewrites them (module doc)."""
        cmds: list[Command] = []
        notes: list[str] = []
        marks = {d: {p: self.mark(owner, d, p) for p in (1, 2, 3)} for d in THREE}
        if Domain.EXP in iface.rewrite and iface.mpls:
            kept = Domain.EXP in iface.trust and all(
                self.policy.queue_owner(s) is not owner or all(marks[Domain.EXP][p] == v
                                                                 for v, p in s.marking(Domain.EXP).values)
                for s in self.policy.services)
            wanted = set(marks[Domain.EXP].values()) - {None}
            if owner.default or not kept:
                if len(wanted) == 1 and self.d.marking.exp_rewrite:
                    value = wanted.pop()
                    cmds.append(at(["set", "mpls", "experimental", "topmost", value], owner.where, "exp"))
                    notes.append(f"EXP rewritten to {value}")
                elif wanted:
                    self.rewrite_unrendered(owner, iface, Domain.EXP, marks[Domain.EXP])
        if Domain.PCP in iface.rewrite and iface.vlan:
            value = marks[Domain.PCP][1]
            if not self.d.marking.set_cos:
                self.found.error("QOS188", f"{self.device.name}:{iface.name} rewrites PCP, but {self.platform.name} "
                                 "has no `set cos` qosc knows of (match cos came with 12.0(25)S; no source for set "
                                 "cos in 12.0S)", iface.where.at("rewrite", "encapsulation"),
                                 "remove pcp from the interface's rewrite, or mark PCP on the next switch")
            elif value is not None:
                cmds.append(at(["set", "cos", value], owner.where, "pcp"))
                if len(set(marks[Domain.PCP].values()) - {None}) > 1:
                    self.rewrite_unrendered(owner, iface, Domain.PCP, marks[Domain.PCP])
        return cmds, notes

    def rewrite_unrendered(self, owner: Service, iface: Interface, domain: Domain,
                           marks: dict[int, int | None]) -> None:
        """QOS194: an EXP or PCP rewrite one MQC class cannot write (module doc)."""
        given = {v for v in marks.values() if v is not None}
        by = f"to {given.pop()}" if len(given) == 1 else "per drop precedence (" + ", ".join(
            f"{PRECEDENCE[p]} {v}" for p, v in marks.items() if v is not None) + ")"
        if domain is Domain.PCP:
            what = f"every packet of the class leaves with PCP {marks[1]} (`set cos` writes one value a class)"
        elif not self.d.marking.exp_rewrite:
            what = ("12.0S keeps the EXP a labelled packet arrives with (`set mpls experimental topmost` came with "
                    "12.2(13)T): values the policy rewrites leave as they came")
        else:
            what = "the class keeps the EXP its packets arrive with (`set mpls experimental topmost` writes one value)"
        self.found.warning("QOS194", f"{self.device.name}:{iface.name} rewrites the {domain.label} of "
                           f"'{owner.name}' {by}, but {what}", owner.where.at(domain.value),
                           f"give '{owner.name}' one {domain.label} value, or carry its drop precedences in "
                           "separate services")

    # -- input classes ----------------------------------------------------------------------------------------------
    def rule_imposition(self, mark: int, pol: Policer | None, where: Any) -> tuple[list[Command], Command | None]:
        """A rule class's EXP imposition: class-level set commands, and the police command that replaces the plain
        one where the policer's colours impose different values (None: keep the plain police)."""
        conform = self.colour_dscp(pol.conform, mark) if pol else mark
        colours = [conform] if pol is None else [self.colour_dscp(a, mark) for a in self.colours(pol)]
        values = [self.exp_of_dscp(c) if c is not None else None for c in colours]
        distinct = {v for v in values if v is not None}
        if len(distinct) <= 1:
            return ([at(self.impose(distinct.pop()), where, "service")] if distinct else []), None
        assert pol is not None
        return self.colour_police(pol, mark, values)

    @staticmethod
    def colours(p: Policer) -> list[Any]:
        return [p.conform, p.exceed] + ([p.violate] if p.colours == 3 and p.violate is not None else [])

    @staticmethod
    def colour_dscp(action: Any, mark: int) -> int | None:
        """The DSCP a colour leaves with (None: dropped)."""
        if action.kind == "drop":
            return None
        return action.dscp if action.kind == "remark" and action.dscp is not None else mark

    def colour_police(self, p: Policer, mark: int, values: list[int | None]) -> tuple[list[Command], Command | None]:
        """A policer whose colours impose different EXP values: IOS XE's police block (a DSCP and an EXP action per
        colour); 12.0S takes one action per colour, and a colour's EXP differs only where its DSCP does: QOS188."""
        labels = ["conform", "exceed", "violate"]
        if self.d.marking.police_actions:
            head: list[Any] = ["police", "cir", p.cir, "bc", p.cbs]
            if p.pir is not None and p.pbs is not None:
                head += ["pir", p.pir, "be", p.pbs]
            elif p.ebs is not None:
                head += ["be", p.ebs]
            body: list[Command] = []
            for label, action, value in zip(labels, self.colours(p), values, strict=False):
                body.append([f"{label}-action", *mqc_action(action.kind, action.dscp, mark)])
                if value is not None:
                    body.append([f"{label}-action", "set-mpls-exp-imposition-transmit", value])
            return [], Block(head, body, At(p.where))
        self.found.error("QOS188", f"policer '{p.name}' remarks a DSCP and imposes a different EXP per colour, but "
                         f"{self.platform.name} takes one police action per colour (multiple actions came with "
                         "12.2(8)T, in 12.0(26)S for the 7200 and 7500 only)", p.where.at("exceed", "violate"),
                         "give the colours' code points one EXP (exp: one value for the service's drop precedences), "
                         "or police on IOS XE")
        return [], None

    def domain_input_classes(self, iface: Interface) -> list[dict[str, Any]]:
        """The input classes of the 3-bit domains an interface trusts (module doc): per (service, drop precedence)
        `match` of its values, with `set discard-class` above low and the imposed EXP at an edge that imposes."""
        classes: list[dict[str, Any]] = []
        imposing = iface.impose and iface.role is Role.EDGE
        for domain in self.matched_domains(iface):
            for s in self.policy.services_on(iface):
                groups: dict[int, list[int]] = {}
                for value, prec in s.marking(domain).values:
                    if s.marking(domain).precedence_of(value) == prec and value not in groups.get(prec, []):
                        groups.setdefault(prec, []).append(value)
                for prec, values in sorted(groups.items()):
                    cmds: list[Command] = []
                    if prec > 1 and self.d.marking.discard_class:
                        cmds.append(at(["set", "discard-class", prec], s.where, domain.value))
                    elif prec > 1:
                        self.precedence_lost(s, iface, domain, values, prec)
                    exp = self.mark(s, Domain.EXP, prec) if imposing and domain is Domain.PCP else None
                    if exp is not None:
                        cmds.append(at(self.impose(exp), s.where, "exp"))
                    if not cmds:
                        continue
                    suffix = f"{domain.value}" + (f"-dp{prec}" if prec > 1 else "")
                    name = self.class_name(f"{s.name}-{suffix}-in", f"service {s.name} {domain.value} {prec} input")
                    self.class_maps.setdefault(name, {"name": name, "kind": "match-any", "origin": At(
                        s.where, domain.value), "matches": self.match_lines(domain, values)})
                    notes = [f"{domain.label} {' '.join(map(str, values))}: '{s.name}', drop precedence "
                             f"{PRECEDENCE[prec]}"]
                    classes.append({"name": name, "service": s.name, "notes": notes, "commands": cmds})
        return classes

    def precedence_lost(self, s: Service, iface: Interface, domain: Domain, values: list[int], prec: int) -> None:
        self.found.warning("QOS193", f"{self.device.name}:{iface.name} classifies {domain.label} "
                           f"{', '.join(map(str, values))} into '{s.name}' at drop precedence {PRECEDENCE[prec]}, but "
                           f"{self.platform.name} has no discard-class (12.2(13)T): MQC classes carry no drop "
                           "precedence, so they travel at low", s.where.at(domain.value),
                           "give the drop precedences of the service the same WRED treatment, or classify on a "
                           "release with discard-class (IOS XE)")

    def trusted_imposition(self, iface: Interface, policed: set[str]) -> list[dict[str, Any]]:
        """At an edge that trusts DSCP and imposes: one input class per (service, EXP) of the DSCPs (services
        `policed` there impose in their policer's class)."""
        classes: list[dict[str, Any]] = []
        for s in self.policy.services_on(iface):
            if s.name in policed:
                continue
            groups: dict[int, list[int]] = {}
            for code in s.dscp:
                exp = self.exp_of_dscp(code)
                if exp is not None:
                    groups.setdefault(exp, []).append(code)
            for exp, codes in sorted(groups.items()):
                name = self.class_name(f"{s.name}-exp{exp}-in", f"service {s.name} impose {exp}")
                word = ["match", "dscp"] if self.d.match == "dscp" else ["match", "ip", "dscp"]
                self.class_maps.setdefault(name, {"name": name, "kind": "match-any", "origin": At(s.where, "exp"),
                                                  "matches": [[*word, *map(ios_dscp, part)]
                                                              for part in chunks(codes, 8)]})
                classes.append({"name": name, "service": s.name, "notes": [f"imposes EXP {exp}"],
                                "commands": [at(self.impose(exp), s.where, "exp")]})
        return classes


    def check_marking(self, services: tuple[Service, ...]) -> None:
        """QOS189: a tunnel model the platform is not rendered for, on a device with edge and MPLS interfaces (a
        P router behaves alike in every model); QOS193: PCP drop precedences carried in the DEI."""
        interfaces = self.device.interfaces
        model = self.policy.tunnel_model
        if model not in self.d.marking.tunnel_models and any(i.mpls for i in interfaces) and any(
                i.role is Role.EDGE for i in interfaces):
            self.found.error("QOS189", f"mpls.tunnel-model is {model}, but qosc renders only "
                             f"{', '.join(self.d.marking.tunnel_models)} on {self.platform.name} ({self.device.name} "
                             "is a provider edge): Cisco configures pipe and uniform with qos-group set from the "
                             "topmost EXP on the core interfaces and queued on by the customer interfaces' output "
                             "policies ('MPLS DiffServ Tunneling Modes'), an egress classification qosc's behaviour "
                             "model (an egress edge queues on DSCP) does not describe",
                             self.policy.where.at("mpls.tunnel-model"), "use tunnel-model: short-pipe for Cisco "
                             "provider edges, or configure the qos-group policies by hand")
        dei_lost(self.found, self.policy, self.device, services, self.platform.name,
                 "Cisco-IOS-XE-policy has no DEI leaf (derived facts 'match dei', 'set dei'); no source for one in "
                 "12.0S")


def dei_lost(found: Findings, policy: Policy, device: Device, services: tuple[Service, ...], platform: str,
             why: str) -> None:
    """QOS193: a PCP value a service gives again at a higher drop precedence is carried in the DEI (802.1Q-2011);
    without DEI it travels as its low-precedence value."""
    if not any(Domain.PCP in i.trust or Domain.PCP in i.rewrite for i in device.interfaces):
        return
    for s in services:
        pairs = s.marking(Domain.PCP).values
        dei = sorted({(v, p) for v, p in pairs if p > 1 and (v, 1) in pairs})
        if dei:
            found.warning("QOS193", f"service '{s.name}' carries drop precedence "
                          f"{', '.join(PRECEDENCE[p] for _, p in dei)} of PCP {dei[0][0]} in the DEI, which "
                          f"{platform} cannot match or set ({why}): it travels as PCP {dei[0][0]} at drop "
                          "precedence low", s.where.at("pcp"), "give the drop precedence a PCP value of its own")


class Block(list[Any]):
    """A command with sub-commands of its own (the IOS XE police block), with its origin (lower.py)."""

    def __init__(self, words: list[Any], body: list[Command], origin: Any) -> None:
        super().__init__(words)
        self.body, self.origin = body, origin
