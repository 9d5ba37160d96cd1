"""The policy's classifiers: ordered rules that match packets (or frames) and classify them into a service.

A rule matches on the IP header (prefixes, protocols, ports, the DSCP it arrives with) or on the Ethernet header
(the 802.1p priority of the frame's VLAN tag, source and destination MAC addresses), never on both: an interface
carries routed IP or Ethernet frames (qosc.marking.ethernet_only), and a rule is for one or the other (QOS210).
A rule on the Ethernet header classifies without marking: no DSCP is written into frames that are not routed
(qosc.rulemarks).  Re-exported by qosc.model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from qosc.protocols import families_of, match_families
from qosc.where import NOWHERE, Where

IP_KEYS = ("source", "destination", "protocol", "source-port", "destination-port", "dscp")
"""The match keys on the IP header (policy spelling)."""
ETHERNET_KEYS = ("pcp", "source-mac", "destination-mac")
"""The match keys on the Ethernet header (policy spelling)."""

_MAC = re.compile(r"([0-9a-f]{2})([:-])([0-9a-f]{2})(?:\2[0-9a-f]{2}){4}(?:/([0-9]{1,2}))?", re.ASCII)


def mac_address(text: str) -> str:
    """A MAC address (optionally /prefix length 1-48) in canonical form: six lower-case hex pairs joined by colons,
    `/length` only when shorter than 48, the bits past the length zero.  ValueError on anything else."""
    low = text.strip().lower()
    m = _MAC.fullmatch(low)
    if m is None:
        raise ValueError("not six hex pairs separated by colons (00:0c:0d:00:00:01), with an optional /length")
    length = int(m.group(4)) if m.group(4) is not None else 48
    if not 1 <= length <= 48:
        raise ValueError(f"prefix length {length} is not 1-48")
    value = int(low.split("/")[0].replace(m.group(2), ""), 16)
    if value & ((1 << (48 - length)) - 1):
        raise ValueError(f"bits past the prefix length {length} are set")
    pairs = ":".join(f"{value:012x}"[i:i + 2] for i in range(0, 12, 2))
    return pairs if length == 48 else f"{pairs}/{length}"


@dataclass(frozen=True)
class Rule:
    name: str
    service: str
    sources: tuple[str, ...] = ()
    destinations: tuple[str, ...] = ()
    protocols: tuple[str, ...] = ()
    source_ports: tuple[tuple[int, int], ...] = ()
    destination_ports: tuple[tuple[int, int], ...] = ()
    match_dscp: tuple[int, ...] = ()
    set_dscp: int | None = None
    policer: str | None = None
    description: str | None = None
    where: Where = field(default=NOWHERE, compare=False, repr=False)
    mark: bool = True  # false: classify only, the packets keep their DSCP (schema `mark`; qosc.rulemarks)
    pcp: tuple[int, ...] = ()
    """802.1p priority values 0-7 of the frame's VLAN tag (IEEE 802.1Q PCP)."""
    source_macs: tuple[str, ...] = ()
    """Source MAC addresses, canonical: six lower-case hex pairs with colons, `/length` when shorter than 48."""
    destination_macs: tuple[str, ...] = ()

    @property
    def ethernet(self) -> bool:
        """Matches on the Ethernet header (802.1p priority or MAC addresses)."""
        return bool(self.pcp or self.source_macs or self.destination_macs)

    @property
    def ip(self) -> bool:
        """Matches on the IP header (prefixes, protocols, ports, DSCP)."""
        return bool(self.sources or self.destinations or self.protocols or self.source_ports
                    or self.destination_ports or self.match_dscp)

    @property
    def families(self) -> tuple[str, ...]:
        """IP families the rule can match (qosc.protocols.match_families); empty: it matches nothing (QOS036)."""
        return match_families(self.sources, self.destinations, self.protocols)

    def protocols_in(self, family: str) -> tuple[str, ...]:
        """The rule's protocols that exist in `family` (all of them for the protocols of both families)."""
        return tuple(p for p in self.protocols if family in families_of(p))


@dataclass(frozen=True)
class Classifier:
    name: str
    rules: tuple[Rule, ...]
    description: str | None = None
    where: Where = field(default=NOWHERE, compare=False, repr=False)
    drop_unmatched: bool = False
    """`unmatched: drop`: traffic none of the rules matches is discarded, not given the default service."""


__all__ = ["ETHERNET_KEYS", "IP_KEYS", "Classifier", "Rule", "mac_address"]
