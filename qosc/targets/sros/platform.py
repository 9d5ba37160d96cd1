"""Typed SR OS platform data (platforms/sros-*.json): what the lowering needs to know about a box.

Each fact carries its source in the file (`source`, `sources`).  The nokia-conf
YANG is one model for every SR OS box; what differs between the 7750 SR and
the 7250 IXR is stated here, never decided by an if on the platform's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from qosc.targets.platform import Platform


@dataclass(frozen=True, kw_only=True)
class SrosPlatform(Platform):
    forwarding_classes: tuple[str, ...]
    """The fixed forwarding classes, in Nokia's order (be l2 af l1 h2 ef h1 nc)."""
    fc_preference: Mapping[str, tuple[str, ...]]
    """Service kind -> the forwarding classes it takes, first free first ('default' for the default service)."""
    network_queue: Mapping[str, int]
    """Forwarding class -> network-queue (and sap-egress) queue number: the default network-queue policy's."""
    queue_types: Mapping[str, str]
    """Policy queue priority label -> queue-type (expedited is served before best-effort, within and above CIR)."""
    slopes: tuple[tuple[str, str], ...]
    """(profile, slope) pairs of an egress pool's slope policy, most protected first: a class's profile picks the
    slope its packets meet in the pool."""
    sap_egress_wred: str | None
    """The wred-queue mode of sap-egress queues (per-queue WRED at the edge), or None where the box has none."""
    rate_kbps: tuple[int, int]
    """Range of queue and policer rates in kbit/s (nokia-conf: 1..6400000000)."""
