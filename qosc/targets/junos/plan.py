"""JUNOS target, part 1: the per-device decisions that both the checks and the lowering use.

`core(policy, device)` numbers the queues, gives every code point a
forwarding class and loss priority, derives the DSCP rewrite rule, and
collects the target's own problems (QOS11x) at the policy's lines.
The rules themselves are explained in qosc/targets/junos.py.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from qosc import dscp as dscp_mod
from qosc.diagnostics import Location
from qosc.model import Device, Interface, Kind, Policy, Role, Service
from qosc.names import Names
from qosc.sizing import Burst
from qosc.targets.junos.platform import JunosPlatform
from qosc.targets.problems import Problem, Reports

_BAD_NAME = re.compile(r"[^A-Za-z0-9_-]")
NC_QUEUE = 3
"""JUNOS sends routing-engine (routing protocol) traffic to queue 3 by default."""


MAX_NAME = 64
"""Juniper's YANG limits object names (classifiers, rewrite rules, schedulers, scheduler maps, filters, terms,
policers) to 1..64 characters, and filter, term and policer names may not start with '__' (junos-conf-firewall,
junos-conf-class-of-service 23.4R1 and 17.4R1: `length "1 .. 64"`, `posix-pattern "!^((__.*)|(.{65,}))$"`)."""


def jname(text: str) -> str:
    """A JUNOS object name: letters, digits, '-' and '_' only (anything else becomes '-'), never starting '__'."""
    name = _BAD_NAME.sub("-", text)
    return "q" + name if name.startswith("__") else name


def num(value: float) -> str:
    """A percentage as JUNOS wants it (an integer)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@dataclass
class ForwardingClass:
    name: str
    queue: int
    owner: Service
    members: tuple[Service, ...]
    """The owner and the services that share its queue, in policy order."""


@dataclass(frozen=True)
class SchedulerSpec:
    transmit: tuple[str, ...]
    buffer: tuple[str, ...] | None
    priority: str
    shaping: tuple[str, ...] | None
    excess: str | None = None
    """MX: the excess-bandwidth priority (see JunosPlatform.priority_mapping)."""
    burst: Burst | None = None
    """The shaper's `burst-size` (qosc.targets.junos.sizing.interface_burst at the cap of the interfaces it
    serves), where it is shaped and the platform has one."""
    fc: str = ""
    """The forwarding class it schedules."""
    serves: tuple[str, ...] = ()
    """The interfaces whose scheduler map gives it the class."""


