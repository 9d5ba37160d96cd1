"""QOS213-QOS214: a classifier's `unmatched: drop` (traffic none of its rules matches is discarded).

What a classifier's rules leave is, by default, the interface's: the default service at an edge that trusts nothing,
the interface's classification where it trusts a marking (DSCP, EXP or 802.1p).  `unmatched: drop` discards it
instead, as a JUNOS filter that ends with no catch-all term does (Junos OS Routing Policies, Firewall Filters and
Traffic Policers User Guide, release 21.4, "How Firewall Filters Evaluate Packets": a packet that matches no term is
implicitly discarded).  On an interface that trusts a marking it would discard the trusted traffic (QOS213); where
it is used, the policy says traffic is dropped, which a reader should see (QOS214, once per classifier).
"""

from __future__ import annotations

from collections.abc import Iterator

from qosc.checks.network import Scratch
from qosc.diagnostics import Diagnostic, error, warning
from qosc.model import Device, Policy


def check_dropped(policy: Policy) -> Iterator[Diagnostic]:
    """QOS214: a classifier that discards what its rules do not match."""
    for c in policy.classifiers:
        if c.drop_unmatched:
            yield warning("QOS214", f"classifier '{c.name}' discards every packet none of its "
                          f"{len(c.rules)} rule(s) matches (unmatched: drop)", c.where.at("unmatched"),
                          "remove unmatched: drop to give that traffic the interface's default service")


def check_trust(scratch: Scratch, d: Device) -> Iterator[Diagnostic]:
    """QOS213: `unmatched: drop` on an interface that trusts a marking (the trusted traffic is what the rules
    leave: it would be discarded)."""
    for i in d.interfaces:
        classifier = scratch.policy.classifier_map.get(i.classifier or "")
        if classifier is None or not classifier.drop_unmatched or not i.trust:
            continue
        name = f"{d.name}:{i.name}" + (f" unit {i.unit}" if i.unit else "")
        yield error("QOS213", f"classifier '{classifier.name}' discards what its rules do not match (unmatched: "
                    f"drop), but {name} trusts {', '.join(sorted(t.value for t in i.trust))}: the traffic it trusts "
                    "is what the rules leave", classifier.where.at("unmatched"),
                    "set trust: none on the interface, or remove unmatched: drop")


RULES = (check_dropped,)
DEVICE_RULES = (check_trust,)
