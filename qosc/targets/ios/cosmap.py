"""Catalyst 6500 PFC QoS: the device-wide CoS maps (DSCP -> CoS, and CoS -> DSCP on CoS-trusting ports).

The PFC queues by CoS (the egress queue and threshold come from the CoS, `wrr-queue cos-map`, pfc.py) and writes
the egress 802.1Q priority from the same DSCP-to-CoS map; a port that trusts CoS derives the internal DSCP of a
frame from its CoS through the CoS-to-DSCP map (catalyst6500 command table source cat-cos).  So:

1. CoS of a service's code points.  A service with PCP values (issue 21) has its DSCPs on the PCP of their drop
   precedence (AF21 on assured's low PCP, AF22/AF23 on its medium/high one).  A service without keeps CoS = the IP
   precedence of its code points; when two services want one CoS (or a PCP service has it), the default service
   keeps it, then the first in policy order (a service sharing the other's queue may share its CoS, never LBE);
   the other gets the lowest CoS no service wants (so LE, DSCP 1, moves off best effort's CoS 0, to CoS 1 when
   free).  No free CoS left: QOS126 at the service's dscp.  Code points no service claims take the default
   service's CoS, so ``mls qos map dscp-cos`` covers all 64.
2. CoS to DSCP (written where a port trusts CoS): each PCP value becomes the DSCP its service marks at the value's
   drop precedence, so a frame is queued by its service and leaves with the service's PCP of that precedence (PCP 7
   of a service whose mark is 6 leaves as 6); values of no service become the default service's DSCP.  A service
   without DSCP gets an internal one: the class selector of its mark (PCP 6 -> CS6), or the first code point no
   service declares, mapped to its mark; on DSCP-trusting ports IP packets of that DSCP join it (QOS194).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from qosc import dscp as dscp_mod
from qosc.marking import dscp_mark
from qosc.model import Domain, Interface, Kind, Policy, Role, Service
from qosc.targets.ios.common import Findings
from qosc.targets.ios.platform import CatalystPlatform


def assign_cos(policy: Policy, services: tuple[Service, ...], found: Findings) -> dict[str, dict[int, int]]:
    """service name -> {DSCP: CoS}, per rule 1."""
    default = policy.default_service
    result: dict[str, dict[int, int]] = {s.name: {} for s in services}
    pcp_owner: dict[int, Service] = {}
    for s in services:
        for v in s.codes(Domain.PCP):
            pcp_owner.setdefault(v, s)
        if s.pcp:
            for x in s.dscp:
                value = s.mark_in(Domain.PCP, dscp_mod.drop_precedence(x))
                result[s.name][x] = value if value is not None else x >> 3
    plain = [s for s in services if not s.pcp]
    order = sorted(plain, key=lambda s: (s is not default, policy.services.index(s)))
    wanted = {x >> 3 for s in plain for x in s.dscp} | set(pcp_owner)
    owner: dict[int, Service] = dict(pcp_owner)
    losers: list[tuple[Service, int, Service]] = []
    for s in order:
        for p in sorted({x >> 3 for x in s.dscp}):
            other = owner.setdefault(p, s)
            same_queue = policy.queue_owner(other) is policy.queue_owner(s)
            if other is s or (same_queue and Kind.LBE not in (s.kind, other.kind)):
                result[s.name].update({x: p for x in s.dscp if x >> 3 == p})
            else:
                losers.append((s, p, other))
    free = [c for c in range(8) if c not in wanted]
    for s, p, other in losers:
        if not free:
            lbe = " (LBE must never share a queue with another class)" if Kind.LBE in (s.kind, other.kind) else ""
            found.error("QOS126", f"service '{s.name}' has IP precedence {p} like service '{other.name}', and no CoS "
                        f"value is left to give it a queue of its own on catalyst6500 (egress queues are chosen by "
                        f"CoS){lbe}", s.where.at("dscp"), "use code points of a precedence no other service uses")
            continue
        cos = free.pop(0)
        result[s.name].update({x: cos for x in s.dscp if x >> 3 == p})
    return result


def default_cos(policy: Policy, cos: Mapping[str, Mapping[int, int]]) -> int:
    default = policy.default_service
    if default is not None and cos.get(default.name):
        return min(cos[default.name].values())
    if default is not None and default.codes(Domain.PCP):
        return default.codes(Domain.PCP)[0]
    return 0


def dscp_to_cos(policy: Policy, services: tuple[Service, ...], cos: Mapping[str, Mapping[int, int]]) -> dict[int, int]:
    """All 64 code points -> CoS: claimed ones by their service, the rest as the default service."""
    out = dict.fromkeys(range(64), default_cos(policy, cos))
    for s in services:
        out.update(cos.get(s.name, {}))
    return out


def cos_claimants(services: tuple[Service, ...], cos: Mapping[str, Mapping[int, int]]) -> dict[int, Service]:
    """CoS -> the service it was given to (first claimant wins among queue sharers), PCP values included."""
    out: dict[int, Service] = {}
    for s in services:
        for c in [*cos.get(s.name, {}).values(), *s.codes(Domain.PCP)]:
            out.setdefault(c, s)
    return out


def cos_to_dscp(policy: Policy, services: tuple[Service, ...], to_cos: dict[int, int],
                found: Findings) -> list[int]:
    """The eight DSCPs of `mls qos map cos-dscp` (rule 2); `to_cos` gains the internal DSCPs of services without
    DSCP."""
    default = policy.default_service
    fallback = dscp_mark(default.dscp) if default is not None and default.dscp else 0
    out = [fallback if fallback is not None else 0] * 8
    declared = {x for s in policy.services for x in s.dscp}
    internal: dict[tuple[str, int], int] = {}
    done: set[int] = set()
    for s in services:
        for value, prec in s.marking(Domain.PCP).values:
            if value in done:
                continue
            done.add(value)
            mark = s.mark_in(Domain.PCP, prec)
            mark = value if mark is None else mark
            if s.dscp:
                out[value] = dscp_mark(s.dscp, prec) or s.dscp[0]
                continue
            if (s.name, mark) not in internal:
                chosen = next((x for x in [mark << 3, *range(64)] if x not in declared), None)
                if chosen is None:
                    continue
                declared.add(chosen)
                internal[(s.name, mark)] = chosen
                to_cos[chosen] = mark
                found.warning("QOS194", f"service '{s.name}' has no DSCP, but the PFC queues CoS-trusted frames by "
                              f"an internal DSCP: its PCP {mark} takes DSCP {dscp_mod.name(chosen)} ({chosen}), so "
                              "IP packets of that DSCP on DSCP-trusting ports of the switch are queued as it too",
                              s.where.at("pcp", "dscp"), f"give '{s.name}' a DSCP (e.g. {dscp_mod.name(chosen)})")
            out[value] = internal[(s.name, mark)]
    return out


def port_trust(iface: Interface, device: str, platform: CatalystPlatform, found: Findings) -> list[list[Any]]:
    """The trust command of a port: `mls qos trust dscp` where it trusts DSCP (every core, transparent and
    DSCP-trusting edge port, as before issue 21), `mls qos trust cos` where it trusts PCP alone; the PFC trusts one
    marking a port, so a port that trusts both trusts DSCP (QOS194).  MPLS on a PFC without MPLS QoS: QOS188."""
    mpls = iface.mpls or iface.impose or Domain.EXP in iface.trust or Domain.EXP in iface.rewrite
    if mpls and not platform.mpls_qos:
        found.error("QOS188", f"{device}:{iface.name} carries MPLS, but {platform.name}'s PFC/PFC2 has no MPLS "
                    "QoS (EXP classification, marking and imposition are PFC3B/PFC3BXL features of 12.2SX)",
                    iface.where.at("encapsulation", "impose", "trust"),
                    "carry MPLS on a router (ios-mqc), or leave mpls out of the switch's interfaces")
    dscp, pcp = Domain.DSCP in iface.trust, Domain.PCP in iface.trust
    if dscp and pcp:
        found.warning("QOS194", f"{device}:{iface.name} trusts DSCP and PCP, but a PFC port trusts one marking: "
                      "qosc writes `mls qos trust dscp`, so tagged frames are classified by their DSCP, not their "
                      "PCP", iface.where.at("trust", "encapsulation"), "trust: pcp (or dscp) alone on this port")
    if pcp and not dscp:
        return [["mls", "qos", "trust", "cos"]]
    if iface.role is not Role.EDGE or dscp:
        return [["mls", "qos", "trust", "dscp"]]
    return []
