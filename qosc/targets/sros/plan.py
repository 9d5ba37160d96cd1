"""SR OS target, part 1: the per-device decisions the checks and the lowering share.

`core(policy, device, platform)` maps the services onto the eight fixed
forwarding classes, gives every code point a forwarding class and profile
(the profile picks the WRED slope of the port's egress pool), builds the
slope policy, the network-queue policies of the device's ports and the
bindings, and collects the target's problems (QOS23x) at the policy's lines.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from qosc.model import Device, Interface, Kind, Policy, Service
from qosc.names import Names
from qosc.targets.problems import Problem, Reports
from qosc.targets.sros.platform import SrosPlatform
from qosc.targets.sros.ports import Binding, binding, form, sap_marks

MAX_NAME = 32
"""nokia-types-sros named-item (slope-policy, network-queue names): 1..32 characters; qos-policy-name
(sap-ingress, sap-egress, network) allows 64, qosc keeps all within 32."""
RANK = {Kind.NETWORK_CONTROL: 0, Kind.PREMIUM: 1, Kind.ASSURED: 2, Kind.OTHER: 3, Kind.BEST_EFFORT: 4,
        Kind.LBE: 5}
"""Which class's drop curve gets the more protected slope first (network control first, scavenger last)."""


def sname(text: str) -> str:
    """An SR OS object name from a policy name (the policy's names are already [A-Za-z0-9_.-])."""
    return re.sub(r"[^A-Za-z0-9_.-]", "-", text)


@dataclass
class Fc:
    """A forwarding class in use: its queue, the service owning the queue and the services it carries."""

    name: str
    queue: int
    owner: Service
    members: tuple[Service, ...]


@dataclass
class Slope:
    profile: str
    slope: str
    curve: str | None
    """The drop profile the slope carries; None: the slope is disabled (tail drop at the queue's MBS)."""


@dataclass
class QueueSpec:
    fc: Fc
    queue_type: str
    cir: float
    pir: float
    mbs: float | None
    why: tuple[str, ...] = ()


@dataclass
class PortSpec:
    iface: Interface
    binding: Binding
    queue_policy: str
    """The network-queue policy of a network port, the sap-egress policy of a SAP."""
    queues: tuple[QueueSpec, ...] = ()
    marks: tuple[str, ...] = ()
    """What a SAP's sap-egress writes beside its queues (ports.sap_marks)."""


@dataclass
class Plan(Reports):
    policy: Policy
    device: Device
    platform: SrosPlatform
    fcs: list[Fc] = field(default_factory=list)
    fc_of: dict[str, Fc] = field(default_factory=dict)
    codes: dict[int, tuple[str, str]] = field(default_factory=dict)
    """DSCP -> (forwarding class, profile): the network policy's ingress classification."""
    marks: dict[str, int] = field(default_factory=dict)
    """Forwarding class -> the DSCP it is marked with at network egress (traffic from SAPs)."""
    slopes: list[Slope] = field(default_factory=list)
    profile_of: dict[tuple[str, int], str] = field(default_factory=dict)
    """(service, AF drop precedence 1..3) -> profile."""
    ports: list[PortSpec] = field(default_factory=list)
    network_policy: str = ""
    slope_policy: str = ""
    edge: object = None
    marking: object = None
    """The MPLS EXP and 802.1p decisions and the network policies (marking.py)."""
    problems: list[Problem] = field(default_factory=list)
    names: Names = field(default_factory=lambda: Names("sros", MAX_NAME))

    @property
    def default_fc(self) -> Fc | None:
        default = self.policy.default_service
        if default is not None and default.name in self.fc_of:
            return self.fc_of[default.name]
        return self.fcs[0] if self.fcs else None

    def profile(self, service: Service, code: int) -> str:
        from qosc import dscp as dscp_mod
        return self.profile_of.get((service.name, dscp_mod.drop_precedence(code)),
                                   self.profile_of.get((service.name, 1), "in"))

    def profile_at(self, service: Service, precedence: int) -> str:
        """The profile (and so the pool slope) of a service's traffic of a drop precedence, falling back to the
        next lower precedence that has one."""
        for level in range(precedence, 0, -1):
            found = self.profile_of.get((service.name, level))
            if found is not None:
                return found
        return "in"


