"""The rows and sentences of the parameterised SLS sections: flow rules, policers, hops, declared and derived bounds.

One function per table of the document (qosc.sls.document assembles them), so that module stays the outline of
the SLS and this one the wording.  Values stay raw strings; the renderers escape them.
"""

from __future__ import annotations

from typing import Any

from qosc import dscp as dscp_mod
from qosc.diagnostics import Diagnostic
from qosc.hosts import service_requirements
from qosc.model import Action, Domain, Policer, Policy, Service
from qosc.rulemarks import rule_mark
from qosc.sls.bounds import Derived, Hop, fmt_rate, fmt_size, fmt_time, service_of_dscp

MAX_ROWS = 64
"""Per-interface rows and charts listed in full; a larger network is summarised."""

ALGORITHMS = {
    "single-rate": "single-rate two-colour token bucket (CIR, CBS)",
    "srtcm": "single-rate three-colour marker, srTCM (RFC 2697: CIR, CBS, EBS)",
    "trtcm": "two-rate three-colour marker, trTCM (RFC 2698: CIR, CBS, PIR, PBS)",
}


def dscp_text(code: int) -> str:
    """A code point as 'EF (46)', or the bare number when it has no name."""
    name = dscp_mod.name(code)
    return f"{name} ({code})" if name != str(code) else str(code)


def action_text(policy: Policy, service: Service, action: Action | None) -> str:
    """What a policer does to a packet of one colour, and where a remark moves it."""
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


def policer_row(policy: Policy, service: Service, p: Policer) -> dict[str, Any]:
    """One edge policer of the conformance test: algorithm, mode, parameters and an action per colour."""
    rows = [("CIR", fmt_rate(p.cir)), ("CBS", fmt_size(p.cbs))]
    if p.ebs is not None:
        rows.append(("EBS", fmt_size(p.ebs)))
    if p.pir is not None:
        rows.append(("PIR", fmt_rate(p.pir)))
    if p.pbs is not None:
        rows.append(("PBS", fmt_size(p.pbs)))
    names = ("conform (green)", "exceed (yellow)", "violate (red)") if p.colours == 3 else (
        "conform", "exceed", "")
    actions = [(names[0], action_text(policy, service, p.conform)), (names[1], action_text(policy, service, p.exceed))]
    if p.colours == 3:
        actions.append((names[2], action_text(policy, service, p.violate)))
    return {"name": p.name, "description": p.description, "algorithm": ALGORITHMS[p.algorithm],
            "mode": "colour-aware" if p.color_aware else "colour-blind", "params": rows, "actions": actions}


def rule_rows(policy: Policy, service: Service) -> list[dict[str, Any]]:
    """Flow identification: every classifier rule that selects the service, and where it is applied."""
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
                "mark": dscp_text(mark) if (mark := rule_mark(r, service)) is not None
                else "none: the packets keep their DSCP" if not r.mark
                else "none: its service has no DSCP (carried in EXP or PCP)",
                "policer": r.policer or service.policer or "-",
                "applied": ", ".join(where[:8]) + (f" and {len(where) - 8} more" if len(where) > 8 else "")
                if where else "no interface",
            })
    return out


def hop_row(h: Hop) -> dict[str, Any]:
    """One hop or interface: link, scheduling, minimum rate and delay bound (or why there is none)."""
    if not h.found:
        return {"hop": h.label, "link": "-", "scheduling": "-", "rate": "unknown interface", "delay": "-"}
    link = (fmt_rate(h.link_rate) + (" (shaped)" if h.shaped else "")) if h.link_rate else "unknown speed"
    rate = h.rate_formula or h.rate_note or "-"
    if h.rate_formula and h.rate_note:
        rate += f"; {h.rate_note}"
    delay = h.delay_formula or (f"not derived: {h.delay_note}" if h.delay_note else "-")
    return {"hop": h.label, "link": link, "scheduling": h.scheduling or "not scheduled", "rate": rate,
            "delay": delay}


def declared_rows(service: Service) -> list[dict[str, str]]:
    """The performance targets the policy declares (sls.rate, delay, ipdv, loss)."""
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


def end_to_end_rows(service: Service, derived: Derived, findings: list[Diagnostic]) -> list[dict[str, str]]:
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
            per_hop = ("Σ per-hop bounds" if any(h.sized_by for h in derived.delay_hops)
                       else "Σ (b + MTU) × 8 / C")
            for label, bound, code in (("delay", sls.delay_us if sls else None, "QOS162"),
                                       ("IPDV", sls.ipdv_us if sls else None, "QOS166")):
                verdict = "-"
                if bound is not None:
                    verdict = f"declared {fmt_time(bound)}: " + (f"NOT supported ({code})" if code in codes
                                                                    else "supported" if derived.path_delay_complete
                                                                    else "not contradicted on the bounded hops")
                rows.append({"bound": f"queueing {label} bound, sum along the path{scope}",
                             "formula": f"{per_hop} = {derived.path_delay_formula}", "verdict": verdict})
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


_DOMAIN_TEXT = {Domain.EXP: "MPLS EXP (traffic class, RFC 3270 / RFC 5462)", Domain.PCP: "802.1p PCP (VLAN priority)"}
_PRECEDENCE = {1: "in contract", 2: "drop precedence medium", 3: "drop precedence high"}


def carried_in(policy: Policy, domain: Domain) -> bool:
    """Whether some interface of the network classifies, rewrites or imposes the domain."""
    return any(domain in i.trust or domain in i.rewrite or (domain is Domain.EXP and i.impose)
               for d in policy.devices for i in d.interfaces)


def marking_rows(policy: Policy, service: Service) -> list[str]:
    """The service's values in each 3-bit domain the network carries, with their drop precedence; a service
    without one is said to travel as the default service there."""
    out = []
    for domain in (Domain.EXP, Domain.PCP):
        if not carried_in(policy, domain):
            continue
        values = service.marking(domain).values
        if values:
            listed = ", ".join(f"{v} ({_PRECEDENCE[p]})" for v, p in values)
            out.append(f"{_DOMAIN_TEXT[domain]}: {listed} (the first is imposed or rewritten)")
        elif service.default:
            out.append(f"{_DOMAIN_TEXT[domain]}: every value no other service claims (0 is written)")
        else:
            out.append(f"{_DOMAIN_TEXT[domain]}: none: on those interfaces it travels as the default service")
    return out
