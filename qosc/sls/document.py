"""One SLS per service as plain data (TEQUILA parameters, domain.md 5), ready for a template.

Sections: identity and scope, flow identification, traffic envelope and
conformance test, excess treatment, performance guarantees (declared targets
and derived bounds, kept apart), service schedule, reliability.  An LBE SLS
states only its code points, the DSCP-transparency rule and the minimum
share where one is configured: LBE is not parameterised.

Values stay raw strings here; the renderers escape them for their format.

This module is the outline: the Document and the order its sections are filled
in.  The table rows and sentences come from qosc.sls.rows, the bandwidth charts
from qosc.sls.charts; their public names are importable from here as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from qosc import dscp as dscp_mod
from qosc.checks.sls import check_service
from qosc.model import Domain, Kind, Policy, Service
from qosc.sls.bounds import carrying, derive, fmt_rate, fmt_share, fmt_size, fmt_time, is_parameterised
from qosc.sls.charts import CHART_SCALE as CHART_SCALE
from qosc.sls.charts import CHART_X0 as CHART_X0
from qosc.sls.charts import PALETTE as PALETTE
from qosc.sls.charts import Chart, service_charts
from qosc.sls.rows import ALGORITHMS as ALGORITHMS
from qosc.sls.rows import (
    MAX_ROWS,
    action_text,
    carried_in,
    declared_rows,
    dscp_text,
    end_to_end_rows,
    hop_row,
    host_requirements,
    marking_rows,
    policer_row,
    rule_rows,
)
from qosc.units import Percent

ASSUMPTIONS = (
    ("b is the burst the edge policer lets into the queue; the bound assumes the aggregate reaching each hop "
     "is no burstier than at the edge (one ingress; with n ingress points feeding a hop, b grows n-fold)."),
    ("C is the egress link rate (the shaper when one is configured); MTU is one packet already in "
     "transmission, which strict priority cannot preempt."),
    "Propagation and serialisation delays of the links are not included: add them for the one-way delay.",
)


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
    markings: list[str] = field(default_factory=list)
    """The service's values in each other marking domain the network carries (MPLS EXP, 802.1p PCP)."""
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
    sized_by: list[str] = field(default_factory=list)
    """Targets whose own queue sizing gives the delay bound at some hop (qosc.sizing)."""


def build_document(policy: Policy, service: Service) -> Document:
    sls = service.sls
    doc = Document(
        policy=policy.name, policy_description=policy.description, source=policy.source, service=service.name,
        kind=service.kind.value, description=service.description, parameterised=is_parameterised(service),
        customer=sls.customer if sls else None, ingress=list(sls.ingress) if sls else [],
        egress=list(sls.egress) if sls else [], path=list(sls.path) if sls else [],
        dscp=[dscp_text(c) for c in service.dscp], default=service.default,
    )
    doc.markings = marking_rows(policy, service)
    derived = derive(policy, service)
    if not doc.parameterised:
        for domain in (Domain.EXP, Domain.PCP):
            for value in service.codes(domain) if carried_in(policy, domain) else ():
                doc.transparency.append(f"{domain.label} {value} must never be rewritten to best effort's value "
                                        f"on the {'MPLS' if domain is Domain.EXP else 'VLAN'} path")
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
        doc.rules = rule_rows(policy, service)
        doc.policers = [policer_row(policy, service, p) for p in derived.envelope.policers]
        env = derived.envelope
        doc.envelope = {
            "rate": fmt_rate(env.rate) if env.rate is not None else None,
            "burst": fmt_size(env.burst) if env.burst is not None else None,
            "formula": env.formula, "note": env.note,
        }
        for p in derived.envelope.policers:
            for colour, action in (("exceeding", p.exceed), ("violating", p.violate)):
                if action is not None:
                    doc.excess.append(f"{colour} traffic ({p.name}): {action_text(policy, service, action)}")
        q = policy.queue_owner(service).queue
        if q.rate_cap is not None:
            doc.excess.append(f"queue rate-cap {fmt_share(q.rate_cap)} of each link: traffic above it is dropped or "
                              "delayed at the hop (shaping)")
        elif q.uncapped:
            doc.excess.append("no queue rate-cap (rate-cap: none): the strict-priority queue is served first whatever "
                              "it carries, and nothing at the hop limits it (QOS046)")
        if q.ceiling is not None:
            doc.excess.append(f"borrowing limited to a ceiling of {fmt_share(q.ceiling)} (shaping)")
        shapers = sorted({f"{d.name}:{i.name} shaped to {fmt_rate(i.shape)}" for d, i in carrying(policy, service)
                          if i.shape is not None})
        doc.excess.extend(shapers[:8])
        if not doc.excess:
            doc.excess.append("no policer and no shaper: traffic is not conditioned at the edge")
        doc.declared = declared_rows(service)
        if sls is not None:
            doc.quantile = (f"{sls.quantile} quantile" if sls.quantile is not None else
                            "hard bounds (no quantile declared)") if (sls.delay_us or sls.ipdv_us) else None
            doc.measurement = sls.measurement
            doc.schedule = sls.schedule
            doc.availability = str(sls.availability) if sls.availability is not None else None
            doc.repair_time = fmt_time(sls.repair_time_us) if sls.repair_time_us is not None else None
        doc.path_hops = [hop_row(h) for h in derived.path]
        findings = list(check_service(policy, service))
        doc.findings = [{"code": d.code, "severity": d.severity.value, "message": d.message,
                         "where": str(d.location) if d.location else ""} for d in findings]
        doc.end_to_end = end_to_end_rows(service, derived, findings)
        doc.assumptions = list(ASSUMPTIONS)
        doc.host_requirements = host_requirements(policy, service)
    doc.sized_by = sorted({h.sized_by for h in (*derived.path, *derived.interfaces) if h.sized_by})
    rows = [hop_row(h) for h in derived.interfaces]
    doc.interfaces = rows[:MAX_ROWS]
    doc.interfaces_omitted = max(0, len(rows) - MAX_ROWS)
    doc.charts, doc.charts_omitted = service_charts(policy, service, derived)
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