def carried(policy: Policy, device: Device) -> list[Service]:
    names = {n for i in device.interfaces for n in i.services}
    return [s for s in policy.services if s.name in names]


def core(policy: Policy, device: Device, platform: SrosPlatform) -> Plan:
    """The plan but its edge part (analysis.analyse adds it)."""
    plan = Plan(policy, device, platform)
    plan.network_policy = plan.names.name("network", sname(policy.name), "policy")
    plan.slope_policy = plan.names.name("slope-policy", sname(policy.name), "policy")
    _bindings(plan)
    _classes(plan)
    _slopes(plan)
    _classify(plan)
    _ports(plan)
    return plan


def _bindings(plan: Plan) -> None:
    for iface in plan.device.interfaces:
        if binding(iface) is None:
            plan.error("QOS231", f"{plan.device.name}:{iface.name} does not say where SR OS applies it: a "
                       f"{iface.role.value} interface is named {form(iface)}", iface.where.loc,
                       "name the port, router interface or SAP the policy applies to (see the sros section of the "
                       "README)")


def _classes(plan: Plan) -> None:
    """Services onto the eight forwarding classes: the default service on be, then by kind, first free first."""
    policy, platform = plan.policy, plan.platform
    services = carried(policy, plan.device)
    owners: list[Service] = []
    for s in services:
        owner = policy.queue_owner(s)
        if owner not in owners:
            owners.append(owner)
    owners = [s for s in policy.services if s in owners]
    taken: dict[str, Service] = {}
    order = sorted(owners, key=lambda s: (not s.default, RANK[s.kind], policy.services.index(s)))
    for s in order:
        wanted = platform.fc_preference["default" if s.default else s.kind.value]
        fc = next((f for f in wanted if f not in taken), None)
        fc = fc or next((f for f in platform.forwarding_classes if f not in taken), None)
        if fc is None:
            plan.error("QOS230", f"device {plan.device.name} carries {len(owners)} queued services "
                       f"({', '.join(o.name for o in owners)}) but SR OS has {len(platform.forwarding_classes)} "
                       "forwarding classes", s.where.loc,
                       "carry fewer services on this device, or let one share another's queue (queue.shared-with)")
            return
        taken[fc] = s
    for fc_name in platform.forwarding_classes:
        holder = taken.get(fc_name)
        if holder is None:
            continue
        members = (holder, *(m for m in services if m is not holder and policy.queue_owner(m) is holder))
        cls = Fc(fc_name, platform.network_queue[fc_name], holder, members)
        plan.fcs.append(cls)
        for m in members:
            plan.fc_of[m.name] = cls
        if holder.dscp:
            plan.marks[fc_name] = holder.mark


def _slopes(plan: Plan) -> None:
    """Drop curves onto the pool's slopes: the profile of a class's packets picks the slope they meet.

    When the device has more drop behaviours than the pool has slopes, services with a curve per AF drop
    precedence first drop that distinction (their low-precedence curve for all, QOS236), as other targets do;
    still too many is QOS232."""
    collapsed: set[str] = set()
    curves = _curves(plan, collapsed)
    slots = plan.platform.slopes
    if len(curves) > len(slots):
        split = [s for fc in plan.fcs for s in fc.members if len({_curve(s, p, set()) for p in _precedences(s)}) > 1]
        collapsed = {s.name for s in split}
        if len(_curves(plan, collapsed)) <= len(slots):
            for s in split:
                plan.note("QOS236", f"device {plan.device.name} has more drop behaviours than an SR OS egress pool "
                          f"has slopes ({len(slots)}), so service '{s.name}' drops its AF precedences alike, with "
                          f"its low-precedence profile '{_curve(s, 1, set())}'", s.where.at("drop-profile"),
                          "give fewer services their own drop profiles on this device")
        curves = _curves(plan, collapsed)
    if len(curves) > len(slots):
        extra = curves[len(slots)][1]
        plan.error("QOS232", f"device {plan.device.name} needs {len(curves)} drop behaviours "
                   f"({', '.join(c or 'tail drop' for c, _ in curves)}) but an SR OS egress pool has "
                   f"{len(slots)} slopes (one per profile: {', '.join(p for p, _ in slots)})",
                   extra.where.at("drop-profile"), "let services share drop profiles on this device")
        return
    for curve, _ in curves:
        _said(plan, curve)
    slope_of = {}
    for (curve, _), (profile, slope) in zip(curves, slots, strict=False):
        plan.slopes.append(Slope(profile, slope, curve))
        slope_of[curve] = profile
    plan.slopes += [Slope(p, sl, None) for p, sl in slots[len(curves):]]
    for fc in plan.fcs:
        for s in fc.members:
            for precedence in _precedences(s):
                plan.profile_of[(s.name, precedence)] = slope_of[_curve(s, precedence, collapsed)]