@dataclass
class Plan(Reports):
    policy: Policy
    device: Device
    platform: JunosPlatform
    classes: list[ForwardingClass] = field(default_factory=list)
    fc_of: dict[str, str] = field(default_factory=dict)
    """Service name -> forwarding class name (services carried on this device)."""
    codes: dict[int, tuple[str, str]] = field(default_factory=dict)
    """DSCP -> (forwarding class, loss priority): the classifier."""
    declared: set[int] = field(default_factory=set)
    """Code points that carried services declare (the rest of `codes` only steers the default table)."""
    rewrite: dict[tuple[str, str], int] = field(default_factory=dict)
    drop_maps: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Forwarding class -> [(loss priority or 'any', drop profile)]."""
    schedulers: dict[str, SchedulerSpec] = field(default_factory=dict)  # schedulers.py
    """Scheduler name -> what it says, in queue order: one per forwarding class and distinct shaper burst."""
    scheduler_of: dict[tuple[str, str], str] = field(default_factory=dict)
    """(interface name, forwarding class) -> the scheduler that serves the class there."""
    edge: Any = None
    """The edge conditioning (filters, policers): a junos_edge.Edge."""
    marks: Any = None
    """The EXP and PCP classifiers and rewrite rules: a junos marking.Marks."""
    problems: list[Problem] = field(default_factory=list)
    names: Names = field(default_factory=lambda: Names("junos", MAX_NAME))
    """Every derived name (with a suffix or prefix) goes through this allocator, so it stays within MAX_NAME."""

    @property
    def default_fc(self) -> str | None:
        default = self.policy.default_service
        if default is not None and default.name in self.fc_of:
            return self.fc_of[default.name]
        return self.classes[0].name if self.classes else None

    def realise(self, code: int) -> tuple[str, str] | None:
        """(forwarding class, loss priority) that carries `code` and is rewritten back to it, if any."""
        where = self.codes.get(code)
        if where is None or code not in self.declared or self.rewrite.get(where) != code:
            return None
        return where

    def crowded(self, fc: str, code: int, place: str = "") -> str:
        """Why `code` shares a loss priority in class `fc` (QOS114/QOS115 hints): the loss priorities the class
        leaves free (`place`: how to say where, default 'in forwarding class <fc>') and the rule that left them, or
        that the platform has no more."""
        declared = [c for c in self.declared if self.codes[c][0] == fc]
        used = {self.codes[c][1] for c in declared}
        free = [lp for lp in self.platform.loss_priorities if lp not in used]
        if not free:
            return f"{self.platform.name} has loss priorities {', '.join(self.platform.loss_priorities)} only"
        rule = ("a class that holds AF code points" if any(dscp_mod.af_class(c) for c in declared)
                else "a class whose drop profiles differ by precedence")
        counts = "has drop precedence" if dscp_mod.af_class(code) else "counts as"
        return (f"{', '.join(free)} {'is' if len(free) == 1 else 'are'} free {place or f'in forwarding class {fc}'}, "
                f"but {rule} "
                f"takes each code point's loss priority from its drop precedence ({dscp_mod.name(code, 'junos')} "
                f"{counts} {dscp_mod.drop_precedence(code)})")

    def rewriting_interfaces(self) -> list[str]:
        return [i.name for i in self.device.interfaces if i.role is not Role.TRANSPARENT and i.services]


def carried(policy: Policy, device: Device) -> list[Service]:
    """Services scheduled on at least one interface of the device, in policy order."""
    names = {n for i in device.interfaces for n in i.services}
    return [s for s in policy.services if s.name in names]


def _uniform(service: Service) -> bool:
    """True when the loss priority cannot change how the service's queue drops (no or one profile)."""
    profiles = dict(service.drop_profiles)
    return not profiles or (set(profiles) == {1, 2, 3} and len(set(profiles.values())) == 1)


def core(policy: Policy, device: Device, platform: JunosPlatform) -> Plan:
    """The plan's own part: queues, units, classification and drop maps (analysis.analyse adds the others)."""
    plan = Plan(policy, device, platform)
    _queues(plan)
    _units(plan)
    _classify(plan)
    _drop_maps(plan)
    return plan


def _queues(plan: Plan) -> None:
    """Default service -> queue 0, network control -> queue 3, the rest in policy order."""
    policy = plan.policy
    services = carried(policy, plan.device)
    owners: list[Service] = []
    for s in services:
        owner = policy.queue_owner(s)
        if owner not in owners:
            owners.append(owner)
    owners = [s for s in policy.services if s in owners]
    fixed: dict[str, int] = {}
    default = policy.default_service
    if default is not None and default in owners:
        fixed[default.name] = 0
    nc = [s for s in owners if s.kind is Kind.NETWORK_CONTROL and s.name not in fixed]
    if nc and plan.platform.queues > NC_QUEUE:
        fixed[nc[0].name] = NC_QUEUE
    free = iter(q for q in range(max(plan.platform.queues, len(owners) + NC_QUEUE + 1)) if q not in fixed.values())
    numbers = {s.name: fixed[s.name] if s.name in fixed else next(free) for s in owners}
    widest = max((len({policy.queue_owner(s).name for s in policy.services_on(i)}) for i in plan.device.interfaces),
                 default=0)
    if len(owners) > plan.platform.queues >= widest:  # an interface that is too wide is QOS091 already
        plan.error("QOS118", f"device {plan.device.name} schedules {len(owners)} queues across its interfaces "
                   f"({', '.join(s.name for s in owners)}) but {plan.platform.name} has {plan.platform.queues}; "
                   "JUNOS forwarding classes are per device", plan.device.where.at("platform"),
                   "carry fewer services on this device, or let one share another's queue (queue.shared-with)")
    seen: dict[str, str] = {}
    for owner in sorted(owners, key=lambda s: numbers[s.name]):
        members = tuple(s for s in services if policy.queue_owner(s) is owner)
        members = (owner,) + tuple(s for s in members if s is not owner)
        name = jname(owner.name)
        if name in seen and seen[name] != owner.name:
            plan.error("QOS117", f"services '{seen[name]}' and '{owner.name}' both become forwarding class "
                       f"'{name}' on JUNOS", owner.where.loc, "JUNOS names allow letters, digits, '-' and '_'")
        seen[name] = owner.name
        plan.classes.append(ForwardingClass(name, numbers[owner.name], owner, members))
        for s in members:
            plan.fc_of[s.name] = name


