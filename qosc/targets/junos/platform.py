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
    strict_priority: str | None
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
    statement_sources: tuple[str, ...] = ()