def _curves(plan: Plan, collapsed: set[str]) -> list[tuple[str | None, Service]]:
    """The device's distinct drop behaviours, each with its most important service, most important first."""
    curves: list[tuple[str | None, Service]] = []
    for fc in plan.fcs:
        for s in fc.members:
            for precedence in _precedences(s):
                curve = _curve(s, precedence, collapsed)
                first = next((i for i, (c, _) in enumerate(curves) if c == curve), None)
                if first is None:
                    curves.append((curve, s))
                elif _importance(plan, s) < _importance(plan, curves[first][1]):
                    curves[first] = (curve, s)
    return sorted(curves, key=lambda cs: (*_importance(plan, cs[1]), cs[0] is not None))


def _said(plan: Plan, curve: str | None) -> None:
    """A drop profile an SR OS slope cannot follow within verify's tolerance is said (QOS236)."""
    from qosc.behaviour.compare import Tolerance
    from qosc.targets.sros.slopes import fit
    profile = plan.policy.drop_profile_map.get(curve or "")
    if profile is None:
        return
    line = fit(profile)
    if line.off > Tolerance.curve:
        plan.warn("QOS236", f"drop profile '{profile.name}' is written as the SR OS slope from {line.start}% to "
                  f"{line.top}% fill ({line.prob}% drop), up to {line.off:g} points of drop probability from the "
                  "profile: an SR OS slope is one line", profile.where.loc,
                  "give the profile as min, max and max-probability, or points an SR OS line can follow")


def _importance(plan: Plan, s: Service) -> tuple[int, int]:
    return RANK[s.kind], plan.policy.services.index(s)


def _curve(s: Service, precedence: int, collapsed: set[str]) -> str | None:
    """The drop profile a service's packets of one AF precedence meet (None: tail drop); a collapsed service
    uses its lowest precedence's for all."""
    if s.queue.aqm != "red" or not s.drop_profiles:
        return None
    if s.name in collapsed:
        return s.drop_profiles[0][1]
    return s.drop_profile_for(precedence)


def _precedences(s: Service) -> tuple[int, ...]:
    """The drop precedences a service's traffic has: those of its code points and of its EXP and PCP values."""
    from qosc import dscp as dscp_mod
    found = {dscp_mod.drop_precedence(c) for c in s.dscp} | set(s.exp.precedences()) | set(s.pcp.precedences())
    return tuple(sorted(found)) or (1,)


def _classify(plan: Plan) -> None:
    for fc in plan.fcs:
        for s in fc.members:
            for code in s.dscp:
                plan.codes.setdefault(code, (fc.name, plan.profile(s, code)))


def _ports(plan: Plan) -> None:
    """Queue policies (network-queue for network ports, sap-egress for SAPs): one per distinct queue plan, named
    after the policy (then -2, -3 ...)."""
    seen: dict[tuple[object, ...], str] = {}
    for iface in plan.device.interfaces:
        bound = binding(iface)
        if bound is None:
            continue
        queues = tuple(_queue(plan, fc, iface, whole=not bound.edge) for fc in plan.fcs if any(
            n in plan.policy.service_map and plan.policy.queue_owner(plan.policy.service_map[n]) is fc.owner
            for n in iface.services))
        space = "sap-egress" if bound.edge else "network-queue"
        marks = sap_marks(plan.policy, plan.device, iface) if bound.edge else ()
        key = (space, marks, *((q.fc.name, q.queue_type, q.cir, q.pir, q.mbs) for q in queues))
        if key not in seen:
            count = sum(1 for k in seen if k[0] == space)
            wanted = sname(plan.policy.name) + (f"-{count + 1}" if count else "")
            seen[key] = plan.names.name(space, wanted, f"queues {count}")
        plan.ports.append(PortSpec(iface, bound, seen[key], queues, marks))


