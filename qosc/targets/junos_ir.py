"""JUNOS target, part 3: the IR both output formats are rendered from, and `lower` that builds it.

The IR is plain frozen dataclasses of strings, already in JUNOS words and
units, in output order: the templates only loop and format.
"""

from __future__ import annotations

from dataclasses import dataclass

from qosc import dscp as dscp_mod
from qosc.model import Device, Policy, Role
from qosc.targets.junos_edge import Filter, ThreeColour, TwoColour, split_unit
from qosc.targets.junos_plan import Plan, analyse, jname, num
from qosc.units import format_rate


@dataclass(frozen=True)
class Comment:
    text: str
    quote: str | None = None
    """A description, rendered quoted after the text."""


@dataclass(frozen=True)
class ClassifierEntry:
    fc: str
    lps: tuple[tuple[str, tuple[str, ...]], ...]
    """(loss priority, code points)."""


@dataclass(frozen=True)
class DropProfileIR:
    name: str
    interpolate: bool
    fills: tuple[str, ...]
    probabilities: tuple[str, ...]

    @property
    def points(self) -> tuple[tuple[str, str], ...]:
        return tuple(zip(self.fills, self.probabilities, strict=True))


@dataclass(frozen=True)
class SchedulerIR:
    name: str
    transmit: str
    buffer: str | None
    priority: str
    shaping: str | None
    drop_maps: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class UnitIR:
    unit: str
    classify: bool
    """Apply the DSCP classifier(s): core, transparent and trusted edge units."""
    rewrite: bool
    """Apply the DSCP rewrite rule(s): every unit except transparent ones."""


@dataclass(frozen=True)
class CosInterfaceIR:
    name: str
    scheduler_map: str | None
    shaping_rate: str | None
    units: tuple[UnitIR, ...]


@dataclass(frozen=True)
class JunosIR:
    device: str
    platform: str
    comments: tuple[Comment, ...]
    forwarding_classes: tuple[tuple[str, str], ...]
    aliases: tuple[tuple[str, str], ...]
    classifier_entries: tuple[ClassifierEntry, ...]
    drop_profiles: tuple[DropProfileIR, ...]
    schedulers: tuple[SchedulerIR, ...]
    scheduler_maps: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    rewrite_entries: tuple[ClassifierEntry, ...]
    cos_interfaces: tuple[CosInterfaceIR, ...]
    policers: tuple[TwoColour, ...]
    three_colour_policers: tuple[ThreeColour, ...]
    filters: tuple[Filter, ...]
    filter_attachments: tuple[tuple[str, tuple[tuple[str, tuple[tuple[str, str], ...]], ...]], ...]
    """(physical interface, ((unit, ((family, input filter), ...)), ...))."""
    ba: tuple[tuple[str, str], ...] = ()
    """(type, name) of the classifiers and rewrite rules: dscp, plus dscp-ipv6 when the policy has IPv6 prefixes."""

    @property
    def has_firewall(self) -> bool:
        return bool(self.policers or self.three_colour_policers or self.filters)


def code_name(plan: Plan, code: int) -> str:
    """A code point in classifiers and rewrite rules: a JUNOS alias, our own alias, or the six bits."""
    name = dscp_mod.name(code, "junos")
    if name in plan.x["dscp_aliases"] or not name.isdigit():
        return name
    return dscp_mod.bits(code)


