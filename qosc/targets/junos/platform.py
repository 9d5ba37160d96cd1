"""Typed JUNOS platform data (platforms/junos-*.json): what the lowering needs to know about a box.

Each fact carries its source in the file (`source`, `statement_sources`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from qosc.targets.platform import Platform, Range


@dataclass(frozen=True, kw_only=True)
class JunosPlatform(Platform):
    loss_priorities: tuple[str, ...]
    """The loss priorities the box has, lowest first."""
    precedence_loss_priority: Mapping[int, str]
    """AF drop precedence (1..3) -> loss priority."""
    spread_loss_priorities: tuple[str, ...]
    """Loss priorities a service without AF code points spreads its code points over (so each survives rewrite)."""
    scheduler_priorities: Mapping[str, str]
    """Policy queue priority label -> scheduler `priority` (see `priority_mapping`)."""
    priority_mapping: str = ""
    """What the policy's priority means on this platform (domain.md 4.3), and its source."""
    excess_priorities: Mapping[str, str] = field(default_factory=dict)
    """Policy queue priority label -> scheduler `excess-priority` (empty: the platform has no separate one)."""
    strict_priorities: tuple[str, ...]
    """The scheduler `priority` of an interface's strict-priority services, in the policy's order (the first
    strict service of an interface takes the first); empty where the box has no strict-priority queue.  Its
    length is `strict_per_interface`.  Source: `sources["strict_priorities"]`."""
    strict_transmit_rate: bool = True
    """Whether a strict-priority scheduler may have a transmit-rate (False: a strict service's share is refused,
    QOS113).  Source: `sources["strict_transmit_rate"]` where False."""
    queue_shaping: bool
    three_color_policers: bool
    colour_loss_priority: Mapping[str, str] | None
    buffer_temporal_us: Range | None
    dscp_aliases: Mapping[str, int]
    """JUNOS's built-in DSCP aliases."""
    default_classifier_non_best_effort: tuple[int, ...]
    """Code points JUNOS's default classifier sends elsewhere than best-effort."""
    transmit_rate_bps: Range
    per_unit_scheduler: bool = False
    """Whether the box schedules logical units separately (`per-unit-scheduler` on the physical interface)."""
    shaping_burst_bytes: Range | None = None
    """The range of `shaping-rate ... burst-size <bytes>` in a scheduler; None where the platform has no
    per-queue burst-size (qosc then writes none).  Source: `sources["shaping_burst_bytes"]`."""
    delay_buffer_us: tuple[tuple[int, int], ...] = ()
    """The port delay buffer that `buffer-size percent` shares, as time at the port rate: [from_bps, us] steps,
    the last whose from_bps the port rate reaches applies.  Empty where Juniper documents no figure for the
    platform (its percentages are then not sized, and the SLS keeps the generic formula for them).  Source:
    `sources["delay_buffer_us"]`."""
    dei: bool = False
    """Whether the box classifies and rewrites the 802.1Q drop eligible indicator beside the PCP (`ieee-802.1ad`
    classifiers and rewrite rules, 4-bit code points).  Source: `sources["dei"]`."""
    dscp_into_lsp: bool = False
    """Whether a DSCP rewrite rule can be bound `protocol mpls`, writing the DSCP of IP packets that enter an LSP
    on the unit (independently of the label's EXP).  Source: `sources["dscp_into_lsp"]`."""
    statement_sources: tuple[str, ...] = ()

    def delay_buffer_at(self, port_bps: int) -> int | None:
        """The default delay buffer (us) of a port of this rate (port shaper, else speed), if documented."""
        found = None
        for from_bps, us in self.delay_buffer_us:
            if port_bps >= from_bps:
                found = us
        return found