def _percent(plan: Plan, value: object, iface: Interface, what: str, service: Service, up: bool,
             whole: bool) -> float:
    """A share as the percent a queue takes: whole percent on network queues (nokia-conf: int32 0..100 percent),
    two decimals on sap-egress percent-rate (decimal64 0..100, fraction-digits 2)."""
    from qosc.model import rate_percent
    pct = rate_percent(value, iface.rate)  # type: ignore[arg-type]
    if pct is None:
        plan.error("QOS233", f"{service.name}: {what} is an absolute rate and {plan.device.name}:{iface.name} has no "
                   "speed to make it the percentage a queue takes", iface.where.loc,
                   "give the interface a speed, or the share in percent")
        return 0
    scale = 1 if whole else 100
    written = (math.ceil(pct * scale - 1e-9) if up else math.floor(pct * scale + 1e-9)) / scale
    if abs(written - pct) > 1e-9:
        plan.warn("QOS234", f"{service.name}: {what} {pct:g}% on {plan.device.name}:{iface.name} is written as "
                  f"{written:g}%: SR OS queue rates are {'whole' if whole else 'hundredths of a'} percent",
                  service.where.at("queue"), "give the share in a percentage the box can write")
    return max(0.0, min(100.0, written))


def _queue(plan: Plan, fc: Fc, iface: Interface, whole: bool) -> QueueSpec:
    s = fc.owner
    q = s.queue
    cir = _percent(plan, q.share, iface, "share", s, True, whole) if q.share is not None else 0.0
    cap = q.rate_cap if q.rate_cap is not None else q.ceiling
    pir = _percent(plan, cap, iface, "cap", s, False, whole) if cap is not None else 100.0
    why = []
    if q.strict and q.uncapped and s.policer is None:  # CIR = PIR = 100%: served first up to the whole port
        why.append(f"{s.name} is strict and uncapped (rate-cap: none): expedited, served first within its CIR, "
                   "CIR = PIR = 100% of the port")
    elif q.strict:
        why.append(f"{s.name} is strict: expedited, served first within its CIR, capped at PIR {pir:g}%")
    if q.strict:
        cir = pir
    qtype = "expedited" if q.strict else plan.platform.queue_types.get(q.priority.label, "best-effort")
    if pir < (1 if whole else 0.01):
        plan.error("QOS233", f"{s.name}: a queue's PIR is at least {'1' if whole else '0.01'} percent, its cap "
                   f"gives {pir:g}%", s.where.at("queue"), "cap the service higher")
        pir = 1 if whole else 0.01
    cir = min(cir, pir)
    if not whole and q.aqm == "red" and s.drop_profiles and plan.platform.sap_egress_wred is None:
        plan.note("QOS236", f"{s.name}: {plan.platform.name} has no per-queue WRED on SAP egress queues, so its drop "
                  f"profile is not applied on {plan.device.name}:{iface.name} (tail drop at the queue's MBS)",
                  s.where.at("drop-profile"), "use a 7750 for WRED at the edge, or leave the profile to the core")
    if q.aqm == "codel":
        plan.error("QOS233", f"{s.name}: aqm codel: SR OS queues drop by WRED slopes or at their MBS, not by CoDel",
                   s.where.at("queue"), "use aqm: red with a drop profile, or none")
    mbs = None
    if q.buffer is not None and q.buffer.time_us is not None:
        plan.warn("QOS236", f"{s.name}: a buffer in time is not written on {plan.device.name}:{iface.name}: SR OS "
                  f"{'network-queue' if whole else 'sap-egress'} MBS is written as a share of the buffer pool here, "
                  "so the queue keeps its default MBS", s.where.at("queue"), "give the buffer in percent")
    if q.buffer is not None and q.buffer.percent is not None:
        if q.buffer.percent.value > 0:
            mbs = round(q.buffer.percent.value, 2)
        else:
            why.append("buffer 0% is not written: an MBS of 0 would drop every packet; the queue keeps the "
                       "default MBS")
    return QueueSpec(fc, qtype, cir, pir, mbs, tuple(why))
