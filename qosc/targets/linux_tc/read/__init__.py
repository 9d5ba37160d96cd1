"""Read Linux tc dumps (`tc -j qdisc/class/filter show`) back into behaviour: see parse, interpret."""

from __future__ import annotations

from qosc.targets.linux_tc.read.interpret import interpret
from qosc.targets.linux_tc.read.parse import parse, sniff

READS: tuple[str, ...] = ("json",)

__all__ = ["READS", "interpret", "parse", "sniff"]