def lower(policy: Policy, device: Device, plan: Plan | None = None) -> JunosIR:
    """The JUNOS configuration of one device as plain data (see qosc/targets/junos.py for the rules)."""
    plan = plan or analyse(policy, device)
    lp_order = list(plan.x["loss_priorities"])
    order = {fc.name: fc.queue for fc in plan.classes}
    cname = jname(policy.name)

    aliases = sorted({(code_name(plan, c), dscp_mod.bits(c)) for c in list(plan.codes) + list(plan.rewrite.values())
                      if code_name(plan, c) not in plan.x["dscp_aliases"] and not code_name(plan, c).isdigit()})
    by_fc: dict[str, dict[str, list[str]]] = {}
    for code, (fc_name, lp) in sorted(plan.codes.items(), key=lambda kv: (order[kv[1][0]], lp_order.index(kv[1][1]))):
        by_fc.setdefault(fc_name, {}).setdefault(lp, []).append(code_name(plan, code))
    classifier_entries = tuple(ClassifierEntry(fc, tuple((lp, tuple(v)) for lp, v in lps.items()))
                               for fc, lps in sorted(by_fc.items(), key=lambda kv: order[kv[0]]))
    rewrites: dict[str, list[tuple[str, str]]] = {}
    for (fc_name, lp), code in sorted(plan.rewrite.items(),
                                      key=lambda kv: (order[kv[0][0]], lp_order.index(kv[0][1]))):
        rewrites.setdefault(fc_name, []).append((lp, code_name(plan, code)))
    rewrite_entries = tuple(ClassifierEntry(fc, tuple((lp, (c,)) for lp, c in v)) for fc, v in rewrites.items())

    used = {name for maps in plan.drop_maps.values() for _, name in maps}
    drop_profiles = []
    for d in policy.drop_profiles:
        if jname(d.name) in used:
            interpolate = d.interpolate or d.red is not None  # RED min/max/p is a linear ramp
            drop_profiles.append(DropProfileIR(jname(d.name), interpolate, tuple(num(f) for f, _ in d.points),
                                               tuple(num(p) for _, p in d.points)))
    schedulers = tuple(SchedulerIR(fc.name, " ".join(spec.transmit), " ".join(spec.buffer) if spec.buffer else None,
                                   spec.priority, " ".join(spec.shaping) if spec.shaping else None,
                                   tuple(plan.drop_maps.get(fc.name, ())))
                       for fc in plan.classes for spec in [plan.schedulers[fc.name]])

    everything = tuple(fc.name for fc in plan.classes)
    maps: dict[tuple[str, ...], str] = {}
    cos_interfaces = []
    for iface in device.interfaces:
        fcs = tuple(dict.fromkeys(plan.fc_of[n] for n in iface.services if n in plan.fc_of))
        fcs = tuple(sorted(fcs, key=lambda f: order[f]))
        smap = None
        if fcs:
            smap = maps.setdefault(fcs, cname if fcs == everything else f"{cname}-{jname(iface.name)}")
        ifd, unit = split_unit(iface)
        trusts = iface.role is not Role.EDGE or iface.trust != "none"
        rewrites_dscp = iface.role is not Role.TRANSPARENT and bool(plan.rewrite)
        units = (UnitIR(unit, trusts, rewrites_dscp),)
        shaping = str(iface.shape) if iface.shape is not None else None
        cos_interfaces.append(CosInterfaceIR(ifd, smap, shaping, units))
    scheduler_maps = tuple((name, tuple((fc, fc) for fc in fcs)) for fcs, name in maps.items())

    comments = [Comment(f"qosc: policy {policy.name}, device {device.name} ({plan.platform.name}). "
                        "Generated; edit the policy, not this file.")]
    if policy.description:
        comments.append(Comment("policy:", policy.description))
    if device.description:
        comments.append(Comment("device:", device.description))
    for fc in plan.classes:
        spec = plan.schedulers[fc.name]
        shared = [m.name for m in fc.members if m is not fc.owner]
        text = (f"queue {fc.queue} {fc.name}: transmit-rate {' '.join(spec.transmit)}, priority {spec.priority}"
                + (f"; carries {', '.join(shared)}" if shared else ""))
        comments.append(Comment(text + ":" if fc.owner.description else text, fc.owner.description))
    for iface in device.interfaces:
        speed = f", {format_rate(iface.speed)}" if iface.speed else ""
        text = f"{iface.name} unit {iface.unit}: {iface.role.value}{speed}, trust {iface.trust}"
        comments.append(Comment(text + ":" if iface.description else text, iface.description))

    edge = plan.edge
    grouped: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for ifd, unit, family, name in edge.attach:
        grouped.setdefault(ifd, {}).setdefault(unit, []).append((family, name))
    attachments = tuple((ifd, tuple((u, tuple(f)) for u, f in units.items())) for ifd, units in grouped.items())
    ipv6 = any(":" in p for c in policy.classifiers for r in c.rules for p in r.sources + r.destinations)
    return JunosIR(
        device=device.name, platform=plan.platform.name, comments=tuple(comments),
        forwarding_classes=tuple((str(fc.queue), fc.name) for fc in plan.classes),
        aliases=tuple(aliases), classifier_entries=classifier_entries,
        drop_profiles=tuple(drop_profiles), schedulers=schedulers, scheduler_maps=scheduler_maps,
        rewrite_entries=rewrite_entries, cos_interfaces=tuple(cos_interfaces),
        policers=tuple(edge.policers.values()), three_colour_policers=tuple(edge.tcms.values()),
        filters=tuple(edge.filters), filter_attachments=attachments,
        ba=(("dscp", cname),) + ((("dscp-ipv6", f"{cname}-ipv6"),) if ipv6 else ()),
    )