def split_unit(iface: Interface) -> tuple[str, str]:
    """ge-0/0/1 unit 0, or ge-0/0/1.100 written in the policy -> ge-0/0/1 unit 100."""
    ifd, dot, unit = iface.name.partition(".")
    return (ifd, unit) if dot and unit.isdigit() and iface.unit == 0 else (iface.name, str(iface.unit))


def _units(plan: Plan) -> None:
    """Logical units of one physical interface with different schedules need per-unit scheduling (QOS119)."""
    seen: dict[str, tuple[Interface, tuple[frozenset[str], int | None]]] = {}
    for iface in plan.device.interfaces:
        ifd, _ = split_unit(iface)
        schedule = (frozenset(plan.fc_of[n] for n in iface.services if n in plan.fc_of and not iface.default_queueing),
                    iface.shape)
        first = seen.setdefault(ifd, (iface, schedule))
        if first[1] != schedule and not plan.platform.per_unit_scheduler:
            plan.error("QOS119", f"{iface.name} and {first[0].name} are logical units of {ifd} with different "
                       f"services or shaping, but {plan.platform.name} schedules per physical interface (no "
                       "per-unit-scheduler): one scheduler map would silently win",
                       iface.where.at("services", "shape"),
                       "give the units of one physical interface the same services and shape, or use MX")
            seen[ifd] = (iface, schedule)


def _classify(plan: Plan) -> None:
    """Loss priorities: AF drop precedence where it matters, else spread so each code point survives rewriting."""
    prec_lp: Mapping[int, str] = plan.platform.precedence_loss_priority
    spread: list[str] = list(plan.platform.spread_loss_priorities)
    for fc in plan.classes:
        codes: list[tuple[int, Service]] = []
        for s in fc.members:
            codes += [(c, s) for c in s.dscp if c not in plan.codes and c not in [k for k, _ in codes]]
        any_af = any(dscp_mod.af_class(c) for c, _ in codes)
        for i, (c, _s) in enumerate(codes):
            if any_af or not _uniform(fc.owner):
                lp = prec_lp[dscp_mod.drop_precedence(c)]
            else:
                lp = spread[i] if i < len(spread) else spread[0]
            plan.codes[c] = (fc.name, lp)
            plan.declared.add(c)
            plan.rewrite.setdefault((fc.name, lp), c)
        for c, s in codes:
            kept = plan.rewrite[plan.codes[c]]
            if kept != c and plan.rewriting_interfaces():
                fcname, lp = plan.codes[c]
                plan.warn("QOS115", f"on {plan.device.name} ({plan.platform.name}) {dscp_mod.name(c, 'junos')} of "
                          f"service '{s.name}' shares forwarding class {fcname} and loss priority {lp} with "
                          f"{dscp_mod.name(kept, 'junos')}: the DSCP rewrite rule marks it "
                          f"{dscp_mod.name(kept, 'junos')} when it leaves {', '.join(plan.rewriting_interfaces())}",
                          s.where.at("dscp", "queue.shared-with"), f"{plan.crowded(fcname, c)}; give the code point "
                          "its own service, or make those interfaces transparent")
    default_fc = plan.default_fc
    if default_fc is not None:
        for c in plan.platform.default_classifier_non_best_effort:
            # JUNOS's default classifier sends these to assured-forwarding, expedited-forwarding or
            # network-control by name/queue; pin them to the default service unless a service claims them.
            plan.codes.setdefault(c, (default_fc, "low"))
        if default_fc != "best-effort" and any(fc.name == "best-effort" for fc in plan.classes):
            # dscp-default sends every other code point to the forwarding class named best-effort ("Default DSCP
            # and DSCP IPv6 Classifiers", Junos OS CoS User Guide), here a service that is not the default one
            for c in range(64):
                plan.codes.setdefault(c, (default_fc, "low"))


