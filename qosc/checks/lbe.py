"""QOS050-QOS053: Less than Best Effort must never hurt best effort (domain.md 3, 4.3).

GÉANT's first trial gave LBE the same priority as BE, and BE lost TCP
throughput under LBE congestion even with a 1% LBE weight; these rules
encode what the final configuration learned.
"""

from __future__ import annotations

from collections.abc import Iterator

from qosc.checks.network import Network
from qosc.diagnostics import Diagnostic, error, warning
from qosc.model import Kind, Policy, Service, rate_percent


def best_effort(policy: Policy) -> Service | None:
    """The service LBE is protected against: the best-effort one, else the default."""
    for s in policy.services:
        if s.kind is Kind.BEST_EFFORT:
            return s
    return policy.default_service


def _share_pct(network: Network, s: Service) -> float | None:
    """The share as a % of the link when it is one on every interface carrying it."""
    if s.queue.share is None:
        return None
    pct = rate_percent(s.queue.share, None)
    if pct is not None:
        return pct
    speeds = {rate for name, rate in network.carried if name == s.name}
    values = {rate_percent(s.queue.share, v) for v in speeds}
    return max(v for v in values if v is not None) if values else None


def check_lbe(policy: Policy, network: Network) -> Iterator[Diagnostic]:
    be = best_effort(policy)
    for s in policy.services:
        if s.kind is not Kind.LBE:
            continue
        sharers = [o.name for o in policy.services if o.queue.shared_with == s.name]
        if s.queue.shared_with or sharers:
            other = s.queue.shared_with or sharers[0]
            yield error("QOS052", f"LBE service '{s.name}' shares a queue with '{other}'; long LBE bursts at the head "
                        "of a shared queue delay the other class", s.where.at("queue.shared-with", "queue"),
                        "give LBE a queue of its own (a small share, e.g. 1%, and priority low)")
            continue
        if be is None or be is s:
            continue
        owner = policy.queue_owner(be)
        if s.queue.strict or (s.queue.priority >= owner.queue.priority and not owner.queue.strict):
            yield error("QOS050", f"LBE service '{s.name}' has priority '{s.queue.priority.label}', not strictly "
                        f"lower than best effort '{owner.name}' ('{owner.queue.priority.label}'); under LBE "
                        "congestion BE loses throughput (GÉANT first trial)", s.where.at("queue.priority", "queue"),
                        f"set {s.name}.queue.priority: low and {owner.name}.queue.priority: high" if
                        owner.queue.priority.label == "low" else f"set {s.name}.queue.priority: low")
        lbe_pct, be_pct = _share_pct(network, s), _share_pct(network, owner)
        if lbe_pct is not None and be_pct is not None and lbe_pct > be_pct:
            yield error("QOS051", f"LBE service '{s.name}' is guaranteed {lbe_pct:g}% of the link, more than best "
                        f"effort '{owner.name}' ({be_pct:g}%)", s.where.at("queue.share", "queue"),
                        "LBE needs only a very small minimum share (1% on QBSS; 0% is legal on Juniper)")
        elif lbe_pct is not None and lbe_pct > 5.0:
            yield warning("QOS053", f"LBE service '{s.name}' is guaranteed {lbe_pct:g}% of the link; a scavenger "
                          "class should get only a very small minimum share", s.where.at("queue.share", "queue"),
                          "1% (QBSS) keeps LBE TCP alive without taking from best effort")


NETWORK_RULES = (check_lbe,)
