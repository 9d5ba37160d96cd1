"""SR OS profiles as drop precedences: the one reading the lowering and the reader share.

SR OS carries a packet's drop precedence as its profile (in, out, exceed,
inplus; nokia-types-qos typedef profile), which is also what picks the slope
of the egress pool the packet meets (plan.py gives each of a device's drop
curves a profile).  So within one forwarding class the profiles it uses,
most protected first (inplus, in, out, exceed), are its drop precedences
1, 2, 3: the class's most protected profile is its precedence 1 whatever
slope that is.  A dot1p entry's profile `de` takes the profile from the DE
bit (DE 0 in, DE 1 out: nokia-types-qos typedef profile-de) and reads as in
(the PCP with the DE bit clear, as the behaviour model reads 802.1ad).

Marking at egress has two values per class: the in-profile one (for in and
inplus) and the out-of-profile one (for out and exceed): inplus traffic is
marked as in-profile, exceed as out-of-profile (Nokia 7750 SR Quality of
Service Guide 22.5.R1, 'Creating a network QoS policy': dot1p, DSCP and LSP
EXP).
Traffic a SAP sends into the network is in-profile up to the CIR of its
policer and out-of-profile above it, as a policy's conform (drop precedence 1)
and exceed (2) say.
"""

from __future__ import annotations

from collections.abc import Iterable

ORDER = ("inplus", "in", "out", "exceed")
"""Profiles, most protected first."""
IN_PROFILE = frozenset({"inplus", "in"})
"""Profiles marked with the in-profile value at egress (the others with the out-of-profile one)."""
PRIORITIES = ("high", "auto", "low")
"""sap-ingress enqueuing priorities, the one least likely to be discarded first (an absent one reads as auto)."""


def profile_of(written: str) -> str:
    """The profile a classification entry gives (a dot1p entry's `de`: that of DE clear, in)."""
    return "in" if written == "de" else written


def precedences(profiles: Iterable[str]) -> dict[str, int]:
    """Drop precedence 1..3 of each profile one forwarding class uses: their rank, most protected first."""
    used = sorted({profile_of(p) for p in profiles if profile_of(p) in ORDER}, key=ORDER.index)
    return {p: min(i + 1, 3) for i, p in enumerate(used)}


def priority_precedences(priorities: Iterable[str | None]) -> dict[str, int]:
    """Drop precedence of each sap-ingress enqueuing priority one forwarding class uses (high before low)."""
    used = sorted({p or "auto" for p in priorities}, key=lambda p: PRIORITIES.index(p) if p in PRIORITIES else 1)
    return {p: min(i + 1, 3) for i, p in enumerate(used)}