def _drop_maps(plan: Plan) -> None:
    prec_lp: Mapping[int, str] = plan.platform.precedence_loss_priority
    for fc in plan.classes:
        for m in fc.members:
            if m.queue.aqm == "codel":
                plan.error("QOS113", f"service '{m.name}' asks for aqm: codel, which JUNOS does not have: its "
                           "active queue management is RED drop profiles", m.where.at("queue.aqm"),
                           "aqm: red (with a drop profile) or aqm: none")
        profiles = dict(fc.owner.drop_profiles)
        if not profiles or fc.owner.queue.aqm != "red":
            # aqm: none is tail drop: a scheduler without drop-profile-map runs the default drop profile, 0% up to
            # a full queue, then 100% (Junos OS CoS configuration guide, "Default Drop Profile")
            continue
        if len(set(profiles.values())) == 1 and set(profiles) == {1, 2, 3}:
            plan.drop_maps[fc.name] = [("any", jname(profiles[1]))]
            continue
        chosen: dict[str, str] = {}
        for prec in sorted(profiles):
            lp = prec_lp[prec]
            if lp in chosen and chosen[lp] != profiles[prec]:
                lps = ", ".join(plan.platform.loss_priorities)
                plan.note("QOS115", f"{plan.platform.name} has loss priorities {lps}"
                          f" only: drop precedences of service '{fc.owner.name}' share loss priority {lp}, which "
                          f"uses drop profile '{chosen[lp]}' (not '{profiles[prec]}') on {plan.device.name}",
                          fc.owner.where.at("drop-profile"), "use the same drop profile for medium and high, or "
                          "schedule the service on a platform with more loss priorities")
                continue
            chosen[lp] = profiles[prec]
        order = list(plan.platform.loss_priorities)
        plan.drop_maps[fc.name] = [(lp, jname(chosen[lp])) for lp in order if lp in chosen]
    used = {name for maps in plan.drop_maps.values() for _, name in maps}
    for d in plan.policy.drop_profiles:
        if jname(d.name) in used and not all(float(v).is_integer() for point in d.points for v in point):
            plan.error("QOS113", f"drop profile '{d.name}' has fractional fill levels or probabilities, which JUNOS "
                       "does not take", d.where.at("points", "min", "max", "max-probability"),
                       "use whole percentages")


def uncarried(plan: Plan) -> None:
    """Services the policy defines but this device does not schedule: their code points lose their mark."""
    rewriting = plan.rewriting_interfaces()
    if not rewriting or plan.default_fc is None:
        return
    for s in plan.policy.services:
        if s.name in plan.fc_of or not s.dscp:
            continue
        lost = [c for c in s.dscp if c not in plan.declared]
        for c in lost:
            plan.codes.setdefault(c, (plan.default_fc, "low"))
        if lost:
            names = " ".join(dscp_mod.name(c, "junos") for c in lost)
            plan.warn("QOS116", f"device {plan.device.name} does not schedule service '{s.name}': its code points "
                      f"({names}) are queued as {plan.default_fc} and the DSCP rewrite rule marks them "
                      f"{dscp_mod.name(plan.rewrite.get((plan.default_fc, 'low'), 0), 'junos')} when they leave "
                      f"{', '.join(rewriting)}", _services_loc(plan) or s.where.loc,
                      f"add '{s.name}' to the interface's services (queue.shared-with lets it share a queue), "
                      "or make the interface transparent to keep every DSCP")


def _services_loc(plan: Plan) -> Location | None:
    for i in plan.device.interfaces:
        found = i.where.field("services")
        if found is not None:
            return found
    return None
