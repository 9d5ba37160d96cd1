"""What an edge classifier rule marks: the one rule every stage (checks, behaviour, targets, SLS) reads it by.

A rule marks its `set-dscp`, else its service's first code point; it marks nothing where it says `mark: false`
(classify only: the packets keep the DSCP they came with, the service picks their queue and the EXP or PCP
written for them) or where its service has no DSCP (a service carried in EXP or PCP alone), or where it matches
the Ethernet header (802.1p priority, MAC addresses: frames that are not routed, whose DSCP is neither read nor
written).
"""

from __future__ import annotations

from qosc.model import Rule, Service


def rule_mark(rule: Rule, service: Service | None) -> int | None:
    """The DSCP `rule` marks (None: it marks nothing); `service`: the rule's service, if defined."""
    if not rule.mark or rule.ethernet:
        return None
    if rule.set_dscp is not None:
        return rule.set_dscp
    return service.mark if service is not None and service.dscp else None


__all__ = ["rule_mark"]
