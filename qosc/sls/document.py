"""One SLS per service as plain data (TEQUILA parameters, domain.md 5), ready for a template.

Sections: identity and scope, flow identification, traffic envelope and
conformance test, excess treatment, performance guarantees (declared targets
and derived bounds, kept apart), service schedule, reliability.  An LBE SLS
states only its code points, the DSCP-transparency rule and the minimum
share where one is configured: LBE is not parameterised.

Values stay raw strings here; the renderers escape them for their format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from qosc import dscp as dscp_mod
from qosc.checks.sls import check_service
from qosc.diagnostics import Diagnostic
from qosc.hosts import service_requirements
from qosc.model import Action, Interface, Kind, Policer, Policy, Service
from qosc.sls.bounds import (
    Derived,
    Hop,
    carrying,
    derive,
    fmt_rate,
    fmt_share,
    fmt_size,
    fmt_time,
    is_parameterised,
    service_of_dscp,
)
from qosc.units import Percent

MAX_ROWS = 64
"""Per-interface rows and charts listed in full; a larger network is summarised."""

CHART_X0 = 10
CHART_SCALE = 6.2
"""SVG x of 0% and pixels per percent (a 620-pixel bar in a 640-pixel box)."""

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
           "#bab0ac")

ASSUMPTIONS = (
    ("b is the burst the edge policer lets into the queue; the bound assumes the aggregate reaching each hop "
     "is no burstier than at the edge (one ingress; with n ingress points feeding a hop, b grows n-fold)."),
    ("C is the egress link rate (the shaper when one is configured); MTU is one packet already in "
     "transmission, which strict priority cannot preempt."),
    "Propagation and serialisation delays of the links are not included: add them for the one-way delay.",
)

ALGORITHMS = {
    "single-rate": "single-rate two-colour token bucket (CIR, CBS)",
    "srtcm": "single-rate three-colour marker, srTCM (RFC 2697: CIR, CBS, EBS)",
    "trtcm": "two-rate three-colour marker, trTCM (RFC 2698: CIR, CBS, PIR, PBS)",
}


def dscp_text(code: int) -> str:
    name = dscp_mod.name(code)
    return f"{name} ({code})" if name != str(code) else str(code)


@dataclass
class Chart:
    """A stacked bar of the queue shares on interfaces that allocate the link alike."""

    title: str
    interfaces: list[str]
    link_rate: str
    segments: list[dict[str, Any]]
    unallocated: float
    unallocated_x: float
    height: int = 0
    unallocated_text: str = ""
    unallocated_w: float = 0.0
    unallocated_legend_y: int = 0
    unallocated_swatch_y: int = 0
    note: str | None = None


@dataclass
class Document:
    policy: str
    policy_description: str | None
    source: str
    service: str
    kind: str
    description: str | None
    parameterised: bool
    customer: str | None
    ingress: list[str]
    egress: list[str]
    path: list[str]
    dscp: list[str]
    default: bool
    rules: list[dict[str, Any]] = field(default_factory=list)
    policers: list[dict[str, Any]] = field(default_factory=list)
    envelope: dict[str, Any] = field(default_factory=dict)
    excess: list[str] = field(default_factory=list)
    declared: list[dict[str, str]] = field(default_factory=list)
    quantile: str | None = None
    measurement: str | None = None
    path_hops: list[dict[str, Any]] = field(default_factory=list)
    interfaces: list[dict[str, Any]] = field(default_factory=list)
    interfaces_omitted: int = 0
    end_to_end: list[dict[str, str]] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    findings: list[dict[str, str]] = field(default_factory=list)
    schedule: str | None = None
    availability: str | None = None
    repair_time: str | None = None
    transparency: list[str] = field(default_factory=list)
    transparent_interfaces: list[str] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    charts_omitted: int = 0
    minimum_share: str | None = None
    host_requirements: list[str] = field(default_factory=list)


def _action(policy: Policy, service: Service, action: Action | None) -> str:
    if action is None:
        return "-"
    if action.kind == "drop":
        return "drop"
    if action.kind == "transmit" or action.dscp is None:
        return "transmit unchanged"
    other = service_of_dscp(policy, action.dscp)
    into = ""
    if other is not None:
        same = policy.queue_owner(other).name == policy.queue_owner(service).name
        into = f" (stays in the '{other.name}' queue)" if same else f" (moves to service '{other.name}')"
    return f"remark to {dscp_text(action.dscp)} and transmit{into}"


def _policer_row(policy: Policy, service: Service, p: Policer) -> dict[str, Any]:
    rows = [("CIR", fmt_rate(p.cir)), ("CBS", fmt_size(p.cbs))]
    if p.ebs is not None:
        rows.append(("EBS", fmt_size(p.ebs)))
    if p.pir is not None:
        rows.append(("PIR", fmt_rate(p.pir)))
    if p.pbs is not None:
        rows.append(("PBS", fmt_size(p.pbs)))
    names = ("conform (green)", "exceed (yellow)", "violate (red)") if p.colours == 3 else (
        "conform", "exceed", "")
    actions = [(names[0], _action(policy, service, p.conform)), (names[1], _action(policy, service, p.exceed))]
    if p.colours == 3:
        actions.append((names[2], _action(policy, service, p.violate)))
    return {"name": p.name, "description": p.description, "algorithm": ALGORITHMS[p.algorithm],
            "mode": "colour-aware" if p.color_aware else "colour-blind", "params": rows, "actions": actions}


def _rules(policy: Policy, service: Service) -> list[dict[str, Any]]:
    applied: dict[str, list[str]] = {}
    for d in policy.devices:
        for i in d.interfaces:
            if i.classifier:
                applied.setdefault(i.classifier, []).append(f"{d.name}:{i.name}")
    out = []
    for c in policy.classifiers:
        for r in c.rules:
            if r.service != service.name:
                continue
            ports = [f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in r.destination_ports]
            sports = [f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in r.source_ports]
            where = applied.get(c.name, [])
            out.append({
                "classifier": c.name, "rule": r.name, "description": r.description,
                "source": ", ".join(r.sources) or "any", "destination": ", ".join(r.destinations) or "any",
                "protocol": ", ".join(r.protocols) or "any", "source_port": ", ".join(sports) or "any",
                "destination_port": ", ".join(ports) or "any",
                "match_dscp": ", ".join(dscp_text(x) for x in r.match_dscp) or "any",
                "mark": dscp_text(r.set_dscp if r.set_dscp is not None else service.mark),
                "policer": r.policer or service.policer or "-",
                "applied": ", ".join(where[:8]) + (f" and {len(where) - 8} more" if len(where) > 8 else "")
                if where else "no interface",
            })
    return out


def _hop_row(h: Hop) -> dict[str, Any]:
    if not h.found:
        return {"hop": h.label, "link": "-", "scheduling": "-", "rate": "unknown interface", "delay": "-"}
    link = (fmt_rate(h.link_rate) + (" (shaped)" if h.shaped else "")) if h.link_rate else "unknown speed"
    rate = h.rate_formula or h.rate_note or "-"
    if h.rate_formula and h.rate_note:
        rate += f"; {h.rate_note}"
    delay = h.delay_formula or (f"not derived: {h.delay_note}" if h.delay_note else "-")
    return {"hop": h.label, "link": link, "scheduling": h.scheduling or "not scheduled", "rate": rate,
            "delay": delay}


def _chart(policy: Policy, service: Service, group: list[tuple[str, Interface]]) -> Chart:
    iface = group[0][1]
    link = iface.rate
    colours = {s.name: PALETTE[i % len(PALETTE)] for i, s in enumerate(policy.services)}
    owners: dict[str, list[str]] = {}
    for s in policy.services_on(iface):
        owners.setdefault(policy.queue_owner(s).name, []).append(s.name)
    segments: list[dict[str, Any]] = []
    x = 0.0
    mine = policy.queue_owner(service).name if service.name in iface.services else None
    for owner_name, members in owners.items():
        owner = policy.service_map[owner_name]
        share = owner.queue.share
        if share is None and owner.queue.strict and owner.queue.rate_cap is not None:
            share = owner.queue.rate_cap
        if isinstance(share, Percent):
            pct = float(share.value)
        elif share is not None and link:
            pct = 100.0 * int(share) / link
        else:
            pct = 0.0
        pct = max(0.0, min(pct, 100.0 - x))
        rate = fmt_rate(round(link * pct / 100)) if link else "unknown rate"
        label = " + ".join(members)
        extra = []
        if owner.queue.strict:
            extra.append("strict priority")
        extra.append(f"priority {owner.queue.priority.label}")
        segments.append({"name": label, "pct": round(pct, 4), "x": round(x, 4), "width": round(pct, 4),
                         "px_x": round(CHART_X0 + x * CHART_SCALE, 2),
                         "px_w": round(max(pct * CHART_SCALE, 2.0), 2),
                         "px_label": round(CHART_X0 + (x + pct / 2) * CHART_SCALE, 2),
                         "legend_y": 70 + 22 * len(segments), "swatch_y": 58 + 22 * len(segments),
                         "pct_text": f"{pct:.4g}%", "bar": "█" * round(pct / 5) or "▏",
                         "colour": colours[owner_name], "current": owner_name == mine, "rate": rate,
                         "share": fmt_share(share) if share is not None else "none",
                         "detail": ", ".join(extra),
                         "label_x": round(x + pct / 2, 4), "show_label": pct >= 6.0})
        x += pct
    names = [label for label, _ in group]
    title = names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more alike"
    rest = max(0.0, 100.0 - x)
    where = "this interface" if len(group) == 1 else "these interfaces"
    note = None if mine else f"{service.name} is not scheduled on {where}"
    return Chart(title, names, fmt_rate(link) if link else "unknown speed", segments, round(rest, 4),
                 round(CHART_X0 + x * CHART_SCALE, 2), 84 + 22 * len(segments), f"{rest:.4g}%",
                 round(rest * CHART_SCALE, 2), 70 + 22 * len(segments), 58 + 22 * len(segments), note)


def _charts(policy: Policy, service: Service, derived: Derived) -> tuple[list[Chart], int]:
    """One chart per distinct allocation (services, rate) over the interfaces the SLS concerns."""
    labels: list[tuple[str, Interface]] = []
    if derived.path:
        from qosc.sls.bounds import find_hop
        for h in derived.path:
            _, iface = find_hop(policy, h.label)
            if iface is not None and (h.label, iface) not in labels:
                labels.append((h.label, iface))
    else:
        labels = [(f"{d.name}:{i.name}", i) for d, i in carrying(policy, service)]
    groups: dict[tuple[Any, ...], list[tuple[str, Interface]]] = {}
    for label, iface in labels:
        groups.setdefault((iface.services, iface.rate), []).append((label, iface))
    charts = [_chart(policy, service, g) for g in groups.values()]
    return charts[:MAX_ROWS], max(0, len(charts) - MAX_ROWS)


def _declared(service: Service) -> list[dict[str, str]]:
    sls = service.sls
    if sls is None:
        return []
    rows = []
    for name, symbol, value in (
        ("bit rate", "r", fmt_rate(sls.rate) if sls.rate is not None else None),
        ("one-way delay", "d", fmt_time(sls.delay_us) if sls.delay_us is not None else None),
        ("delay variation (IPDV)", "j", fmt_time(sls.ipdv_us) if sls.ipdv_us is not None else None),
        ("packet loss", "l", str(sls.loss) if sls.loss is not None else None),
    ):
        if value is not None:
            rows.append({"parameter": name, "symbol": symbol, "value": value})
    return rows


def _end_to_end(service: Service, derived: Derived, findings: list[Diagnostic]) -> list[dict[str, str]]:
    """Declared targets next to the bound that supports (or refutes) them."""
    sls = service.sls
    rows = []
    codes = {d.code for d in findings}
    min_rate, worst = derived.min_rate
    where = "along the path" if derived.path else "over the interfaces that schedule it"
    if min_rate is not None and worst is not None:
        verdict = "-"
        if sls and sls.rate is not None:
            verdict = f"declared {fmt_rate(sls.rate)}: " + ("NOT supported (QOS161)" if "QOS161" in codes
                                                            else "supported")
        rows.append({"bound": f"minimum rate {where}", "formula": f"min over hops = {fmt_rate(min_rate)} at "
                     f"{worst.label}", "verdict": verdict})
    env = derived.envelope
    if env.rate is not None and sls and sls.rate is not None:
        rows.append({"bound": "committed rate of the edge policer", "formula": f"CIR = {fmt_rate(env.rate)}",
                     "verdict": f"declared {fmt_rate(sls.rate)}: " + ("NOT supported (QOS164)" if "QOS164" in codes
                                                                     else "supported")})
    total = derived.path_delay_us
    declared = [f"{label} {fmt_time(v)}" for label, v in (("delay", sls.delay_us if sls else None),
                                                          ("IPDV", sls.ipdv_us if sls else None)) if v is not None]
    if not derived.path and declared:
        rows.append({"bound": "queueing delay along the path", "formula": "no sls.path is declared, so no "
                     "end-to-end bound is derived", "verdict": f"declared {', '.join(declared)}: not checked"})
    if derived.path:
        if total is None:
            rows.append({"bound": "queueing delay along the path", "formula": "not derived at any hop "
                         "(see the per-hop table)",
                         "verdict": f"declared {', '.join(declared)}: not checked" if declared else "-"})
        else:
            scope = "" if derived.path_delay_complete else (
                f" (over {len(derived.delay_hops)} of {len(derived.path)} hops; the others have no bound)")
            for label, bound, code in (("delay", sls.delay_us if sls else None, "QOS162"),
                                       ("IPDV", sls.ipdv_us if sls else None, "QOS166")):
                verdict = "-"
                if bound is not None:
                    verdict = f"declared {fmt_time(bound)}: " + (f"NOT supported ({code})" if code in codes
                                                                    else "supported" if derived.path_delay_complete
                                                                    else "not contradicted on the bounded hops")
                rows.append({"bound": f"queueing {label} bound, sum along the path{scope}",
                             "formula": f"Σ (b + MTU) × 8 / C = {derived.path_delay_formula}", "verdict": verdict})
    return rows


def host_requirements(policy: Policy, service: Service) -> list[str]:
    """The TCP window each end needs for the service's rate at the declared RTT (domain.md 4.5)."""
    lines = [f"{host.name} -> {need.path.peer} (RTT {need.path.rtt_us / 1000:g} ms, {need.rate_source}): each end "
             f"needs a TCP window of {need.formula}" for host, need in service_requirements(policy, service.name)]
    rtt = service.rtt_us or policy.rtt_us
    rate = service.sls.rate if service.sls else None
    if not lines and rate and rtt and service.carries_tcp:
        window = -(-rate * rtt // 8_000_000)
        lines.append(f"each end needs a TCP window of at least rate x RTT / 8 = {fmt_rate(rate)} x "
                     f"{rtt / 1000:g} ms / 8 = {window} B (socket buffers about twice that); declare hosts: to get "
                     "their sysctl settings from the linux-host target")
    return lines


def build_document(policy: Policy, service: Service) -> Document:
    sls = service.sls
    doc = Document(
        policy=policy.name, policy_description=policy.description, source=policy.source, service=service.name,
        kind=service.kind.value, description=service.description, parameterised=is_parameterised(service),
        customer=sls.customer if sls else None, ingress=list(sls.ingress) if sls else [],
        egress=list(sls.egress) if sls else [], path=list(sls.path) if sls else [],
        dscp=[dscp_text(c) for c in service.dscp], default=service.default,
    )
    derived = derive(policy, service)
    if not doc.parameterised:
        for code in service.dscp:
            doc.transparency.append(
                f"DSCP {code} ({dscp_mod.bits(code)}, TOS 0x{dscp_mod.tos(code):02x}) must never be rewritten, in "
                "particular not to 0 (best effort), by any router on the path, including routers that do not "
                "implement the LBE queue" + (" (GÉANT / QBone Scavenger code point)" if code == 8 else
                                             " (RFC 8622 LE code point)" if code == 1 else ""))
        share = service.queue.share
        if share is None:
            doc.minimum_share = "no minimum share is configured"
        elif isinstance(share, Percent) and share.value == 0:
            doc.minimum_share = ("0% of each link: no minimum; a WRR that visits zero-weight queues (JUNOS) gives "
                                 "LBE only what the other queues leave")
        else:
            doc.minimum_share = (f"{fmt_share(share)} of each link, so that LBE TCP is not starved; queue priority "
                                 f"'{service.queue.priority.label}'")
        doc.transparent_interfaces = [f"{d.name}:{i.name}" for d in policy.devices for i in d.interfaces
                                      if i.role.value == "transparent"][:MAX_ROWS]
    else:
        doc.rules = _rules(policy, service)
        doc.policers = [_policer_row(policy, service, p) for p in derived.envelope.policers]
        env = derived.envelope
        doc.envelope = {
            "rate": fmt_rate(env.rate) if env.rate is not None else None,
            "burst": fmt_size(env.burst) if env.burst is not None else None,
            "formula": env.formula, "note": env.note,
        }
        for p in derived.envelope.policers:
            for colour, action in (("exceeding", p.exceed), ("violating", p.violate)):
                if action is not None:
                    doc.excess.append(f"{colour} traffic ({p.name}): {_action(policy, service, action)}")
        q = policy.queue_owner(service).queue
        if q.rate_cap is not None:
            doc.excess.append(f"queue rate-cap {fmt_share(q.rate_cap)} of each link: traffic above it is dropped or "
                              "delayed at the hop (shaping)")
        if q.ceiling is not None:
            doc.excess.append(f"borrowing limited to a ceiling of {fmt_share(q.ceiling)} (shaping)")
        shapers = sorted({f"{d.name}:{i.name} shaped to {fmt_rate(i.shape)}" for d, i in carrying(policy, service)
                          if i.shape is not None})
        doc.excess.extend(shapers[:8])
        if not doc.excess:
            doc.excess.append("no policer and no shaper: traffic is not conditioned at the edge")
        doc.declared = _declared(service)
        if sls is not None:
            doc.quantile = (f"{sls.quantile} quantile" if sls.quantile is not None else
                            "hard bounds (no quantile declared)") if (sls.delay_us or sls.ipdv_us) else None
            doc.measurement = sls.measurement
            doc.schedule = sls.schedule
            doc.availability = str(sls.availability) if sls.availability is not None else None
            doc.repair_time = fmt_time(sls.repair_time_us) if sls.repair_time_us is not None else None
        doc.path_hops = [_hop_row(h) for h in derived.path]
        findings = list(check_service(policy, service))
        doc.findings = [{"code": d.code, "severity": d.severity.value, "message": d.message,
                         "where": str(d.location) if d.location else ""} for d in findings]
        doc.end_to_end = _end_to_end(service, derived, findings)
        doc.assumptions = list(ASSUMPTIONS)
        doc.host_requirements = host_requirements(policy, service)
    rows = [_hop_row(h) for h in derived.interfaces]
    doc.interfaces = rows[:MAX_ROWS]
    doc.interfaces_omitted = max(0, len(rows) - MAX_ROWS)
    doc.charts, doc.charts_omitted = _charts(policy, service, derived)
    return doc


def services_for(policy: Policy, names: list[str] | tuple[str, ...] = ()) -> list[Service]:
    """The services to document: all, or the named ones (unknown names raise KeyError)."""
    if not names:
        return list(policy.services)
    missing = [n for n in names if n not in policy.service_map]
    if missing:
        raise KeyError(", ".join(missing))
    return [policy.service_map[n] for n in names]


__all__ = ["Document", "Kind", "build_document", "services_for"]
